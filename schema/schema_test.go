package schema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFlagInheritanceAndShadowing(t *testing.T) {
	root := &Command{Name: "tool", Flags: []Flag{
		{Name: "config", Short: "c", Persistent: true, Usage: "root"},
		{Name: "verbose", Persistent: true, Usage: "root"},
		{Name: "local", Usage: "root only"},
	}}
	group := &Command{Name: "group", Parent: root, Flags: []Flag{{Name: "config", Short: "C", Persistent: true, Usage: "group"}}}
	leaf := &Command{Name: "leaf", Parent: group, Flags: []Flag{{Name: "verbose", Aliases: []string{"loud"}, Usage: "leaf"}}}

	var got []string
	for f := range leaf.Accepted() {
		got = append(got, f.Name+"/"+f.Usage)
	}
	if diff := cmp.Diff([]string{"verbose/leaf", "config/group"}, got); diff != "" {
		t.Errorf("leaf.Accepted() (-want +got):\n%s", diff)
	}

	tests := []struct {
		cmd       *Command
		name, who string // who is the Usage of the flag found, "" for none
	}{
		{leaf, "verbose", "leaf"},
		{leaf, "loud", "leaf"},
		{leaf, "config", "group"},
		{leaf, "C", "group"},
		{leaf, "c", ""}, // root's --config is shadowed, and its short with it
		{leaf, "local", ""},
		{leaf, "", ""},
		{group, "verbose", "root"},
		{group, "c", ""},
		{root, "local", "root only"},
		{root, "c", "root"},
	}
	for _, tt := range tests {
		f := tt.cmd.Flag(tt.name)
		who := ""
		if f != nil {
			who = f.Usage
		}
		if who != tt.who {
			t.Errorf("%s.Flag(%q) found %q, want %q", tt.cmd.Name, tt.name, who, tt.who)
		}
	}
}
