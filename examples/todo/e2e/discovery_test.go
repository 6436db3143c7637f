package e2e

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decodeLines decodes each line of stdout as one JSON object.
func decodeLines(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("stdout line %q is not a JSON object: %v", line, err)
		}
		out = append(out, v)
	}
	return out
}

// TestE2EExec holds `todo exec` to O-050: one envelope per input line with
// meta._cmd and meta._line, then exec's own terminal line — the summary
// line when every line succeeded, its error envelope when not (O-004);
// every line sees what
// the lines before it did (a later line runs as the first did, not on
// state a framework kept from it); the batch stops at the first failure
// and exits 1 unless --ignore-errors, which goes on and still exits 1; a
// line that is not JSON is DISPATCH_PARSE_ERROR in phase validation, and a
// stream no line of which can be read exits 2; --dry-run reaches a
// destructive command and changes nothing.
func TestE2EExec(t *testing.T) { onEach(t, testExec) }

func testExec(t *testing.T, bin string) {
	type line struct {
		OK      bool
		Summary any // the summary line's _summary and total
		Total   any
		Cmd     any
		Line    any
		Code    any
		Phase   any
		Data    any
	}
	summarize := func(lines []map[string]any) []line {
		var got []line
		for _, l := range lines {
			got = append(got, line{OK: l["ok"] == true, Summary: l["_summary"], Total: l["total"], Cmd: get(l, "meta._cmd"), Line: get(l, "meta._line"),
				Code: get(l, "error.code"), Phase: get(l, "error.phase"), Data: get(l, "data.title")})
		}
		return got
	}
	tests := []struct {
		name     string
		stdin    string
		args     []string
		wantExit int
		want     []line
		ids      []string // the store's ids afterwards, when checked
	}{
		{
			name:  "each line sees the lines before it",
			stdin: `{"_cmd":"add","title":"buy milk"}` + "\n" + `{"_cmd":"add","title":"walk dog"}` + "\n" + `{"_cmd":"show","id":"t2"}` + "\n",
			want: []line{
				{OK: true, Cmd: "add", Line: 1.0, Data: "buy milk"},
				{OK: true, Cmd: "add", Line: 2.0, Data: "walk dog"},
				{OK: true, Cmd: "show", Line: 3.0, Data: "walk dog"},
				{Summary: true, Total: 3.0},
			},
			ids: []string{"t1", "t2"},
		},
		{
			name:     "stops at the first failure",
			stdin:    `{"_cmd":"show","id":"t9"}` + "\n" + `{"_cmd":"add","title":"never"}` + "\n",
			wantExit: 1,
			want:     []line{{Cmd: "show", Line: 1.0, Code: "TODO_NOT_FOUND", Phase: "execution"}, {Code: "DISPATCH_FAILED", Phase: "execution"}},
			ids:      []string{},
		},
		{
			name:     "--ignore-errors goes on",
			stdin:    `{"_cmd":"show","id":"t9"}` + "\n" + "not json\n" + `{"_cmd":"add","title":"still"}` + "\n",
			args:     []string{"--ignore-errors"},
			wantExit: 1,
			want: []line{
				{Cmd: "show", Line: 1.0, Code: "TODO_NOT_FOUND", Phase: "execution"},
				{Cmd: "", Line: 2.0, Code: "DISPATCH_PARSE_ERROR", Phase: "validation"},
				{OK: true, Cmd: "add", Line: 3.0, Data: "still"},
				{Code: "DISPATCH_FAILED", Phase: "execution"},
			},
			ids: []string{"t1"},
		},
		{
			name:     "nothing readable",
			stdin:    "a\nb\n",
			args:     []string{"--ignore-errors"},
			wantExit: 2,
			want: []line{
				{Cmd: "", Line: 1.0, Code: "DISPATCH_PARSE_ERROR", Phase: "validation"},
				{Cmd: "", Line: 2.0, Code: "DISPATCH_PARSE_ERROR", Phase: "validation"},
				{Code: "DISPATCH_PARSE_ERROR", Phase: "validation"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := newSandbox(t, bin)
			r := sb.runStdin(t, strings.NewReader(tt.stdin), append([]string{"exec", "--format", "jsonl"}, tt.args...)...)
			if r.code != tt.wantExit {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tt.wantExit, r.stdout, r.stderr)
			}
			if diff := cmp.Diff(tt.want, summarize(decodeLines(t, r.stdout))); diff != "" {
				t.Errorf("answers (-want +got):\n%s", diff)
			}
			if tt.ids != nil {
				sb.expectIDs(t, "after the batch", tt.ids...)
			}
		})
	}

	// A line is confirmed as its command alone is: purge without "yes" is
	// refused and deletes nothing, with it runs — and describe, the
	// manifest and MCP do not call exec read-only.
	t.Run("a destructive line needs its own confirmation", func(t *testing.T) {
		sb := newSandbox(t, bin)
		sb.seed(t, item("t1", "keep", true))
		r := sb.runStdin(t, strings.NewReader(`{"_cmd":"purge","all":true}`+"\n"), "exec", "--format", "jsonl")
		if got := summarize(decodeLines(t, r.stdout)); r.code != 1 || len(got) == 0 || got[0].Code != "CONFIRMATION_REQUIRED" {
			t.Errorf("purge without yes in a batch: exit %d, %+v; want CONFIRMATION_REQUIRED\nstderr: %s", r.code, got, r.stderr)
		}
		sb.expectIDs(t, "after an unconfirmed purge", "t1")
		r = sb.runStdin(t, strings.NewReader(`{"_cmd":"purge","all":true,"yes":true}`+"\n"), "exec", "--format", "jsonl")
		if r.code != 0 {
			t.Errorf("purge with yes in a batch: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
		}
		sb.expectIDs(t, "after a confirmed purge")
		var doc map[string]any
		if err := json.Unmarshal([]byte(sb.run(t, "describe").stdout), &doc); err != nil {
			t.Fatal(err)
		}
		if got := get(doc, "data.commands.exec.danger_level"); got != "mutating" {
			t.Errorf("describe: exec's danger_level %v, want mutating (it can run add and purge)", got)
		}
	})

	t.Run("--dry-run reaches a destructive command", func(t *testing.T) {
		sb := newSandbox(t, bin)
		sb.seed(t, item("t1", "keep", true))
		r := sb.runStdin(t, strings.NewReader(`{"_cmd":"purge"}`+"\n"), "exec", "--format", "jsonl", "--dry-run")
		if r.code != 0 {
			t.Errorf("exit %d, want 0\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
		}
		lines := decodeLines(t, r.stdout)
		if len(lines) != 2 || get(lines[0], "meta.dry_run") != true || lines[1]["_summary"] != true {
			t.Errorf("want purge's dry run (meta.dry_run) and the summary line; got %s", r.stdout)
		}
		sb.expectIDs(t, "after a dry run", "t1")
	})
}

// TestE2EVersionAndBudget holds the flags every command has for discovery:
// -V is --version (F-068), `todo 0.1.0`, exit 0, in an empty HOME, writing
// nothing; --stable-output gives the same bytes twice and no request_id
// (O-007); --token-count answers data null and meta.token_count (O-049),
// and --token-limit cuts data at whole items and says so in meta, the
// window moving with --token-offset.
func TestE2EVersionAndBudget(t *testing.T) { onEach(t, testVersionAndBudget) }

func testVersionAndBudget(t *testing.T, bin string) {
	sb := newSandbox(t, bin)
	t.Run("-V", func(t *testing.T) {
		for _, flag := range []string{"--version", "-V"} {
			r := sb.run(t, flag)
			if r.code != 0 || r.stdout != "todo 0.1.0\n" {
				t.Errorf("todo %s: exit %d, stdout %q; want 0, \"todo 0.1.0\\n\"", flag, r.code, r.stdout)
			}
		}
		if raw := sb.storeBytes(t); raw != nil {
			t.Errorf("--version wrote the store: %s", raw)
		}
	})

	var items []map[string]any
	for i := 1; i <= 8; i++ {
		items = append(items, item("t"+strconv.Itoa(i), "item number "+strconv.Itoa(i)+" with some words", false))
	}
	sb.seed(t, items...)

	t.Run("--stable-output", func(t *testing.T) {
		a, b := sb.run(t, "list", "--stable-output"), sb.run(t, "list", "--stable-output")
		if a.code != 0 || a.stdout != b.stdout {
			t.Errorf("two runs: exit %d, stdout differs:\n%s\n%s", a.code, a.stdout, b.stdout)
		}
		// O-007 leaves request_id out, the one exception to F-024, so the
		// envelope is decoded here rather than by decodeEnvelope.
		var env map[string]any
		if err := json.Unmarshal([]byte(a.stdout), &env); err != nil {
			t.Fatalf("stdout is not one JSON object: %v", err)
		}
		if _, ok := env["meta"].(map[string]any)["request_id"]; ok {
			t.Errorf("meta.request_id present with --stable-output: %s", a.stdout)
		}
	})

	t.Run("--token-count", func(t *testing.T) {
		env := expectEnvelope(t, "list --token-count", sb.run(t, "list", "--token-count"), 0)
		if n, _ := get(env, "meta.token_count").(float64); env["data"] != nil || n <= 0 {
			t.Errorf("data %v, meta.token_count %v; want null and a count", env["data"], get(env, "meta.token_count"))
		}
	})

	t.Run("--token-limit", func(t *testing.T) {
		first := func(args ...string) string {
			t.Helper()
			env := expectEnvelope(t, "list", sb.run(t, append([]string{"list"}, args...)...), 0)
			want := map[string]any{"meta.truncated": true, "meta.token_limit": 60.0}
			if diff := cmp.Diff(want, pick(env, want)); diff != "" {
				t.Errorf("list %v (-want +got):\n%s", args, diff)
			}
			data, _ := env["data"].([]any)
			if len(data) == 0 || len(data) >= len(items) {
				t.Fatalf("list %v: %d items, want some of %d", args, len(data), len(items))
			}
			id, _ := get(data[0], "id").(string)
			return id
		}
		if a, b := first("--token-limit", "60"), first("--token-limit", "60", "--token-offset", "60"); a != "t1" || b == a {
			t.Errorf("first item of the first window %q, of the next %q; want t1, then a later one", a, b)
		}
	})
}
