//go:build linux

package e2e

// End-to-end tests: both todo binaries — on urfave/cli (cmd/todo) and on
// cobra (cmd/todo-cobra) — are built once, and every test runs against each,
// driving it the way an agent (pipes) or a person (a pseudo-terminal) does;
// parity_test.go then holds the two to byte-identical answers. Each test states which
// requirement of issue 2 it proves. Every run gets its own HOME,
// XDG_DATA_HOME and TODO_FILE, and CI, NO_COLOR, TERM and TODO_* are removed
// from the inherited environment, so the machine running the tests cannot
// change the audience Duet detects.
//
// The file is Linux-only because the pty (pty_linux_test.go), signals and
// controlling-terminal setup are. A panicking handler is not covered here:
// todo has no such command, and the lifecycle's recovery is tested in-process.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/internal/jsontest"
	"github.com/duet-cli/duet/internal/ptytest"
	"github.com/duet-cli/duet/schema"
	"github.com/duet-cli/duet/schema/validator"
)

type binary struct{ framework, pkg, path string }

// binaries are the builds under test, by framework, built once by TestMain.
var binaries = []binary{
	{framework: "urfave", pkg: "github.com/duet-cli/duet/examples/todo/cmd/todo"},
	{framework: "cobra", pkg: "github.com/duet-cli/duet/examples/todo/cmd/todo-cobra"},
}

// v2 is todo on urfave/cli v2, which TestParity holds to the others. The
// other tests give flags after arguments, which v2 reads as arguments.
var v2 = binary{framework: "urfave-v2", pkg: "github.com/duet-cli/duet/examples/todo/cmd/todo-v2"}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "todo-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	for _, b := range []*binary{&binaries[0], &binaries[1], &v2} {
		b.path = filepath.Join(dir, "todo-"+b.framework)
		build := exec.Command("go", "build", "-o", b.path, b.pkg)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: building %s: %v\n", b.pkg, err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// onEach runs test once per binary, as a subtest named after its framework.
// test calls t.Parallel itself.
func onEach(t *testing.T, test func(t *testing.T, bin string)) {
	t.Parallel()
	for _, b := range binaries {
		t.Run(b.framework, func(t *testing.T) { test(t, b.path) })
	}
}

func mustObject(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s is not a JSON object: %v", raw, err)
	}
	return m
}

// ---------------------------------------------------------------------------
// 1. Piped: add, list, show and done each answer with one envelope.

func TestE2EPipedLifecycle(t *testing.T) { onEach(t, testPipedLifecycle) }

func testPipedLifecycle(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	// The steps share one store and run in order: each depends on the last.
	steps := []struct {
		name string
		args []string
		code int
		want map[string]any // dot path in the envelope → expected value
	}{
		{"add creates", []string{"add", "write the tests", "--priority", "high"}, 0,
			map[string]any{"meta.effect": "created", "meta.command": "add", "data.id": "t1", "data.title": "write the tests", "data.priority": "high", "data.done": false}},
		{"list shows it", []string{"list"}, 0,
			map[string]any{"meta.command": "list", "data.0.id": "t1", "meta.pagination.total": 1.0, "meta.pagination.returned": 1.0, "meta.pagination.has_more": false}},
		{"show finds it", []string{"show", "t1"}, 0,
			map[string]any{"meta.command": "show", "data.id": "t1", "data.title": "write the tests"}},
		{"done updates", []string{"done", "t1"}, 0,
			map[string]any{"meta.effect": "updated", "data.done": true}},
		{"done again is a noop", []string{"done", "t1"}, 0,
			map[string]any{"meta.effect": "noop", "data.done": true}},
		{"done item leaves the open list", []string{"list"}, 0,
			map[string]any{"meta.pagination.total": 0.0, "meta.pagination.returned": 0.0}},
		{"show of a missing id", []string{"show", "t99"}, 5,
			map[string]any{"error.code": "TODO_NOT_FOUND", "error.retryable": false, "data": nil}},
		{"done of a missing id", []string{"done", "t99"}, 5,
			map[string]any{"error.code": "TODO_NOT_FOUND"}},
	}
	for _, st := range steps {
		r := sb.run(t, st.args...)
		env := expectEnvelope(t, st.name, r, st.code)
		if diff := cmp.Diff(st.want, pick(env, st.want)); diff != "" {
			t.Errorf("%s: todo %s: envelope (-want +got):\n%s", st.name, strings.Join(st.args, " "), diff)
		}
		if st.code == 0 && r.stderr != "" {
			t.Errorf("%s: stderr should be empty on success, got %q", st.name, r.stderr)
		}
	}
}

// ---------------------------------------------------------------------------
// 2. Validation: every failure at once, exit 2, and nothing changed.

func TestE2EValidation(t *testing.T) { onEach(t, testValidation) }

