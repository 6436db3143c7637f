//go:build linux

package e2e

import (
	"strings"
	"testing"

	"github.com/duet-cli/duet/internal/argvfuzz"
)

// argvWords are what fuzzed command lines are made of: the commands an
// agent sees and their flags, and the values that have broken CLIs. The
// commands that start agents or serve (run spawn, continue, review, serve,
// ui, start) are left out: each fuzzed line would start harness processes
// that outlive the test's directory.
var argvWords = []string{
	"run", "list", "show", "output", "follow", "cancel", "stats", "wait", "models", "skills", "doctor", "status",
	"describe", "manifest", "changelog", "audit-log", "exec", "job", "generate-skills", "mcp-validate", "help",
	"--space", "s1", "s2", "s0", "--status", "failed", "running", "--limit", "--model", "opus", "--agent", "--from",
	"--timeout", "1ms", "0s", "--format", "json", "--schema", "--output-schema", "--help", "-h", "--yes", "--dry-run",
	"--budget", "--debug", "--verbose", "--show-config", "--cwd", "/", "--config", "--no-config", "--fields", "id",
	"r1", "r2", "r999", "<run-id>", "../r1", "--", "-", "", " ", "0", "-1", "99999999999999999999",
	"ü", "\u202e", "\x1b[31m", "$(touch pwned)", "--validate-only", strings.Repeat("r", 5000),
}

// FuzzAgentArgv runs meridian as an agent, each input in a project of its
// own that holds a space with a finished run (so that an input's answer
// does not rest on what the inputs before it did: doctor repairs, cancel
// cancels), on command lines made of its words and of bytes, and holds
// each answer to what an agent relies on: an answer in time, exactly one
// envelope on stdout that agrees with the exit code, an exit code of the
// spec's table, no panic. `go test` runs the seeds; .ci/fuzz fuzzes it:
//
//	go test -run XXX -fuzz FuzzAgentArgv -fuzztime 30s ./examples/meridian/e2e
func FuzzAgentArgv(f *testing.F) {
	for _, seed := range []string{
		"run show r1", "run list --status failed --limit 99999999999999999999", "run wait r999 --timeout 1ms",
		"run output r1 --from -1", "run cancel <run-id> --yes", "models show ü", "doctor --dry-run",
		"--space ../s1 run list", "exec", "job status x", "run stats --model opus --space s2",
	} {
		f.Add(argvfuzz.Seed(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		argv := argvfuzz.Argv(raw, argvWords)
		sb := newSandbox(t)
		sb.ok(t, sb.env, nil, "run", "spawn", "-p", "a finished run", "--wait") // s1 and r1
		_, r := sb.agent(t, sb.inSpace("s1"), argv...)
		if why := argvfuzz.Fault(r.code, r.stdout, r.stderr); why != "" {
			t.Fatalf("meridian %q: %s\nstderr %.500s", argv, why, r.stderr)
		}
	})
}
