package describe_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/internal/describe"
	"github.com/duet-cli/duet/schema"
)

// benchRecord is the declared output of every generated leaf.
type benchRecord struct {
	ID       string            `json:"id" doc:"stable id"`
	Name     string            `json:"name"`
	Size     int64             `json:"size"`
	Ratio    float64           `json:"ratio"`
	Tags     []string          `json:"tags,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
	Created  time.Time         `json:"created"`
	Archived bool              `json:"archived"`
}

// generatedTree returns a prepared tree of groups×leaves commands under a
// root, each leaf with six flags of its own and a declared output schema,
// prepared with opts.
func generatedTree(tb testing.TB, groups, leaves int, opts ...adapters.Option) *schema.Command {
	tb.Helper()
	output := schema.Of[[]benchRecord]()
	root := &schema.Command{
		Name:  "gen",
		Usage: "A generated tool",
		Flags: []schema.Flag{{Name: "config", Type: schema.String, Usage: "config file", Env: []string{"GEN_CONFIG"}, Persistent: true}},
	}
	for g := range groups {
		group := &schema.Command{Name: fmt.Sprintf("group%02d", g), Usage: fmt.Sprintf("Group %d", g)}
		for l := range leaves {
			danger := []schema.Danger{schema.Safe, schema.Mutating, schema.Destructive}[l%3]
			group.Commands = append(group.Commands, &schema.Command{
				Name:     fmt.Sprintf("leaf%02d", l),
				Usage:    fmt.Sprintf("Leaf %d of group %d", l, g),
				Runnable: true,
				Flags: []schema.Flag{
					{Name: "name", Short: "n", Type: schema.String, Usage: "the name", Required: true},
					{Name: "count", Type: schema.Integer, Usage: "how many", Default: 10},
					{Name: "ratio", Type: schema.Number, Usage: "a ratio", Default: 0.5},
					{Name: "force", Type: schema.Boolean, Usage: "do it anyway", Default: false},
					{Name: "tag", Type: schema.Array, Items: schema.String, Usage: "a tag; repeat for more"},
					{Name: "mode", Type: schema.String, Usage: "fast or safe", Default: "safe"},
				},
				Args: []schema.Arg{{Name: "id", Required: true, Type: schema.String, ID: true, Usage: "the record's id"}},
				Meta: schema.Meta{
					Danger: danger,
					DryRun: danger == schema.Destructive,
					List:   l%2 == 0,
					Output: output,
					Flags:  map[string]schema.FlagMeta{"mode": {Enum: []string{"fast", "safe"}}},
					Examples: []schema.Example{
						{Description: "the usual call", Command: fmt.Sprintf("gen group%02d leaf%02d x1 --name a", g, l)},
					},
				},
			})
		}
		root.Commands = append(root.Commands, group)
	}
	if err := adapters.Prepare(root, opts...); err != nil {
		tb.Fatal(err)
	}
	return root
}

// manifest returns root's manifest for an agent, failing the test on an error.
func manifest(tb testing.TB, root *schema.Command) describe.Manifest {
	tb.Helper()
	m, err := describe.New(root, "1.0", true)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func TestDescribe1000(t *testing.T) {
	root := generatedTree(t, 20, 50)
	m := manifest(t, root)
	if len(m.Commands) < 1000 {
		t.Fatalf("manifest has %d commands, want at least 1000", len(m.Commands))
	}
	if _, ok := m.Commands["group07.leaf33"]; !ok {
		t.Errorf("manifest lacks group07.leaf33")
	}
	again := manifest(t, generatedTree(t, 20, 50))
	if m.Etag == "" || again.Etag != m.Etag {
		t.Errorf("etag differs between two builds of the same tree: %q, %q", m.Etag, again.Etag)
	}
	if again := manifest(t, root); again.Etag != m.Etag {
		t.Errorf("etag differs between two manifests of one tree: %q, %q", m.Etag, again.Etag)
	}
}

// BenchmarkDescribe1000 builds the manifest of a 1,000-command tree, etag
// included. Target: at most 20 ms/op.
func BenchmarkDescribe1000(b *testing.B) {
	root := generatedTree(b, 20, 50)
	b.ReportAllocs()
	for b.Loop() {
		manifest(b, root)
	}
}

// TestDescribeBrokenOutput checks that a declared output schema that cannot
// be built fails the manifest, naming each command that declares it.
func TestDescribeBrokenOutput(t *testing.T) {
	root := generatedTree(t, 1, 2)
	broken := schema.Of[map[string]chan int]()
	for _, leaf := range root.Sub("group00").Commands {
		leaf.Meta.Output = broken
	}
	m, err := describe.New(root, "1.0", true)
	if err == nil {
		t.Fatalf("New succeeded with %d commands, want an error", len(m.Commands))
	}
	for _, want := range []string{`"group00.leaf00": output schema`, `"group00.leaf01": output schema`, "cannot encode chan int"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}
