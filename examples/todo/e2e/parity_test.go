//go:build linux

package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// volatile matches what legitimately differs between two runs: the time a
// run took, its request id, when it started, where its audit log is, and
// the creation time of an item added now —
// which a text table shows too, so any timestamp is blanked, to one of the
// same width to keep the table's columns.
var (
	volatile  = regexp.MustCompile(`"(duration_ms|request_id|created|timestamp|audit_log_path)":("[^"]*"|[0-9]+)`)
	timestamp = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)
)

func normalize(s string) string {
	// AGENTS.md's Installation section installs the build's own package.
	s = strings.ReplaceAll(s, "/cmd/todo-cobra@", "/cmd/todo@")
	s = strings.ReplaceAll(s, "/cmd/todo-v2@", "/cmd/todo@")
	return timestamp.ReplaceAllString(volatile.ReplaceAllString(s, `"$1":"-"`), "YYYY-MM-DDTHH:MM:SSZ")
}

// TestParity drives the urfave, the cobra and the urfave/cli v2 build
// through the same session, step by step, each on a store of its own, and
// holds the others to the urfave build's exit codes, byte-identical stdout
// (volatile values blanked) and, outside help — whose text is each
// framework's own — byte-identical stderr. Flags come before arguments,
// the one order all three frameworks read alike.
func TestParity(t *testing.T) {
	t.Parallel()
	steps := [][]string{
		{"add", "--priority", "high", "--tag", "docs,writing", "write the docs"},
		{"add", "-p", "low", "ship it"},
		{"add", "third"},
		{"list"},
		{"list", "--status", "all", "--limit", "1"},
		{"list", "--limit", "1", "--cursor", "MQ"},
		{"list", "--format", "jsonl"},
		{"list", "--format", "tsv", "--fields", "id,title"},
		{"list", "--format", "id"},
		{"list", "--format", "text"},
		{"show", "t1"},
		{"show", "t9"},
		{"show", "../etc"},
		{"done", "t1"},
		{"done", "t1"},
		{"purge"},
		{"purge", "--dry-run"},
		{"purge", "--yes"},
		{"purge", "--all", "--yes"},
		{"list", "--bogus"},
		{"list", "--status", "nope", "--limit", "x"},
		{"list", "--output", "yaml"},
		{"list", "--output", "json"},
		{"list", "--format", "yaml"},
		{"list", "--format", "json", "--format", "tsv"},
		{"list", "--status", "open", "--status", "all"},
		{"list", "--status", "all", "--status", "all"},
		{"list", "extra"},
		{"nope"},
		{"add"},
		{"show"},
		{"add", "--validate-only", "x"},
		{"watch", "--count", "2", "--interval", "10ms"},
		{"watch", "--timeout", "100ms", "--interval", "1h"}, // one tick, then the timeout
		{"describe"},
		{"describe", "--agents-md"},
		{"describe", "--etag", "0000000000000000"},
		{"--schema"},
		{"add", "--schema"},
		{"list", "--schema"},
		{"show", "--schema"},
		{"done", "--schema"},
		{"purge", "--schema"},
		{"watch", "--schema"},
		{"describe", "--schema"},
		{"--version"},
		{"--help"},
		{"list", "--help"},
		{"help", "show"},
		{"add", "--raw-payload", `{title: 'as one object', tag: ['x',],}`},
		{"add", "--raw-payload", `{"title": "x"}`, "-p", "low"},
		{"add", "--raw-payload", `{"title": "x", "priority": "urgent", "colour": 1}`},
		{"import"},
		{"import", "--input-file", "no-such.jsonl"},
		{"import", "--defaults", "{priority high}"},
		{"import", "--schema"},
		{"show", "-"},
	}
	urfave := newSandbox(t, binaries[0].path)
	others := []struct {
		name string
		sb   *sandbox
	}{{"cobra", newSandbox(t, binaries[1].path)}, {"urfave-v2", newSandbox(t, v2.path)}}
	for _, args := range steps {
		u := urfave.run(t, args...)
		name := strings.Join(args, " ")
		for _, o := range others {
			c := o.sb.run(t, args...)
			if u.code != c.code {
				t.Errorf("todo %s: exit %d on urfave, %d on %s", name, u.code, c.code, o.name)
			}
			if diff := cmp.Diff(normalize(u.stdout), normalize(c.stdout)); diff != "" {
				t.Errorf("todo %s: stdout (-urfave +%s):\n%s", name, o.name, diff)
			}
			if !asksHelp(args) {
				if diff := cmp.Diff(normalize(u.stderr), normalize(c.stderr)); diff != "" {
					t.Errorf("todo %s: stderr (-urfave +%s):\n%s", name, o.name, diff)
				}
			}
		}
	}
	// Every store went through the same changes.
	for _, o := range others {
		if diff := cmp.Diff(normalize(string(urfave.storeBytes(t))), normalize(string(o.sb.storeBytes(t)))); diff != "" {
			t.Errorf("stores (-urfave +%s):\n%s", o.name, diff)
		}
	}
}

func asksHelp(args []string) bool {
	for _, a := range args {
		if a == "--help" || a == "-h" || a == "help" {
			return true
		}
	}
	return false
}