func testValidation(t *testing.T, bin string) {
	t.Parallel()
	tests := []struct {
		name  string
		env   []string
		args  []string
		codes []string       // the codes in error.errors, sorted
		want  map[string]any // dot path → expected value
	}{
		{
			name:  "unknown flag and bad id together",
			args:  []string{"show", "../x", "--bogus"},
			codes: []string{"INVALID_ID", "UNKNOWN_FLAG"},
			want:  map[string]any{"error.phase": "validation", "error.retryable": false},
		},
		{
			name:  "missing required argument",
			args:  []string{"show"},
			codes: []string{"MISSING_ARGUMENT"},
			want:  map[string]any{"error.code": "MISSING_ARGUMENT", "error.phase": "validation", "error.field": "id"},
		},
		{
			name:  "bad enum value",
			args:  []string{"add", "x", "--priority", "urgent"},
			codes: []string{"INVALID_ENUM_VALUE"},
			want: map[string]any{"error.code": "INVALID_ENUM_VALUE", "error.field": "priority",
				"error.valid_values": []any{"low", "normal", "high"}},
		},
		{
			name:  "unknown command",
			args:  []string{"bogus"},
			codes: []string{"UNKNOWN_COMMAND"},
			want:  map[string]any{"error.code": "UNKNOWN_COMMAND", "error.phase": "validation"},
		},
		{
			// list declares no positional arguments (its --schema input is
			// an object with additionalProperties false and no argument), so
			// a word after it is a hallucinated subcommand or argument. If it
			// were ignored, `todo list done` would silently list open items.
			name: "word after a command that takes no arguments",
			args: []string{"list", "bogus"},
			want: map[string]any{"error.phase": "validation"},
		},
		{
			name:  "unknown format",
			args:  []string{"list", "--format", "yaml"},
			codes: []string{"INVALID_ENUM_VALUE"},
			want:  map[string]any{"error.field": "format", "error.valid_values": []any{"json", "jsonl", "toon", "tsv", "text", "id", "plain"}},
		},
		{
			name:  "unknown format from TODO_FORMAT",
			env:   []string{"TODO_FORMAT=yaml"},
			args:  []string{"list"},
			codes: []string{"INVALID_ENUM_VALUE"}, // as --format yaml is refused (O-042)
			want:  map[string]any{"error.phase": "validation", "error.field": "format", "error.valid_values": []any{"json", "jsonl", "toon", "tsv", "text", "id", "plain"}},
		},
		{
			// Other CLIs' --output yaml: a path flag refuses it rather than
			// write a file named yaml (O-001).
			name:  "a format's name given to --output",
			args:  []string{"list", "--output", "yaml"},
			codes: []string{"OUTPUT_IS_A_PATH"},
			want:  map[string]any{"error.code": "OUTPUT_IS_A_PATH", "error.field": "output", "data": nil},
		},
		{
			name:  "a flag given twice with different values",
			args:  []string{"list", "--status", "open", "--status", "all"},
			codes: []string{"CONFLICTING_VALUES"},
			want:  map[string]any{"error.code": "CONFLICTING_VALUES", "error.field": "status", "error.suggestion": "give --status once"},
		},
		{
			name:  "percent-encoded traversal id",
			args:  []string{"show", "%2e%2e"},
			codes: []string{"INVALID_ID"},
			want:  map[string]any{"error.code": "INVALID_ID", "error.field": "id"},
		},
		{
			name:  "placeholder id",
			args:  []string{"done", "<id>"},
			codes: []string{"INVALID_ID"},
			want:  map[string]any{"error.code": "INVALID_ID", "error.field": "id"},
		},
		{
			name:  "bad duration",
			args:  []string{"watch", "--interval", "soon"},
			codes: []string{"INVALID_FLAG_VALUE"},
			want:  map[string]any{"error.field": "interval"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t, bin)
			sb.seed(t, item("t1", "keep me", false))
			before := sb.storeBytes(t)

			r := runAt(t, sb.dir, sb.bin, append(slices.Clone(sb.env), tt.env...), tt.args...)
			env := expectEnvelope(t, "todo "+strings.Join(tt.args, " "), r, 2)
			if diff := cmp.Diff(tt.want, pick(env, tt.want)); diff != "" {
				t.Errorf("envelope (-want +got):\n%s", diff)
			}
			if tt.codes != nil {
				if diff := cmp.Diff(tt.codes, errorCodes(env)); diff != "" {
					t.Errorf("error.errors codes (-want +got):\n%s", diff)
				}
			}
			if s, _ := get(env, "error.fix_required").(string); s == "" {
				t.Errorf("error.fix_required is empty: %v", get(env, "error"))
			}
			if diff := cmp.Diff(string(before), string(sb.storeBytes(t))); diff != "" {
				t.Errorf("a validation error changed the store (-before +after):\n%s", diff)
			}
			if got := get(env, "data"); got != nil {
				t.Errorf("data %v on a refusal, want null", got)
			}
			// The directory it ran in holds only the sandbox's own files:
			// no stray file named after a format.
			if stray := sb.strays(t); stray != nil {
				t.Errorf("a refusal left %q in its working directory", stray)
			}
		})
	}

	t.Run("validate-only stops before the handler", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t, bin)
		sb.seed(t, item("t1", "keep me", false))
		before := sb.storeBytes(t)
		env := expectEnvelope(t, "add --validate-only", sb.run(t, "add", "new item", "--validate-only"), 0)
		want := map[string]any{"meta.validation_only": true, "data": nil}
		if diff := cmp.Diff(want, pick(env, want)); diff != "" {
			t.Errorf("envelope (-want +got):\n%s", diff)
		}
		if _, ok := get(env, "meta").(map[string]any)["effect"]; ok {
			t.Errorf("--validate-only reported an effect: %v", get(env, "meta"))
		}
		if diff := cmp.Diff(string(before), string(sb.storeBytes(t))); diff != "" {
			t.Errorf("--validate-only changed the store (-before +after):\n%s", diff)
		}
	})
}

// ---------------------------------------------------------------------------
// 3. Output formats, projection and pagination.

func TestE2EOutputFormats(t *testing.T) { onEach(t, testOutputFormats) }

func testOutputFormats(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	sb.seed(t, item("t1", "first", false), item("t2", "second", false))

	t.Run("jsonl streams items then a summary line", func(t *testing.T) {
		r := sb.run(t, "list", "--format", "jsonl")
		if r.code != 0 {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("want 2 item lines and a summary line, got %d lines:\n%s", len(lines), r.stdout)
		}
		var ids []string
		for i, l := range lines[:2] {
			var it map[string]any
			if err := json.Unmarshal([]byte(l), &it); err != nil {
				t.Fatalf("item line %q is not JSON: %v", l, err)
			}
			if it["_seq"] != float64(i+1) { // numbered lines (O-004, ResponseEnvelope 2.3)
				t.Errorf("item line %q: _seq %v, want %d", l, it["_seq"], i+1)
			}
			ids = append(ids, fmt.Sprint(it["id"]))
		}
		if diff := cmp.Diff([]string{"t1", "t2"}, ids); diff != "" {
			t.Errorf("item ids (-want +got):\n%s", diff)
		}
		// The one terminal line is the summary, not an envelope (O-004).
		sum := decodeSummary(t, []byte(lines[2]))
		want := map[string]any{"_summary": true, "total": 2.0, "meta.stream.items": 2.0, "meta.command": "list", "meta.pagination.total": 2.0}
		if diff := cmp.Diff(want, pick(sum, want)); diff != "" {
			t.Errorf("summary line (-want +got):\n%s", diff)
		}
	})
	t.Run("a jsonl stream that fails ends on its error envelope", func(t *testing.T) {
		r := sb.run(t, "watch", "--format", "jsonl", "--interval", "100ms", "--timeout", "1s")
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		for _, l := range lines[:len(lines)-1] {
			var it map[string]any
			if err := json.Unmarshal([]byte(l), &it); err != nil || it["tick"] == nil {
				t.Errorf("line %q is not an update: %v", l, err)
			}
		}
		env := expectEnvelope(t, "watch --format jsonl --timeout 1s", result{stdout: lines[len(lines)-1], stderr: r.stderr, code: r.code}, 10)
		if got := get(env, "error.code"); len(lines) < 2 || got != "TIMEOUT" {
			t.Errorf("%d lines, the last with error.code %v; want updates, then the TIMEOUT envelope\n%s", len(lines), got, r.stdout)
		}
		// A numbered stream's error says how many item lines came before it.
		if got := get(env, "meta.items_emitted"); got != float64(len(lines)-1) {
			t.Errorf("meta.items_emitted %v, want %d, the update lines", got, len(lines)-1)
		}
	})

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"tsv has a header row", []string{"list", "--format", "tsv"},
			"id\ttitle\tpriority\tdone\ttags\tcreated\n" +
				"t1\tfirst\tnormal\tfalse\t[]\t2026-01-02T03:04:05Z\n" +
				"t2\tsecond\tnormal\tfalse\t[]\t2026-01-02T03:04:05Z\n"},
		{"tsv projected", []string{"list", "--format", "tsv", "--fields", "id,title"},
			"id\ttitle\nt1\tfirst\nt2\tsecond\n"},
		{"id prints one id per line", []string{"list", "--format", "id"}, "t1\nt2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sb.run(t, tt.args...)
			if r.code != 0 {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			if diff := cmp.Diff(tt.want, r.stdout); diff != "" {
				t.Errorf("todo %s (-want +got):\n%s", strings.Join(tt.args, " "), diff)
			}
		})
	}

	t.Run("fields projects data", func(t *testing.T) {
		env := expectEnvelope(t, "list --fields", sb.run(t, "list", "--fields", "id,title"), 0)
		want := []any{map[string]any{"id": "t1", "title": "first"}, map[string]any{"id": "t2", "title": "second"}}
		if diff := cmp.Diff(want, env["data"]); diff != "" {
			t.Errorf("data (-want +got):\n%s", diff)
		}
	})

	t.Run("limit and cursor page through", func(t *testing.T) {
		env := expectEnvelope(t, "list --limit 1", sb.run(t, "list", "--limit", "1"), 0)
		want := map[string]any{"data.0.id": "t1", "meta.pagination.returned": 1.0, "meta.pagination.total": 2.0, "meta.pagination.has_more": true}
		if diff := cmp.Diff(want, pick(env, want)); diff != "" {
			t.Errorf("first page (-want +got):\n%s", diff)
		}
		cursor, _ := get(env, "meta.pagination.next_cursor").(string)
		if cursor == "" {
			t.Fatalf("no next_cursor on the first page: %v", get(env, "meta.pagination"))
		}
		env = expectEnvelope(t, "list --cursor", sb.run(t, "list", "--limit", "1", "--cursor", cursor), 0)
		want = map[string]any{"data.0.id": "t2", "meta.pagination.returned": 1.0, "meta.pagination.has_more": false, "meta.pagination.next_cursor": nil}
		if diff := cmp.Diff(want, pick(env, want)); diff != "" {
			t.Errorf("second page (-want +got):\n%s", diff)
		}
	})

	t.Run("bad cursor", func(t *testing.T) {
		env := expectEnvelope(t, "list --cursor", sb.run(t, "list", "--cursor", "not-a-cursor"), 2)
		want := map[string]any{"error.code": "INVALID_CURSOR", "error.phase": "validation"}
		if diff := cmp.Diff(want, pick(env, want)); diff != "" {
			t.Errorf("envelope (-want +got):\n%s", diff)
		}
	})
}

