package envelope

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"

	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/atomicfile"
)

// outputFile is where --output sends the answer: the file's bytes are
// collected as stdout's would be, and written whole, by rename, once the
// command has succeeded — a failed run leaves no file (REQ-O-001).
type outputFile struct {
	path   string        // absolute
	stdout io.Writer     // the real stdout, which then says what was written
	buf    *bytes.Buffer // the answer, in the --format representation
}

// MediaType returns the media type the CLI Agent Spec gives format f
// (REQ-O-001): what a file written with --output holds.
func MediaType(f Format) string {
	switch f {
	case JSON:
		return "application/json"
	case JSONL:
		return "application/x-ndjson"
	case TSV:
		return "text/tab-separated-values"
	case TOON:
		return "text/toon"
	}
	return "text/plain"
}

// Written is the answer of a command whose answer went to a file
// (--output): what was written where. ContentType is the media type of the
// --format representation, or, of a binary result written raw, the one the
// command declared (left out when it declared none).
//
// SHA256, the lowercase hex digest of the file, is given of a binary
// result's raw bytes only, as the spec asks, and only when Settings.Digest
// is set (package envelope/filedigest has one): hashing links crypto,
// whose package initialisation every start of every wrapped app would pay
// for (adapters' TestStartCostDeps).
type Written struct {
	Path        string `json:"path"`
	Bytes       int    `json:"bytes"`
	ContentType string `json:"content_type,omitempty"`
	SHA256      string `json:"sha256,omitempty"`
}

// binaryLocked returns the result when it is a single binary value — a
// Binary, a *Binary or a []byte given to Result — which --output writes raw
// (REQ-O-001), and false otherwise.
func (o *Output) binaryLocked() (Binary, bool) {
	if !o.hasResult || o.paged {
		return Binary{}, false
	}
	switch v := o.result.(type) {
	case Binary:
		return v, true
	case *Binary:
		if v != nil {
			return *v, true
		}
	case []byte:
		return Binary{Bytes: v}, true
	}
	return Binary{}, false
}

// finishFile writes the answer to the --output file, and on stdout the
// envelope that describes the write. A failure writes no file: stdout
// then carries the error as it would without --output, with the data
// Finish gave it (null, the failure's payload, or {"partial": true}).
func (o *Output) finishFile(p payload, meta Meta, fail *Error) *Error {
	f := o.file
	reported := fail != nil // the command failed: there is no answer to write
	shown := false          // the error is on stderr already
	bin, raw := o.binaryLocked()
	written := Written{Path: f.path}
	var content []byte
	switch {
	case reported:
	case raw:
		// A binary result is the file (REQ-O-001): its raw bytes, not a
		// representation of them; --format shapes only stdout.
		content, written.ContentType = bin.Bytes, bin.ContentType
	default:
		fail = o.write(o.s.Mode.Format, p, meta, nil)
		shown = fail != nil // a rendering that failed is reported by write
		content, written.ContentType = f.buf.Bytes(), MediaType(o.s.Mode.Format)
	}
	written.Bytes = len(content)
	o.s.Stdout, o.writeErr = f.stdout, nil // what follows is stdout's
	if fail == nil {
		if err := atomicfile.Write(f.path, content, 0o644); err != nil {
			fail = Errorf(exitcode.GeneralError, "OUTPUT_WRITE_FAILED", "could not write the answer to %s: %w", f.path, err).
				WithPhase(Execution).
				WithSuggestion("check that the directory exists and is writable, or choose another --output path")
		}
	}
	meta.ExitCode = ExitCode(fail)
	if !reported {
		// data describes the write, or is null when the answer could
		// not be written. meta.pagination stays: it says where the page in
		// the file ends, and how to ask for the next.
		p = payload{one: json.RawMessage("null")}
		if fail != nil {
			meta.Pagination = nil
		}
		if fail == nil {
			if raw && o.s.Digest != nil {
				written.SHA256 = o.s.Digest(content)
			}
			if enc, err := marshal(written); err == nil {
				p.one = enc
			}
		}
	}
	if o.s.Mode.Agent {
		o.writeEnvelope(JSON, p, meta, fail)
		return fail
	}
	switch {
	case fail == nil:
		_ = o.writeText(func(w io.Writer) error {
			v, err := decodeOrdered(p.one)
			if err != nil {
				return err
			}
			return renderText(w, v, Style{Color: o.s.Mode.Color})
		})
	case reported && fail.keepResult:
		_ = o.writeRendered(Text, p) // a failure that still answers, as without --output
	}
	if !shown {
		o.writeHumanDiagnostics(fail)
	}
	return fail
}

// startFile sends what the command writes to stdout to the --output
// file's buffer instead, streamed items included.
func (o *Output) startFile(path string) {
	if path == "" {
		return
	}
	if abs, err := absPath(path, o.s.Cwd); err == nil {
		path = abs
	}
	o.file = &outputFile{path: path, stdout: o.s.Stdout, buf: new(bytes.Buffer)}
	o.s.Stdout = o.file.buf
}

// absPath resolves path against dir, or the working directory when dir
// is "".
func absPath(path, dir string) (string, error) {
	if filepath.IsAbs(path) {
		return filepath.Clean(path), nil
	}
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, path), nil
}
