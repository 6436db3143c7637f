package adapters_test

import (
	"bytes"
	"context"
	"fmt"
	"syscall"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// closedPipe is a stdout whose reader goes away after n bytes, as `tool
// list | head -1` does: later writes fail as *os.File's do,
// "write /dev/stdout: broken pipe".
type closedPipe struct {
	n       int
	written int
}

func (p *closedPipe) Write(b []byte) (int, error) {
	if room := p.n - p.written; room < len(b) {
		p.written += max(room, 0)
		return max(room, 0), fmt.Errorf("write /dev/stdout: %w", syscall.EPIPE)
	}
	p.written += len(b)
	return len(b), nil
}

// pipeApp lists 10,000 items, and streams 10,000 events.
func pipeApp() *cli.Command {
	type row struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	rows := make([]row, 10000)
	for i := range rows {
		rows[i] = row{ID: fmt.Sprintf("t%d", i), Title: fmt.Sprintf("task number %d", i)}
	}
	return &cli.Command{Name: "app", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "list", Action: func(ctx context.Context, _ *cli.Command) error {
			return envelope.From(ctx).Result(rows)
		}}, schema.Meta{Danger: schema.Safe, List: true}),
		urfave.Annotate(&cli.Command{Name: "events", Action: func(ctx context.Context, _ *cli.Command) error {
			out := envelope.From(ctx)
			for _, r := range rows {
				if err := out.Item(r); err != nil {
					return err // the reader went away: the command returns the write's error
				}
			}
			return nil
		}}, schema.Meta{Danger: schema.Safe, Streaming: true, StreamingDefault: true}),
	}}
}

// TestClosedStdoutExitsZeroSilently: `app list --limit 0 --format F | head
// -1` exits 0 with nothing on stderr, in every format, whether the
// envelope, a rendering (tsv, text, id) or a streamed item meets the closed
// pipe (REQ-F-014).
func TestClosedStdoutExitsZeroSilently(t *testing.T) {
	for _, format := range envelope.FormatNames() {
		for _, args := range [][]string{{"list", "--limit", "0"}, {"events"}} {
			for _, after := range []int{0, 40} {
				t.Run(fmt.Sprintf("%s/%s/after=%d", format, args[0], after), func(t *testing.T) {
					var stderr bytes.Buffer
					pipe := &closedPipe{n: after}
					argv := append(append([]string(nil), args...), "--format", format)
					code := urfave.Run(context.Background(), pipeApp(), argv, run{}.options(pipe, &stderr)...)
					if code != 0 {
						t.Errorf("exit code %d, want 0", code)
					}
					if stderr.Len() > 0 {
						t.Errorf("stderr = %q, want nothing", stderr.String())
					}
					if pipe.written != after {
						t.Errorf("%d bytes reached the reader, want %d: the pipe must close before the answer ends", pipe.written, after)
					}
				})
			}
		}
	}
}
