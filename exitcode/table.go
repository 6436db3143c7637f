package exitcode

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/duet-cli/duet/internal/jsonw"
)

// Table maps the codes a command may exit with to their entries.
//
// A command's declared table is merged over [Defaults] with [Table.Merge]; an
// entry in the declaration replaces the default entry for that code, and an
// entry that leaves Name or Description empty inherits them from the default.
type Table map[Code]Entry

// Defaults returns a fresh table holding the framework codes every command
// may end with: 0–13. INCOMPLETE (14) is left to the commands whose work can
// outlive a call, which declare it.
func Defaults() Table {
	t := make(Table, len(framework))
	for c, e := range framework {
		if Code(c) != Incomplete {
			t[Code(c)] = e
		}
	}
	return t
}

// Merge returns a new table: t with every entry of over laid on top.
func (t Table) Merge(over Table) Table {
	out := maps.Clone(t)
	if out == nil {
		out = Table{}
	}
	for c, e := range over {
		if base, ok := out[c]; ok {
			if e.Name == "" {
				e.Name = base.Name
			}
			if e.Description == "" {
				e.Description = base.Description
			}
			if e.SideEffects == "" {
				e.SideEffects = base.SideEffects
			}
			if e.ErrorCodes == nil {
				e.ErrorCodes = base.ErrorCodes
			}
		}
		out[c] = e
	}
	return out
}

// Codes returns the table's codes in ascending order.
func (t Table) Codes() []Code {
	return slices.Sorted(maps.Keys(t))
}

// MaxDescription is the longest description an entry may have, in
// characters: the spec's ExitCodeEntry allows 120.
const MaxDescription = 120

// upperSnake reports whether code has the form of an error.code an entry
// lists (ExitCodeEntry 1.1): ^[A-Z][A-Z0-9_]+$.
func upperSnake(code string) bool {
	if len(code) < 2 || code[0] < 'A' || code[0] > 'Z' {
		return false
	}
	for _, r := range code[1:] {
		if (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '_' {
			return false
		}
	}
	return true
}

// Validate checks the invariants of a table: an entry for 0; only framework
// codes, the signal codes 130 and 143 and named custom codes 79–125; a name,
// a description of at most MaxDescription characters and a known side
// effect on every entry; error codes in UPPER_SNAKE_CASE, each listed once;
// and "retryable implies no side effects". It reports every violation at
// once.
func (t Table) Validate() error {
	var errs []error
	if _, ok := t[Success]; !ok {
		errs = append(errs, errors.New("no entry for exit code 0 (SUCCESS)"))
	}
	for _, c := range t.Codes() {
		e := t[c]
		switch {
		case c.Framework(), c.Signal():
		case c.Custom():
			if e.Name == "" {
				errs = append(errs, fmt.Errorf("custom exit code %d has no name", c))
			}
		case c.Extension():
			if e.Name == "" {
				errs = append(errs, fmt.Errorf("extension exit code %d has no name", c))
			}
		default:
			errs = append(errs, fmt.Errorf("exit code %d is outside 0–14, the extensions %d–%d and the custom range %d–%d", c, ExtensionMin, ExtensionMax, CustomMin, CustomMax))
			continue
		}
		if e.Description == "" {
			errs = append(errs, fmt.Errorf("exit code %d (%s) has no description", c, e.Name))
		}
		if n := utf8.RuneCountInString(e.Description); n > MaxDescription {
			errs = append(errs, fmt.Errorf("exit code %d (%s) has a description of %d characters, more than %d", c, e.Name, n, MaxDescription))
		}
		for i, code := range e.ErrorCodes {
			switch {
			case !upperSnake(code):
				errs = append(errs, fmt.Errorf("exit code %d (%s) lists error code %q, which is not UPPER_SNAKE_CASE", c, e.Name, code))
			case slices.Contains(e.ErrorCodes[:i], code):
				errs = append(errs, fmt.Errorf("exit code %d (%s) lists error code %s twice", c, e.Name, code))
			}
		}
		switch e.SideEffects {
		case None, Partial, Complete:
		default:
			errs = append(errs, fmt.Errorf("exit code %d (%s) has side_effects %q, want none, partial or complete", c, e.Name, e.SideEffects))
		}
		if e.Retryable && e.SideEffects != None {
			errs = append(errs, fmt.Errorf("exit code %d (%s) is retryable but has side_effects %q: a retryable exit must have none", c, e.Name, e.SideEffects))
		}
	}
	return errors.Join(errs...)
}

// MarshalJSON writes the table as the spec's exit_codes map: decimal string
// keys in ascending numeric order ("2" before "10").
func (t Table) MarshalJSON() ([]byte, error) { return t.AppendJSON(make([]byte, 0, 160*len(t))), nil }

// AppendJSON appends the table's encoding to b. It is written by hand because
// describe encodes one table per command.
func (t Table) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	for i, c := range t.Codes() {
		e := t[c]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = strconv.AppendInt(b, int64(c), 10)
		b = append(b, `":{"name":`...)
		b = jsonw.String(b, e.Name)
		b = append(b, `,"description":`...)
		b = jsonw.String(b, e.Description)
		b = append(b, `,"retryable":`...)
		b = strconv.AppendBool(b, e.Retryable)
		b = append(b, `,"side_effects":`...)
		b = jsonw.String(b, string(e.SideEffects))
		if e.ErrorCodes != nil { // [] says the exit carries no error.code; nil says nothing
			b = append(b, `,"error_codes":`...)
			b = jsonw.Strings(b, e.ErrorCodes)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}
