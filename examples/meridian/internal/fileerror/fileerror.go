// Package fileerror describes a file a person wrote that Meridian cannot use
// — config.toml, models.toml, an agent profile's or a skill's front matter —
// by path, line and key, so the message points at what to fix. FromTOML
// makes one of go-toml's errors.
package fileerror

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Error is a file whose content cannot be used: not valid TOML or YAML, or a
// key Meridian does not know, a value of the wrong type, an invalid value.
type Error struct {
	Path string // the file
	Line int    // the 1-based line of the problem, or 0 when not known
	Key  string // the dotted key at fault ("models.fast.harness"), or ""
	Msg  string // what is wrong
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// typeMismatch matches go-toml's message for a value of the wrong type, to
// rewrite it without the Go type names it is full of.
var typeMismatch = regexp.MustCompile(`^cannot decode TOML (.+?) into .* of type (.+)$`)

// FromTOML turns an error of go-toml's decoder, reading path, into an
// [*Error]: every unknown key at once (a strict decoder's), or the key and
// line of a syntax or type error.
func FromTOML(path string, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		first := &strict.Errors[0]
		line, _ := first.Position()
		msg := "unknown key"
		if n := len(strict.Errors) - 1; n > 0 {
			others := make([]string, n)
			for i := range others {
				others[i] = strings.Join(strict.Errors[i+1].Key(), ".")
			}
			msg += fmt.Sprintf(" (other unknown keys: %s)", strings.Join(others, ", "))
		}
		return &Error{Path: path, Key: strings.Join(first.Key(), "."), Line: line, Msg: msg}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if m := typeMismatch.FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("wrong type: want %s, got a TOML %s", tomlName(m[2]), m[1])
		}
		return &Error{Path: path, Key: strings.Join(de.Key(), "."), Line: line, Msg: msg}
	}
	return &Error{Path: path, Msg: err.Error()}
}

// tomlName names the Go type of a decoding target in TOML's words.
func tomlName(t string) string {
	switch {
	case t == "bool":
		return "a boolean"
	case t == "string":
		return "a string"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	case strings.HasPrefix(t, "struct") || strings.HasPrefix(t, "map") || strings.Contains(t, "."):
		return "a table" // a struct of a package's own, such as catalog.modelEntry
	}
	return t
}
