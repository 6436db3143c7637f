package adapters

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/schema"
)

// TestForward checks the command line the framework is given: everything but
// Duet's built-in flags and their values, in order.
func TestForward(t *testing.T) {
	list := &schema.Command{
		Name: "list", Runnable: true,
		Flags: []schema.Flag{
			{Name: "status", Type: schema.String},
			{Name: "all", Short: "a", Type: schema.Boolean},
			{Name: "long", Short: "l", Type: schema.Boolean},
			{Name: "verbose", Type: schema.Boolean}, // the app's own: adopted, not a built-in
		},
		Meta: schema.Meta{Danger: schema.Safe, List: true},
	}
	complete := &schema.Command{Name: "__complete", Hidden: true, Runnable: true, Passthrough: true, Meta: schema.Meta{Danger: schema.Safe}}
	root := &schema.Command{Name: "tool", Commands: []*schema.Command{list, complete}}
	if err := Prepare(root); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"list"}, []string{"list"}},
		{[]string{"--output", "json", "list", "--limit", "3"}, []string{"list"}},
		{[]string{"list", "--status=done", "--timeout=5s", "-al", "--verbose"}, []string{"list", "--status=done", "-al", "--verbose"}},
		{[]string{"list", "--fields", "id,title", "x", "--", "--limit", "2"}, []string{"list", "x", "--", "--limit", "2"}},
		{[]string{"list", "--status", "--cursor"}, []string{"list", "--status", "--cursor"}}, // a value that looks like a flag
		{[]string{"list", "--bogus", "--help"}, []string{"list", "--bogus", "--help"}},
		{[]string{"describe", "--etag", "abc"}, []string{"describe"}},
		// A pass-through command gets the rest as it came, unread.
		{[]string{"--output", "json", "__complete", "list", "--st", "--output", ""}, []string{"__complete", "list", "--st", "--output", ""}},
	}
	for _, tt := range tests {
		c := parseCall(root, tt.args)
		if diff := cmp.Diff(tt.want, c.forward); diff != "" {
			t.Errorf("forward of %q (-want +got):\n%s", tt.args, diff)
		}
		if c.node.Passthrough && len(c.problems) > 0 {
			t.Errorf("%q: a pass-through command's arguments were validated: %v", tt.args, c.problems)
		}
	}
}
