package adapters

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/schema"
)

// delegateTree is a root with a persistent value flag, a declared command,
// and passthrough commands at two depths, one with a help argv.
func delegateTree() *schema.Command {
	root := &schema.Command{Name: "tool", Flags: []schema.Flag{
		{Name: "format", Type: schema.String, Persistent: true},
		{Name: "quiet", Type: schema.Boolean, Persistent: true},
	}}
	ingest := &schema.Command{Name: "ingest", Runnable: true, Meta: schema.Meta{Arguments: schema.PassthroughArguments, HelpArgv: []string{"extract", "--help"}}}
	lint := &schema.Command{Name: "lint", Runnable: true, Meta: schema.Meta{Arguments: schema.PassthroughArguments}}
	tools := &schema.Command{Name: "tools", Commands: []*schema.Command{lint}}
	list := &schema.Command{Name: "list", Runnable: true}
	root.Commands = []*schema.Command{ingest, tools, list}
	for _, c := range root.Commands {
		c.Parent = root
	}
	lint.Parent = tools
	return root
}

func TestDelegatedLine(t *testing.T) {
	tests := []struct {
		args       []string
		head, rest []string
		ok         bool
	}{
		{[]string{"ingest", "a", "--format", "json"}, []string{"ingest"}, []string{"a", "--format", "json"}, true},
		{[]string{"--format", "json", "--quiet", "ingest", "--", "-x"}, []string{"--format", "json", "--quiet", "ingest"}, []string{"--", "-x"}, true},
		// a flag's value that names the command is a value, not the path
		{[]string{"--format", "ingest", "ingest", "x"}, []string{"--format", "ingest", "ingest"}, []string{"x"}, true},
		{[]string{"--format=json", "tools", "lint", "--help"}, []string{"--format=json", "tools", "lint"}, []string{"--help"}, true},
		{[]string{"ingest", "--help"}, []string{"ingest"}, []string{"extract", "--help"}, true},
		{[]string{"ingest", "-h"}, []string{"ingest"}, []string{"extract", "--help"}, true},
		{[]string{"ingest", "--help", "x"}, []string{"ingest"}, []string{"--help", "x"}, true},
		{[]string{"ingest"}, []string{"ingest"}, []string{}, true},
		{[]string{"list", "ingest"}, []string{"list", "ingest"}, nil, false},
		{[]string{"--", "ingest", "x"}, []string{"--", "ingest", "x"}, nil, false},
		{[]string{"nope", "ingest"}, []string{"nope", "ingest"}, nil, false},
	}
	root := delegateTree()
	for _, tt := range tests {
		head, rest, ok := delegatedLine(root, tt.args)
		if diff := cmp.Diff([]any{tt.head, tt.rest, tt.ok}, []any{head, rest, ok}); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.args, diff)
		}
	}
}

func TestCheckDelegation(t *testing.T) {
	pass := schema.PassthroughArguments
	tests := []struct {
		name string
		c    schema.Command
		errs []string // each in one error
	}{
		{"sound", schema.Command{Meta: schema.Meta{Danger: schema.Mutating, Arguments: pass, HelpArgv: []string{"x", "--help"}}}, nil},
		{"declared", schema.Command{Flags: []schema.Flag{{Name: "v"}}, Meta: schema.Meta{Danger: schema.Destructive}}, nil},
		{"own flag", schema.Command{Flags: []schema.Flag{{Name: "timeout", Builtin: true}, {Name: "importer"}}, Meta: schema.Meta{Danger: schema.Safe, Arguments: pass}},
			[]string{"--importer is one"}},
		{"positional", schema.Command{Args: []schema.Arg{{Name: "file"}}, Meta: schema.Meta{Danger: schema.Safe, Arguments: pass}},
			[]string{"no positional arguments"}},
		{"placement any", schema.Command{Meta: schema.Meta{Danger: schema.Safe, Arguments: pass, OptionPlacement: schema.Any}},
			[]string{`option placement "any" must be strict`}},
		{"destructive", schema.Command{Meta: schema.Meta{Danger: schema.Destructive, Arguments: pass}}, []string{"not destructive"}},
		{"undeclared danger", schema.Command{Runnable: true, Meta: schema.Meta{Arguments: pass}}, []string{"not unknown"}},
		{"dry run", schema.Command{Meta: schema.Meta{Danger: schema.Mutating, Arguments: pass, DryRun: true}}, []string{"cannot implement --dry-run"}},
		{"protocol", schema.Command{Meta: schema.Meta{Danger: schema.Safe, Arguments: pass, Protocol: "mcp"}}, []string{"drop Meta.Protocol"}},
		{"stdin", schema.Command{Meta: schema.Meta{Danger: schema.Safe, Arguments: pass, Stdin: "lines"}}, []string{"drop Meta.Stdin"}},
		{"help argv alone", schema.Command{Meta: schema.Meta{Danger: schema.Safe, HelpArgv: []string{"--help"}}}, []string{"declare Meta.Arguments passthrough"}},
		{"unknown mode", schema.Command{Meta: schema.Meta{Danger: schema.Safe, Arguments: "raw"}}, []string{`Meta.Arguments "raw"`}},
	}
	for _, tt := range tests {
		errs := checkDelegation(&tt.c)
		if len(errs) != len(tt.errs) {
			t.Errorf("%s: %d errors %v, want %d", tt.name, len(errs), errs, len(tt.errs))
			continue
		}
		for i, want := range tt.errs {
			if !strings.Contains(errs[i].Error(), want) {
				t.Errorf("%s: error %q does not say %q", tt.name, errs[i], want)
			}
		}
	}
}
