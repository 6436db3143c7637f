package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestE2EOutputFlag: --format json is one envelope, jsonl one JSON object a
// line, tsv a header row then rows, plain the flat text rendering, on every
// command without the command doing anything for it; and no alias such as
// --format selects the representation (REQ-O-001).
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
	t.Run("jsonl is one JSON object a line", func(t *testing.T) {
		r := sb.run(t, "list", "--format", "jsonl")
		if r.code != 0 {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
		for _, l := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
			var obj map[string]any
			if err := json.Unmarshal([]byte(l), &obj); err != nil {
				t.Errorf("line %q is not a JSON object: %v", l, err)
			}
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
	t.Run("--format is not an alias of --output", func(t *testing.T) {
		env := expectEnvelope(t, "list --format json", sb.run(t, "list", "--format", "json"), 2)
		want := map[string]any{"error.code": "UNKNOWN_FLAG", "error.field": "format"}
		if diff := cmp.Diff(want, pick(env, want)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("every command has --output and no response-format alias", func(t *testing.T) {
		env := expectEnvelope(t, "describe", sb.run(t, "describe", "--full"), 0)
		commands := env["data"].(map[string]any)["commands"].(map[string]any)
		if len(commands) < 10 {
			t.Fatalf("describe lists %d commands", len(commands))
		}
		var missing, alias []string
		for name, c := range commands {
			flags, _ := c.(map[string]any)["flags"].(map[string]any)
			if _, ok := flags["output"]; !ok {
				missing = append(missing, name)
			}
			// generate-skills' --format is the format of the files it
			// writes, not of the response.
			if _, ok := flags["format"]; ok && name != "generate-skills" {
				alias = append(alias, name)
			}
		}
		slices.Sort(missing)
		slices.Sort(alias)
		if len(missing)+len(alias) > 0 {
			t.Errorf("commands without --output: %q; with --format: %q", missing, alias)
		}
	})
}
