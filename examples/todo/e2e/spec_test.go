package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Tests named in internal/spec/registry.tsv for requirements of the CLI Agent Spec,
// each on both builds, as an agent sees them.

// TestE2EPagination: a list answers 20 items by default and says it was
// cut (F-019, F-018); its cursor continues to the end, where the answer
// says it is complete; --limit 100 and --limit 0 give all 30; --schema
// shows the default.
func TestE2EPagination(t *testing.T) { onEach(t, testPagination) }

func testPagination(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	var items []map[string]any
	for i := 1; i <= 30; i++ {
		items = append(items, item(fmt.Sprintf("t%d", i), fmt.Sprintf("to-do %d", i), false))
	}
	sb.seed(t, items...)

	env := expectEnvelope(t, "list", sb.run(t, "list"), 0)
	want := map[string]any{"meta.pagination.returned": 20.0, "meta.pagination.total": 30.0,
		"meta.pagination.truncated": true, "meta.pagination.has_more": true, "data.19.id": "t20", "data.20": nil}
	if diff := cmp.Diff(want, pick(env, want)); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	cursor, _ := get(env, "meta.pagination.next_cursor").(string)
	if cursor == "" {
		t.Fatalf("a cut list has no next_cursor: %v", get(env, "meta.pagination"))
	}
	env = expectEnvelope(t, "list --cursor", sb.run(t, "list", "--cursor", cursor), 0)
	want = map[string]any{"meta.pagination.returned": 10.0, "meta.pagination.truncated": false,
		"meta.pagination.has_more": false, "meta.pagination.next_cursor": nil, "data.0.id": "t21", "data.9.id": "t30"}
	if diff := cmp.Diff(want, pick(env, want)); diff != "" {
		t.Errorf("list --cursor (-want +got):\n%s", diff)
	}
	for _, limit := range []string{"100", "0"} {
		env = expectEnvelope(t, "list --limit "+limit, sb.run(t, "list", "--limit", limit), 0)
		want = map[string]any{"meta.pagination.returned": 30.0, "meta.pagination.truncated": false, "meta.pagination.next_cursor": nil}
		if diff := cmp.Diff(want, pick(env, want)); diff != "" {
			t.Errorf("list --limit %s (-want +got):\n%s", limit, diff)
		}
	}
	env = expectEnvelope(t, "list --schema", sb.run(t, "list", "--schema"), 0)
	if got := get(env, "data.input_schema.properties.limit.default"); got != 20.0 {
		t.Errorf("--schema: limit's default = %v, want 20", got)
	}
}

// TestE2EHallucinatedInput: an id an agent made up — a traversal, its
// percent-encoded form, a query string — is refused in phase 1 with exit 2
// (F-045); a real path given to a path flag reaches the command unchanged.
func TestE2EHallucinatedInput(t *testing.T) { onEach(t, testHallucinatedInput) }

func testHallucinatedInput(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	sb.seed(t, item("t1", "real", false))
	for _, id := range []string{"../t1", "%2e%2e%2ft1", "t1?foo=bar", "t1 t2", ".", "<id>"} {
		env := expectEnvelope(t, "show "+id, sb.run(t, "show", id), 2)
		want := map[string]any{"error.code": "INVALID_ID", "error.phase": "validation", "error.field": "id"}
		if diff := cmp.Diff(want, pick(env, want)); diff != "" {
			t.Errorf("show %q (-want +got):\n%s", id, diff)
		}
	}
	// A well-formed value outside the declared pattern is refused by
	// name, with the pattern an agent can check the next one against.
	env := expectEnvelope(t, "show 9lives", sb.run(t, "show", "9lives"), 2)
	want := map[string]any{"error.code": "PATTERN_MISMATCH", "error.phase": "validation", "error.field": "id"}
	if diff := cmp.Diff(want, pick(env, want)); diff != "" {
		t.Errorf("show 9lives (-want +got):\n%s", diff)
	}
	if msg, _ := get(env, "error.message").(string); !strings.Contains(msg, "^[a-z][a-z0-9-]{0,39}$") {
		t.Errorf("show 9lives: error.message %q does not name the pattern", msg)
	}
	// A path with a space and dots, given to --file, is the file used.
	other := filepath.Join(t.TempDir(), "my lists", "v1.0.todo.json")
	expectEnvelope(t, "add --file", sb.run(t, "add", "kept as given", "--file", other), 0)
	env = expectEnvelope(t, "list --file", sb.run(t, "list", "--file", other), 0)
	if got := get(env, "data.0.title"); got != "kept as given" {
		t.Errorf("list --file %q: data.0.title = %v", other, got)
	}
}

