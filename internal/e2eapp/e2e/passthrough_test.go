//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// passtool is the tool e2eapp's passthrough commands delegate to
// (internal/e2eapp/cmd/passtool): it prints its argv as one JSON line on
// stdout, "passtool: done parsing" on stderr, and a line in PASSTOOL_MARK's
// file each time it starts; "exit N" exits N, "hang" waits to be stopped.
var passtool = &onDemand{pkg: "github.com/duet-cli/duet/internal/e2eapp/cmd/passtool"}

// passEnv is the environment that points e2eapp's bank and lint at passtool
// and has it mark each start in the sandbox's file "started".
func passEnv(t *testing.T, sb *sandbox) []string {
	t.Helper()
	return []string{"E2EAPP_PASSTOOL=" + passtool.bin(t), "PASSTOOL_MARK=" + sb.path("started")}
}

// starts is how many times passtool started in sb.
func starts(sb *sandbox) int {
	b, err := os.ReadFile(sb.path("started"))
	if err != nil {
		return 0
	}
	return bytes.Count(b, []byte("\n"))
}

// argvLine is the line passtool prints for argv.
func argvLine(t *testing.T, argv ...string) string {
	t.Helper()
	b, err := json.Marshal(map[string][]string{"argv": argv})
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// lastLine is the last line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// expectOnStderr checks a passthrough run as expect checks a run, with the
// envelope taken from the last line of stderr.
func expectOnStderr(t *testing.T, what string, r result, code int) map[string]any {
	t.Helper()
	return expect(t, what+" (last line of stderr)", result{stdout: lastLine(r.stderr), stderr: r.stderr, code: r.code}, code)
}

// TestC031Passthrough: REQ-C-031 (v1.9), a command declared arguments:
// "passthrough" hands every token after its path to another tool's parser.
// e2eapp's bank (mutating, help_argv ["extract", "--help"]) and lint (safe,
// no help_argv) delegate to passtool, a separate program; every criterion is
// seen on the built binary:
//
//   - the manifest shows arguments "passthrough", option_placement
//     "strict", no flags and no positionals on both, help_argv on bank,
//     and no arguments member on any other command;
//   - every token after the path — "--", "--help" among others, "--format",
//     "--timeout" — reaches the tool verbatim (its stdout says so), and the
//     framework reads none: the envelope stays JSON, the limit the default;
//   - a lone --help or -h forwards help_argv; without one, --help itself;
//   - in JSON mode stdout is exactly what the tool wrote and the last line
//     of stderr is the envelope, data {"exit_code": 0}; --output before
//     the path keeps the same envelope in the file;
//   - the tool's exit code n is the process's: DELEGATED_EXIT,
//     data.exit_code and meta.exit_code n, retryable false — for 2 too
//     (phase execution, not validation), and 11, which the framework's
//     table calls retryable;
//   - an invalid framework option before the path exits 2 in the
//     validation phase on stdout, and the tool never starts;
//   - a timed-out or signalled tool ends with 10 or 143, the envelope the
//     last line of stderr;
//   - a repeat of the same argv under the same idempotency key does not
//     start the tool, writes nothing to stdout, and answers effect noop;
//   - the audit log records args.argv "[OMITTED]" and no forwarded token;
//   - a declared command still answers on stdout, its exit 2 a validation.
//
// The registration refusals are TestC031PassthroughRefusedAtStartup.
func TestC031Passthrough(t *testing.T) {
	t.Parallel()

	t.Run("manifest", func(t *testing.T) {
		t.Parallel()
		m := newSandbox(t).manifest(t)
		commands, _ := m["commands"].(map[string]any)
		for name, help := range map[string]any{"bank": []any{"extract", "--help"}, "lint": nil} {
			want(t, name, map[string]any{"c": commands[name]}, map[string]any{
				"c.arguments": "passthrough", "c.option_placement": "strict", "c.flags": map[string]any{},
				"c.positionals": nil, "c.help_argv": help, "c.output_file": "envelope",
			})
		}
		for name, c := range commands {
			if a := get(c, "arguments"); name != "bank" && name != "lint" && a != nil && a != "declared" {
				t.Errorf("%s: arguments %v, want it absent or declared", name, a)
			}
		}
	})

	t.Run("tokens reach the tool verbatim", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		tokens := []string{"extract", "--", "--help", "x.csv", "--format", "text", "--timeout", "1ms", "--schema", "-h"}
		r := sb.runEnv(t, passEnv(t, sb), append([]string{"lint"}, tokens...)...)
		if diff := cmp.Diff(argvLine(t, tokens...), r.stdout); diff != "" {
			t.Errorf("stdout is not exactly the tool's argv line (-want +got):\n%s", diff)
		}
		env := expectOnStderr(t, "lint", r, 0)
		want(t, "lint", env, map[string]any{"data": map[string]any{"exit_code": 0.0}, "meta.command": "lint", "meta.timeout_ms": 30000.0})
	})

	t.Run("help argv", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct {
			args []string
			argv []string
		}{
			{[]string{"bank", "--help"}, []string{"extract", "--help"}},
			{[]string{"bank", "-h"}, []string{"extract", "--help"}},
			{[]string{"bank", "--help", "more"}, []string{"--help", "more"}}, // not a lone --help
			{[]string{"lint", "--help"}, []string{"--help"}},
		} {
			sb := newSandbox(t)
			r := sb.runEnv(t, passEnv(t, sb), tt.args...)
			if diff := cmp.Diff(argvLine(t, tt.argv...), r.stdout); diff != "" {
				t.Errorf("%v: the tool got another argv (-want +got):\n%s", tt.args, diff)
			}
			expectOnStderr(t, strings.Join(tt.args, " "), r, 0)
		}
	})

	t.Run("--output keeps the envelope", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		file := sb.path("answer.json")
		r := sb.runEnv(t, passEnv(t, sb), "--output", file, "bank", "exit", "3")
		if diff := cmp.Diff(argvLine(t, "exit", "3"), r.stdout); diff != "" {
			t.Errorf("stdout (-want +got):\n%s", diff)
		}
		expectOnStderr(t, "bank", r, 3)
		if got := strings.TrimRight(readFile(t, file), "\n"); got != lastLine(r.stderr) {
			t.Errorf("the --output file is not the envelope on stderr's last line:\nfile:   %s\nstderr: %s", got, lastLine(r.stderr))
		}
	})

	t.Run("the tool's exit code", func(t *testing.T) {
		t.Parallel()
		for _, n := range []int{2, 3, 11, 79} {
			sb := newSandbox(t)
			code := strconv.Itoa(n)
			r := sb.runEnv(t, passEnv(t, sb), "lint", "exit", code)
			env := expectOnStderr(t, "lint exit "+code, r, n)
			want(t, "lint exit "+code, env, map[string]any{
				"error.code": "DELEGATED_EXIT", "error.retryable": false, "error.phase": "execution",
				"data": map[string]any{"exit_code": float64(n)}, "meta.exit_code": float64(n),
			})
		}
	})

	t.Run("a framework option refused before the path", func(t *testing.T) {
		t.Parallel()
		for _, args := range [][]string{{"--format", "bogus", "lint", "x"}, {"--timeout", "soon", "bank", "x"}} {
			sb := newSandbox(t)
			r := sb.runEnv(t, passEnv(t, sb), args...)
			env := expect(t, strings.Join(args, " "), r, 2)
			want(t, strings.Join(args, " "), env, map[string]any{"error.phase": "validation"})
			if n := starts(sb); n != 0 {
				t.Errorf("%v: the tool started %d times", args, n)
			}
		}
	})

	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		r := sb.runEnv(t, passEnv(t, sb), "--timeout", "300ms", "lint", "hang")
		env := expectOnStderr(t, "lint hang", r, 10)
		want(t, "lint hang", env, map[string]any{"error.code": "TIMEOUT"})
		if diff := cmp.Diff(argvLine(t, "hang")+"ready\n", r.stdout); diff != "" {
			t.Errorf("stdout (-want +got):\n%s", diff)
		}
	})

	t.Run("signal", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		cmd := sb.command(sb.dir, passEnv(t, sb), "lint", "hang")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		hung := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() }) // a bound on a hang
		defer hung.Stop()
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			stdout.WriteString(lines.Text() + "\n")
			if lines.Text() == "ready" { // the tool runs: stop e2eapp
				cmd.Process.Signal(syscall.SIGTERM)
			}
		}
		r := result{code: exitCode(cmd.Wait()), stdout: stdout.String(), stderr: stderr.String()}
		if diff := cmp.Diff(argvLine(t, "hang")+"ready\n", r.stdout); diff != "" {
			t.Errorf("stdout (-want +got):\n%s", diff)
		}
		env := expectOnStderr(t, "lint hang, SIGTERM", r, 143)
		want(t, "lint hang, SIGTERM", env, map[string]any{"error.code": "CANCELLED", "error.context.signal": "SIGTERM"})
	})

	t.Run("a repeat does not run the tool", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		first := sb.runEnv(t, passEnv(t, sb), "--idempotency-key", "k1", "bank", "extract", "a.csv")
		expectOnStderr(t, "first", first, 0)
		again := sb.runEnv(t, passEnv(t, sb), "--idempotency-key", "k1", "bank", "extract", "a.csv")
		env := expectOnStderr(t, "repeat", again, 0)
		want(t, "repeat", env, map[string]any{"meta.effect": "noop", "data": map[string]any{"exit_code": 0.0}})
		if again.stdout != "" {
			t.Errorf("the repeat wrote to stdout: %q", again.stdout)
		}
		if n := starts(sb); n != 1 {
			t.Errorf("the tool started %d times, want once", n)
		}
		// The key's call is its argv: other tokens under it are refused.
		reused := sb.runEnv(t, passEnv(t, sb), "--idempotency-key", "k1", "bank", "extract", "b.csv")
		want(t, "another argv", expectOnStderr(t, "another argv", reused, 6), map[string]any{"error.code": "IDEMPOTENCY_KEY_REUSED"})
		other := sb.runEnv(t, passEnv(t, sb), "--idempotency-key", "k2", "bank", "extract", "a.csv")
		expectOnStderr(t, "another key", other, 0)
		if n := starts(sb); n != 2 {
			t.Errorf("with another key the tool started %d times in all, want twice", n)
		}
	})

	t.Run("audit log", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		log := sb.path("audit.jsonl")
		r := sb.runEnv(t, append(passEnv(t, sb), "E2EAPP_AUDIT_LOG="+log), "bank", "extract", "--password", "hunter2-secret")
		expectOnStderr(t, "bank", r, 0)
		entry := map[string]any{}
		if err := json.Unmarshal([]byte(lastLine(readFile(t, log))), &entry); err != nil {
			t.Fatalf("the audit log's last line: %v", err)
		}
		want(t, "audit entry", entry, map[string]any{"command": "bank", "args.argv": "[OMITTED]"})
		for _, token := range []string{"extract", "--password", "hunter2-secret"} {
			if strings.Contains(readFile(t, log), token) {
				t.Errorf("the audit log holds the forwarded %q", token)
			}
		}
	})

	t.Run("declared commands unchanged", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		env := expect(t, "status", sb.run(t, "status"), 0)
		if _, ok := env["data"].(map[string]any); !ok {
			t.Errorf("status: data %v", env["data"])
		}
		env = expect(t, "status --bogus", sb.run(t, "status", "--bogus"), 2)
		want(t, "status --bogus", env, map[string]any{"error.phase": "validation"})
	})
}

