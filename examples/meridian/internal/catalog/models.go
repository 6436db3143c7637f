package catalog

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/duet-cli/duet/examples/meridian/internal/fileerror"
	"github.com/pelletier/go-toml/v2"
)

// ModelsFileName is the name of the models override file inside the
// project's .meridian directory.
const ModelsFileName = "models.toml"

// Model is a model a run can use.
type Model struct {
	// ID is what the harness is given as the model.
	ID string `json:"id"`
	// Aliases are short names that resolve to ID (never nil).
	Aliases []string `json:"aliases"`
	// Harness is the harness that runs the model: "claude", "codex",
	// "opencode" or "gemini".
	Harness string `json:"harness"`
	// Role, Strengths and CostTier are descriptions for people and agents
	// choosing a model.
	Role      string `json:"role"`
	Strengths string `json:"strengths"`
	CostTier  string `json:"cost_tier"`
	// Source is [SourceBuiltin], the path of the models.toml that defines
	// the model, or "" for a model that is not in the catalog but was
	// accepted by [Route] (see [Models.Resolve]).
	Source string `json:"source,omitempty"`
}

// builtinModels returns the models that come with Meridian. Order matters:
// the first model of a harness is its default ([Models.DefaultModel]).
func builtinModels() []Model {
	m := func(id, alias, role, strengths, cost string) Model {
		harness, _ := Route(id)
		return Model{ID: id, Aliases: []string{alias}, Harness: harness, Role: role,
			Strengths: strengths, CostTier: cost, Source: SourceBuiltin}
	}
	return []Model{
		m("claude-opus-4-6", "opus", "Deep reasoning, architecture, hard debugging",
			"Careful multi-step work, large refactors, reviews", "$$$"),
		m("gpt-5.3-codex", "codex", "Implementation",
			"Writing and changing code quickly and precisely", "$$"),
		m("claude-sonnet-4-6", "sonnet", "General coding and writing",
			"Balanced quality and speed for everyday tasks", "$$"),
		m("claude-haiku-4-5", "haiku", "Fast, cheap helper",
			"Summaries, simple edits, triage", "$"),
		m("gpt-5.2-high", "gpt52h", "Second opinion with high reasoning effort",
			"Reviews, planning, tricky logic", "$$$"),
		m("gemini-2.5-pro", "gemini", "Long-context analysis",
			"Reading large codebases and documents", "$$"),
		m("opencode-anthropic/claude-sonnet-4-5", "opencode-sonnet", "Claude Sonnet through OpenCode",
			"General coding with OpenCode's tools", "$$"),
	}
}

// routes maps id prefixes to harnesses, in the order they are tried.
func routes() []struct{ prefix, harness string } {
	return []struct{ prefix, harness string }{
		{"claude-", "claude"}, {"opus", "claude"}, {"sonnet", "claude"}, {"haiku", "claude"},
		{"gpt-", "codex"}, {"o1", "codex"}, {"o3", "codex"}, {"o4", "codex"}, {"codex", "codex"},
		{"gemini", "gemini"},
	}
}

// Route returns the harness that runs the model id, judged by its form:
// "opencode-…" or any id with a '/' (OpenCode's provider/model) → "opencode";
// "claude-…", "opus…", "sonnet…", "haiku…" → "claude"; "gpt-…", "o1…",
// "o3…", "o4…", "codex…" → "codex"; "gemini…" → "gemini". Provider-qualified
// ids are checked first because only OpenCode takes them, whatever the
// model's family ("anthropic/claude-sonnet-4-5", "google/gemini-2.5-pro").
// Nothing else routes. Matching is case-sensitive, like the harnesses.
func Route(id string) (harness string, ok bool) {
	if strings.HasPrefix(id, "opencode-") || strings.Contains(id, "/") {
		return "opencode", true
	}
	for _, r := range routes() {
		if strings.HasPrefix(id, r.prefix) {
			return r.harness, true
		}
	}
	return "", false
}

// isHarness reports whether name is a harness Meridian can launch.
func isHarness(name string) bool {
	switch name {
	case "claude", "codex", "opencode", "gemini":
		return true
	}
	return false
}

const harnessNames = "claude, codex, opencode, gemini"

// Models is the model catalog: the built-in models with the project's
// models.toml applied.
type Models struct {
	list     []Model
	warnings []string
}

