package schema

import "github.com/duet-cli/duet/internal/jsonw"

// Interactive reports whether the command may ask a person for input: it
// prompts, needs confirmation (a person's own, too), opens an editor, or
// is interactive itself.
func (c *Command) Interactive() bool {
	return c.Meta.Interactive || c.Meta.Prompts || c.Meta.Editor || c.NeedsConfirmation() || c.Meta.RequiresPerson
}

// observeDoc adds what the command declares about asking a person, showing
// things on a display and masking secrets.
func (c *Command) observeDoc(d *Doc) {
	m := &c.Meta
	d.Interactive = c.Runnable && c.Interactive()
	d.RequiresPerson = c.Runnable && m.RequiresPerson
	d.RequiresEditor = m.Editor
	d.NonInteractiveAlternatives = m.Alternatives
	d.GUIOperations = m.GUI
	d.HeadlessBehavior = m.Headless
	d.HighEntropyFields = m.HighEntropy
}

// appendObserved appends the members observeDoc fills.
func (d Doc) appendObserved(b []byte) []byte {
	if d.Interactive {
		b = append(b, `,"interactive":true`...)
	}
	if d.RequiresPerson {
		b = append(b, `,"requires_person":true`...)
	}
	if d.RequiresEditor {
		b = append(b, `,"requires_editor":true`...)
	}
	b = optStrings(b, "non_interactive_alternatives", d.NonInteractiveAlternatives)
	b = optStrings(b, "gui_operations", d.GUIOperations)
	if d.HeadlessBehavior != "" {
		b = append(b, `,"headless_behavior":`...)
		b = jsonw.String(b, string(d.HeadlessBehavior))
	}
	return optStrings(b, "high_entropy_fields", d.HighEntropyFields)
}

func optStrings(b []byte, name string, v []string) []byte {
	if len(v) == 0 {
		return b
	}
	return jsonw.Strings(jsonw.Key(b, name), v)
}