// ---------------------------------------------------------------------------
// 4. Safety: a destructive command is refused where nobody can be asked.

func TestE2EPurgeSafety(t *testing.T) { onEach(t, testPurgeSafety) }

func testPurgeSafety(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	sb.seed(t, item("t1", "finished", true), item("t2", "still open", false))

	// Refused, with what a confirmed run would do in meta, the dry run's
	// preview; data is null, as on every failure.
	env := expectEnvelope(t, "purge", sb.run(t, "purge"), 2)
	want := map[string]any{"error.code": "CONFIRMATION_REQUIRED", "error.phase": "validation", "data": nil,
		"meta.effect": "would_delete", "meta.would_affect.todos.0": "t1", "meta.would_affect.count": 1.0, "meta.dry_run": true}
	if diff := cmp.Diff(want, pick(env, want)); diff != "" {
		t.Errorf("purge without --yes (-want +got):\n%s", diff)
	}
	// No fix_command: the one command that resolves the refusal acts, and a
	// fix_command must be safe to run as it is (C-030); the suggestion
	// names the dry run.
	if fix := get(env, "error.fix_command"); fix != nil {
		t.Errorf("fix_command %v: the refusal offers a command to run", fix)
	}
	if s, _ := get(env, "error.suggestion").(string); !strings.Contains(s, "todo purge --dry-run") {
		t.Errorf("suggestion %q does not name the --dry-run form", s)
	}
	sb.expectIDs(t, "after a refused purge", "t1", "t2")

	env = expectEnvelope(t, "purge --dry-run", sb.run(t, "purge", "--dry-run"), 0)
	want = map[string]any{"meta.dry_run": true, "meta.effect": "would_delete", "meta.would_affect.reversible": false,
		"data.count": 1.0, "data.removed.0.id": "t1"}
	if diff := cmp.Diff(want, pick(env, want)); diff != "" {
		t.Errorf("purge --dry-run (-want +got):\n%s", diff)
	}
	sb.expectIDs(t, "after purge --dry-run", "t1", "t2")

	env = expectEnvelope(t, "purge --yes", sb.run(t, "purge", "--yes"), 0)
	want = map[string]any{"meta.effect": "deleted", "meta.confirmed": true, "meta.would_affect": nil, "data.count": 1.0}
	if diff := cmp.Diff(want, pick(env, want)); diff != "" {
		t.Errorf("purge --yes (-want +got):\n%s", diff)
	}
	sb.expectIDs(t, "after purge --yes", "t2")
}

// ---------------------------------------------------------------------------
// 5. Timeout: exit 10, TIMEOUT, meta.timeout_ms, one envelope.

func TestE2ETimeout(t *testing.T) { onEach(t, testTimeout) }

func testTimeout(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	r := sb.run(t, "watch", "--timeout", "1s")
	env := expectEnvelope(t, "watch --timeout 1s", r, 10)
	want := map[string]any{"error.code": "TIMEOUT", "meta.timeout_ms": 1000.0, "data": nil}
	if diff := cmp.Diff(want, pick(env, want)); diff != "" {
		t.Errorf("envelope (-want +got):\n%s", diff)
	}
}

// ---------------------------------------------------------------------------
// 6. Signals: SIGINT → 130, SIGTERM → 143, one CANCELLED envelope naming the
// signal in error.context.signal, its data {"partial": true} (F-013,
// F-069); a JSONL stream cut by SIGINT ends on that envelope (O-004).

func TestE2ESignals(t *testing.T) { onEach(t, testSignals) }

func testSignals(t *testing.T, bin string) {
	t.Parallel()
	tests := []struct {
		sig  syscall.Signal
		code int
	}{
		{syscall.SIGINT, 130},
		{syscall.SIGTERM, 143},
	}
	for _, tt := range tests {
		t.Run(tt.sig.String(), func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t, bin)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			// --verbose: piped, progress is shown only when asked for.
			cmd := exec.CommandContext(ctx, sb.bin, "watch", "--verbose")
			cmd.Env = sb.env
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			errPipe, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The first progress event means the handler is running, so
			// the lifecycle's signal handling is in place.
			stderr := bufio.NewReader(errPipe)
			first, err := stderr.ReadString('\n')
			if err != nil {
				t.Fatalf("watch wrote no progress before %v: %q", err, first)
			}
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			rest, _ := io.ReadAll(stderr)
			code := exitCode(cmd.Wait()) // before reading stdout: Wait ends the copying
			r := result{stdout: stdout.String(), stderr: first + string(rest), code: code}
			env := expectEnvelope(t, "watch + "+tt.sig.String(), r, tt.code)
			if got := get(env, "error.code"); got != "CANCELLED" {
				t.Errorf("error.code = %v, want CANCELLED", got)
			}
			want := map[string]any{"error.context.signal": map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[tt.sig],
				"data": map[string]any{"partial": true}, "error.signal": nil}
			if diff := cmp.Diff(want, pick(env, want)); diff != "" {
				t.Errorf("the CANCELLED envelope (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("a jsonl stream ends on the CANCELLED envelope", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t, bin)
		sb.seed(t, item("t1", "open", false))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, sb.bin, "watch", "--format", "jsonl", "--interval", "50ms")
		cmd.Env = sb.env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		outPipe, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Two updates have come: the stream is under way.
		stdout := bufio.NewReader(outPipe)
		var lines []string
		for len(lines) < 2 {
			l, err := stdout.ReadString('\n')
			if err != nil {
				t.Fatalf("watch ended before its second line: %v\n%s%s", err, strings.Join(lines, ""), stderr.String())
			}
			lines = append(lines, l)
		}
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		rest, _ := io.ReadAll(stdout)
		code := exitCode(cmd.Wait())
		lines = append(lines, strings.SplitAfter(strings.TrimSuffix(string(rest), "\n"), "\n")...)
		last := lines[len(lines)-1]
		for _, l := range lines[:len(lines)-1] {
			var it map[string]any
			if err := json.Unmarshal([]byte(l), &it); err != nil || it["tick"] == nil || it["_summary"] != nil {
				t.Errorf("line %q is not an update: %v", l, err)
			}
		}
		env := expectEnvelope(t, "watch --format jsonl + SIGINT", result{stdout: last, stderr: stderr.String(), code: code}, 130)
		want := map[string]any{"error.code": "CANCELLED", "error.context.signal": "SIGINT", "data": map[string]any{"partial": true}}
		if diff := cmp.Diff(want, pick(env, want)); diff != "" {
			t.Errorf("the stream's last line (-want +got):\n%s", diff)
		}
	})
}

