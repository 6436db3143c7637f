package envelope_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"

	"github.com/duet-cli/duet/envelope"
)

// closedPipe is a stdout whose reader goes away after n bytes, as `tool
// list | head -1` does: later writes fail with EPIPE.
type closedPipe struct {
	n       int
	written int
}

func (p *closedPipe) Write(b []byte) (int, error) {
	if room := p.n - p.written; room < len(b) {
		p.written += max(room, 0)
		return max(room, 0), &writeError{err: syscall.EPIPE}
	}
	p.written += len(b)
	return len(b), nil
}

// writeError is what *os.File returns: "write /dev/stdout: broken pipe".
type writeError struct{ err error }

func (e *writeError) Error() string { return "write /dev/stdout: " + e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

// TestClosedStdoutIsSilent holds REQ-F-014 in every format, whichever path
// meets the closed pipe (the envelope, the jsonl lines, the tsv, text and id
// renderings, a command's own text rendering, items streamed as they come):
// nothing is written on stderr — no broken-pipe error, no warning — and the
// answer Finish reports is the command's own (here none), not the write's.
func TestClosedStdoutIsSilent(t *testing.T) {
	type source struct {
		name string
		give func(out *envelope.Output)
	}
	sources := []source{
		{"list", func(out *envelope.Output) { out.Result(many(2000)) }},
		{"object", func(out *envelope.Output) {
			out.Result(map[string]string{"id": "r1", "blob": string(bytes.Repeat([]byte("x"), 4000))})
		}},
		{"own rendering", func(out *envelope.Output) {
			out.Result(many(2000))
			out.RenderText(func(w io.Writer) error {
				for i := range 2000 {
					fmt.Fprintf(w, "line %d\n", i) // ignores the write's error, as many renderings do
				}
				return nil
			})
		}},
		{"streamed", func(out *envelope.Output) {
			for _, r := range many(2000) {
				if err := out.Item(r); err != nil {
					return // a command stops when its reader has gone
				}
			}
		}},
	}
	for _, format := range envelope.FormatNames() {
		f, err := envelope.ParseFormat(format)
		if err != nil {
			t.Fatal(err)
		}
		for _, agent := range []bool{true, false} {
			for _, src := range sources {
				for _, after := range []int{0, 2} { // "r1\n", the id rendering of the object, is 3 bytes
					t.Run(fmt.Sprintf("%s/agent=%v/%s/after=%d", format, agent, src.name, after), func(t *testing.T) {
						var stderr bytes.Buffer
						pipe := &closedPipe{n: after}
						out := envelope.New(&envelope.Settings{
							Mode:     envelope.Mode{Agent: agent, Format: f},
							Stdout:   pipe,
							Stderr:   &stderr,
							MaxBytes: envelope.DefaultMaxBytes,
						})
						out.Warn("SLOW", "the store is slow", "nothing to do")
						src.give(out)
						if got := out.Finish(fixedMeta(), nil); got != nil {
							t.Errorf("Finish reported %v, want nil: the reader going away is not a failure", got)
						}
						if err := out.WriteErr(); !errors.Is(err, syscall.EPIPE) {
							t.Errorf("WriteErr() = %v, want EPIPE (the test's pipe must close before the answer ends)", err)
						}
						if stderr.Len() > 0 {
							t.Errorf("stderr = %q, want nothing", stderr.String())
						}
					})
				}
			}
		}
	}
}
