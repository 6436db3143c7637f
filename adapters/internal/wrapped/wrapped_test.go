package wrapped_test

import (
	"testing"

	"github.com/duet-cli/duet/adapters/internal/wrapped"
	"github.com/duet-cli/duet/schema"
)

type cmd struct {
	declared bool
	subs     []*cmd
}

func TestDeclared(t *testing.T) {
	declared := func(c *cmd) bool { return c.declared }
	subs := func(c *cmd) []*cmd { return c.subs }
	for name, tc := range map[string]struct {
		root *cmd
		want bool
	}{
		"none":        {&cmd{subs: []*cmd{{}, {subs: []*cmd{{}}}}}, false},
		"the root":    {&cmd{declared: true}, true},
		"deep within": {&cmd{subs: []*cmd{{}, {subs: []*cmd{{declared: true}}}}}, true},
	} {
		if got := wrapped.Declared(tc.root, declared, subs); got != tc.want {
			t.Errorf("%s: Declared = %v, want %v", name, got, tc.want)
		}
	}
}

// TestTreeOnce: the tree is built, checked and installed once; a broken
// declaration is reported by every call.
func TestTreeOnce(t *testing.T) {
	var tr wrapped.Tree
	builds, installs := 0, 0
	build := func() *schema.Command {
		builds++
		return &schema.Command{Name: "app", Commands: []*schema.Command{{
			Name: "x", Runnable: true, Declared: true, Meta: schema.Meta{Danger: "perilous"},
		}}}
	}
	install := func(*schema.Command) { installs++ }
	for range 3 {
		if err := tr.Prepare(build, nil, install); err == nil {
			t.Error("Prepare accepted a danger that is not safe, mutating or destructive")
		}
	}
	if builds != 1 || installs != 1 {
		t.Errorf("built %d times, installed %d times; want once each", builds, installs)
	}
}
