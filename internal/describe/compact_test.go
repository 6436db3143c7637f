package describe_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/feature/toon"
	"github.com/duet-cli/duet/internal/describe"
	"github.com/duet-cli/duet/schema"
)

// TestCompactLosesNothingToCall holds the compact manifest to the full one:
// every flag of every runnable command is found — on the command, on a
// group above it, or among the global flags — with the same type,
// requirement, enum and default; every exit code is the command's, a
// group's, or the common one of its danger level; the output is the
// schema's shape.
func TestCompactLosesNothingToCall(t *testing.T) {
	m := manifest(t, generatedTree(t, 3, 4))
	c := m.Compact()
	if len(c.Commands) != len(m.Commands) {
		t.Fatalf("compact has %d commands, full %d", len(c.Commands), len(m.Commands))
	}
	if _, ok := c.GlobalFlags["config"]; !ok {
		t.Errorf("the root's persistent --config is not global: %v", c.GlobalFlags)
	}
	for path, full := range m.Commands {
		if !full.Runnable {
			continue
		}
		cmd := c.Commands[path]
		for name, f := range full.Flags {
			got, where := resolveFlag(c, path, name)
			if where == "" {
				t.Errorf("%s --%s: not in the compact manifest", path, name)
				continue
			}
			want := describe.CompactFlag{Type: f.Type, Required: f.Required, EnumValues: f.EnumValues, Short: f.Short, Description: f.Description, Default: f.Default}
			if f.Default == false || f.Default == 0 || f.Default == "" {
				want.Default = nil
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s --%s (from %s) (-full +compact):\n%s", path, name, where, diff)
			}
		}
		for code, e := range full.ExitCodes {
			key := strconv.Itoa(int(code))
			line, ok := cmd.ExitCodes[key]
			for p := parent(path); !ok && p != ""; p = parent(p) {
				line, ok = c.Commands[p].ExitCodes[key]
			}
			if !ok && full.DangerLevel == schema.Safe {
				line, ok = c.SafeExitCodes[key]
			}
			if !ok {
				line, ok = c.ExitCodes[key]
			}
			if !ok || !strings.HasPrefix(line, e.Name+": "+e.Description) {
				t.Errorf("%s exit %s: compact says %q, full %s: %s", path, key, line, e.Name, e.Description)
			}
		}
		if want := full.OutputSchema.Shape(); c.OutputOf(path) != want {
			t.Errorf("%s output %q, want %q", path, c.OutputOf(path), want)
		}
	}
	// The leaves of a group share their flags: said once, on the group.
	if g := c.Commands["group01"]; g.Flags["name"].Type != "string" || !g.Flags["name"].Required {
		t.Errorf("group01's flags %v, want its leaves' --name", g.Flags)
	}
	if _, ok := c.Commands["group01.leaf02"].Flags["name"]; ok {
		t.Errorf("group01.leaf02 lists --name, which its group says")
	}
}

// resolveFlag finds a flag as an agent reading the compact manifest would.
func resolveFlag(c describe.Compact, path, name string) (describe.CompactFlag, string) {
	if f, ok := c.Commands[path].Flags[name]; ok {
		return f, path
	}
	for p := parent(path); p != ""; p = parent(p) {
		if f, ok := c.Commands[p].Flags[name]; ok {
			return f, p
		}
	}
	if f, ok := c.GlobalFlags[name]; ok {
		return f, "global_flags"
	}
	return describe.CompactFlag{}, ""
}

func parent(path string) string {
	i := strings.LastIndex(path, ".")
	if i < 0 {
		return ""
	}
	return path[:i]
}

// TestCompactSmaller holds the compact manifest of a generated tree to at
// most a third of the full one's bytes.
func TestCompactSmaller(t *testing.T) {
	m := manifest(t, generatedTree(t, 5, 10))
	full, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	compact, err := json.Marshal(m.Compact())
	if err != nil {
		t.Fatal(err)
	}
	if 3*len(compact) > len(full) {
		t.Errorf("compact %d bytes, full %d: want at most a third", len(compact), len(full))
	}
}

func ExampleManifest_Compact() {
	root := &schema.Command{Name: "todo", Usage: "A to-do list", Commands: []*schema.Command{
		{Name: "list", Usage: "List the to-dos", Runnable: true, Meta: schema.Meta{Danger: schema.Safe}},
		{Name: "add", Usage: "Add a to-do", Runnable: true,
			Flags: []schema.Flag{{Name: "priority", Type: schema.String, Usage: "how urgent", Default: "normal", Enum: []string{"low", "normal", "high"}}},
			Args:  []schema.Arg{{Name: "title", Required: true, Usage: "what to do"}},
			Meta: schema.Meta{Danger: schema.Mutating, Output: schema.Of[struct {
				ID   string `json:"id"`
				Done bool   `json:"done"`
			}]()}},
	}}
	m, err := describe.New(root, "1.0.0", true)
	if err != nil {
		fmt.Println(err)
		return
	}
	add, _ := json.MarshalIndent(m.Compact().Commands["add"], "", "  ")
	fmt.Println(string(add))
	// Output:
	// {
	//   "description": "Add a to-do",
	//   "danger_level": "mutating",
	//   "arguments": [
	//     {
	//       "name": "title",
	//       "required": true,
	//       "description": "what to do"
	//     }
	//   ],
	//   "flags": {
	//     "priority": {
	//       "type": "enum",
	//       "default": "normal",
	//       "enum_values": [
	//         "low",
	//         "normal",
	//         "high"
	//       ],
	//       "description": "how urgent"
	//     }
	//   },
	//   "output": "{done:boolean,id:string}"
	// }
}

