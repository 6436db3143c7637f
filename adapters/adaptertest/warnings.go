package adaptertest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// volatileTimes are names of date-time fields that record when a call was
// answered rather than anything about the resource: two identical calls
// would differ in data. meta.timestamp carries that instant.
var volatileTimes = []string{"timestamp", "now", "generated_at", "fetched_at", "retrieved_at", "requested_at", "served_at", "as_of"}

// Warnings returns the declarations of fw's commands that Wrap accepts but
// that leave an agent worse off, one line each naming the command:
//
//   - a resource id — a flag or argument marked ID, or named id or
//     something-id — with no pattern, so a made-up id reaches the command
//     (declare one: [schema.AlphanumericID], [schema.UUID], or the app's
//     own);
//   - a flag read from an environment variable without the tool's
//     <TOOL>_ prefix, which another tool's setting (DEBUG, REGION) would
//     change;
//   - an output field that records when the call was answered (a date-time
//     named timestamp, generated_at ...), which makes two identical calls
//     answer different data.
//
// They are warnings, not errors, so adopting Duet never fails an app that
// works; a test holds the list to nothing once the app is ported:
//
//	if w := adaptertest.Warnings(app); len(w) > 0 {
//		t.Errorf("declarations to fix:\n%s", strings.Join(w, "\n"))
//	}
func Warnings(fw adapters.Framework) []string {
	var warnings []string
	prefix := envelope.EnvName(fw.Tree().Name, "")
	fw.Tree().Walk(func(c *schema.Command) {
		if c.Builtin || !c.Declared {
			return
		}
		for _, f := range c.Flags {
			if !f.Builtin && f.Pattern == "" && isID(f.Name, f.ID) {
				warnings = append(warnings, fmt.Sprintf("%q: flag --%s is a resource id with no pattern", c.DotPath(), f.Name))
			}
			for _, e := range f.Env {
				if !f.Builtin && !strings.HasPrefix(e, prefix) {
					warnings = append(warnings, fmt.Sprintf("%q: flag --%s reads %s, which lacks the tool's prefix %s", c.DotPath(), f.Name, e, prefix))
				}
			}
		}
		for _, a := range c.Args {
			if a.Pattern == "" && isID(a.Name, a.ID) {
				warnings = append(warnings, fmt.Sprintf("%q: argument <%s> is a resource id with no pattern", c.DotPath(), a.Name))
			}
		}
		if c.Meta.Output == nil {
			return
		}
		out, err := c.OutputSchema()
		if err != nil {
			return // AssertDeclarations reports it
		}
		for _, name := range out.Properties() {
			if slices.Contains(volatileTimes, name) && out.Property(name)["format"] == "date-time" {
				warnings = append(warnings, fmt.Sprintf("%q: output field %q is the time of the call, which belongs in meta.timestamp, not data", c.DotPath(), name))
			}
		}
	})
	return warnings
}

func isID(name string, declared bool) bool {
	return declared || name == "id" || strings.HasSuffix(name, "-id") || strings.HasSuffix(name, "_id")
}

// checkEffect fails the test when a mutating command succeeded without
// reporting its effect (the CLI Agent Spec's C-003): the lifecycle only
// warns an agent, since the change has happened; in the app's test it is
// the author's error.
func (r *Result) checkEffect(t testing.TB) {
	t.Helper()
	for _, w := range r.Envelope.Warnings {
		if w.Code == adapters.EffectUnreported {
			t.Errorf("%q succeeded without reporting its effect: call envelope.Output.Effect with created, updated, deleted or noop (%s)", r.Envelope.Meta.Command, w.Message)
		}
	}
}