// LoadModels returns the catalog of the .meridian directory dir: the
// built-in models, with those of dir/models.toml (if it exists) replacing
// the built-in model of the same id or added after them. dir "" gives the
// built-in models. A models.toml with bad content is a [*FileError].
//
// models.toml holds either [models.<key>] tables or [[models]] entries, each
// with id (default: the key; required in [[models]]), aliases (a string or
// a list), role, strengths, cost_tier and harness (default: [Route] of the
// id; an id that does not route needs one).
func LoadModels(dir string) (*Models, error) {
	m := &Models{list: builtinModels()}
	if dir != "" {
		path := filepath.Join(dir, ModelsFileName)
		data, err := os.ReadFile(path)
		switch {
		case err == nil:
			entries, err := decodeModels(path, data)
			if err != nil {
				return nil, err
			}
			for _, e := range entries {
				if i := slices.IndexFunc(m.list, func(b Model) bool { return b.ID == e.ID }); i >= 0 {
					m.list[i] = e
				} else {
					m.list = append(m.list, e)
				}
			}
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("read models: %w", err)
		}
	}
	m.dedupeAliases()
	return m, nil
}

// dedupeAliases makes every alias resolve to one model: an alias that is
// also a model id loses to the id, and of two models with the same alias
// the earlier keeps it. Each dropped alias is a warning, since it means a
// name does not go where models.toml says.
func (m *Models) dedupeAliases() {
	ids := map[string]bool{}
	for _, model := range m.list {
		ids[model.ID] = true
	}
	owner := map[string]string{}
	for i := range m.list {
		model := &m.list[i]
		kept := []string{}
		for _, a := range model.Aliases {
			switch {
			case a == model.ID || slices.Contains(kept, a):
				// Harmless repetition: nothing to warn about.
			case ids[a]:
				m.warnings = append(m.warnings, fmt.Sprintf(
					"alias %q of model %q (%s) is the id of another model; ignored", a, model.ID, model.Source))
			case owner[a] != "":
				m.warnings = append(m.warnings, fmt.Sprintf(
					"alias %q of model %q (%s) is already an alias of %q; ignored", a, model.ID, model.Source, owner[a]))
			default:
				owner[a] = model.ID
				kept = append(kept, a)
			}
		}
		model.Aliases = kept
	}
}

// List returns the models in catalog order: built-ins first (each
// harness's default before its other models), then those models.toml adds.
func (m *Models) List() []Model {
	out := make([]Model, len(m.list))
	for i, model := range m.list {
		model.Aliases = slices.Clone(model.Aliases)
		out[i] = model
	}
	return out
}

// Warnings returns what loading the catalog ignored, one sentence each.
func (m *Models) Warnings() []string { return slices.Clone(m.warnings) }

