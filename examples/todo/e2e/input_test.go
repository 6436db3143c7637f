//go:build linux

package e2e

// The input area, driven as an agent drives it: a payload piped to
// `todo import` and the same payload in a file, ids piped from one todo to
// the next, JSON5 where JSON is asked for, and --raw-payload.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// runStdin is run with stdin fed from r.
func (sb *sandbox) runStdin(t *testing.T, r io.Reader, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, sb.bin, args...)
	cmd.Env, cmd.Stdin = sb.env, r
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := exitCode(cmd.Run())
	if ctx.Err() != nil {
		t.Fatalf("todo %q did not finish in time", args)
	}
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// jsonLines is to-dos as JSON lines, a hundred bytes each, size bytes or a
// line more in all, and how many there are.
func jsonLines(size int) ([]byte, int) {
	var b bytes.Buffer
	n := 0
	for ; b.Len() < size; n++ {
		line := fmt.Sprintf(`{"title": "item %d`, n)
		b.WriteString(line + strings.Repeat(".", 97-len(line)) + "\"}\n")
	}
	return b.Bytes(), n
}

// ---------------------------------------------------------------------------
// F-054, O-039: 100 KiB piped is refused with the way out; in a file, taken.

func TestE2EStdinCap(t *testing.T) { onEach(t, testStdinCap) }

func testStdinCap(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	payload, count := jsonLines(100 << 10)

	r := sb.runStdin(t, bytes.NewReader(payload), "import")
	env := expectEnvelope(t, "import <100 KiB>", r, 2)
	want := map[string]any{
		"error.code": "STDIN_TOO_LARGE", "error.phase": "validation",
		"error.context.received_bytes": float64(len(payload)), "error.context.limit_bytes": 65536.0,
	}
	if diff := cmp.Diff(want, pick(env, want)); diff != "" {
		t.Errorf("import <100 KiB> (-want +got):\n%s", diff)
	}
	if hint, _ := get(env, "error.hint").(string); !strings.Contains(hint, "--input-file") {
		t.Errorf("hint %q does not name --input-file", hint)
	}
	if raw := sb.storeBytes(t); len(raw) != 0 {
		t.Errorf("the refused import wrote the store: %s", raw)
	}

	// The agent follows the hint.
	file := filepath.Join(sb.dir, "todos.jsonl")
	if err := os.WriteFile(file, payload, 0o644); err != nil {
		t.Fatal(err)
	}
	r = sb.run(t, "import", "--input-file", file)
	env = expectEnvelope(t, "import --input-file", r, 0)
	if n := len(get(env, "data").([]any)); n != count {
		t.Errorf("imported %d to-dos, want %d", n, count)
	}
	if get(env, "meta.effect") != "created" {
		t.Errorf("meta.effect = %v", get(env, "meta.effect"))
	}

	// The cap can be raised for a tool's callers that know their pipes.
	r = sb.runEnvStdin(t, []string{"TODO_MAX_STDIN_BYTES=200000"}, bytes.NewReader(payload), "import")
	expectEnvelope(t, "import with a raised cap", r, 0)
}

func (sb *sandbox) runEnvStdin(t *testing.T, extra []string, r io.Reader, args ...string) result {
	t.Helper()
	saved := sb.env
	sb.env = append(append([]string(nil), sb.env...), extra...)
	defer func() { sb.env = saved }()
	return sb.runStdin(t, r, args...)
}

// TestE2ENoPipeDeadlock: the caller writes the whole of a large stdin before
// it reads a byte of stdout — the order that deadlocks a tool that answers
// while its stdin is still being written. todo reads stdin first, so the
// write completes and one envelope follows.
func TestE2ENoPipeDeadlock(t *testing.T) { onEach(t, testNoPipeDeadlock) }

func testNoPipeDeadlock(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	for _, size := range []int{60 << 10, 1 << 20} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, sb.bin, "import")
		cmd.Env = sb.env
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		payload, _ := jsonLines(size)
		_, werr := stdin.Write(payload) // all of it, before reading anything
		stdin.Close()
		out, _ := io.ReadAll(stdout)
		code := exitCode(cmd.Wait())
		hung := ctx.Err() != nil
		cancel()
		if hung {
			t.Fatalf("%d bytes: the process hung", size)
		}
		want := 0
		if len(payload) > 65536 {
			want = 2
		}
		if werr != nil {
			t.Errorf("%d bytes: writing stdin: %v", size, werr)
		}
		expectEnvelope(t, fmt.Sprintf("import of %d bytes", len(payload)), result{stdout: string(out), code: code}, want)
	}
}

// ---------------------------------------------------------------------------
// F-059: JSON5 lines and flags

func TestE2EImportJSON5(t *testing.T) { onEach(t, testImportJSON5) }