// TestE2EValidateOnlyInHelp: every runnable command lists --validate-only
// in its help (O-009).
func TestE2EValidateOnlyInHelp(t *testing.T) { onEach(t, testValidateOnlyInHelp) }

func testValidateOnlyInHelp(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	for _, cmd := range []string{"add", "list", "show", "done", "purge", "watch"} {
		r := sb.run(t, cmd, "--help")
		if !strings.Contains(r.stderr, "--validate-only") {
			t.Errorf("%s --help does not list --validate-only:\n%s", cmd, r.stderr)
		}
	}
}

// TestE2EConfirmDestructive: a destructive command declares that it needs
// confirmation and offers --confirm-destructive; no other command has it
// (O-021).
func TestE2EConfirmDestructive(t *testing.T) { onEach(t, testConfirmDestructive) }

func testConfirmDestructive(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	for _, cmd := range []string{"add", "list", "show", "done", "purge", "watch"} {
		env := expectEnvelope(t, cmd+" --schema", sb.run(t, cmd, "--schema"), 0)
		destructive := cmd == "purge"
		_, hasFlag := get(env, "data.flags").(map[string]any)["confirm-destructive"]
		got := map[string]any{"requires_confirmation": get(env, "data.requires_confirmation"), "--confirm-destructive": hasFlag}
		want := map[string]any{"requires_confirmation": nil, "--confirm-destructive": destructive}
		if destructive {
			want["requires_confirmation"] = true
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s --schema (-want +got):\n%s", cmd, diff)
		}
	}
	sb.seed(t, item("t1", "finished", true))
	env := expectEnvelope(t, "purge --confirm-destructive", sb.run(t, "purge", "--confirm-destructive"), 0)
	want := map[string]any{"meta.effect": "deleted", "meta.confirmed": true, "data.count": 1.0}
	if diff := cmp.Diff(want, pick(env, want)); diff != "" {
		t.Errorf("purge --confirm-destructive (-want +got):\n%s", diff)
	}
}

// TestE2EFields: --fields keeps the named top-level fields of data, on every
// command; an unknown name is ignored, with a warning; ok, error and meta
// stay (O-002).
func TestE2EFields(t *testing.T) { onEach(t, testFields) }

func testFields(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	sb.seed(t, item("t1", "one", false))
	env := expectEnvelope(t, "show --fields", sb.run(t, "show", "t1", "--fields", "id,title,nope"), 0)
	want := map[string]any{"data": map[string]any{"id": "t1", "title": "one"}, "ok": true, "error": nil,
		"meta.command": "show", "warnings": []any{map[string]any{"code": "UNKNOWN_FIELD",
			"message": `--fields: "nope" is not a field of this command's output, and was ignored. Next: use one of: created, done, id, priority, tags, title`}}}
	got := pick(env, want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("show --fields id,title,nope (-want +got):\n%s", diff)
	}
	for _, cmd := range []string{"add", "list", "show", "done", "purge", "watch", "describe"} {
		env := expectEnvelope(t, cmd+" --schema", sb.run(t, cmd, "--schema"), 0)
		if _, ok := get(env, "data.flags").(map[string]any)["fields"]; !ok {
			t.Errorf("%s has no --fields", cmd)
		}
	}
}

// TestE2EOutputEnv: TODO_FORMAT is --format's default: the same answer as
// the flag, the flag wins; TODO_OUTPUT, the name before v1.8, and a generic
// FORMAT, OUTPUT or _FORMAT mean nothing; help names the variable, and the
// manifest lists it in the format flag's env_vars (O-042; a bad value:
// TestE2EValidation).
func TestE2EOutputEnv(t *testing.T) { onEach(t, testOutputEnv) }