// Resolve finds the model a user means by name, an id or an alias. A name
// not in the catalog that [Route] routes is accepted as is, with a warning
// (`model "x" is not in the catalog; using harness codex`): new models
// appear faster than catalogs change. A name that does not route is a
// [*NotFoundError] listing the ids and aliases; an empty name or one with
// whitespace or control characters is a [*NameError].
func (m *Models) Resolve(name string) (model Model, warning string, err error) {
	if name == "" {
		return Model{}, "", &NameError{Kind: "model", Name: name, Reason: "it is empty"}
	}
	if strings.ContainsFunc(name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return Model{}, "", &NameError{Kind: "model", Name: name, Reason: "it contains whitespace or a control character"}
	}
	for _, byAlias := range []bool{false, true} {
		for _, model := range m.list {
			if (!byAlias && model.ID == name) || (byAlias && slices.Contains(model.Aliases, name)) {
				model.Aliases = slices.Clone(model.Aliases)
				return model, "", nil
			}
		}
	}
	names := m.names()
	harness, ok := Route(name)
	if !ok {
		return Model{}, "", notFound("model", name, names)
	}
	warning = fmt.Sprintf("model %q is not in the catalog; using harness %s", name, harness)
	if s := closestName(name, names); s != "" {
		warning += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return Model{ID: name, Aliases: []string{}, Harness: harness}, warning, nil
}

// names returns every id and alias, in catalog order.
func (m *Models) names() []string {
	var out []string
	for _, model := range m.list {
		out = append(out, model.ID)
		out = append(out, model.Aliases...)
	}
	return out
}

// DefaultModel returns the first model of harness in the catalog: what a
// run on that harness uses when it names no model.
func (m *Models) DefaultModel(harness string) (Model, bool) {
	for _, model := range m.list {
		if model.Harness == harness {
			model.Aliases = slices.Clone(model.Aliases)
			return model, true
		}
	}
	return Model{}, false
}

// modelEntry is one model of models.toml. H is the type of the harness:
// string for the type-checking pass, harnessName for the validating one
// (see decodeTOML). Aliases is a string or a list, so it is checked after
// decoding.
type modelEntry[H any] struct {
	ID        *string `toml:"id"`
	Aliases   any     `toml:"aliases"`
	Role      *string `toml:"role"`
	Strengths *string `toml:"strengths"`
	CostTier  *string `toml:"cost_tier"`
	Harness   *H      `toml:"harness"`
}

type modelTables[H any] struct {
	Models map[string]modelEntry[H] `toml:"models"`
}

type modelArray[H any] struct {
	Models []modelEntry[H] `toml:"models"`
}

// decodeModels reads models.toml into models, in file order for
// [[models]] and in key order for [models.<key>] (TOML tables have no
// order).
func decodeModels(path string, data []byte) ([]Model, error) {
	var probe map[string]any
	if err := toml.Unmarshal(data, &probe); err != nil {
		return nil, tomlError(path, err)
	}
	type keyed struct {
		key   string // for messages: "models.fast" or "models[2]"
		label string // the table key, "" for [[models]]
		entry modelEntry[harnessName]
	}
	var entries []keyed
	switch probe["models"].(type) {
	case nil, map[string]any:
		var tables modelTables[harnessName]
		if err := decodeTOML(path, data, &modelTables[string]{}, &tables); err != nil {
			return nil, err
		}
		for _, label := range slices.Sorted(maps.Keys(tables.Models)) {
			entries = append(entries, keyed{"models." + label, label, tables.Models[label]})
		}
	case []any:
		var array modelArray[harnessName]
		if err := decodeTOML(path, data, &modelArray[string]{}, &array); err != nil {
			return nil, err
		}
		for i, e := range array.Models {
			entries = append(entries, keyed{fmt.Sprintf("models[%d]", i), "", e})
		}
	default:
		return nil, &FileError{Path: path, Key: "models",
			Msg: "want [models.<key>] tables or [[models]] entries"}
	}

	var out []Model
	seen := map[string]string{}
	for _, k := range entries {
		bad := func(field, msg string) error {
			key := k.key
			if field != "" {
				key += "." + field
			}
			return &FileError{Path: path, Key: key, Msg: msg}
		}
		e := k.entry
		model := Model{ID: k.label, Aliases: []string{}, Source: path}
		if e.ID != nil {
			model.ID = *e.ID
		}
		if model.ID == "" {
			return nil, bad("id", "a model needs an id")
		}
		if err := checkModelName(model.ID); err != "" {
			return nil, bad("id", fmt.Sprintf("model id %q: %s", model.ID, err))
		}
		if other, dup := seen[model.ID]; dup {
			return nil, bad("id", fmt.Sprintf("model %q is already defined by %s", model.ID, other))
		}
		seen[model.ID] = k.key
		switch a := e.Aliases.(type) {
		case nil:
		case string:
			model.Aliases = []string{a}
		case []any:
			for _, v := range a {
				s, ok := v.(string)
				if !ok {
					return nil, bad("aliases", "want a string or a list of strings")
				}
				model.Aliases = append(model.Aliases, s)
			}
		default:
			return nil, bad("aliases", "want a string or a list of strings")
		}
		for _, a := range model.Aliases {
			if err := checkModelName(a); err != "" {
				return nil, bad("aliases", fmt.Sprintf("alias %q: %s", a, err))
			}
		}
		for _, f := range []struct {
			from *string
			to   *string
		}{{e.Role, &model.Role}, {e.Strengths, &model.Strengths}, {e.CostTier, &model.CostTier}} {
			if f.from != nil {
				*f.to = *f.from
			}
		}
		if e.Harness != nil {
			model.Harness = e.Harness.name
		} else if h, ok := Route(model.ID); ok {
			model.Harness = h
		} else {
			return nil, bad("harness", fmt.Sprintf(
				"model %q does not route to a harness by its id; set harness to one of %s", model.ID, harnessNames))
		}
		out = append(out, model)
	}
	return out, nil
}

// checkModelName returns why s cannot be a model id or alias, or "".
func checkModelName(s string) string {
	switch {
	case s == "":
		return "it is empty"
	case strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }):
		return "it contains whitespace or a control character"
	}
	return ""
}

// harnessName is a harness Meridian knows. It is a struct because go-toml
// assigns a TOML string straight to a type whose kind is string, without
// calling its UnmarshalText.
type harnessName struct{ name string }

func (h *harnessName) UnmarshalText(text []byte) error {
	if !isHarness(string(text)) {
		return fmt.Errorf("unknown harness %q: want one of %s", text, harnessNames)
	}
	h.name = string(text)
	return nil
}

// decodeTOML decodes data twice: strictly into shape, whose leaves are
// plain types, so that unknown keys and wrong types are reported with their
// line; then into v, whose leaves validate their values. go-toml hands
// integers to a TextUnmarshaler as text, so only the first pass can tell a
// number from a string; the second gives the line of an invalid value.
func decodeTOML(path string, data []byte, shape, v any) error {
	if err := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().Decode(shape); err != nil {
		return tomlError(path, err)
	}
	if err := toml.NewDecoder(bytes.NewReader(data)).Decode(v); err != nil {
		return tomlError(path, err)
	}
	return nil
}

// tomlError turns a go-toml error into a [*FileError] for path.
func tomlError(path string, err error) error { return fileerror.FromTOML(path, err) }