func testImportJSON5(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	lines := "{title: 'unquoted keys, single quotes', priority: 'high',}\n" +
		"\n" +
		`{"title": "a comment" /* from an agent */, "tags": ["B", "a",]}` + "\n"
	r := sb.runStdin(t, strings.NewReader(lines), "import", "--defaults", "{priority: 'low', tags: ['inbox'],}")
	env := expectEnvelope(t, "import JSON5", r, 0)
	want := map[string]any{
		"data.0.title": "unquoted keys, single quotes", "data.0.priority": "high", "data.0.tags.0": "inbox",
		"data.1.title": "a comment", "data.1.priority": "low", "data.1.tags.0": "a", "data.1.tags.1": "b",
	}
	if diff := cmp.Diff(want, pick(env, want)); diff != "" {
		t.Errorf("import JSON5 (-want +got):\n%s", diff)
	}

	// A flag declared JSON that cannot be read: corrected_input to send back.
	r = sb.runStdin(t, strings.NewReader("{title: 'x'}\n"), "import", "--defaults", "{priority high}")
	env = expectEnvelope(t, "import --defaults <bad>", r, 2)
	want = map[string]any{"error.code": "INVALID_JSON", "error.field": "defaults", "error.corrected_input": `{"priority":"high"}`, "error.phase": "validation"}
	if diff := cmp.Diff(want, pick(env, want)); diff != "" {
		t.Errorf("import --defaults <bad> (-want +got):\n%s", diff)
	}
	corrected, ok := get(env, "error.corrected_input").(string)
	if !ok {
		t.Fatalf("import --defaults <bad>: no error.corrected_input to send back: %v", env["error"])
	}
	r = sb.runStdin(t, strings.NewReader("{title: 'x'}\n"), "import", "--defaults", corrected)
	expectEnvelope(t, "import --defaults <corrected>", r, 0)

	// Bad lines: every one reported, nothing imported.
	r = sb.runStdin(t, strings.NewReader("{title: 'fine'}\n{title: write docs}\n{\"priority\": \"high\"}\n"), "import")
	env = expectEnvelope(t, "import <bad lines>", r, 2)
	if diff := cmp.Diff([]string{"INVALID_JSON", "INVALID_TODO"}, errorCodes(env)); diff != "" {
		t.Errorf("import <bad lines> (-want +got):\n%s", diff)
	}
	if got := get(env, "error.errors.0.corrected_input"); got != `{"title":"write docs"}` {
		t.Errorf("corrected_input = %v", got)
	}
	sb.expectIDs(t, "after the refused import", "t1", "t2", "t3")
}

// ---------------------------------------------------------------------------
// O-006: one todo's ids piped to the next

func TestE2EPipedID(t *testing.T) { onEach(t, testPipedID) }

func testPipedID(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	// todo add x --format id | todo done -, through a real pipe.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	add := exec.Command(sb.bin, "add", "piped along", "--format", "id")
	add.Env, add.Stdout = sb.env, pw
	if err := add.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	r := sb.runStdin(t, pr, "done", "-")
	pr.Close()
	if err := add.Wait(); err != nil {
		t.Fatal(err)
	}
	env := expectEnvelope(t, "add | done -", r, 0)
	want := map[string]any{"data.id": "t1", "data.done": true, "meta.effect": "updated"}
	if diff := cmp.Diff(want, pick(env, want)); diff != "" {
		t.Errorf("add | done - (-want +got):\n%s", diff)
	}
	// A file redirect: todo show - < ids
	ids := filepath.Join(sb.dir, "ids")
	os.WriteFile(ids, []byte("t1\n"), 0o644)
	f, err := os.Open(ids)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r = sb.runStdin(t, f, "show", "-")
	if get(expectEnvelope(t, "show - < ids", r, 0), "data.title") != "piped along" {
		t.Errorf("show - < ids: %s", r.stdout)
	}
	r = sb.runStdin(t, strings.NewReader(""), "done", "-")
	env = expectEnvelope(t, "done - </dev/null", r, 2)
	if get(env, "error.code") != "EMPTY_STDIN" || get(env, "error.phase") != "validation" {
		t.Errorf("done - with empty stdin: %s", r.stdout)
	}
}

// ---------------------------------------------------------------------------
// O-032: --raw-payload on add

func TestE2ERawPayload(t *testing.T) { onEach(t, testRawPayload) }

func testRawPayload(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	flags := expectEnvelope(t, "add <flags>", sb.run(t, "add", "ship it", "--priority", "high", "--tag", "a", "--tag", "b"), 0)
	raw := expectEnvelope(t, "add --raw-payload", sb.run(t, "add", "--raw-payload", `{title: 'ship it', priority: 'high', tag: ['a', 'b'],}`), 0)
	for _, env := range []map[string]any{flags, raw} {
		data := env["data"].(map[string]any)
		delete(data, "id")
		delete(data, "created")
	}
	if diff := cmp.Diff(flags["data"], raw["data"]); diff != "" {
		t.Errorf("add --raw-payload differs from add with flags (-flags +payload):\n%s", diff)
	}
	r := sb.run(t, "add", "--raw-payload", `{"title": "x"}`, "--priority", "low")
	if env := expectEnvelope(t, "add --raw-payload with a flag", r, 2); get(env, "error.code") != "RAW_PAYLOAD_CONFLICT" {
		t.Errorf("add --raw-payload with a flag: %s", r.stdout)
	}
	r = sb.run(t, "add", "--raw-payload", `{"title": "x", "priority": "urgent", "colour": 1}`)
	if diff := cmp.Diff([]string{"INVALID_ENUM_VALUE", "UNKNOWN_FIELD"}, errorCodes(expectEnvelope(t, "add --raw-payload <bad>", r, 2))); diff != "" {
		t.Errorf("add --raw-payload <bad> (-want +got):\n%s", diff)
	}
	sb.expectIDs(t, "after the payloads", "t1", "t2")
	schema := expectEnvelope(t, "add --schema", sb.run(t, "add", "--schema"), 0)
	if get(schema, "data.raw_payload_schema.properties.title") == nil {
		t.Errorf("add --schema has no raw_payload_schema with title: %v", get(schema, "data.raw_payload_schema"))
	}
}