// ---------------------------------------------------------------------------
// 7. A reader that closes the pipe early: exit 0, nothing on stderr.

func TestE2EClosedPipe(t *testing.T) { onEach(t, testClosedPipe) }

func testClosedPipe(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	// 2,000 items make the answer far larger than a pipe's 64 KiB buffer, so
	// the binary is still writing when the reader goes away.
	items := make([]map[string]any, 2000)
	for i := range items {
		items[i] = item("t"+strconv.Itoa(i+1), "an item with a title long enough to fill the pipe", false)
	}
	sb.seed(t, items...)
	if full := sb.run(t, "list", "--limit", "0"); len(full.stdout) < 256<<10 {
		t.Fatalf("premise: the full answer is only %d bytes; it must overflow the pipe buffer", len(full.stdout))
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(sb.bin, "list", "--limit", "0")
	cmd.Env, cmd.Stdout, cmd.Stderr = sb.env, w, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close() // the child holds the only write end now
	head := make([]byte, 10)
	if _, err := io.ReadFull(r, head); err != nil {
		t.Fatalf("reading the first 10 bytes: %v", err)
	}
	r.Close() // like `head -c 10` exiting
	code := exitCode(cmd.Wait())
	if code != 0 {
		t.Errorf("exit code %d after the reader closed the pipe, want 0 (-1 means killed by SIGPIPE)", code)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr should be empty, got %q", stderr.String())
	}
}

// ---------------------------------------------------------------------------
// 8. The size cap cuts a list to a valid envelope that says so.

func TestE2ESizeCap(t *testing.T) { onEach(t, testSizeCap) }

func testSizeCap(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	items := make([]map[string]any, 200)
	for i := range items {
		items[i] = item("t"+strconv.Itoa(i+1), "item "+strconv.Itoa(i+1), false)
	}
	sb.seed(t, items...)
	r := sb.runEnv(t, []string{"TODO_MAX_OUTPUT_BYTES=2000"}, "list", "--limit", "0")
	if len(r.stdout) > 2000 {
		t.Errorf("stdout is %d bytes, over the 2000-byte cap", len(r.stdout))
	}
	env := expectEnvelope(t, "list --limit 0 (capped)", r, 0)
	want := map[string]any{"meta.truncated": true, "meta.pagination.has_more": true, "meta.pagination.total": 200.0}
	if diff := cmp.Diff(want, pick(env, want)); diff != "" {
		t.Errorf("envelope (-want +got):\n%s", diff)
	}
	if h, _ := get(env, "meta.truncation_hint").(string); h == "" {
		t.Errorf("meta.truncation_hint is empty")
	}
	data, _ := env["data"].([]any)
	if n := len(data); n == 0 || n >= 200 || get(env, "meta.pagination.returned") != float64(n) {
		t.Fatalf("data has %d items, pagination says %v", n, get(env, "meta.pagination.returned"))
	}
	// The cursor continues right after the last item that fit.
	cursor, _ := get(env, "meta.pagination.next_cursor").(string)
	next := expectEnvelope(t, "list --cursor (after the cap)", sb.run(t, "list", "--limit", "1", "--cursor", cursor), 0)
	if got, want := get(next, "data.0.id"), "t"+strconv.Itoa(len(data)+1); got != want {
		t.Errorf("the next page starts at %v, want %s", got, want)
	}
}

// ---------------------------------------------------------------------------
// 9. Invalid UTF-8 in data never breaks the JSON.

func TestE2EInvalidUTF8(t *testing.T) { onEach(t, testInvalidUTF8) }

func testInvalidUTF8(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	// Written by hand: json.Marshal would have repaired the bytes already.
	raw := "{\"version\":1,\"next\":1,\"items\":[{\"id\":\"t1\",\"title\":\"bad\xff\xfe\\u001b[31m\",\"priority\":\"normal\",\"done\":false,\"created\":\"2026-01-02T03:04:05Z\"}]}\n"
	if err := os.WriteFile(sb.file, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := [][]string{
		{"list"},
		{"show", "t1"},
		{"list", "--format", "jsonl"},
		{"list", "--format", "tsv"},
		{"add", "also bad \xc3\x28"},
	}
	for _, args := range tests {
		r := sb.run(t, args...)
		if r.code != 0 {
			t.Errorf("todo %q: exit %d, stderr %q", args, r.code, r.stderr)
			continue
		}
		if !utf8.ValidString(r.stdout) {
			t.Errorf("todo %q: stdout is not valid UTF-8: %q", args, r.stdout)
		}
		// JSON escapes control bytes; tsv carries data verbatim (escaping
		// only tab, newline and backslash), so only JSON is held to this.
		if !slices.Contains(args, "tsv") && (strings.Contains(r.stdout, "\x1b") || strings.Contains(r.stdout, `\u001b`)) {
			t.Errorf("todo %q: an escape sequence from data reached the JSON, raw or escaped: %q", args, r.stdout)
		}
		if len(args) == 1 || args[0] == "show" || args[0] == "add" {
			env := expectEnvelope(t, fmt.Sprintf("todo %q", args), r, 0)
			title := fmt.Sprint(get(env, "data.title"))
			if args[0] == "list" {
				title = fmt.Sprint(get(env, "data.0.title"))
			}
			if !strings.HasPrefix(title, "bad") && !strings.HasPrefix(title, "also bad") {
				t.Errorf("todo %q: title %q lost its text", args, title)
			}
		}
	}
}

// ---------------------------------------------------------------------------
// 10. Help and version in a pipe.

func TestE2EHelpPiped(t *testing.T) { onEach(t, testHelpPiped) }

func testHelpPiped(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	for _, args := range [][]string{{"--help"}, {"list", "--help"}, {"help", "list"}, {"-h"}, {"list", "--limit", "3", "--help"}} {
		r := sb.run(t, args...)
		env := expectEnvelope(t, fmt.Sprintf("todo %q", args), r, 0)
		want := map[string]any{"data": nil, "meta.help": true}
		if diff := cmp.Diff(want, pick(env, want)); diff != "" {
			t.Errorf("todo %q (-want +got):\n%s", args, diff)
		}
		if !strings.Contains(strings.ToUpper(r.stderr), "USAGE") { // urfave: USAGE, cobra: Usage:
			t.Errorf("todo %q: help text should be on stderr, got %q", args, r.stderr)
		}
		// Duet's built-in flags never reach urfave's parser, but its help
		// lists them.
		if args[0] == "list" {
			for _, flag := range []string{"--status", "--limit", "--cursor", "--timeout", "--format", "--output"} {
				if !strings.Contains(r.stderr, flag) {
					t.Errorf("todo %q: help does not list %s:\n%s", args, flag, r.stderr)
				}
			}
		}
	}

	r := sb.run(t, "--version")
	if r.code != 0 || strings.Count(r.stdout, "\n") != 1 || !strings.HasSuffix(r.stdout, "\n") || !strings.HasPrefix(r.stdout, "todo ") {
		t.Errorf("--version: exit %d, stdout %q; want one line starting with the tool's name", r.code, r.stdout)
	}
	if !strings.Contains(r.stdout, "0.1.0") {
		t.Errorf("--version %q does not carry the version", r.stdout)
	}
}

// ---------------------------------------------------------------------------
// 11. A person at a terminal, and an agent that happens to have one.

func TestE2ETerminal(t *testing.T) { onEach(t, testTerminal) }

func testTerminal(t *testing.T, bin string) {
	t.Parallel()
	ansi := regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)
	tests := []struct {
		name    string
		env     []string
		args    []string
		code    int
		colour  string   // "on": an ANSI escape expected; "off": no ESC byte at all; "": not checked
		has     []string // after stripping ANSI
		hasNot  []string
		pattern string // a regexp the ANSI-stripped output must match
		agent   bool   // the output must be one envelope
	}{
		{name: "table with colour", args: []string{"list"}, colour: "on",
			has: []string{"title", "first"}, hasNot: []string{`{"ok"`}},
		// NO_COLOR, set even empty, says how to write, not who reads: a
		// person's table, without colour (todo is spec-strict all the
		// same: CI below is an agent, as F-003's criteria want).
		{name: "NO_COLOR is a person without colour", env: []string{"NO_COLOR=1"}, args: []string{"list"}, colour: "off",
			has: []string{"title", "first"}, hasNot: []string{`{"ok"`}},
		{name: "empty NO_COLOR is a person without colour", env: []string{"NO_COLOR="}, args: []string{"list"}, colour: "off",
			has: []string{"title", "first"}, hasNot: []string{`{"ok"`}},
		{name: "TERM=dumb", env: []string{"TERM=dumb"}, args: []string{"list"}, colour: "off",
			has: []string{"title", "first"}, hasNot: []string{`{"ok"`}},
		{name: "object as key: value", env: []string{"TERM=dumb"}, args: []string{"show", "t1"}, colour: "off",
			pattern: `(?m)^id:\s+t1\s*$`},
		{name: "help on the terminal", args: []string{"--help"},
			has: []string{"usage", "list"}, hasNot: []string{`{"ok"`}},
		{name: "error line", args: []string{"show", "t99"}, code: 5,
			pattern: `ERROR \[TODO_NOT_FOUND\]: no to-do with id t99\. Next: .+`, hasNot: []string{`{"ok"`}},
		{name: "CI means agent", env: []string{"CI=1"}, args: []string{"list"}, agent: true},
		{name: "--format json means agent", args: []string{"list", "--format", "json"}, agent: true},
		{name: "TODO_FORMAT means agent", env: []string{"TODO_FORMAT=json"}, args: []string{"list"}, agent: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t, bin)
			sb.seed(t, item("t1", "first", false))
			p := startPTY(t, bin, append(sb.env, tt.env...), tt.args...)
			out, code := p.Wait(t)
			if code != tt.code {
				t.Errorf("exit %d, want %d; output %q", code, tt.code, out)
			}
			if tt.agent {
				env := decodeEnvelope(t, []byte(strings.ReplaceAll(out, "\r\n", "\n")))
				if strings.Contains(out, "\x1b") {
					t.Errorf("agent output carries an ESC byte: %q", out)
				}
				if got := get(env, "data.0.id"); got != "t1" {
					t.Errorf("data.0.id = %v, want t1", got)
				}
				return
			}
			switch {
			case tt.colour == "on" && !ansi.MatchString(out):
				t.Errorf("want colour, got no ANSI escape: %q", out)
			case tt.colour == "off" && strings.Contains(out, "\x1b"):
				t.Errorf("want no colour, got an ESC byte: %q", out)
			}
			plain := ansi.ReplaceAllString(out, "")
			for _, s := range tt.has {
				if !strings.Contains(plain, s) && !strings.Contains(strings.ToLower(plain), s) {
					t.Errorf("output lacks %q:\n%s", s, plain)
				}
			}
			for _, s := range tt.hasNot {
				if strings.Contains(plain, s) {
					t.Errorf("output has %q:\n%s", s, plain)
				}
			}
			if tt.pattern != "" && !regexp.MustCompile(tt.pattern).MatchString(plain) {
				t.Errorf("output does not match %q:\n%s", tt.pattern, plain)
			}
		})
	}
}

