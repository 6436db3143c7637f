package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/internal/jsontest"
)

// TestE2EOutputFlag: --format selects the representation on every command,
// without the command doing anything for it — json one envelope, jsonl one
// JSON object a line ending on the summary line, tsv a header row then
// rows, plain the flat text rendering — and the manifest declares it once,
// among the root flags, with its values, TODO_FORMAT and its media types.
// --output <path> writes the --format representation to the file, and
// stdout then describes the write (path, bytes, content_type); a failed
// run writes no file. A format's name given to
// --output (an agent's --output json) is refused with exit 2 and a
// suggestion naming --format, and writes no file of that name; -o is no
// alias. --format given twice with different values is refused (REQ-O-001,
// REQ-F-067).
func TestE2EOutputFlag(t *testing.T) { onEach(t, testOutputFlag) }

func testOutputFlag(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	sb.seed(t, item("t1", "first", false), item("t2", "second", false))

	t.Run("json is one envelope", func(t *testing.T) {
		env := expectEnvelope(t, "show --format json", sb.run(t, "show", "t1", "--format", "json"), 0)
		if diff := cmp.Diff(map[string]any{"data.id": "t1"}, pick(env, map[string]any{"data.id": nil})); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("jsonl is one JSON object a line, the last the summary", func(t *testing.T) {
		r := sb.run(t, "list", "--format", "jsonl")
		if r.code != 0 {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		for _, l := range lines[:len(lines)-1] {
			var obj map[string]any
			if err := json.Unmarshal([]byte(l), &obj); err != nil || obj["id"] == nil {
				t.Errorf("line %q is not an item: %v", l, err)
			}
		}
		if sum := decodeSummary(t, []byte(lines[len(lines)-1])); len(lines) != 3 || sum["total"] != 2.0 {
			t.Errorf("%d lines, total %v; want 2 items and the summary of 2\n%s", len(lines), sum["total"], r.stdout)
		}
	})
	t.Run("tsv of a single record has a header row", func(t *testing.T) {
		r := sb.run(t, "show", "t1", "--format", "tsv", "--fields", "id,title")
		if r.code != 0 {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
		if diff := cmp.Diff("id\ttitle\nt1\tfirst\n", r.stdout); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("plain is the text rendering, without colour or JSON", func(t *testing.T) {
		plain, text := sb.run(t, "list", "--format", "plain"), sb.run(t, "list", "--format", "text")
		if plain.code != 0 || text.code != 0 {
			t.Fatalf("exit %d and %d, stderr %q %q", plain.code, text.code, plain.stderr, text.stderr)
		}
		if diff := cmp.Diff(text.stdout, plain.stdout); diff != "" {
			t.Errorf("plain differs from text (-text +plain):\n%s", diff)
		}
		if strings.Contains(plain.stdout, "\x1b[") || strings.HasPrefix(plain.stdout, "{") || !strings.Contains(plain.stdout, "t2  second") {
			t.Errorf("plain output is not flat text lines:\n%s", plain.stdout)
		}
	})

	env := expectEnvelope(t, "manifest", sb.run(t, "manifest"), 0)
	commands, _ := get(env, "data.commands").(map[string]any)
	if len(commands) < 10 {
		t.Fatalf("the manifest lists %d commands", len(commands))
	}
	t.Run("--format is declared once, and every command takes it", func(t *testing.T) {
		want := map[string]any{"type": "enum", "enum_values": []any{"json", "jsonl", "toon", "tsv", "text", "id", "plain"},
			"env_vars": []any{map[string]any{"name": "TODO_FORMAT"}}, "media_types.toon": "text/toon"}
		if diff := cmp.Diff(want, pick(get(env, "data.flags.format").(map[string]any), want)); diff != "" {
			t.Errorf("the manifest's root format flag (-want +got):\n%s", diff)
		}
		var own []string
		for _, path := range keys(commands) {
			if _, ok := get(commands[path], "flags.format").(map[string]any); ok {
				own = append(own, path)
			}
			// The lifecycle answers --schema in the format asked for.
			args := []string{"--schema"}
			if path != "todo" {
				args = append(strings.Split(path, "."), args...)
			}
			if r := sb.run(t, append(args, "--format", "toon")...); r.code != 0 || !strings.HasPrefix(r.stdout, "ok: true\n") {
				t.Errorf("todo %s --format toon: exit %d, not TOON:\n%.200s", strings.Join(args, " "), r.code, r.stdout)
			}
			expectEnvelope(t, strings.Join(args, " ")+" --format json", sb.run(t, append(args, "--format", "json")...), 0)
		}
		if own != nil {
			t.Errorf("commands that declare a --format of their own: %q", own)
		}
	})
	t.Run("--output is on every command that answers on stdout, and declares output_file", func(t *testing.T) {
		var without, undeclared []string
		for _, path := range keys(commands) {
			c := commands[path].(map[string]any)
			_, hasOutput := get(c, "flags.output").(map[string]any)
			if hasOutput != (c["output_file"] == "formatted") {
				undeclared = append(undeclared, path)
			}
			group := path == "todo" || slices.ContainsFunc(keys(commands), func(k string) bool { return strings.HasPrefix(k, path+".") })
			if !hasOutput && !group && c["stdout"] != "protocol" {
				without = append(without, path)
			}
		}
		if without != nil || undeclared != nil {
			t.Errorf("commands without --output: %q; whose output_file is not \"formatted\" exactly when they have --output: %q", without, undeclared)
		}
	})

	t.Run("--output <path> writes the --format representation", func(t *testing.T) {
		media := map[string]string{"json": "application/json", "jsonl": "application/x-ndjson", "tsv": "text/tab-separated-values",
			"text": "text/plain", "plain": "text/plain", "id": "text/plain", "toon": "text/toon"}
		dir := t.TempDir()
		for _, format := range []string{"json", "jsonl", "tsv", "text", "plain", "id", "toon"} {
			// --stable-output: the same bytes twice, so the file is what
			// stdout would have been.
			args := []string{"list", "--format", format, "--stable-output"}
			direct := sb.runIn(t, dir, args...)
			name := "answer." + format // relative: it lands in the working directory
			written := sb.runIn(t, dir, append(args, "--output", name)...)
			// --stable-output leaves request_id out (O-007), so the envelope
			// is decoded here rather than by expectEnvelope.
			var env map[string]any
			if err := json.Unmarshal(jsontest.One(t, []byte(written.stdout)), &env); err != nil || written.code != 0 ||
				env["ok"] != true || get(env, "meta.exit_code") != 0.0 {
				t.Errorf("list --format %s --output %s: exit %d, not a successful envelope (%v):\n%s", format, name, written.code, err, written.stdout)
			}
			raw, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatalf("--format %s --output %s: %v", format, name, err)
			}
			if direct.code != 0 || string(raw) != direct.stdout {
				t.Errorf("--format %s: the file is not what stdout is without --output:\n%s\nstdout:\n%s", format, raw, direct.stdout)
			}
			want := map[string]any{"data.path": filepath.Join(dir, name), "data.bytes": float64(len(raw)), "data.content_type": media[format]}
			if diff := cmp.Diff(want, pick(env, want)); diff != "" {
				t.Errorf("--format %s --output %s: stdout (-want +got):\n%s", format, name, diff)
			}
			// A digest is the spec's only for a binary result's raw bytes,
			// and Duet leaves it out of a formatted answer's description
			// (envelope.Written); given, it is the file's.
			if digest, ok := get(env, "data.sha256").(string); ok {
				if sum := sha256.Sum256(raw); digest != hex.EncodeToString(sum[:]) {
					t.Errorf("--format %s --output %s: data.sha256 %s is not the file's digest", format, name, digest)
				}
			}
		}
	})
	t.Run("a failed run writes no file", func(t *testing.T) {
		dir := t.TempDir()
		env := expectEnvelope(t, "show t9 --output", sb.runIn(t, dir, "show", "t9", "--output", "t9.json"), 5)
		if get(env, "error.code") != "TODO_NOT_FOUND" || get(env, "data") != nil {
			t.Errorf("error.code %v, data %v; want TODO_NOT_FOUND and null", get(env, "error.code"), get(env, "data"))
		}
		if _, err := os.Stat(filepath.Join(dir, "t9.json")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("show t9 --output t9.json left a file: %v", err)
		}
	})
	t.Run("a format's name given to --output is refused, and writes no file", func(t *testing.T) {
		dir := t.TempDir()
		for _, format := range []string{"json", "jsonl", "toon", "tsv", "text", "plain", "id"} {
			for _, args := range [][]string{{"list"}, {"add", "never added"}} {
				args = append(args, "--output", format)
				env := expectEnvelope(t, strings.Join(args, " "), sb.runIn(t, dir, args...), 2)
				want := map[string]any{"error.code": "OUTPUT_IS_A_PATH", "error.field": "output", "error.phase": "validation", "data": nil}
				if diff := cmp.Diff(want, pick(env, want)); diff != "" {
					t.Errorf("todo %s (-want +got):\n%s", strings.Join(args, " "), diff)
				}
				if s, _ := get(env, "error.suggestion").(string); !strings.Contains(s, "--format "+format) {
					t.Errorf("todo %s: suggestion %q does not name --format %s", strings.Join(args, " "), s, format)
				}
			}
		}
		if names, _ := os.ReadDir(dir); len(names) != 0 {
			t.Errorf("refusals wrote %v", names)
		}
		sb.expectIDs(t, "after add --output <format>", "t1", "t2")
	})
	t.Run("-o is no alias of --format", func(t *testing.T) {
		env := expectEnvelope(t, "list -o json", sb.run(t, "list", "-o", "json"), 2)
		want := map[string]any{"error.code": "UNKNOWN_FLAG", "error.field": "o"}
		if diff := cmp.Diff(want, pick(env, want)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("--format given twice", func(t *testing.T) {
		env := expectEnvelope(t, "list --format json --format tsv", sb.run(t, "list", "--format", "json", "--format", "tsv"), 2)
		want := map[string]any{"error.code": "CONFLICTING_VALUES", "error.field": "format", "data": nil}
		if diff := cmp.Diff(want, pick(env, want)); diff != "" {
			t.Errorf("different values (-want +got):\n%s", diff)
		}
		twice, once := sb.run(t, "list", "--format", "id", "--format", "id"), sb.run(t, "list", "--format", "id")
		if twice.code != 0 || twice.stdout != once.stdout || !slices.Equal(strings.Fields(twice.stdout), []string{"t1", "t2"}) {
			t.Errorf("the same value twice: exit %d, %q; want once's answer, %q", twice.code, twice.stdout, once.stdout)
		}
	})
}
