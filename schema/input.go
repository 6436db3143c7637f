package schema

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/duet-cli/duet/internal/jsonw"
)

// FormatJSON is the Format of a flag whose value is a JSON document
// (FlagMeta.JSON), handed to the command as strict JSON (JSON5 is read too
// in an app with feature/json5).
const FormatJSON = "json"

// DefaultMaxStdinBytes is how much a command that reads stdin (Meta.Stdin)
// may be given there: 64 KiB, the pipe buffer of Linux, beyond which a
// caller that writes all of stdin before reading stdout can deadlock. A
// larger payload goes through --input-file.
const DefaultMaxStdinBytes = 64 << 10

// DefaultMaxLineBytes is the longest line a line-mode command (Meta.StdinLines)
// is given unless it declares another cap (Meta.MaxLineBytes): 1 MiB.
const DefaultMaxLineBytes = 1 << 20

// The modes of StdinInput: how a command reads stdin.
const (
	StdinBuffered = "buffered" // read whole before the command runs, within MaxBytes
	StdinLines    = "lines"    // read a line at a time as the command reads, each within MaxLineBytes
	StdinRecords  = "records"  // lines that are another command's jsonl stream, each item a record of RecordSchema
)

// StdinInput is how --schema describes a command's stdin payload.
type StdinInput struct {
	Description  string `json:"description"`
	Mode         string `json:"mode"`                     // StdinBuffered or StdinLines
	MaxBytes     int    `json:"max_bytes,omitempty"`      // buffered: the default cap; <TOOL>_MAX_STDIN_BYTES changes it
	MaxLineBytes int    `json:"max_line_bytes,omitempty"` // lines: the cap of one line
	OverflowFlag string `json:"overflow_flag"`            // the flag for a larger payload, or a file
	RecordSchema Schema `json:"record_schema,omitempty"`  // records: the schema of one record
}

// Stdin describes how the command reads stdin, or nil when it reads no
// payload there.
func (c *Command) Stdin() *StdinInput {
	switch {
	case c.Meta.Stdin == "":
		return nil
	case c.Meta.Records != nil:
		return &StdinInput{Description: c.Meta.Stdin, Mode: StdinRecords, MaxLineBytes: cmp.Or(c.Meta.MaxLineBytes, DefaultMaxLineBytes), OverflowFlag: "--input-file", RecordSchema: c.Meta.Records}
	case c.Meta.StdinLines:
		return &StdinInput{Description: c.Meta.Stdin, Mode: StdinLines, MaxLineBytes: cmp.Or(c.Meta.MaxLineBytes, DefaultMaxLineBytes), OverflowFlag: "--input-file"}
	default:
		return &StdinInput{Description: c.Meta.Stdin, Mode: StdinBuffered, MaxBytes: DefaultMaxStdinBytes, OverflowFlag: "--input-file"}
	}
}

// Rule is a conditional dependency between a command's flags, in one of
// the five shapes of the CLI Agent Spec's ConditionalRule (its C-026):
//
//   - when IfFlag has the value IfValue — or, with IfValue empty, when it is
//     given at all — the flags of ThenRequired are required and those of
//     Prohibited are refused;
//   - with TargetFlag set, when IfFlag is not given, TargetFlag takes Default
//     instead of its declared default;
//   - AnyOf: at least one of its flags is given;
//   - OneOf: exactly one of its flags is given.
//
// A flag is given when the command line, its environment variables or the
// applied profile supply it; a declared default is not, and neither is a
// boolean flag whose value is false (--exact=false, or false from the
// environment), so that --exact=false never counts as choosing --exact in
// OneOf("exact", "fuzzy"). IfValue compares values, so an if_value of
// "false" still matches a false given.
//
// Rules are checked before the command runs, with every other input, and
// listed under "requires" by --schema. Build them with [IfValue],
// [IfPresent], [DefaultWhenAbsent], [AnyOf] and [OneOf].
type Rule struct {
	IfFlag       string   `json:"if_flag,omitempty"`
	IfValue      string   `json:"if_value,omitempty"`
	ThenRequired []string `json:"then_required,omitempty"`
	Prohibited   []string `json:"prohibited,omitempty"`
	TargetFlag   string   `json:"target_flag,omitempty"`
	Default      any      `json:"default,omitempty"`
	AnyOf        []string `json:"any_of,omitempty"`
	OneOf        []string `json:"one_of,omitempty"`
}

