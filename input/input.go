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
// A command whose payload is a stream of lines — NDJSON piped from another
// command, say — declares line mode (schema.Meta.StdinLines) and reads it
// with Lines: nothing is read before the command runs, there is no total
// cap, and each line is handed over as it arrives, within a per-line cap
// (1 MiB by default, schema.Meta.MaxLineBytes). A longer line ends the
// read with LINE_TOO_LARGE (exit 1: the command has already acted on the
// lines before it). --input-file is read the same way.
package input

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"syscall"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// CodeLineTooLarge is the error code of a line longer than the cap.
const CodeLineTooLarge = "LINE_TOO_LARGE"

// Source is a command's payload: bytes read from stdin, a file, or a
// stream read as the command reads it.
type Source struct {
	name    string // "stdin", or the file's path
	data    []byte
	path    string        // set for a file, which is opened when read
	stream  io.Reader     // set for a stream, read once, as the command reads
	maxLine int           // the per-line cap of Lines; 0 is schema.DefaultMaxLineBytes
	record  schema.Schema // the JSON Schema of one record (Records)
}

// FromBytes returns a Source holding data, as if it had been read from
// stdin: what the lifecycle gives a command, and what a test gives a
// handler it calls directly.
func FromBytes(data []byte) *Source { return &Source{name: "stdin", data: data} }

// FromFile returns a Source that reads the file at path, as --input-file
// path does. The file is opened on each Open.
func FromFile(path string) *Source { return &Source{name: path, path: path} }

// FromStream returns a Source that reads r only as the command reads it,
// once: line-mode stdin, whose writer may still be writing while the
// command works. name is where it comes from, for messages.
func FromStream(name string, r io.Reader) *Source { return &Source{name: name, stream: r} }

// WithMaxLineBytes returns a copy of s whose Lines refuses a line longer
// than n bytes; n <= 0 is schema.DefaultMaxLineBytes.
func (s *Source) WithMaxLineBytes(n int) *Source {
	c := *s
	c.maxLine = max(n, 0)
	return &c
}

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

// Open returns a reader of the payload; the caller closes it. A stream
// is read once: a second Open reads what the first left.
func (s *Source) Open() (io.ReadCloser, error) {
	if s.stream != nil {
		return io.NopCloser(s.stream), nil
	}
	if s.path == "" {
		return io.NopCloser(bytes.NewReader(s.data)), nil
	}
	// Without blocking: a FIFO nobody writes to answers at once (empty)
	// instead of holding the open for good; a device is refused, as
	// /dev/zero would be read without end.
	f, err := os.OpenFile(s.path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err == nil {
		switch fi, serr := f.Stat(); {
		case serr == nil && fi.Mode()&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeSocket) != 0:
			f.Close()
			err = errors.New("a device or a socket, not a file or a pipe")
		case serr == nil && fi.Mode()&fs.ModeNamedPipe != 0:
			f.Fd() // reads wait for the writer again (<(…)), as without O_NONBLOCK; with none, EOF
		}
	}
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

// Lines returns the payload's lines, one at a time and each as soon as it
// has arrived, without its line ending ("\n" or "\r\n"); a last line
// without one counts. A line longer than the cap (WithMaxLineBytes) ends
// the iteration with a LINE_TOO_LARGE error — exit 1, not retryable, its
// line number in context.line — without reading the rest of it; a read
// that fails ends it with INPUT_UNREADABLE. Each line is the caller's to
// keep.
func (s *Source) Lines() iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		r, err := s.Open()
		if err != nil {
			yield(nil, err)
			return
		}
		defer r.Close()
		limit := cmp.Or(s.maxLine, schema.DefaultMaxLineBytes)
		br := bufio.NewReaderSize(r, min(limit+2, 64<<10))
		var line []byte
		for n := 1; ; n++ {
			line = line[:0]
			var err error
			for {
				chunk, e := br.ReadSlice('\n')
				line = append(line, chunk...)
				if len(bytes.TrimRight(line, "\r\n")) > limit {
					yield(nil, s.tooLarge(n, limit))
					return
				}
				if e != bufio.ErrBufferFull {
					err = e
					break
				}
			}
			if len(line) > 0 && !yield(bytes.Clone(bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))), nil) {
				return
			}
			switch {
			case err == io.EOF:
				return
			case err != nil:
				yield(nil, envelope.Errorf(exitcode.GeneralError, "INPUT_UNREADABLE", "reading line %d of %s: %v", n, s.name, err))
				return
			}
		}
	}
}

// tooLarge is the error of line n, longer than limit bytes.
func (s *Source) tooLarge(n, limit int) error {
	return envelope.Errorf(exitcode.GeneralError, CodeLineTooLarge, "line %d of %s is longer than %d bytes; the lines before it were read", n, s.name, limit).
		WithContext("line", n).
		WithContext("limit_bytes", limit).
		WithHint(fmt.Sprintf("split the record: each line may hold at most %d bytes", limit))
}

// reason is what went wrong with a file, without the path an *fs.PathError
// repeats.
func reason(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}
