package catalog_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/examples/meridian/internal/catalog"
	"github.com/duet-cli/duet/internal/golden"
)

func TestRoute(t *testing.T) {
	tests := []struct {
		id      string
		harness string
		ok      bool
	}{
		{"claude-opus-4-6", "claude", true},
		{"opus", "claude", true},
		{"opus-4", "claude", true},
		{"sonnet", "claude", true},
		{"haiku-3", "claude", true},
		{"gpt-5.3-codex", "codex", true},
		{"o1", "codex", true},
		{"o3-mini", "codex", true},
		{"o4", "codex", true},
		{"codex-mini", "codex", true},
		{"gemini", "gemini", true},
		{"gemini-2.5-pro", "gemini", true},
		{"opencode-gpt-5", "opencode", true},
		{"anthropic/claude-sonnet-4-5", "opencode", true},
		{"google/gemini-2.5-pro", "opencode", true},
		{"opencode-anthropic/claude-sonnet-4-5", "opencode", true},
		{"llama-3", "", false},
		{"o2", "", false},
		{"gpt5", "", false},
		{"Claude-opus", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		h, ok := catalog.Route(tt.id)
		if h != tt.harness || ok != tt.ok {
			t.Errorf("Route(%q) = %q, %v; want %q, %v", tt.id, h, ok, tt.harness, tt.ok)
		}
	}
}

func TestBuiltinModelsGolden(t *testing.T) {
	m, err := catalog.LoadModels("")
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(m.List(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "builtin_models.json", append(got, '\n'))
	if w := m.Warnings(); len(w) != 0 {
		t.Errorf("the built-in catalog has warnings: %q", w)
	}
	// Every built-in routes to the harness it is listed with: the catalog
	// and the router agree.
	for _, model := range m.List() {
		if h, ok := catalog.Route(model.ID); !ok || h != model.Harness {
			t.Errorf("%s: Route = %q, %v; listed on %q", model.ID, h, ok, model.Harness)
		}
	}
}

func TestDefaultModel(t *testing.T) {
	dir := t.TempDir()
	// A model added for claude comes after the built-ins: it does not
	// become claude's default.
	writeFile(t, filepath.Join(dir, "models.toml"), "[models.next]\nid = \"claude-opus-5\"\n")
	m, err := catalog.LoadModels(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		harness, want string
		ok            bool
	}{
		{"claude", "claude-opus-4-6", true},
		{"codex", "gpt-5.3-codex", true},
		{"gemini", "gemini-2.5-pro", true},
		{"opencode", "opencode-anthropic/claude-sonnet-4-5", true},
		{"cursor", "", false},
	}
	for _, tt := range tests {
		got, ok := m.DefaultModel(tt.harness)
		if got.ID != tt.want || ok != tt.ok {
			t.Errorf("DefaultModel(%q) = %q, %v; want %q, %v", tt.harness, got.ID, ok, tt.want, tt.ok)
		}
	}
}

func TestResolve(t *testing.T) {
	m, err := catalog.LoadModels(t.TempDir()) // no models.toml
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		id, harness string
		source      string
		warning     string
	}{
		{"claude-opus-4-6", "claude-opus-4-6", "claude", "built-in", ""},
		{"opus", "claude-opus-4-6", "claude", "built-in", ""},
		{"codex", "gpt-5.3-codex", "codex", "built-in", ""},
		{"gpt52h", "gpt-5.2-high", "codex", "built-in", ""},
		{"gemini", "gemini-2.5-pro", "gemini", "built-in", ""},
		{"o3", "o3", "codex", "", `model "o3" is not in the catalog; using harness codex`},
		{"anthropic/claude-opus-4-6", "anthropic/claude-opus-4-6", "opencode", "",
			`model "anthropic/claude-opus-4-6" is not in the catalog; using harness opencode`},
		{"opuss", "opuss", "claude", "",
			`model "opuss" is not in the catalog; using harness claude (did you mean "opus"?)`},
	}
	for _, tt := range tests {
		got, warning, err := m.Resolve(tt.name)
		if err != nil {
			t.Errorf("Resolve(%q) = %v", tt.name, err)
			continue
		}
		if got.ID != tt.id || got.Harness != tt.harness || got.Source != tt.source || warning != tt.warning {
			t.Errorf("Resolve(%q) = {%q %q %q}, %q; want {%q %q %q}, %q",
				tt.name, got.ID, got.Harness, got.Source, warning, tt.id, tt.harness, tt.source, tt.warning)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	m, err := catalog.LoadModels("")
	if err != nil {
		t.Fatal(err)
	}
	all := []string{
		"claude-opus-4-6", "opus", "gpt-5.3-codex", "codex", "claude-sonnet-4-6", "sonnet",
		"claude-haiku-4-5", "haiku", "gpt-5.2-high", "gpt52h", "gemini-2.5-pro", "gemini",
		"opencode-anthropic/claude-sonnet-4-5", "opencode-sonnet",
	}
	tests := []struct {
		name string
		want error
	}{
		{"sonet", &catalog.NotFoundError{Kind: "model", Name: "sonet", Available: all, Suggestion: "sonnet"}},
		{"Haiku", &catalog.NotFoundError{Kind: "model", Name: "Haiku", Available: all, Suggestion: "haiku"}},
		{"llama", &catalog.NotFoundError{Kind: "model", Name: "llama", Available: all}},
		{"", &catalog.NameError{Kind: "model", Name: "", Reason: "it is empty"}},
		{"gpt 5", &catalog.NameError{Kind: "model", Name: "gpt 5", Reason: "it contains whitespace or a control character"}},
	}
	for _, tt := range tests {
		_, _, err := m.Resolve(tt.name)
		if diff := cmp.Diff(tt.want, err); diff != "" {
			t.Errorf("Resolve(%q) error (-want +got):\n%s", tt.name, diff)
		}
	}
	_, _, err = m.Resolve("sonet")
	if want := `unknown model "sonet"; did you mean "sonnet"? (available: claude-opus-4-6, opus,`; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Error() = %q, want it to start with %q", err, want)
	}
}

func TestModelsFile(t *testing.T) {
	tests := []struct {
		name    string
		content string
		// want lists the models that differ from or are not among the
		// built-ins, by id.
		want     map[string]catalog.Model
		order    []string // ids, in catalog order
		warnings []string
		resolve  map[string]string // name -> id
	}{
		{
			name: "tables: replace a built-in, add two",
			content: `
[models.fast]
id = "claude-haiku-4-5"
aliases = "quick"
role = "Triage"

[models.qwen]
id = "ollama/qwen3"
aliases = ["qwen", "q3"]
cost_tier = "free"

[models."o3"]
strengths = "math"
`,
			want: map[string]catalog.Model{
				"claude-haiku-4-5": {ID: "claude-haiku-4-5", Aliases: []string{"quick"}, Harness: "claude", Role: "Triage", Source: "FILE"},
				"ollama/qwen3":     {ID: "ollama/qwen3", Aliases: []string{"qwen", "q3"}, Harness: "opencode", CostTier: "free", Source: "FILE"},
				"o3":               {ID: "o3", Aliases: []string{}, Harness: "codex", Strengths: "math", Source: "FILE"},
			},
			order: []string{"claude-opus-4-6", "gpt-5.3-codex", "claude-sonnet-4-6", "claude-haiku-4-5",
				"gpt-5.2-high", "gemini-2.5-pro", "opencode-anthropic/claude-sonnet-4-5", "o3", "ollama/qwen3"},
			resolve: map[string]string{"quick": "claude-haiku-4-5", "q3": "ollama/qwen3", "o3": "o3", "opus": "claude-opus-4-6"},
		},
		{
			name: "array: explicit harness for an id that does not route",
			content: `
[[models]]
id = "llama-4"
harness = "opencode"
aliases = ["llama"]

[[models]]
id = "deepseek-r2"
harness = "codex"
`,
			want: map[string]catalog.Model{
				"llama-4":     {ID: "llama-4", Aliases: []string{"llama"}, Harness: "opencode", Source: "FILE"},
				"deepseek-r2": {ID: "deepseek-r2", Aliases: []string{}, Harness: "codex", Source: "FILE"},
			},
			order: []string{"claude-opus-4-6", "gpt-5.3-codex", "claude-sonnet-4-6", "claude-haiku-4-5",
				"gpt-5.2-high", "gemini-2.5-pro", "opencode-anthropic/claude-sonnet-4-5", "llama-4", "deepseek-r2"},
			resolve: map[string]string{"llama": "llama-4", "deepseek-r2": "deepseek-r2"},
		},
		{
			name: "duplicate aliases: first wins, with a warning",
			content: `
[[models]]
id = "claude-opus-4-7"
aliases = ["opus", "o47", "o47", "claude-opus-4-7", "sonnet", "gpt-5.3-codex"]

[[models]]
id = "claude-opus-4-8"
aliases = ["o47"]
`,
			want: map[string]catalog.Model{
				"claude-opus-4-7": {ID: "claude-opus-4-7", Aliases: []string{"o47"}, Harness: "claude", Source: "FILE"},
				"claude-opus-4-8": {ID: "claude-opus-4-8", Aliases: []string{}, Harness: "claude", Source: "FILE"},
			},
			order: []string{"claude-opus-4-6", "gpt-5.3-codex", "claude-sonnet-4-6", "claude-haiku-4-5",
				"gpt-5.2-high", "gemini-2.5-pro", "opencode-anthropic/claude-sonnet-4-5", "claude-opus-4-7", "claude-opus-4-8"},
			warnings: []string{
				`alias "opus" of model "claude-opus-4-7" (FILE) is already an alias of "claude-opus-4-6"; ignored`,
				`alias "sonnet" of model "claude-opus-4-7" (FILE) is already an alias of "claude-sonnet-4-6"; ignored`,
				`alias "gpt-5.3-codex" of model "claude-opus-4-7" (FILE) is the id of another model; ignored`,
				`alias "o47" of model "claude-opus-4-8" (FILE) is already an alias of "claude-opus-4-7"; ignored`,
			},
			resolve: map[string]string{"opus": "claude-opus-4-6", "o47": "claude-opus-4-7"},
		},
		{
			name:    "an id shadows a built-in alias",
			content: "[models.x]\nid = \"haiku\"\nrole = \"new haiku\"\n",
			want: map[string]catalog.Model{
				"haiku":            {ID: "haiku", Aliases: []string{}, Harness: "claude", Role: "new haiku", Source: "FILE"},
				"claude-haiku-4-5": {ID: "claude-haiku-4-5", Aliases: []string{}, Harness: "claude", Role: "Fast, cheap helper", Strengths: "Summaries, simple edits, triage", CostTier: "$", Source: "built-in"},
			},
			order: []string{"claude-opus-4-6", "gpt-5.3-codex", "claude-sonnet-4-6", "claude-haiku-4-5",
				"gpt-5.2-high", "gemini-2.5-pro", "opencode-anthropic/claude-sonnet-4-5", "haiku"},
			warnings: []string{`alias "haiku" of model "claude-haiku-4-5" (built-in) is the id of another model; ignored`},
			resolve:  map[string]string{"haiku": "haiku"},
		},
		{
			name:  "empty file",
			order: []string{"claude-opus-4-6", "gpt-5.3-codex", "claude-sonnet-4-6", "claude-haiku-4-5", "gpt-5.2-high", "gemini-2.5-pro", "opencode-anthropic/claude-sonnet-4-5"},
		},
	}
	builtin, err := catalog.LoadModels("")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "models.toml")
			writeFile(t, path, tt.content)
			m, err := catalog.LoadModels(dir)
			if err != nil {
				t.Fatal(err)
			}
			var order []string
			for _, got := range m.List() {
				order = append(order, got.ID)
				want, ok := tt.want[got.ID]
				if !ok {
					want = find(t, builtin.List(), got.ID)
				}
				if want.Source == "FILE" {
					want.Source = path
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s (-want +got):\n%s", got.ID, diff)
				}
			}
			if diff := cmp.Diff(tt.order, order); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
			var warnings []string
			for _, w := range tt.warnings {
				warnings = append(warnings, strings.ReplaceAll(w, "FILE", path))
			}
			if diff := cmp.Diff(warnings, m.Warnings()); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			for name, id := range tt.resolve {
				got, warning, err := m.Resolve(name)
				if err != nil || got.ID != id || warning != "" {
					t.Errorf("Resolve(%q) = %q, %q, %v; want %q", name, got.ID, warning, err, id)
				}
			}
		})
	}
}