// At a terminal a destructive command asks, and only "y" proceeds.
func TestE2ETerminalConfirmation(t *testing.T) { onEach(t, testTerminalConfirmation) }

func testTerminalConfirmation(t *testing.T, bin string) {
	t.Parallel()
	tests := []struct {
		answer string
		ok     bool
		left   []string
	}{
		{"n\n", false, []string{"t1", "t2"}},
		{"\n", false, []string{"t1", "t2"}}, // the default is No
		{"y\n", true, []string{"t2"}},
	}
	for _, tt := range tests {
		t.Run(strconv.Quote(tt.answer), func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t, bin)
			sb.seed(t, item("t1", "finished", true), item("t2", "still open", false))
			p := startPTY(t, bin, sb.env, "purge")
			p.WaitFor(t, "[y/N]")
			p.Write(t, tt.answer)
			out, code := p.Wait(t)
			if (code == 0) != tt.ok {
				t.Errorf("answer %q: exit %d; output %q", tt.answer, code, out)
			}
			sb.expectIDs(t, "after answering "+strconv.Quote(tt.answer), tt.left...)
		})
	}
}

// ---------------------------------------------------------------------------
// 13. describe: the whole tree, its etag and AGENTS.md.

func TestE2EDescribe(t *testing.T) { onEach(t, testDescribe) }

func testDescribe(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	env := expectEnvelope(t, "describe", sb.run(t, "describe"), 0)
	etag, _ := get(env, "data.etag").(string)
	if etag == "" {
		t.Fatalf("describe has no etag: %v", env["data"])
	}
	commands, _ := get(env, "data.commands").(map[string]any)
	for _, name := range []string{"add", "list", "show", "done", "purge", "watch", "describe"} {
		if _, ok := commands[name]; !ok {
			t.Errorf("describe lacks %q; has %v", name, keys(commands))
		}
	}

	t.Run("same etag is not modified", func(t *testing.T) {
		env := expectEnvelope(t, "describe --etag", sb.run(t, "describe", "--etag", etag), 0)
		want := map[string]any{"data": nil, "meta.not_modified": true}
		if diff := cmp.Diff(want, pick(env, want)); diff != "" {
			t.Errorf("describe --etag <current> (-want +got):\n%s", diff)
		}
	})
	t.Run("other etag gets the manifest", func(t *testing.T) {
		env := expectEnvelope(t, "describe --etag stale", sb.run(t, "describe", "--etag", "stale"), 0)
		if got := get(env, "data.etag"); got != etag {
			t.Errorf("data.etag = %v, want %s", got, etag)
		}
	})
	t.Run("agents-md", func(t *testing.T) {
		r := sb.run(t, "describe", "--agents-md")
		// O-043: the version it documents on line 1, then the title.
		if r.code != 0 || !strings.HasPrefix(r.stdout, "<!-- cli-version: 0.1.0 -->\n# AGENTS.md — todo\n") {
			t.Errorf("describe --agents-md: exit %d, stdout starts %q, stderr %q; want the cli-version line, then \"# AGENTS.md — todo\"",
				r.code, r.stdout[:min(len(r.stdout), 200)], r.stderr)
		}
	})
}

