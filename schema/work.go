package schema

import (
	"github.com/duet-cli/duet/internal/jsonw"
)

// jobStatuses are the states of an async command's job, in the job
// descriptor's status.
var jobStatuses = []string{"running", "complete", "failed", "cancelled"}

// JobDescriptor returns the JSON Schema of the job descriptor an async
// command answers with (see [Meta.Async]): the CLI Agent Spec's, which
// `--schema` shows as job_descriptor_schema. Duet builds the descriptor, so
// an async command cannot lack it. The schema is shared: do not modify it.
func JobDescriptor() Schema { return jobDescriptor.get(buildJobDescriptor) }

var jobDescriptor lazy[Schema]

func buildJobDescriptor() Schema {
	str := map[string]any{"type": "string"}
	integer := map[string]any{"type": "integer"}
	return Schema{
		"type":     "object",
		"required": []string{"job_id", "status", "terminal", "status_command", "cancel_command", "poll_interval_ms", "timeout_ms"},
		"properties": map[string]any{
			"job_id":           str,
			"status":           map[string]any{"type": "string", "enum": jobStatuses},
			"terminal":         map[string]any{"type": "boolean"},
			"status_command":   str,
			"cancel_command":   str,
			"poll_interval_ms": integer,
			"timeout_ms":       integer,
		},
	}
}

// work fills the document's long-work members from c's declarations.
func (d *Doc) work(c *Command) {
	d.Steps = c.Meta.Steps
	d.Resumable = len(c.Meta.Steps) > 0
	d.RollbackAvailable = c.Meta.Rollback && len(c.Meta.Steps) > 0
	d.Async = c.Meta.Async
	if c.Meta.Async {
		d.JobDescriptorSchema = JobDescriptor()
	}
	if i := c.Meta.Interruption; i != nil {
		d.Interruption = &InterruptionEntry{Detach: i.Detach, Resume: i.Resume,
			IdleTimeoutMS: i.IdleTimeout.Milliseconds(), MaxLifetimeMS: i.MaxLifetime.Milliseconds()}
	}
}

// InterruptionEntry is the spec's interruption declaration of a command
// (REQ-C-033): how its work outlives the caller's call budget.
type InterruptionEntry struct {
	Detach        bool  `json:"detach"`
	Resume        bool  `json:"resume"`
	IdleTimeoutMS int64 `json:"idle_timeout_ms,omitempty"`
	MaxLifetimeMS int64 `json:"max_lifetime_ms,omitempty"`
}

// appendWork appends the long-work members, as encoding/json would.
func (d Doc) appendWork(b []byte) ([]byte, error) {
	if len(d.Steps) > 0 {
		b = append(b, `,"steps":`...)
		b = jsonw.Strings(b, d.Steps)
	}
	if d.Resumable {
		b = append(b, `,"resumable":true`...)
	}
	if d.RollbackAvailable {
		b = append(b, `,"rollback_available":true`...)
	}
	if d.Async {
		b = append(b, `,"async":true`...)
	}
	if len(d.JobDescriptorSchema) > 0 {
		var err error
		if b, err = jsonw.Map(append(b, `,"job_descriptor_schema":`...), d.JobDescriptorSchema); err != nil {
			return b, err
		}
	}
	if i := d.Interruption; i != nil {
		b = append(b, `,"interruption":{"detach":`...)
		b = jsonw.Bool(b, i.Detach)
		b = append(b, `,"resume":`...)
		b = jsonw.Bool(b, i.Resume)
		if i.IdleTimeoutMS != 0 {
			b = jsonw.Int(append(b, `,"idle_timeout_ms":`...), i.IdleTimeoutMS)
		}
		if i.MaxLifetimeMS != 0 {
			b = jsonw.Int(append(b, `,"max_lifetime_ms":`...), i.MaxLifetimeMS)
		}
		b = append(b, '}')
	}
	return b, nil
}
