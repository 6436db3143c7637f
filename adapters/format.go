package adapters

import (
	"fmt"
	"slices"
	"strings"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/flagname"
)

// readFormat is the --format the command line gives. Under
// WithLegacyOutput a format's name given to --output counts as --format,
// with a warning; otherwise --output is always a path (see checkOutputPath).
func (inv *invocation) readFormat() string {
	c := inv.call
	format, _ := c.opt(flagname.Format)
	if given := c.values[flagname.Format]; slices.ContainsFunc(given, func(v string) bool { return v != given[0] }) {
		// Refused (CONFLICTING_VALUES): the refusal is answered in the
		// default format, not in whichever value the parser kept last.
		format = ""
	}
	if !inv.cfg.legacyOutput || format != "" {
		return format
	}
	if v, _ := c.opt(flagname.Output); slices.Contains(envelope.FormatNames(inv.cfg.featured.formats...), v) {
		inv.legacyFormat = v
		inv.warn("DEPRECATED", fmt.Sprintf("--output %s picks the format only for compatibility: --output names a file to write", v),
			"use --format "+v)
		return v
	}
	if name := envelope.EnvName(inv.root.Name, "OUTPUT"); inv.cfg.getenv(name) != "" && inv.cfg.getenv(envelope.EnvName(inv.root.Name, "FORMAT")) == "" {
		inv.warn("DEPRECATED", name+" picks the format only for compatibility", "set "+envelope.EnvName(inv.root.Name, "FORMAT")+" instead")
	}
	return ""
}

// outputPath is the file --output names, or "".
func (inv *invocation) outputPath() string {
	v, _ := inv.call.opt(flagname.Output)
	if v == inv.legacyFormat {
		return ""
	}
	return v
}

// checkOutputPath refuses an --output that would write a file named after
// a format (an agent's --output json meant --format json) or stdout, which
// carries the envelope (CLI Agent Spec §78, REQ-O-001).
func (inv *invocation) checkOutputPath() []envelope.FieldError {
	v := inv.outputPath()
	formats := envelope.FormatNames(inv.cfg.featured.formats...) // the tool's
	switch {
	case slices.Contains(formats, v):
		return []envelope.FieldError{{Code: "OUTPUT_IS_A_PATH", Field: flagname.Output,
			Message:    fmt.Sprintf("--output takes the path of a file to write the answer to, and %q is a format's name", v),
			Suggestion: "use --format " + v + " to choose the format; add --output <path> only to write the answer to a file"}}
	case isOtherFormat(strings.ToLower(v)) || isFormatName(v): // a format, but not this tool's (toon without its feature)
		return []envelope.FieldError{{Code: "OUTPUT_IS_A_PATH", Field: flagname.Output, ValidValues: formats,
			Message:    fmt.Sprintf("--output takes the path of a file to write the answer to, and %q is a format's name", v),
			Suggestion: "choose the format with --format, one of " + strings.Join(formats, ", ") + "; add --output <path> only to write the answer to a file"}}
	case v == "-":
		return []envelope.FieldError{{Code: "OUTPUT_IS_A_PATH", Field: flagname.Output,
			Message:    "--output takes the path of a file to write the answer to; stdout carries the envelope",
			Suggestion: "leave --output out to answer on stdout"}}
	}
	return nil
}

// isOtherFormat reports whether v is one of the formats other CLIs take
// after --output or -o (kubectl, aws, az, gh): given to a path flag they
// would make a stray file of that name (CLI Agent Spec §78), so they are
// refused too. A switch, not a package map, which every start would build
// (TestStartCostInit).
func isOtherFormat(v string) bool {
	switch v {
	case "yaml", "yml", "csv", "table", "wide", "name", "xml", "html", "markdown", "md", "raw", "pretty":
		return true
	}
	return false
}

// isFormatName reports whether v names a format Duet has, a feature's
// too: given to --output, any would make a stray file of that name.
func isFormatName(v string) bool {
	return slices.Contains(envelope.FormatNames(envelope.TOON), v)
}
