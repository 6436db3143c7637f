package adapters

import (
	"slices"
	"strings"

	"github.com/duet-cli/duet/schema"
)

// hoisted returns args with the options given before a ported command's
// name that belong to that command moved to just after it, so that
// `tool --limit 5 list` means what `tool list --limit 5` does (F-067). urfave
// and cobra read a command's own flags only after its name and refuse them
// before it; an agent cannot be expected to know which flags are whose.
// Options the parent accepts (--output, persistent flags) stay where they
// are, and a command nobody ported is parsed exactly as its framework does.
func hoisted(root *schema.Command, args []string) []string {
	node, at := root, -1 // the command named, and where its name is
	for i, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		if s := node.Sub(a); s != nil {
			node, at = s, i
		}
	}
	if at < 0 || !node.Declared {
		return args
	}
	var kept, moved []string
	for i := 0; i < at; i++ {
		a := args[i]
		name, _, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := node.Flag(name)
		if !strings.HasPrefix(a, "-") || a == "-" || f == nil || node.Parent.Flag(name) != nil || ownerOf(node, name) != node {
			kept = append(kept, a)
			continue
		}
		moved = append(moved, a)
		if f.TakesValue() && !inline && i+1 < at {
			i++
			moved = append(moved, args[i])
		}
	}
	if len(moved) == 0 {
		return args
	}
	out := make([]string, 0, len(args))
	out = append(out, kept...)
	out = append(out, args[at])
	out = append(out, moved...)
	return append(out, args[at+1:]...)
}

// ownerOf is the command that defines the flag n accepts by name: n itself,
// or the ancestor whose persistent flag it is.
func ownerOf(n *schema.Command, name string) *schema.Command {
	for c := n; c != nil; c = c.Parent {
		for i := range c.Flags {
			f := &c.Flags[i]
			if f.Name == name || f.Short == name || slices.Contains(f.Aliases, name) {
				return c
			}
		}
	}
	return nil
}
