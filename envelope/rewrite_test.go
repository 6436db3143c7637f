package envelope_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
)

// TestPathAgainstCwd: under --cwd (Settings.Cwd) every relative Path in a
// result — in a struct, behind a pointer, in a slice, a map or an
// interface — encodes against that directory; absolute ones stay as they
// are, and the command's own value is not changed (F-040, O-017).
func TestPathAgainstCwd(t *testing.T) {
	type file struct {
		Name  string         `json:"name"`
		Path  envelope.Path  `json:"path"`
		Extra *envelope.Path `json:"extra,omitempty"`
	}
	type result struct {
		Root  envelope.Path            `json:"root"`
		Files []file                   `json:"files"`
		ByKey map[string]envelope.Path `json:"by_key"`
		Any   any                      `json:"any"`
		Fixed [1]envelope.Path         `json:"fixed"`
		Plain string                   `json:"plain"`
	}
	cwd := t.TempDir()
	extra := envelope.Path("deep/e.txt")
	in := &result{
		Root:  "./src/index.ts",
		Files: []file{{Name: "a", Path: "a.txt", Extra: &extra}, {Name: "b", Path: "/etc/hosts"}},
		ByKey: map[string]envelope.Path{"k": "k.txt"},
		Any:   []envelope.Path{"x/../y"},
		Fixed: [1]envelope.Path{"f"},
		Plain: "not/a/path",
	}
	var stdout bytes.Buffer
	out := envelope.New(&envelope.Settings{Mode: envelope.Mode{Agent: true, Format: envelope.JSON}, Stdout: &stdout, Cwd: cwd})
	out.Result(in)
	out.Finish(envelope.Meta{Command: "find-config"}, nil)
	var env struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &env); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	want := map[string]any{
		"root": filepath.Join(cwd, "src/index.ts"),
		"files": []any{
			map[string]any{"name": "a", "path": filepath.Join(cwd, "a.txt"), "extra": filepath.Join(cwd, "deep/e.txt")},
			map[string]any{"name": "b", "path": "/etc/hosts"},
		},
		"by_key": map[string]any{"k": filepath.Join(cwd, "k.txt")},
		"any":    []any{filepath.Join(cwd, "y")},
		"fixed":  []any{filepath.Join(cwd, "f")},
		"plain":  "not/a/path",
	}
	if diff := cmp.Diff(want, env.Data); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
	if in.Root != "./src/index.ts" || in.Files[0].Path != "a.txt" || extra != "deep/e.txt" || in.ByKey["k"] != "k.txt" {
		t.Errorf("the command's own value changed: %+v", in)
	}
}

// upper encodes itself, as a string: the rewrite leaves it to its method.
type upper []string

func (u upper) MarshalText() ([]byte, error) { return []byte("UPPER"), nil }

// TestNilCollectionsAreEmpty: a nil slice or map anywhere in a result — a
// struct field, behind a pointer or an interface, in a map, an array, a
// stream's item — is written [] or {}, never null (F-074); a nil []byte
// stays null (encoding/json's string), a type that encodes itself and an
// omitempty field are left to encoding/json, and the command's own value
// is not changed.
func TestNilCollectionsAreEmpty(t *testing.T) {
	type inner struct {
		Tags []string `json:"tags"`
	}
	type result struct {
		Tags     []string          `json:"tags"`
		Labels   map[string]string `json:"labels"`
		Inner    *inner            `json:"inner"`
		Any      any               `json:"any"`
		ByKey    map[string]any    `json:"by_key"`
		Fixed    [1]inner          `json:"fixed"`
		Bytes    []byte            `json:"bytes"`
		Own      upper             `json:"own"`
		Omitted  []string          `json:"omitted,omitempty"`
		Set      []int             `json:"set"`
		internal []string
	}
	in := result{
		Inner:    &inner{},
		Any:      []int(nil),
		ByKey:    map[string]any{"k": map[string]int(nil)},
		Set:      []int{1},
		internal: []string{"kept"},
	}
	want := `{"tags":[],"labels":{},"inner":{"tags":[]},"any":[],"by_key":{"k":{}},"fixed":[{"tags":[]}],"bytes":null,"own":"UPPER","set":[1]}`
	for _, format := range []envelope.Format{envelope.JSON, envelope.JSONL} {
		t.Run(string(format), func(t *testing.T) {
			var stdout bytes.Buffer
			out := envelope.New(&envelope.Settings{Mode: envelope.Mode{Agent: true, Format: format}, Stdout: &stdout})
			if format == envelope.JSONL {
				if err := out.Item(in); err != nil {
					t.Fatal(err)
				}
			} else {
				out.Result(in)
			}
			out.Finish(envelope.Meta{Command: "show"}, nil)
			first, _, _ := bytes.Cut(stdout.Bytes(), []byte("\n"))
			var got json.RawMessage = first
			if format == envelope.JSON {
				var env struct{ Data json.RawMessage }
				if err := json.Unmarshal(first, &env); err != nil {
					t.Fatalf("%v\n%s", err, first)
				}
				got = env.Data
			} else {
				var item map[string]json.RawMessage
				if err := json.Unmarshal(first, &item); err != nil {
					t.Fatalf("%v\n%s", err, first)
				}
				delete(item, "_seq")
				got, _ = json.Marshal(item) // keys sorted: compare as values
				var w map[string]json.RawMessage
				json.Unmarshal([]byte(want), &w)
				wb, _ := json.Marshal(w)
				if diff := cmp.Diff(string(wb), string(got)); diff != "" {
					t.Errorf("item (-want +got):\n%s", diff)
				}
				return
			}
			if diff := cmp.Diff(want, string(got)); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("a list of records", func(t *testing.T) {
		var stdout bytes.Buffer
		out := envelope.New(&envelope.Settings{Mode: envelope.Mode{Agent: true, Format: envelope.JSON}, Stdout: &stdout})
		list := []result{in, {Set: []int{2}}}
		out.Result(list)
		out.Finish(envelope.Meta{Command: "list"}, nil)
		var env struct{ Data []json.RawMessage }
		if err := json.Unmarshal(stdout.Bytes(), &env); err != nil || len(env.Data) != 2 {
			t.Fatalf("%v\n%s", err, stdout.Bytes())
		}
		if diff := cmp.Diff(want, string(env.Data[0])); diff != "" {
			t.Errorf("item 1 (-want +got):\n%s", diff)
		}
		if got := string(env.Data[1]); got != `{"tags":[],"labels":{},"inner":null,"any":null,"by_key":{},"fixed":[{"tags":[]}],"bytes":null,"own":"UPPER","set":[2]}` {
			t.Errorf("item 2 = %s", got)
		}
		if list[1].Tags != nil || list[1].Labels != nil {
			t.Errorf("the command's list changed: %+v", list[1])
		}
	})
	if in.Tags != nil || in.Inner.Tags != nil || in.Labels != nil || in.Any.([]int) != nil || in.internal[0] != "kept" {
		t.Errorf("the command's own value changed: %+v", in)
	}
}