// ---------------------------------------------------------------------------
// 14. --schema on every command describe lists.

func TestE2ESchemaEveryCommand(t *testing.T) { onEach(t, testSchemaEveryCommand) }

func testSchemaEveryCommand(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	env := expectEnvelope(t, "describe", sb.run(t, "describe"), 0)
	commands, _ := get(env, "data.commands").(map[string]any)
	tool, _ := get(env, "data.tool").(string)
	if len(commands) == 0 {
		t.Fatal("describe listed no commands")
	}
	for _, path := range keys(commands) {
		t.Run(path, func(t *testing.T) {
			args := []string{"--schema"}
			if path != tool { // the root is listed under the tool's name
				args = append(strings.Split(path, "."), "--schema")
			}
			env := expectEnvelope(t, "todo "+strings.Join(args, " "), sb.run(t, args...), 0)
			want := map[string]any{"data.command": path, "data.input_schema.type": "object"}
			if path == tool { // the root's --schema is the whole tree (O-013), as describe lists it
				want = map[string]any{"data.tool": tool, "data.commands.add.command": "add"}
			}
			if diff := cmp.Diff(want, pick(env, want)); diff != "" {
				t.Errorf("todo %s (-want +got):\n%s", strings.Join(args, " "), diff)
			}
			entry, _ := commands[path].(map[string]any)
			if path == tool || entry["runnable"] != true {
				return
			}
			// Every command's output is a JSON Schema, declared or not (C-015),
			// in its own --schema and in the tree's entry for it.
			for where, out := range map[string]any{"--schema": get(env, "data.output_schema"), "the tree": entry["output_schema"]} {
				raw, _ := json.Marshal(out)
				if _, err := validator.Compile(schema.Schema(mustObject(t, raw))); out == nil || err != nil {
					t.Errorf("%s: output_schema in %s is not a JSON Schema (%v): %s", path, where, err, raw)
				}
			}
			if _, ok := get(env, "data.parameters").(map[string]any); !ok && len(get(env, "data.flags").(map[string]any)) > 0 {
				t.Errorf("%s --schema has no parameters", path)
			}
		})
	}

	t.Run("tool --schema is every command's whole document", func(t *testing.T) {
		first := sb.run(t, "--schema")
		env := expectEnvelope(t, "todo --schema", first, 0)
		all, _ := get(env, "data.commands").(map[string]any)
		for _, path := range keys(all) {
			doc, _ := all[path].(map[string]any)
			if doc["runnable"] != true {
				continue
			}
			for _, member := range []string{"parameters", "input_schema", "output_schema", "exit_codes", "danger_level"} {
				if _, ok := doc[member]; !ok {
					t.Errorf("todo --schema: %s has no %s", path, member)
				}
			}
		}
		// --print-schema is the same, and the same again (O-013): only the
		// request id and timing differ.
		again := sb.run(t, "--print-schema")
		var a, b map[string]json.RawMessage
		if json.Unmarshal([]byte(first.stdout), &a) != nil || json.Unmarshal([]byte(again.stdout), &b) != nil || !bytes.Equal(a["data"], b["data"]) {
			t.Errorf("todo --print-schema differs from todo --schema")
		}
	})

	t.Run("show --schema despite its required argument", func(t *testing.T) {
		env := expectEnvelope(t, "show --schema", sb.run(t, "show", "--schema"), 0)
		want := map[string]any{"data.command": "show", "data.danger_level": "safe", "data.input_schema.required": []any{"id"}}
		if diff := cmp.Diff(want, pick(env, want)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if _, ok := get(env, "data.exit_codes.5").(map[string]any); !ok {
			t.Errorf("show --schema does not declare exit code 5: %v", get(env, "data.exit_codes"))
		}
	})
}

// ---------------------------------------------------------------------------
// 15. Progress: none where nobody watches stderr (a pipe), JSON events for
// an agent that asks with --verbose, none under --quiet.

func TestE2EProgress(t *testing.T) { onEach(t, testProgress) }

func testProgress(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	r := sb.run(t, "watch", "--count", "2", "--interval", "10ms")
	env := expectEnvelope(t, "watch --count 2", r, 0)
	if data, _ := env["data"].([]any); len(data) != 2 {
		t.Errorf("watch --count 2 returned %d items: %v", len(data), env["data"])
	}
	if r.stderr != "" {
		t.Errorf("piped, nobody watches stderr (REQ-F-038), yet: %q", r.stderr)
	}
	r = sb.run(t, "watch", "--count", "2", "--interval", "10ms", "--verbose")
	expectEnvelope(t, "watch --verbose", r, 0)
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.stderr == "" || len(lines) == 0 {
		t.Fatalf("no progress on stderr")
	}
	var last map[string]any
	for _, l := range lines {
		last = nil
		if err := json.Unmarshal([]byte(l), &last); err != nil || last["type"] != "progress" {
			t.Errorf("stderr line %q is not a JSON progress event (%v)", l, err)
		}
	}
	want := map[string]any{"type": "progress", "message": "watching", "done": 2.0, "total": 2.0}
	if diff := cmp.Diff(want, last); diff != "" {
		t.Errorf("last progress event (-want +got):\n%s", diff)
	}

	r = sb.run(t, "watch", "--count", "2", "--interval", "10ms", "--quiet")
	expectEnvelope(t, "watch --quiet", r, 0)
	if r.stderr != "" {
		t.Errorf("--quiet: stderr should be empty, got %q", r.stderr)
	}
}

// ---------------------------------------------------------------------------
// 16. Real output matches the output schema each command declares.

func TestE2EOutputSchema(t *testing.T) { onEach(t, testOutputSchema) }

func testOutputSchema(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	sb.seed(t, item("t1", "first", false))
	tests := []struct {
		command string
		args    []string
	}{
		{"add", []string{"add", "second", "--tag", "b", "--tag", "a"}},
		{"list", []string{"list", "--status", "all"}},
		{"show", []string{"show", "t1"}},
		{"done", []string{"done", "t1"}},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			compiled := outputSchema(t, sb, tt.command)
			env := expectEnvelope(t, "todo "+strings.Join(tt.args, " "), sb.run(t, tt.args...), 0)
			data, err := json.Marshal(env["data"])
			if err != nil {
				t.Fatal(err)
			}
			if err := compiled.Validate(data); err != nil {
				t.Errorf("todo %s: data does not match its declared output schema: %v\n%s", strings.Join(tt.args, " "), err, data)
			}
		})
	}
	// The check itself must be able to fail.
	if err := outputSchema(t, sb, "show").Validate(json.RawMessage(`{"id":1}`)); err == nil {
		t.Error("the show output schema accepted {\"id\":1}")
	}
}

