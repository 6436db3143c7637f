package state

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Run statuses.
const (
	Running   = "running"
	Succeeded = "succeeded"
	Failed    = "failed"
	Cancelled = "cancelled"
)

// Run is what is known of a run: each event of runs.jsonl carries part of
// it, and List folds them — the start sets who and what, later updates and
// the finalize overlay what became known. Optional fields are omitted when
// unknown.
type Run struct {
	ID               string   `json:"id"`
	SessionID        string   `json:"session_id,omitempty"`
	Model            string   `json:"model,omitempty"`
	Agent            string   `json:"agent,omitempty"`
	Skills           []string `json:"skills,omitempty"`
	Harness          string   `json:"harness,omitempty"`
	HarnessSessionID string   `json:"harness_session_id,omitempty"`
	Continues        string   `json:"continues,omitempty"` // the run whose conversation this one continues
	Status           string   `json:"status,omitempty"`
	StartedAt        string   `json:"started_at,omitempty"`
	Prompt           string   `json:"prompt,omitempty"`
	ExitCode         *int     `json:"exit_code,omitempty"`
	Error            string   `json:"error,omitempty"`
	DurationSecs     *float64 `json:"duration_secs,omitempty"`
	TotalCostUSD     *float64 `json:"total_cost_usd,omitempty"`
	InputTokens      *int64   `json:"input_tokens,omitempty"`
	OutputTokens     *int64   `json:"output_tokens,omitempty"`
	CachedTokens     *int64   `json:"cached_tokens,omitempty"`
	FinishedAt       string   `json:"finished_at,omitempty"`
}

// Event is one line of runs.jsonl: its version, its kind, and the part of
// the run it records.
type Event struct {
	V     int    `json:"v"`
	Event string `json:"event"` // start, update or finalize
	Run
}

// Runs is one space's run log.
type Runs struct{ Dir string } // the space directory

func (rs Runs) lock() string { return filepath.Join(rs.Dir, "runs.lock") }

// LogPath is the space's run log, runs.jsonl.
func (rs Runs) LogPath() string { return filepath.Join(rs.Dir, "runs.jsonl") }

// ArtifactDir is runs/<id>/ of the space.
func (rs Runs) ArtifactDir(id string) string { return filepath.Join(rs.Dir, "runs", id) }

// LockPath is runs/<id>/run.lock, the run's liveness lock: held by the
// process that supervises the run until it has recorded how the run ended.
func (rs Runs) LockPath(id string) string { return filepath.Join(rs.ArtifactDir(id), "run.lock") }

