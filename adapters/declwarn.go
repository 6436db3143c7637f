package adapters

import (
	"fmt"
	"slices"
	"strings"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// Registration warnings: declarations Wrap accepts — adopting Duet never
// fails an app that works — but that leave an agent worse off. Duet finds
// them in the tree it registered, whether or not the app's tests call
// adaptertest.Warnings, and `tool doctor` reports them, for the tool's
// authors, as warnings (doctor still passes: the tool works):
//
//   - ID_WITHOUT_PATTERN (the CLI Agent Spec's REQ-C-020): a resource id —
//     a flag or argument marked ID, or named id, something-id or
//     something_id — with neither a pattern nor an enum, so a made-up or
//     malformed id reaches the command unchecked;
//   - VOLATILE_DATA (REQ-F-021): an output field the command declares that
//     is named for the time of the call (envelope.VolatileNames) and holds
//     a date-time, so two identical calls answer different data;
//   - OPTIONAL_OUTPUT_FIELD (REQ-F-074): an output field the command
//     declares that is not required (omitempty or omitzero in an Of[T]
//     type), so the command's answers have the field or not depending on
//     its value, where an agent tells "unsupported" (absent) from "unset"
//     (null) and "empty" ([] or "") by the key.
//
// Data that holds the time of the call, declared or not, is also found in
// the answer itself, which then carries a VOLATILE_DATA warning for the
// agent (envelope's Settings.CheckVolatile).

// declarationWarning is one registration warning: code, message, next.
type declarationWarning [3]string

// idWarnings are c's own resource ids without a pattern.
func idWarnings(c *schema.Command) []declarationWarning {
	if !c.Declared || c.Builtin || c.Passthrough {
		return nil
	}
	var out []declarationWarning
	next := "declare a Pattern (schema.AlphanumericID, schema.UUID ...) or an Enum for it"
	for _, f := range c.Flags {
		if !f.Builtin && f.Pattern == "" && len(f.Enum) == 0 && isResourceID(f.Name, f.ID) {
			out = append(out, declarationWarning{"ID_WITHOUT_PATTERN",
				fmt.Sprintf("flag --%s of %q is a resource id with no declared pattern, so a made-up or malformed id reaches the command unchecked", f.Name, c.DotPath()), next})
		}
	}
	for _, a := range c.Args {
		if a.Pattern == "" && len(a.Enum) == 0 && isResourceID(a.Name, a.ID) {
			out = append(out, declarationWarning{"ID_WITHOUT_PATTERN",
				fmt.Sprintf("argument <%s> of %q is a resource id with no declared pattern, so a made-up or malformed id reaches the command unchecked", a.Name, c.DotPath()), next})
		}
	}
	return out
}

// isResourceID reports whether a flag or argument is a resource id: declared
// one, or named like one.
func isResourceID(name string, declared bool) bool {
	return declared || name == "id" || strings.HasSuffix(name, "-id") || strings.HasSuffix(name, "_id")
}

// volatileOutputWarnings are c's declared output fields named for the time
// of the call.
func volatileOutputWarnings(c *schema.Command) []declarationWarning {
	if !c.Declared || c.Builtin || c.Meta.Output == nil {
		return nil
	}
	out, err := c.OutputSchema()
	if err != nil || out == nil {
		return nil // a broken schema is reported where it is used
	}
	var warnings []declarationWarning
	for _, name := range out.Properties() {
		if slices.Contains(envelope.VolatileNames, name) && out.Property(name)["format"] == "date-time" {
			warnings = append(warnings, declarationWarning{envelope.VolatileData,
				fmt.Sprintf("output field %q of %q is the time of the call, so two identical calls answer different data", name, c.DotPath()),
				"leave it out of data: meta.timestamp is the time of the call"})
		}
	}
	return warnings
}

// optionalOutputWarnings are c's declared output fields that come and go
// with their values. Those of the objects c's data is (or lists) are held
// to it; nested objects are the author's own shapes.
func optionalOutputWarnings(c *schema.Command) []declarationWarning {
	if !c.Declared || c.Builtin || c.Meta.Output == nil {
		return nil
	}
	out, err := c.OutputSchema()
	if err != nil || out == nil {
		return nil
	}
	required := map[string]bool{}
	for _, r := range out.Required() {
		required[r] = true
	}
	var warnings []declarationWarning
	for _, name := range out.Properties() {
		if !required[name] {
			warnings = append(warnings, declarationWarning{"OPTIONAL_OUTPUT_FIELD",
				fmt.Sprintf("output field %q of %q is left out when it is empty or unset, so the same command answers with different keys", name, c.DotPath()),
				"drop omitempty: Duet writes an empty list [] and map {}, and a nil pointer null for an unset value"})
		}
	}
	return warnings
}

// declarationWarnings are the registration warnings of every command of the
// tree, in its order.
func declarationWarnings(root *schema.Command) []declarationWarning {
	var all []declarationWarning
	root.Walk(func(c *schema.Command) {
		all = append(all, idWarnings(c)...)
		all = append(all, volatileOutputWarnings(c)...)
		all = append(all, optionalOutputWarnings(c)...)
	})
	return all
}
