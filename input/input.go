// Package input is how a command reads what it is given beyond its flags: a
// payload on stdin, or in the file --input-file names.
//
// A command declares that it reads a payload with schema.Meta.Stdin, and
// reads it with From(ctx).Open or ReadAll — never from os.Stdin. The
// lifecycle then does for it what keeps an agent's pipe from deadlocking:
// it reads stdin whole before the command runs (nothing is written to stdout
// while a caller may still be writing to stdin), within a cap of 64 KiB
// (<TOOL>_MAX_STDIN_BYTES changes it); a larger payload is refused with
// STDIN_TOO_LARGE (exit 2), whose hint names --input-file, which the command
// gets for free. A file named there is streamed, whatever its size;
// "--input-file -" is stdin, under the same cap.
//
// [NormalizeJSON] reads JSON5 — what agents write when they write JSON by
// hand — as strict JSON, or explains what is wrong and offers the corrected
// input: the lifecycle uses it for flags declared as JSON, and a command for
// the JSON it reads from its payload.
package input

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/json5"
)

// Source is a command's payload: bytes read from stdin, or a file.
type Source struct {
	name string // "stdin", or the file's path
	data []byte
	path string // set for a file, which is opened when read
}

// FromBytes returns a Source holding data, as if it had been read from
// stdin: what the lifecycle gives a command, and what a test gives a
// handler it calls directly.
func FromBytes(data []byte) *Source { return &Source{name: "stdin", data: data} }

// FromFile returns a Source that reads the file at path, as --input-file
// path does. The file is opened on each Open.
func FromFile(path string) *Source { return &Source{name: path, path: path} }

type sourceKey struct{}

// NewContext returns a context that carries s.
func NewContext(ctx context.Context, s *Source) context.Context {
	return context.WithValue(ctx, sourceKey{}, s)
}

// From returns the payload of the invocation ctx belongs to. Outside one —
// a handler called directly from a test without NewContext — it returns an
// empty payload, never os.Stdin, so that no test blocks on a terminal.
func From(ctx context.Context) *Source {
	if s, ok := ctx.Value(sourceKey{}).(*Source); ok {
		return s
	}
	return FromBytes(nil)
}

// Name is where the payload comes from, for messages: "stdin" or the path.
func (s *Source) Name() string { return s.name }

// Open returns a reader of the payload; the caller closes it.
func (s *Source) Open() (io.ReadCloser, error) {
	if s.path == "" {
		return io.NopCloser(bytes.NewReader(s.data)), nil
	}
	f, err := os.Open(s.path)
	if err != nil {
		return nil, envelope.Validationf("INPUT_FILE_UNREADABLE", "cannot read --input-file %s: %v", s.path, reason(err)).
			WithField("input-file").
			WithHint("pass a readable file, or - for stdin")
	}
	return f, nil
}

// ReadAll returns the whole payload.
func (s *Source) ReadAll() ([]byte, error) {
	r, err := s.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// NormalizeJSON returns src, a JSON or JSON5 text, as strict JSON: strict
// JSON as it is, JSON5 (comments, trailing commas, unquoted keys, single
// quotes, hexadecimal, +1, .5) made strict. A text that is neither is
// refused with INVALID_JSON (exit 2, validation), whose corrected_input is
// the closest strict JSON, for the caller to check and send again.
func NormalizeJSON(src []byte) ([]byte, error) {
	if json.Valid(src) {
		return src, nil
	}
	out, err := json5.Normalize(src)
	if err == nil {
		return out, nil
	}
	e := envelope.Validationf("INVALID_JSON", "input could not be normalized to valid JSON: %v", err).
		WithFix("reissue with the corrected_input value", "").
		WithSuggestion("use the corrected_input value to retry").
		WithHint("JSON5 is accepted (comments, trailing commas, unquoted keys, single quotes), but string values need quotes")
	e.CorrectedInput = string(json5.Repair(src))
	return nil, e
}

// reason is what went wrong with a file, without the path an *fs.PathError
// repeats.
func reason(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}