func outputSchema(t *testing.T, sb *sandbox, command string) *validator.Compiled {
	t.Helper()
	env := expectEnvelope(t, command+" --schema", sb.run(t, command, "--schema"), 0)
	doc, ok := get(env, "data.output_schema").(map[string]any)
	if !ok || len(doc) == 0 {
		t.Fatalf("%s --schema declares no output_schema: %v", command, env["data"])
	}
	compiled, err := validator.Compile(schema.Schema(doc))
	if err != nil {
		t.Fatalf("%s: output_schema does not compile: %v", command, err)
	}
	return compiled
}

// ===========================================================================
// Helpers.

// result is what one run of the binary left behind.
type result struct {
	stdout, stderr string
	code           int
}

// sandbox is an isolated home for the binary: its own HOME, data dir and
// to-do file, and an environment with nothing inherited that changes the
// audience.
type sandbox struct {
	bin  string // the binary under test
	dir  string // everything the run writes is under it
	file string
	env  []string
}

func newSandbox(t *testing.T, bin string) *sandbox {
	t.Helper()
	dir := t.TempDir()
	sb := &sandbox{bin: bin, dir: dir, file: filepath.Join(dir, "todo.json")}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "CI", name == "NO_COLOR", name == "TERM", name == "COLORTERM", name == "HOME",
			name == "CLICOLOR", name == "CLICOLOR_FORCE", name == "FORCE_COLOR",
			strings.HasPrefix(name, "XDG_"), strings.HasPrefix(name, "TODO_"):
			continue
		}
		sb.env = append(sb.env, kv)
	}
	sb.env = append(sb.env,
		"HOME="+filepath.Join(dir, "home"),
		"XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"TODO_FILE="+sb.file,
		"TERM=xterm-256color", // for pty runs; cases override it
	)
	return sb
}

// run runs the binary with stdout and stderr on pipes, as an agent would.
func (sb *sandbox) run(t *testing.T, args ...string) result {
	t.Helper()
	return run(t, sb.bin, sb.env, args...)
}

// runEnv is run with extra environment; exec uses the last value of a
// duplicated key, so extra overrides the sandbox.
func (sb *sandbox) runEnv(t *testing.T, extra []string, args ...string) result {
	t.Helper()
	return run(t, sb.bin, append(slices.Clone(sb.env), extra...), args...)
}

// runIn is run with dir as the working directory, where a relative path
// such as --output's lands.
func (sb *sandbox) runIn(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return runAt(t, dir, sb.bin, sb.env, args...)
}

func run(t *testing.T, bin string, env []string, args ...string) result {
	t.Helper()
	return runAt(t, "", bin, env, args...)
}

// runAt runs bin in dir, or in the test's working directory when dir is "".
func runAt(t *testing.T, dir, bin string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env, cmd.Dir = env, dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := exitCode(cmd.Run())
	if ctx.Err() != nil {
		t.Fatalf("todo %q did not finish in time", args)
	}
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// strays lists what sb.dir holds besides the sandbox's own files: its
// home, data directory and store.
func (sb *sandbox) strays(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(sb.dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		switch e.Name() {
		case "home", "data", filepath.Base(sb.file), filepath.Base(sb.file) + ".lock":
		default:
			names = append(names, e.Name())
		}
	}
	return names
}

func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode() // -1 when a signal killed the process
	}
	return -2
}

// item is a stored to-do in the on-disk format of internal/todo/store.go.
func item(id, title string, done bool) map[string]any {
	return map[string]any{"id": id, "title": title, "priority": "normal", "done": done, "created": "2026-01-02T03:04:05Z"}
}