// IfValue is the rule "when --flag is value, the flags required are required".
func IfValue(flag, value string, required ...string) Rule {
	return Rule{IfFlag: flag, IfValue: value, ThenRequired: required}
}

// IfPresent is the rule "when --flag is given, the flags prohibited are not".
func IfPresent(flag string, prohibited ...string) Rule {
	return Rule{IfFlag: flag, Prohibited: prohibited}
}

// DefaultWhenAbsent is the rule "when --flag is not given, --target
// defaults to value".
func DefaultWhenAbsent(flag, target string, value any) Rule {
	return Rule{IfFlag: flag, TargetFlag: target, Default: value}
}

// AnyOf is the rule "at least one of the flags is given".
func AnyOf(flags ...string) Rule { return Rule{AnyOf: flags} }

// OneOf is the rule "exactly one of the flags is given"; it stands for the
// pairwise prohibitions between them, and requires one.
func OneOf(flags ...string) Rule { return Rule{OneOf: flags} }

// Absent reports whether the rule applies when its flag is not given (the
// default_when_absent shape), rather than when it is.
func (r Rule) Absent() bool { return r.TargetFlag != "" }

// Group returns the flags of a group rule (any_of or one_of) and whether
// it is one.
func (r Rule) Group() ([]string, bool) {
	switch {
	case r.AnyOf != nil:
		return r.AnyOf, true
	case r.OneOf != nil:
		return r.OneOf, true
	}
	return nil, false
}

// Flags returns every flag the rule names.
func (r Rule) Flags() []string {
	if group, ok := r.Group(); ok {
		return slices.Clone(group)
	}
	names := append([]string{r.IfFlag}, r.ThenRequired...)
	names = append(names, r.Prohibited...)
	if r.TargetFlag != "" {
		names = append(names, r.TargetFlag)
	}
	return names
}

// checkGroup reports what is wrong with a group rule: another shape's
// fields beside it, or fewer than two distinct flags, since a group of one
// is a required flag and says so better.
func (r Rule) checkGroup(group []string) error {
	kind := "any_of"
	if r.OneOf != nil {
		kind = "one_of"
	}
	switch {
	case r.AnyOf != nil && r.OneOf != nil:
		return fmt.Errorf("a rule is any_of or one_of, not both")
	case r.IfFlag != "" || r.IfValue != "" || len(r.ThenRequired) > 0 || len(r.Prohibited) > 0 || r.TargetFlag != "" || r.Default != nil:
		return fmt.Errorf("%s rule %v cannot be combined with if_flag, if_value, then_required, prohibited, target_flag or default", kind, group)
	case len(group) < 2:
		return fmt.Errorf("%s rule %v needs at least two flags", kind, group)
	}
	for i, name := range group {
		if slices.Contains(group[:i], name) {
			return fmt.Errorf("%s rule %v names --%s twice", kind, group, name)
		}
	}
	return nil
}

// Check reports what is wrong with the rule as a declaration of c: a flag c
// does not accept, an if_value its enum does not hold, a shape that is none
// of the five.
func (r Rule) Check(c *Command) error {
	if group, ok := r.Group(); ok {
		if err := r.checkGroup(group); err != nil {
			return err
		}
		for _, name := range group {
			if c.Flag(name) == nil {
				return fmt.Errorf("rule %v names %q, which is not a flag of this command", group, name)
			}
		}
		return nil
	}
	switch {
	case r.IfFlag == "":
		return fmt.Errorf("a rule needs if_flag, any_of or one_of")
	case r.Absent() && (r.IfValue != "" || len(r.ThenRequired) > 0 || len(r.Prohibited) > 0):
		return fmt.Errorf("rule on --%s: target_flag (default_when_absent) cannot be combined with if_value, then_required or prohibited", r.IfFlag)
	case !r.Absent() && len(r.ThenRequired) == 0 && len(r.Prohibited) == 0:
		return fmt.Errorf("rule on --%s requires and prohibits nothing", r.IfFlag)
	case r.Absent() && r.Default == nil:
		return fmt.Errorf("rule on --%s: target_flag --%s needs a default", r.IfFlag, r.TargetFlag)
	}
	for _, name := range r.Flags() {
		if c.Flag(name) == nil {
			return fmt.Errorf("rule on --%s names %q, which is not a flag of this command", r.IfFlag, name)
		}
	}
	if f := c.Flag(r.IfFlag); r.IfValue != "" && len(f.Enum) > 0 && !slices.Contains(f.Enum, r.IfValue) {
		return fmt.Errorf("rule on --%s: if_value %q is not one of %v", r.IfFlag, r.IfValue, f.Enum)
	}
	return nil
}