// TestCompactOnly keeps the commands asked for, the groups above them, and
// what every command shares; a key the tree lacks is refused by name.
func TestCompactOnly(t *testing.T) {
	m := manifest(t, generatedTree(t, 3, 4))
	c := m.Compact()
	only, err := c.Only("group01.leaf02", "group02.leaf00")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range only.Commands {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"group01", "group01.leaf02", "group02", "group02.leaf00"}; !slices.Equal(keys, want) {
		t.Errorf("commands %v, want %v", keys, want)
	}
	if len(only.GlobalFlags) != len(c.GlobalFlags) || len(only.ExitCodes) != len(c.ExitCodes) {
		t.Errorf("the shared parts are not all kept")
	}
	// A shape written at a command left out is written where it is kept.
	if got, want := only.Commands["group02.leaf00"].Output, m.Commands["group02.leaf00"].OutputSchema.Shape(); got != want {
		t.Errorf("group02.leaf00's output %q, want its shape written out, %q", got, want)
	}
	if _, err := c.Only("group01.leaf99"); err == nil || !strings.Contains(err.Error(), `"group01.leaf99"`) {
		t.Errorf("Only of a missing key: %v, want an error naming it", err)
	}

	// The full manifest keeps the same commands, encoded anew, with the
	// tree's etag.
	full, err := m.Only("group01.leaf02", "group02.leaf00")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	var decoded struct {
		Etag     string
		Commands map[string]json.RawMessage
	}
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatal(err)
	}
	var fullKeys []string
	for k := range decoded.Commands {
		fullKeys = append(fullKeys, k)
	}
	slices.Sort(fullKeys)
	if !slices.Equal(fullKeys, keys) || decoded.Etag != m.Etag {
		t.Errorf("full Only: commands %v, etag %s; want %v and the tree's %s", fullKeys, decoded.Etag, keys, m.Etag)
	}
}

// TestSpecManifest: the spec's manifest (ManifestResponse 3.x) lists the
// global options once, in its root flags — --format with every format,
// toon among them when the app has the feature, its variable and the media
// types the spec's table lacks — and each command's own flags, positionals
// and --output in its entry.
func TestSpecManifest(t *testing.T) {
	core := manifest(t, generatedTree(t, 1, 2)).Spec().Flags["format"]
	if slices.Contains(core.EnumValues, "toon") || core.MediaTypes["toon"] != "" {
		t.Errorf("the core's --format names toon: %v, %v", core.EnumValues, core.MediaTypes)
	}
	spec := manifest(t, generatedTree(t, 1, 2, adapters.WithFeatures(toon.New()))).Spec()
	if spec.SchemaVersion != describe.SpecVersion {
		t.Errorf("schema_version %q, want %q", spec.SchemaVersion, describe.SpecVersion)
	}
	format := spec.Flags["format"]
	want := describe.SpecFlag{Type: "enum", EnumValues: []string{"json", "jsonl", "toon", "tsv", "text", "id", "plain"},
		EnvVars: []describe.SpecEnvVar{{Name: "GEN_FORMAT"}}, MediaTypes: map[string]string{"text": "text/plain", "toon": "text/toon"}}
	if diff := cmp.Diff(want, format, cmpopts.IgnoreFields(describe.SpecFlag{}, "Description")); diff != "" {
		t.Errorf("root flag format (-want +got):\n%s", diff)
	}
	if _, ok := spec.Flags["config"]; !ok {
		t.Errorf("the app's persistent --config is not among the root flags %v", slices.Sorted(maps.Keys(spec.Flags)))
	}
	leaf, group := spec.Commands["group00.leaf00"], spec.Commands["group00"]
	for name := range leaf.Flags {
		if _, global := spec.Flags[name]; global {
			t.Errorf("group00.leaf00 lists the global option --%s among its own flags", name)
		}
	}
	if _, ok := leaf.Flags["name"]; !ok {
		t.Errorf("group00.leaf00's own --name is not among its flags")
	}
	if diff := cmp.Diff([]describe.SpecPositional{{Name: "id", Type: "string", Required: true, Description: "the record's id"}}, leaf.Positionals); diff != "" {
		t.Errorf("group00.leaf00's positionals (-want +got):\n%s", diff)
	}
	if leaf.OutputFile != "formatted" || group.OutputFile != "" {
		t.Errorf("output_file: leaf %q, group %q; want formatted on the runnable leaf alone", leaf.OutputFile, group.OutputFile)
	}
	if leaf.RequiredScopes == nil {
		t.Error("required_scopes is null; the spec requires a list, empty without auth")
	}
}

// BenchmarkCompact1000 makes the compact form of a 1,000-command tree's
// manifest, as describe does after building the manifest.
func BenchmarkCompact1000(b *testing.B) {
	m := manifest(b, generatedTree(b, 20, 50))
	b.ReportAllocs()
	for b.Loop() {
		m.Compact()
	}
}
