package commands

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/duet-cli/duet/examples/meridian/internal/doctor"
	"github.com/duet-cli/duet/examples/meridian/internal/space"
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

// renderSpace tells a person about a space and its chats, each with the
// command that continues it, to paste.
func renderSpace(w io.Writer, d space.Detail) error {
	var b strings.Builder
	name := ""
	if d.Name != nil && *d.Name != "" {
		name = fmt.Sprintf(" %q", *d.Name)
	}
	fmt.Fprintf(&b, "Space %s%s: %s since %s\n", d.ID, name, d.Status, d.StartedAt)
	fmt.Fprintf(&b, "Files: %s\n", d.FS)
	runs := []string{}
	for _, status := range slices.Sorted(maps.Keys(d.Runs)) {
		runs = append(runs, fmt.Sprintf("%d %s", d.Runs[status], status))
	}
	if len(runs) == 0 {
		runs = append(runs, "none")
	}
	fmt.Fprintf(&b, "Runs: %s\n", strings.Join(runs, ", "))
	if len(d.Chats) == 0 {
		b.WriteString("No chats yet: meridian start --space " + d.ID + "\n")
	} else {
		b.WriteString("\nChats:\n")
	}
	for _, c := range d.Chats {
		state := "ended " + c.StoppedAt
		switch {
		case c.Alive:
			state = "running"
		case c.StoppedAt == "":
			state = "gone (its process died)"
		}
		fmt.Fprintf(&b, "  %-4s %-9s %-22s %s\n       %s\n", c.ID, c.Harness, c.Model, state, c.Continue)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
