package describe_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/internal/describe"
	"github.com/duet-cli/duet/schema"
)

// TestSkillsOnlyForAgents: Skills writes a skill for each command an agent
// may run, and none for a runnable root that is an interactive shell (a
// REPL) or a command for a person only, both of which are refused to an
// agent; the context lists the same commands.
func TestSkillsOnlyForAgents(t *testing.T) {
	root := &schema.Command{Name: "tool", Usage: "A tool", Runnable: true,
		Meta: schema.Meta{Danger: schema.Safe, Interactive: true}}
	for _, c := range []*schema.Command{
		{Name: "show", Usage: "Show", Runnable: true, Meta: schema.Meta{Danger: schema.Safe}},
		{Name: "approve", Usage: "Approve", Runnable: true, Meta: schema.Meta{Danger: schema.Mutating, RequiresPerson: true}},
		{Name: "shell", Usage: "A shell", Runnable: true, Meta: schema.Meta{Danger: schema.Safe, Interactive: true}},
		{Name: "sync", Usage: "Sync", Runnable: true, Meta: schema.Meta{Danger: schema.Mutating}},
	} {
		root.Commands = append(root.Commands, c)
	}
	if err := adapters.Prepare(root); err != nil {
		t.Fatal(err)
	}
	files, err := describe.Skills(root, manifest(t, root), "markdown")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
	}
	slices.Sort(names)
	if diff := cmp.Diff([]string{"CONTEXT.md", "SKILL-tool-show.md", "SKILL-tool-sync.md"}, names); diff != "" {
		t.Errorf("skill files (-want +got):\n%s", diff)
	}
}
