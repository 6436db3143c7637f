package commands

import (
	"fmt"
	"io"
	"strings"

	"github.com/duet-cli/duet/examples/meridian/internal/doctor"
)

// renderDoctor tells a person what doctor found, repaired and could not.
func renderDoctor(w io.Writer, r doctor.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Checked %d space(s), %d run(s) in %s\n", r.SpacesChecked, r.RunsChecked, r.Root)
	if len(r.Repaired) == 0 {
		b.WriteString("Nothing to repair.\n")
	}
	for _, x := range r.Repaired {
		id := x.Space
		if x.ID != "" {
			id += "/" + x.ID
		}
		fmt.Fprintf(&b, "repaired %-18s %-8s %s\n", x.Kind, id, x.Detail)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "problem  %-18s %s\n", p.Kind, p.Message)
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "skipped  %s\n", s)
	}
	b.WriteString("\nHarnesses:\n")
	for _, h := range r.Harnesses {
		if h.Installed {
			fmt.Fprintf(&b, "  %-9s %s\n", h.Name, h.Path)
		} else {
			fmt.Fprintf(&b, "  %-9s not installed (%s)\n", h.Name, h.Install)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