// inputDoc adds to d what the command reads beyond its flags.
func (c *Command) inputDoc(d *Doc, input bool) {
	d.StdinInput = c.Stdin()
	d.RecursiveTraversal = c.Meta.Traverses
	d.Requires = c.Meta.Requires
	if input && c.Meta.RawPayload {
		d.RawPayloadSchema = c.RawPayloadSchema()
	}
}

// RawPayloadSchema returns the JSON Schema of the object --raw-payload takes
// (Meta.RawPayload): one property per flag of the app's own that is not
// hidden, by long name, and one per positional argument — the command's
// inputs, without Duet's built-in flags.
func (c *Command) RawPayloadSchema() Schema {
	var own []*Flag
	for _, f := range c.visibleFlags() {
		if !f.Builtin {
			own = append(own, f)
		}
	}
	return c.inputSchema(own)
}

// appendInput appends the input area's members of d.
func (d Doc) appendInput(b []byte) ([]byte, error) {
	if s := d.StdinInput; s != nil {
		b = append(b, `,"stdin_input":{"description":`...)
		b = jsonw.String(b, s.Description)
		b = append(b, `,"mode":`...)
		b = jsonw.String(b, s.Mode)
		if s.MaxBytes > 0 {
			b = append(b, `,"max_bytes":`...)
			b = jsonw.Int(b, int64(s.MaxBytes))
		}
		if s.MaxLineBytes > 0 {
			b = append(b, `,"max_line_bytes":`...)
			b = jsonw.Int(b, int64(s.MaxLineBytes))
		}
		b = append(b, `,"overflow_flag":`...)
		b = jsonw.String(b, s.OverflowFlag)
		if s.RecordSchema != nil {
			b = append(b, `,"record_schema":`...)
			var err error
			if b, err = jsonw.Map(b, s.RecordSchema); err != nil {
				return b, err
			}
		}
		b = append(b, '}')
	}
	if d.RecursiveTraversal {
		b = append(b, `,"recursive_traversal":true`...)
	}
	if len(d.Requires) > 0 {
		b = append(b, `,"requires":[`...)
		for i, r := range d.Requires {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = r.AppendJSON(b); err != nil {
				return b, err
			}
		}
		b = append(b, ']')
	}
	if len(d.RawPayloadSchema) > 0 {
		b = append(b, `,"raw_payload_schema":`...)
		return jsonw.Map(b, d.RawPayloadSchema)
	}
	return b, nil
}

// AppendJSON appends the rule's encoding; it fails on a default JSON cannot
// hold.
func (r Rule) AppendJSON(b []byte) ([]byte, error) {
	switch {
	case r.AnyOf != nil:
		b = append(b, `{"any_of":`...)
		return append(jsonw.Strings(b, r.AnyOf), '}'), nil
	case r.OneOf != nil:
		b = append(b, `{"one_of":`...)
		return append(jsonw.Strings(b, r.OneOf), '}'), nil
	}
	b = append(b, `{"if_flag":`...)
	b = jsonw.String(b, r.IfFlag)
	if r.IfValue != "" {
		b = append(b, `,"if_value":`...)
		b = jsonw.String(b, r.IfValue)
	}
	if len(r.ThenRequired) > 0 {
		b = append(b, `,"then_required":`...)
		b = jsonw.Strings(b, r.ThenRequired)
	}
	if len(r.Prohibited) > 0 {
		b = append(b, `,"prohibited":`...)
		b = jsonw.Strings(b, r.Prohibited)
	}
	if r.TargetFlag != "" {
		b = append(b, `,"target_flag":`...)
		b = jsonw.String(b, r.TargetFlag)
	}
	if r.Default != nil {
		b = append(b, `,"default":`...)
		var err error
		if b, err = jsonw.Value(b, r.Default); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}