func find(t *testing.T, models []catalog.Model, id string) catalog.Model {
	t.Helper()
	for _, m := range models {
		if m.ID == id {
			return m
		}
	}
	t.Fatalf("no model %q", id)
	return catalog.Model{}
}

func TestListIsACopy(t *testing.T) {
	m, err := catalog.LoadModels("")
	if err != nil {
		t.Fatal(err)
	}
	list := m.List()
	list[0].ID = "changed"
	list[0].Aliases[0] = "changed"
	if got, _, err := m.Resolve("opus"); err != nil || got.ID != "claude-opus-4-6" {
		t.Errorf("after changing List()'s result, Resolve(opus) = %q, %v", got.ID, err)
	}
}

func TestModelsFileErrors(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    catalog.FileError // Path filled in; Msg checked by substring
	}{
		{"unknown key", "[models.x]\nid = \"gpt-6\"\nmodel_id = \"gpt-6\"\n",
			catalog.FileError{Key: "models.x.model_id", Line: 3, Msg: "unknown key"}},
		{"unknown top-level key", "default = \"opus\"\n",
			catalog.FileError{Key: "default", Line: 1, Msg: "unknown key"}},
		{"unknown key in array", "[[models]]\nid = \"gpt-6\"\ncost = 3\n",
			catalog.FileError{Key: "models.cost", Line: 3, Msg: "unknown key"}},
		{"wrong type", "[models.x]\nrole = 3\n",
			catalog.FileError{Key: "models.x.role", Line: 2, Msg: "wrong type: want a string, got a TOML integer"}},
		{"harness as integer", "[models.x]\nid = \"llama\"\nharness = 1\n",
			catalog.FileError{Key: "models.x.harness", Line: 3, Msg: "wrong type: want a string, got a TOML integer"}},
		{"unknown harness", "[models.x]\nid = \"llama\"\n\nharness = \"cursor\"\n",
			catalog.FileError{Key: "models.x.harness", Line: 4, Msg: `unknown harness "cursor"`}},
		{"unknown harness in array", "[[models]]\nid = \"llama\"\nharness = \"Claude\"\n",
			catalog.FileError{Key: "models.harness", Line: 3, Msg: `unknown harness "Claude"`}},
		{"does not route", "[models.llama]\nrole = \"local\"\n",
			catalog.FileError{Key: "models.llama.harness", Msg: `model "llama" does not route to a harness by its id; set harness`}},
		{"array entry without id", "[[models]]\nrole = \"x\"\n",
			catalog.FileError{Key: "models[0].id", Msg: "a model needs an id"}},
		{"id with a space", "[models.x]\nid = \"gpt 6\"\n",
			catalog.FileError{Key: "models.x.id", Msg: `model id "gpt 6": it contains whitespace`}},
		{"same id twice", "[[models]]\nid = \"gpt-6\"\n[[models]]\nid = \"gpt-6\"\n",
			catalog.FileError{Key: "models[1].id", Msg: `model "gpt-6" is already defined by models[0]`}},
		{"aliases of the wrong type", "[models.x]\nid = \"gpt-6\"\naliases = 6\n",
			catalog.FileError{Key: "models.x.aliases", Msg: "want a string or a list of strings"}},
		{"aliases list of the wrong type", "[models.x]\nid = \"gpt-6\"\naliases = [\"six\", 6]\n",
			catalog.FileError{Key: "models.x.aliases", Msg: "want a string or a list of strings"}},
		{"empty alias", "[models.x]\nid = \"gpt-6\"\naliases = [\"\"]\n",
			catalog.FileError{Key: "models.x.aliases", Msg: `alias "": it is empty`}},
		{"models not a table", "models = 3\n",
			catalog.FileError{Key: "models", Msg: "want [models.<key>] tables or [[models]] entries"}},
		{"syntax", "[models.x\n",
			catalog.FileError{Line: 1, Msg: "expected ']'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "models.toml")
			writeFile(t, path, tt.content)
			_, err := catalog.LoadModels(dir)
			var fe *catalog.FileError
			if !errors.As(err, &fe) {
				t.Fatalf("LoadModels = %v, want a *FileError", err)
			}
			want := tt.want
			want.Path = path
			if !strings.Contains(fe.Msg, want.Msg) {
				t.Errorf("Msg = %q, want it to contain %q", fe.Msg, want.Msg)
			}
			want.Msg = fe.Msg
			if diff := cmp.Diff(&want, fe); diff != "" {
				t.Errorf("FileError (-want +got):\n%s", diff)
			}
		})
	}
}

func TestModelsFileUnreadable(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "models.toml"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := catalog.LoadModels(dir); err == nil {
		t.Error("LoadModels with models.toml a directory succeeded")
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