// seed writes the store file directly: {"version":1,"next":N,"items":[...]}.
func (sb *sandbox) seed(t *testing.T, items ...map[string]any) {
	t.Helper()
	raw, err := json.Marshal(map[string]any{"version": 1, "next": len(items), "items": items})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sb.file, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

func (sb *sandbox) storeBytes(t *testing.T) []byte {
	t.Helper()
	raw, err := os.ReadFile(sb.file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return raw
}

// expectIDs checks which items the store holds, through the binary itself.
func (sb *sandbox) expectIDs(t *testing.T, when string, want ...string) {
	t.Helper()
	r := sb.run(t, "list", "--status", "all", "--limit", "0", "--format", "id")
	if r.code != 0 {
		t.Fatalf("%s: list: exit %d, stderr %q", when, r.code, r.stderr)
	}
	got := strings.Fields(r.stdout)
	if len(want) == 0 {
		want = nil
	}
	if len(got) == 0 {
		got = nil
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: items in the store (-want +got):\n%s", when, diff)
	}
}

// decodeEnvelope asserts that stdout is exactly one JSON object with the five
// envelope keys and the required meta, meta.exit_code first, and warnings
// that are objects, and returns it decoded.
func decodeEnvelope(t *testing.T, stdout []byte) map[string]any {
	t.Helper()
	if !utf8.Valid(stdout) {
		t.Errorf("stdout is not valid UTF-8: %q", stdout)
	}
	if !bytes.HasPrefix(stdout, []byte("{")) {
		t.Fatalf("stdout does not start with a JSON object: %q", stdout)
	}
	one := jsontest.One(t, stdout)
	var env map[string]any
	if err := json.Unmarshal(one, &env); err != nil {
		t.Fatalf("stdout is not a JSON object: %v\n%s", err, stdout)
	}
	if diff := cmp.Diff([]string{"data", "error", "meta", "ok", "warnings"}, keys(env)); diff != "" {
		t.Errorf("envelope keys (-want +got):\n%s", diff)
	}
	if _, ok := env["ok"].(bool); !ok {
		t.Errorf("ok is not a boolean: %v", env["ok"])
	}
	checkWarnings(t, env["warnings"])
	switch env["data"].(type) {
	case nil, map[string]any, []any:
	default:
		t.Errorf("data is neither an object, an array nor null: %v", env["data"])
	}
	meta, ok := env["meta"].(map[string]any)
	if !ok {
		t.Fatalf("meta is not an object: %v", env["meta"])
	}
	checkMetaExitCode(t, one)
	for _, k := range []string{"duration_ms", "schema_version", "tool_version", "command", "request_id"} {
		if _, ok := meta[k]; !ok {
			t.Errorf("meta lacks %q: %v", k, meta)
		}
	}
	if d, ok := meta["duration_ms"].(float64); !ok || d < 0 {
		t.Errorf("meta.duration_ms = %v, want a number ≥ 0", meta["duration_ms"])
	}
	if meta["schema_version"] != "1.0" {
		t.Errorf("meta.schema_version = %v, want 1.0", meta["schema_version"])
	}
	for _, k := range []string{"tool_version", "command", "request_id"} {
		if s, _ := meta[k].(string); s == "" {
			t.Errorf("meta.%s is empty", k)
		}
	}
	return env
}

// checkWarnings asserts that warnings is an array of ResponseEnvelope 2.x
// warnings: objects with an UPPER_SNAKE code, a message, and at most a
// context object besides.
func checkWarnings(t *testing.T, warnings any) {
	t.Helper()
	list, ok := warnings.([]any)
	if !ok {
		t.Errorf("warnings is not an array: %v", warnings)
		return
	}
	for _, w := range list {
		obj, _ := w.(map[string]any)
		code, _ := obj["code"].(string)
		message, _ := obj["message"].(string)
		ctx, hasContext := obj["context"]
		_, isObject := ctx.(map[string]any)
		shape := len(obj) == 2 || (len(obj) == 3 && hasContext && isObject)
		if !regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`).MatchString(code) || message == "" || !shape {
			t.Errorf("warning %v is not {code, message, context?}", w)
		}
	}
}

// checkMetaExitCode asserts that the envelope (or summary line) raw has
// meta.exit_code as the first key of its meta.
func checkMetaExitCode(t *testing.T, raw []byte) {
	t.Helper()
	var top struct {
		Meta json.RawMessage `json:"meta"`
	}
	if err := json.Unmarshal(raw, &top); err != nil || len(top.Meta) == 0 {
		t.Errorf("no meta in %s: %v", raw, err)
		return
	}
	if k := jsontest.Keys(t, top.Meta); len(k) == 0 || k[0] != "exit_code" {
		t.Errorf("meta's keys are %q, want exit_code first", k)
	}
}

// decodeSummary asserts that line is a stream's summary line (REQ-O-004):
// one JSON object with "_summary": true, the number of items, duration_ms,
// warnings and meta (exit_code 0, first), and none of an envelope's keys;
// and returns it decoded.
func decodeSummary(t *testing.T, line []byte) map[string]any {
	t.Helper()
	raw := jsontest.One(t, line)
	var sum map[string]any
	if err := json.Unmarshal(raw, &sum); err != nil {
		t.Fatalf("the summary line is not a JSON object: %v\n%s", err, line)
	}
	if diff := cmp.Diff([]string{"_count", "_summary", "duration_ms", "meta", "total", "warnings"}, keys(sum)); diff != "" {
		t.Errorf("summary line keys (-want +got):\n%s", diff)
	}
	if sum["_count"] != sum["total"] {
		t.Errorf("_count %v, total %v: a numbered stream counts every item line", sum["_count"], sum["total"])
	}
	if sum["_summary"] != true {
		t.Errorf("_summary is %v, want true", sum["_summary"])
	}
	if n, ok := sum["total"].(float64); !ok || n < 0 {
		t.Errorf("total = %v, want a count", sum["total"])
	}
	if d, ok := sum["duration_ms"].(float64); !ok || d < 0 {
		t.Errorf("duration_ms = %v, want a number ≥ 0", sum["duration_ms"])
	}
	checkWarnings(t, sum["warnings"])
	checkMetaExitCode(t, raw)
	if got := get(sum, "meta.exit_code"); got != 0.0 {
		t.Errorf("the summary line's meta.exit_code is %v, want 0", got)
	}
	return sum
}

// expectEnvelope checks the exit code and that ok, error and
// meta.exit_code agree with it.
func expectEnvelope(t *testing.T, what string, r result, code int) map[string]any {
	t.Helper()
	if r.code != code {
		t.Errorf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", what, r.code, code, r.stdout, r.stderr)
	}
	env := decodeEnvelope(t, []byte(r.stdout))
	if ok := env["ok"] == true; ok != (r.code == 0) {
		t.Errorf("%s: ok is %v with exit code %d", what, env["ok"], r.code)
	}
	if got := get(env, "meta.exit_code"); got != float64(r.code) {
		t.Errorf("%s: meta.exit_code is %v with exit code %d", what, got, r.code)
	}
	e, isErr := env["error"].(map[string]any)
	switch {
	case r.code == 0 && env["error"] != nil:
		t.Errorf("%s: exit 0 with an error: %v", what, env["error"])
	case r.code != 0 && !isErr:
		t.Errorf("%s: exit %d without an error object", what, r.code)
	case isErr:
		if s, _ := e["code"].(string); !regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`).MatchString(s) {
			t.Errorf("%s: error.code %q is not UPPER_SNAKE", what, s)
		}
		if s, _ := e["message"].(string); s == "" {
			t.Errorf("%s: error.message is empty", what)
		}
		if _, ok := e["retryable"].(bool); !ok {
			t.Errorf("%s: error.retryable is missing", what)
		}
	}
	return env
}

// get follows a dot path through decoded JSON; a number indexes an array.
func get(v any, path string) any {
	for _, part := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// pick returns the values at want's paths, to diff against want. JSON numbers
// decode as float64, so wants spell them 1.0.
func pick(env map[string]any, want map[string]any) map[string]any {
	got := make(map[string]any, len(want))
	for path := range want {
		got[path] = get(env, path)
	}
	return got
}

func errorCodes(env map[string]any) []string {
	list, _ := get(env, "error.errors").([]any)
	var codes []string
	for _, e := range list {
		codes = append(codes, fmt.Sprint(get(e, "code")))
	}
	slices.Sort(codes)
	return codes
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// startPTY runs the binary on a pseudo-terminal, as a person's shell does.
func startPTY(t *testing.T, bin string, env []string, args ...string) *ptytest.Session {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	return ptytest.Start(t, cmd)
}

// ---------------------------------------------------------------------------
// Issue 3: shell completion keeps working for a person.

// TestE2ECompletion sources each build's `completion bash` script in a real
// bash and asks it to complete, as a person's shell does on Tab. The script
// is Duet's (adapters/completion), made from the command tree — on cobra in
// place of cobra's own completion command — so the two builds print the
// same one. Cobra's hidden __complete, which a script cobra made calls, still
// passes through to cobra.
func TestE2ECompletion(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("needs bash")
	}
	var scripts []string
	for _, b := range binaries {
		r := newSandbox(t, b.path).run(t, "completion", "bash")
		if r.code != 0 || !strings.HasPrefix(r.stdout, "# bash completion for todo") {
			t.Fatalf("%s: completion bash: exit %d, stdout %.200q, stderr %q", b.framework, r.code, r.stdout, r.stderr)
		}
		scripts = append(scripts, r.stdout)
	}
	if diff := cmp.Diff(scripts[0], scripts[1]); diff != "" {
		t.Errorf("the builds print different scripts (-urfave +cobra):\n%s", diff)
	}
	scriptFile := filepath.Join(t.TempDir(), "todo.bash")
	if err := os.WriteFile(scriptFile, []byte(scripts[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		line string   // what the person typed before Tab
		want []string // candidates offered
	}{
		{"todo li", []string{"list"}},
		{"todo d", []string{"describe", "doctor", "done"}},
		{"todo list --li", []string{"--limit"}}, // a built-in flag
		{"todo list --st", []string{"--stable-output", "--status", "--stream"}},
		{"todo list --status ", []string{"open", "done", "all"}},
		{"todo add -p h", []string{"high"}},
		{"todo profile s", []string{"save", "show"}},
		{"todo completion ", []string{"bash", "zsh", "fish", "install"}},
	}
	for _, tt := range tests {
		words := strings.Fields(tt.line)
		if strings.HasSuffix(tt.line, " ") {
			words = append(words, "")
		}
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c",
			`source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); __todo_complete; printf '%s\n' "${COMPREPLY[@]}"`,
			"bash", scriptFile)
		cmd.Args = append(cmd.Args, words...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			t.Fatalf("%q: bash: %v\n%s", tt.line, err, stderr.String())
		}
		if diff := cmp.Diff(tt.want, strings.Fields(string(out))); diff != "" {
			t.Errorf("completions of %q (-want +got):\n%s", tt.line, diff)
		}
	}
	r := newSandbox(t, binaries[1].path).run(t, "__complete", "list", "--st")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "--status\t") {
		t.Errorf("cobra: __complete list --st: exit %d, stdout %q, stderr %q: want cobra's own answer", r.code, r.stdout, r.stderr)
	}
}