// TestC031PassthroughRefusedAtStartup: REQ-C-031's registration criteria,
// shown through e2eapp-misdeclared (app/misdeclared.go): a passthrough
// command that declares a flag of its own, a positional, option placement
// "any", or danger "destructive" keeps the binary from starting — exit 1,
// nothing on stdout, the command and the rule on stderr.
func TestC031PassthroughRefusedAtStartup(t *testing.T) {
	t.Parallel()
	for misdeclare, says := range map[string]string{
		"passthrough-flag":          "a passthrough command declares no flags of its own, and --importer is one",
		"passthrough-positional":    "a passthrough command declares no positional arguments",
		"passthrough-placement-any": `option placement "any" must be strict`,
		"passthrough-destructive":   "a passthrough command is safe or mutating, not destructive",
	} {
		t.Run(misdeclare, func(t *testing.T) {
			t.Parallel()
			sb := sandboxFor(t, misdeclared)
			for _, args := range [][]string{{"status"}, {"statements", "x"}} {
				r := sb.runEnv(t, []string{"E2EAPP_MISDECLARE=" + misdeclare}, args...)
				if r.code != 1 || r.stdout != "" {
					t.Fatalf("%v: exit %d, stdout %q; want it not to start", args, r.code, r.stdout)
				}
				for _, s := range []string{`command "statements"`, says} {
					if !strings.Contains(r.stderr, s) {
						t.Errorf("%v: stderr does not say %q:\n%s", args, s, r.stderr)
					}
				}
			}
		})
	}
}