func testOutputEnv(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	sb.seed(t, item("t1", "one", false), item("t2", "two", false))
	byFlag := sb.run(t, "list", "--format", "tsv")
	byEnv := sb.runEnv(t, []string{"TODO_FORMAT=tsv"}, "list")
	if byFlag.code != 0 || byEnv.stdout != byFlag.stdout {
		t.Errorf("TODO_FORMAT=tsv list:\n%s\nlist --format tsv:\n%s", byEnv.stdout, byFlag.stdout)
	}
	expectEnvelope(t, "TODO_FORMAT=tsv list --format json", sb.runEnv(t, []string{"TODO_FORMAT=tsv"}, "list", "--format", "json"), 0)
	expectEnvelope(t, "TODO_OUTPUT=tsv FORMAT=tsv OUTPUT=tsv _FORMAT=tsv list",
		sb.runEnv(t, []string{"TODO_OUTPUT=tsv", "FORMAT=tsv", "OUTPUT=tsv", "_FORMAT=tsv"}, "list"), 0)
	if r := sb.run(t, "list", "--help"); !strings.Contains(r.stderr, "TODO_FORMAT") {
		t.Errorf("list --help does not name TODO_FORMAT:\n%s", r.stderr)
	}
	env := expectEnvelope(t, "manifest", sb.run(t, "manifest"), 0)
	if diff := cmp.Diff([]any{map[string]any{"name": "TODO_FORMAT"}}, get(env, "data.flags.format.env_vars")); diff != "" {
		t.Errorf("the manifest's format flag's env_vars (-want +got):\n%s", diff)
	}
}

// TestE2EStableData: the same read twice answers byte-identical data, and
// everything that differs between the two answers is in meta (F-021).
func TestE2EStableData(t *testing.T) { onEach(t, testStableData) }

func testStableData(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	sb.seed(t, item("t1", "one", false), item("t2", "two", true))
	for _, args := range [][]string{{"list"}, {"list", "--limit", "1"}, {"show", "t2"}} {
		var raws [2]map[string]json.RawMessage
		for i := range raws {
			r := sb.run(t, args...)
			expectEnvelope(t, strings.Join(args, " "), r, 0)
			if err := json.Unmarshal([]byte(r.stdout), &raws[i]); err != nil {
				t.Fatal(err)
			}
		}
		for key := range raws[0] {
			if key != "meta" && !bytes.Equal(raws[0][key], raws[1][key]) {
				t.Errorf("%s: %s differs between two identical calls:\n%s\n%s", strings.Join(args, " "), key, raws[0][key], raws[1][key])
			}
		}
		if bytes.Equal(raws[0]["meta"], raws[1]["meta"]) {
			t.Errorf("%s: meta is identical in two calls; the request ids should differ", strings.Join(args, " "))
		}
	}
}

// TestE2EOptionPlacement: a command's options may come before its name, after
// it, or after its arguments, in both builds; an option that takes one
// value, given twice with different values wherever they are, is refused
// (exit 2, CONFLICTING_VALUES), while the same value twice and a list
// option repeated are fine; after -- every word is an argument (F-067).
func TestE2EOptionPlacement(t *testing.T) { onEach(t, testOptionPlacement) }

func testOptionPlacement(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	sb.seed(t, item("t1", "one", false), item("t2", "two", true), item("t3", "three", false))
	var first map[string]json.RawMessage
	for i, args := range [][]string{
		{"list", "--status", "all", "--limit", "2"},
		{"--status", "all", "--limit", "2", "list"},
		{"--limit", "2", "list", "--status", "all"},
	} {
		r := sb.run(t, args...)
		expectEnvelope(t, strings.Join(args, " "), r, 0)
		var env map[string]json.RawMessage
		if err := json.Unmarshal([]byte(r.stdout), &env); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = env
			continue
		}
		if !bytes.Equal(env["data"], first["data"]) {
			t.Errorf("%q: data %s, want %s", args, env["data"], first["data"])
		}
	}
	env := expectEnvelope(t, "show t2 --fields id", sb.run(t, "--fields", "id", "show", "t2"), 0)
	if diff := cmp.Diff(map[string]any{"id": "t2"}, env["data"]); diff != "" {
		t.Errorf("--fields id show t2 (-want +got):\n%s", diff)
	}

	for _, tt := range []struct {
		args []string
		code int
		want map[string]any
	}{
		{[]string{"--status", "all", "list", "--status", "open"}, 2, map[string]any{"error.code": "CONFLICTING_VALUES", "error.field": "status"}},
		{[]string{"list", "--limit", "1", "--status", "all", "--limit", "2"}, 2, map[string]any{"error.code": "CONFLICTING_VALUES", "error.field": "limit"}},
		{[]string{"--format", "json", "list", "--format", "tsv"}, 2, map[string]any{"error.code": "CONFLICTING_VALUES", "error.field": "format"}},
		{[]string{"--status", "all", "list", "--limit", "2", "--status", "all"}, 0, map[string]any{"data.1.id": "t2", "data.2": nil}},
		{[]string{"add", "tagged", "--tag", "a", "-p", "low", "--tag", "b", "-p", "low"}, 0, map[string]any{"data.tags": []any{"a", "b"}, "data.priority": "low"}},
		{[]string{"add", "--", "--not-a-flag"}, 0, map[string]any{"data.title": "--not-a-flag"}},
	} {
		env := expectEnvelope(t, strings.Join(tt.args, " "), sb.run(t, tt.args...), tt.code)
		if diff := cmp.Diff(tt.want, pick(env, tt.want)); diff != "" {
			t.Errorf("todo %s (-want +got):\n%s", strings.Join(tt.args, " "), diff)
		}
	}
}

