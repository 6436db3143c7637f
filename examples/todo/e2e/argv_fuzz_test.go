//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/duet-cli/duet/internal/argvfuzz"
)

// argvWords are what fuzzed command lines are made of: todo's commands and
// flags, Duet's, and the values that have broken CLIs — none, "-", "--",
// hallucinated ids, paths out, huge numbers, JSON half written, control
// characters. The commands that serve or watch until stopped are left out:
// they are meant to run until a signal, which is no hang; so are the
// formats other than json an agent may ask for, which are no envelope.
var argvWords = []string{
	"add", "list", "show", "done", "purge", "import", "remove", "tag", "archive", "export",
	"audit-log", "changelog", "cleanup", "describe", "doctor", "exec", "generate-skills", "job", "status", "wait", "cancel",
	"manifest", "mcp-validate", "profile", "save", "use", "help",
	"--file", "--format", "json", "--schema", "--output-schema", "--help", "-h",
	"--status", "open", "all", "--priority", "high", "urgent", "--limit", "--fields", "--yes", "--all", "--dry-run",
	"--timeout", "1ms", "0s", "-1s", "--budget", "--raw-payload", `{"title":"x"}`, `{"title":`, "--input-file",
	"/dev/null", "/dev/zero", "--to", "--idempotency-key", "--token-limit", "--token-offset", "--quiet",
	"--stable-output", "--cwd", "/", "--config", "--no-config", "--profile", "--context", "--scope", "--min-age",
	"--validate-only", "--rollback-on-failure", "--resume-from", "--heartbeat-ms", "--debug", "--verbose", "--show-config",
	"--unmask", "--width", "--instance-id", "--warnings-as-errors", "--tokenizer",
	"t1", "t2", "t999", "<id>", "../t1", "", " ", "-", "--", "0", "-1", "99999999999999999999", "1e9", "x=y",
	"ü", "\u202e", "\t", "\x1b[31m", "$(touch pwned)", "'; rm -rf ~", "%s%n", strings.Repeat("a", 5000),
}

// FuzzAgentArgv runs todo's urfave and cobra builds as an agent on command
// lines made of its own words and of bytes, each in a store of its own, and holds
// each answer to what an agent relies on whatever it typed: an answer
// within the time it was given, exactly one JSON envelope on stdout whose
// ok and meta.exit_code say what the exit code says, an exit code of the
// spec's table, and no panic or stack trace anywhere.
//
// `go test` runs the seeds; .ci/fuzz fuzzes it for a bounded time:
//
//	go test -run XXX -fuzz FuzzAgentArgv -fuzztime 30s ./examples/todo/e2e
func FuzzAgentArgv(f *testing.F) {
	for _, seed := range []string{
		"add x", "list --format json", "show <id>", "purge --all --yes", "import --input-file /dev/zero",
		"archive --to /dev/zero", "--raw-payload {\"title\": add", "list --limit 99999999999999999999",
		"tag ü t1 t2", "done -- --yes", "exec", "job status t1", "cleanup --scope all --yes --dry-run",
		"list --timeout 1ms", "--format yaml show t1", "add --cwd / x", "profile save --yes",
	} {
		f.Add(argvfuzz.Seed(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		argv := argvfuzz.Argv(raw, argvWords)
		for _, b := range binaries {
			sb := newSandbox(t, b.path)
			sb.run(t, "add", "one to-do") // t1, for the ids to find
			checkAgentAnswer(t, b.framework, sb, argv)
		}
	})
}

// checkAgentAnswer runs argv as an agent and checks the answer.
func checkAgentAnswer(t *testing.T, framework string, sb *sandbox, argv []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, sb.bin, argv...)
	cmd.Env, cmd.Dir = sb.env, sb.dir
	cmd.Stdin = strings.NewReader("")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := exitCode(cmd.Run())
	what := framework + " " + strings.Join(quoted(argv), " ")
	if ctx.Err() != nil {
		t.Fatalf("%s: no answer in 45 s", what)
	}
	if why := argvfuzz.Fault(code, stdout.String(), stderr.String()); why != "" {
		t.Fatalf("%s: %s\nstdout %.500s\nstderr %.500s", what, why, stdout.String(), stderr.String())
	}
	dec := json.NewDecoder(bytes.NewReader(stdout.Bytes()))
	var env struct {
		OK   *bool `json:"ok"`
		Meta struct {
			ExitCode *int `json:"exit_code"`
		} `json:"meta"`
	}
	if err := dec.Decode(&env); err != nil || dec.More() {
		t.Fatalf("%s: stdout is not one JSON envelope (%v):\n%.800s", what, err, stdout.String())
	}
	if env.OK == nil || *env.OK != (code == 0) || env.Meta.ExitCode == nil || *env.Meta.ExitCode != code {
		t.Fatalf("%s: exit %d, but ok %v and meta.exit_code %v:\n%.800s", what, code, env.OK, env.Meta.ExitCode, stdout.String())
	}
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./:=,+@%-]+$`)

// quoted quotes the words of argv that a shell would split or mangle.
func quoted(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = a
		if !plainWord.MatchString(a) {
			out[i] = strconv.Quote(a)
		}
	}
	return out
}