// Start allocates the next run id, creates the run's artifact directory,
// takes the run's liveness lock and appends the start event recording r
// (status running unless r says otherwise), all under runs.lock: no reader
// ever sees a running run whose lock nobody holds, unless its supervisor
// died. The caller holds the lock until the run is finalized, or hands it to
// the process that will.
func (rs Runs) Start(ctx context.Context, r Run) (string, *Hold, error) {
	var hold *Hold
	err := withLock(ctx, rs.lock(), func() error {
		if err := repair(rs.LogPath()); err != nil {
			return err
		}
		if err := rs.oneTurn(r); err != nil {
			return err
		}
		n, err := rs.lastID()
		if err != nil {
			return err
		}
		r.ID = "r" + strconv.Itoa(n+1)
		r.Status = cmp.Or(r.Status, Running)
		if err := claimDir(rs.ArtifactDir(r.ID)); err != nil {
			return err
		}
		if hold, err = Acquire(rs.LockPath(r.ID)); err != nil {
			return err
		}
		if err := appendLine(rs.LogPath(), Event{V: 1, Event: "start", Run: r}); err != nil {
			hold.Release()
			return err
		}
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	return r.ID, hold, nil
}

// TurnUnderWayError is Start's refusal of a second turn of a conversation
// while one runs: a harness session takes one turn at a time.
type TurnUnderWayError struct {
	Run string // the turn under way
}

func (e *TurnUnderWayError) Error() string {
	return "run " + e.Run + " is a turn of this conversation under way"
}

// oneTurn refuses r, a turn of a conversation (it continues a run, or
// resumes a harness session), while another turn of it runs: checked under
// runs.lock, so that twelve `run continue r1` at once start one turn, not
// twelve.
func (rs Runs) oneTurn(r Run) error {
	if r.Continues == "" && r.HarnessSessionID == "" {
		return nil // a new conversation, or a fork of one
	}
	all, _, err := rs.List()
	if err != nil {
		return err
	}
	for _, o := range all {
		same := r.Continues != "" && o.Continues == r.Continues || r.HarnessSessionID != "" && o.HarnessSessionID == r.HarnessSessionID
		if !same || o.Status != Running {
			continue
		}
		if alive, err := rs.Alive(o.ID); err == nil && alive {
			return &TurnUnderWayError{Run: o.ID}
		}
	}
	return nil
}

// Alive reports whether the run's supervisor is still at work.
func (rs Runs) Alive(id string) (bool, error) { return Alive(rs.LockPath(id)) }

// Update appends an update event recording what became known of run r.ID (a
// harness session id seen, ...).
func (rs Runs) Update(ctx context.Context, r Run) error { return rs.record(ctx, "update", r) }

// Finalize appends the finalize event of run r.ID.
func (rs Runs) Finalize(ctx context.Context, r Run) error { return rs.record(ctx, "finalize", r) }

// FinalizeOrphan appends r, the finalize event of run r.ID, if the run is
// still running and nobody holds its liveness lock — both checked under
// runs.lock, where every finalize is written, so a supervisor finishing at
// that moment is never overwritten. It reports whether it appended.
func (rs Runs) FinalizeOrphan(ctx context.Context, r Run) (bool, error) {
	done := false
	err := withLock(ctx, rs.lock(), func() error {
		if alive, err := rs.Alive(r.ID); err != nil || alive {
			return err
		}
		status, err := rs.status(r.ID)
		if err != nil || status != Running {
			return err
		}
		done = true
		return appendLine(rs.LogPath(), Event{V: 1, Event: "finalize", Run: r})
	})
	return done, err
}

// status folds the status of one run from the raw log.
func (rs Runs) status(id string) (string, error) {
	marker := []byte(`"id":"` + id + `"`)
	status := ""
	err := eachLog(rs.LogPath(), func(line []byte) {
		if bytes.Contains(line, marker) {
			if ev, ok := parse(line); ok && ev.ID == id && ev.Status != "" {
				status = ev.Status
			}
		}
	})
	return status, err
}

func (rs Runs) record(ctx context.Context, event string, r Run) error {
	return withLock(ctx, rs.lock(), func() error { return appendLine(rs.LogPath(), Event{V: 1, Event: event, Run: r}) })
}

// appendLine appends v as one compact JSON line to path, synced.
func appendLine(path string, v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if err := setAsideTorn(f, path); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// repair sets aside the torn last line of the log at path, if it has one.
func repair(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	err = setAsideTorn(f, path)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// claimDir creates the artifact directory of a run id just allocated. One
// may be there already, left by a process that died before it recorded the
// run (so the id is allocated again): with nothing in it but the run's
// lock, it is taken as it is; with more, it is moved aside to <dir>.orphan
// (.orphan2 ...), so a run never shows another's files.
func claimDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return err
	}
	if len(entries) == 0 || len(entries) == 1 && entries[0].Name() == "run.lock" {
		return nil
	}
	for i := 1; ; i++ {
		aside := dir + ".orphan"
		if i > 1 {
			aside += strconv.Itoa(i)
		}
		if _, err := os.Lstat(aside); errors.Is(err, fs.ErrNotExist) {
			if err := os.Rename(dir, aside); err != nil {
				return err
			}
			return os.MkdirAll(dir, 0o755)
		}
	}
}

// setAsideTorn moves a last line left without its newline — by a writer
// that died mid-append, for appends are made under the log's lock — to
// <log>.torn, and cuts it from the log: it was never a record, so the
// next record starts on a line of its own and the next id allocated does
// not count it; its bytes are kept for whoever investigates.
func setAsideTorn(f *os.File, path string) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	whole, err := wholeLines(f, info.Size())
	if err != nil || whole == info.Size() {
		return err
	}
	torn := make([]byte, info.Size()-whole)
	if _, err := f.ReadAt(torn, whole); err != nil {
		return err
	}
	aside, err := os.OpenFile(path+".torn", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := aside.Write(append(torn, '\n')); err != nil {
		aside.Close()
		return err
	}
	if err := aside.Sync(); err != nil { // kept before it is cut
		aside.Close()
		return err
	}
	if err := aside.Close(); err != nil {
		return err
	}
	return f.Truncate(whole)
}

var startMarker = []byte(`"event":"start"`)

// lastID returns the highest N among the start events' ids r<N>, and at least
// their number. It reads the raw lines without decoding them, for the log is
// scanned at every start: a quote inside a JSON string is always escaped, so
// the bare marker can only be the event key itself. It is called under
// runs.lock after setAsideTorn, so a start event torn by a crash is not
// counted: its id is allocated again.
func (rs Runs) lastID() (int, error) {
	n, count := 0, 0
	err := eachLog(rs.LogPath(), func(line []byte) {
		if !bytes.Contains(line, startMarker) {
			return
		}
		count++
		if i := bytes.Index(line, idMarker); i >= 0 {
			rest := line[i+len(idMarker):]
			if j := bytes.IndexByte(rest, '"'); j > 0 {
				if id, ok := numbered(string(rest[:j]), "r"); ok && id > n {
					n = id
				}
			}
		}
	})
	return max(n, count), err
}

var idMarker = []byte(`"id":"`)

// maxLine is the longest log line read; a longer one (a composed prompt of
// tens of megabytes) is skipped like a malformed one.
const maxLine = 64 << 20

func parse(line []byte) (Event, bool) {
	var ev Event
	if !decodeEvent(line, &ev, true) || ev.ID == "" {
		return Event{}, false
	}
	return ev, true
}

func fold(r *Run, ev Run) {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&r.SessionID, ev.SessionID)
	set(&r.Model, ev.Model)
	set(&r.Agent, ev.Agent)
	set(&r.Harness, ev.Harness)
	set(&r.HarnessSessionID, ev.HarnessSessionID)
	set(&r.Continues, ev.Continues)
	if ev.Skills != nil {
		r.Skills = ev.Skills
	}
	set(&r.Status, ev.Status)
	set(&r.StartedAt, ev.StartedAt)
	set(&r.Prompt, ev.Prompt)
	set(&r.Error, ev.Error)
	set(&r.FinishedAt, ev.FinishedAt)
	r.ExitCode = cmp.Or(ev.ExitCode, r.ExitCode)
	r.DurationSecs = cmp.Or(ev.DurationSecs, r.DurationSecs)
	r.TotalCostUSD = cmp.Or(ev.TotalCostUSD, r.TotalCostUSD)
	r.InputTokens = cmp.Or(ev.InputTokens, r.InputTokens)
	r.OutputTokens = cmp.Or(ev.OutputTokens, r.OutputTokens)
	r.CachedTokens = cmp.Or(ev.CachedTokens, r.CachedTokens)
}
