package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestE2EPipeIsJSON: todo is built with WithSpecStrict, so with stdout a
// pipe and nothing else said — no --format, no agent marker, no CI — or
// with CI=true, every line of stdout parses as JSON, whatever the command
// did: an answer, a usage error, an unknown command, help (REQ-F-003).
// (Without WithSpecStrict a pipe with no agent marker is a script and gets
// text: envelope TestDetect.)
func TestE2EPipeIsJSON(t *testing.T) { onEach(t, testPipeIsJSON) }

func testPipeIsJSON(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	sb.seed(t, item("t1", "first", false))
	commands := [][]string{
		{"list"}, {"show", "t1"}, {"show", "t99"}, {"add", "second"}, {"done"}, {"frobnicate"},
		{"list", "--limit", "x"}, {"--help"}, {"list", "--help"}, {},
	}
	for _, env := range [][]string{nil, {"CI=true"}} {
		for _, args := range commands {
			r := sb.runEnv(t, env, args...)
			if strings.TrimSpace(r.stdout) == "" {
				t.Errorf("env %q, todo %q: nothing on stdout (exit %d)", env, args, r.code)
			}
			for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
				if !json.Valid([]byte(line)) {
					t.Errorf("env %q, todo %q: a stdout line is not JSON: %q", env, args, line)
				}
			}
		}
	}
}
