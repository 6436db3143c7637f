package adapters

import (
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// editorAlternatives are the flags a command declares in place of an
// editor (schema.Meta.Alternatives), with their descriptions, for the
// alternatives[] of an EDITOR_REQUIRED error (the CLI Agent Spec's F-055).
func editorAlternatives(n *schema.Command) []envelope.Alternative {
	if !n.Meta.Editor {
		return nil
	}
	alts := make([]envelope.Alternative, 0, len(n.Meta.Alternatives))
	for _, name := range n.Meta.Alternatives {
		a := envelope.Alternative{Flag: "--" + name}
		if f := n.Flag(name); f != nil {
			a.Description = f.Usage
		}
		alts = append(alts, a)
	}
	return alts
}