// TestE2EManifestCalls: `todo manifest` is a ManifestResponse 3.21 —
// global options once in the root flags, every command with its own flags,
// its positionals and its required scopes — and from it alone (the flags
// with their types and enums, the positionals in order) an agent can
// construct a call to every command that passes validation (O-041).
func TestE2EManifestCalls(t *testing.T) { onEach(t, testManifestCalls) }

func testManifestCalls(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	sb.seed(t, item("t1", "one", false))
	env := expectEnvelope(t, "manifest", sb.run(t, "manifest"), 0)
	if v := get(env, "data.schema_version"); v != "3.21" {
		t.Errorf("schema_version %v, want 3.21", v)
	}
	// Options every command takes are root flags; those only some
	// commands take (not a group, not the MCP server) are their own.
	for name, root := range map[string]bool{"format": true, "quiet": true, "schema": true, "token-limit": true,
		"fields": false, "output": false, "validate-only": false} {
		if _, ok := get(env, "data.flags."+name).(map[string]any); ok != root {
			t.Errorf("--%s among the manifest's root flags: %v, want %v", name, ok, root)
		}
	}
	commands, _ := get(env, "data.commands").(map[string]any)
	if len(commands) == 0 {
		t.Fatal("manifest lists no commands")
	}
	for _, path := range keys(commands) {
		entry, _ := commands[path].(map[string]any)
		if _, ok := entry["required_scopes"].([]any); !ok {
			t.Errorf("%s: required_scopes %v, want an array", path, entry["required_scopes"])
		}
		args := []string{}
		if path != "todo" {
			args = strings.Split(path, ".")
		}
		positionals, _ := entry["positionals"].([]any)
		for _, p := range positionals {
			if get(p, "required") == true {
				args = append(args, "t1") // a value of every argument's kind here: an id or a word
			}
		}
		flags, _ := entry["flags"].(map[string]any)
		for _, name := range keys(flags) {
			f, _ := flags[name].(map[string]any)
			if f["required"] != true {
				continue
			}
			value := "x"
			switch {
			case f["type"] == "enum":
				value = fmt.Sprint(f["enum_values"].([]any)[0])
			case f["type"] == "integer" || f["type"] == "number":
				value = "1"
			}
			args = append(args, "--"+name, value)
		}
		if _, ok := flags["validate-only"]; ok { // a group has none: it answers with its help
			args = append(args, "--validate-only")
		}
		r := sb.runStdin(t, strings.NewReader(`{"title": "from stdin"}`+"\n"), append(args, "--format", "json")...)
		if entry["stdout"] == "protocol" {
			// Its stdout is the protocol's: Duet's answer is the last line
			// of stderr (REQ-C-032).
			if r.stdout != "" {
				t.Errorf("%s: stdout %q, want it the protocol's alone", path, r.stdout)
			}
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			r.stdout = lines[len(lines)-1] + "\n"
		}
		expectEnvelope(t, "todo "+strings.Join(args, " ")+" (built from the manifest)", r, 0)
	}
}
