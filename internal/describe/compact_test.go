package describe_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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

// TestSpecOutputFormats lists the formats --output takes, toon among them,
// in each runnable command's entry of the spec's manifest.
func TestSpecOutputFormats(t *testing.T) {
	spec := manifest(t, generatedTree(t, 1, 2)).Spec()
	leaf, group := spec.Commands["group00.leaf00"], spec.Commands["group00"]
	if !slices.Contains(leaf.OutputFormats, "toon") || !slices.Contains(leaf.OutputFormats, "json") {
		t.Errorf("group00.leaf00's output_formats %v, want toon and json among them", leaf.OutputFormats)
	}
	if group.OutputFormats != nil {
		t.Errorf("the group group00 lists output formats %v: it answers with its help", group.OutputFormats)
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
