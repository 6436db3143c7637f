//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// TestE2EClosedPipeEveryFormat: REQ-F-014: `todo list --limit 0 --format F
// | head -1` exits 0 with nothing on stderr, for every format todo answers
// in. The reader reads the first line (at most 64 KiB of it, as a line
// reader's buffer holds: a JSON envelope is one line of a megabyte) and
// closes the pipe while the binary is still writing, like head exiting.
func TestE2EClosedPipeEveryFormat(t *testing.T) { onEach(t, testClosedPipeEveryFormat) }

func testClosedPipeEveryFormat(t *testing.T, bin string) {
	t.Parallel()
	sb := newSandbox(t, bin)
	// 10,000 to-dos, their ids long enough that even --format id (one id a
	// line) overflows a pipe's 64 KiB buffer several times over.
	const total = 10000
	items := make([]map[string]any, total)
	for i := range items {
		items[i] = item(fmt.Sprintf("item-%05d-with-an-id-long-enough", i+1), fmt.Sprintf("item %d with a title long enough to fill the pipe", i+1), false)
	}
	sb.seed(t, items...)

	const bufSize = 64 << 10 // what the reader may take before it closes
	for _, format := range []string{"json", "jsonl", "toon", "tsv", "text", "plain", "id"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			args := []string{"list", "--limit", "0", "--format", format}
			full := sb.run(t, args...)
			if full.code != 0 || full.stderr != "" {
				t.Fatalf("premise: todo %s: exit %d, stderr %q", strings.Join(args, " "), full.code, full.stderr)
			}
			// The reader takes at most bufSize, the pipe holds 64 KiB: with
			// more than 256 KiB to write, the binary is still writing when
			// the pipe closes, so the test sees a write to a closed pipe.
			if len(full.stdout) < 256<<10 {
				t.Fatalf("premise: the answer is only %d bytes; it must outlast the reader and the pipe's buffer", len(full.stdout))
			}

			cmd := exec.Command(sb.bin, args...)
			var stderr bytes.Buffer
			cmd.Env, cmd.Stderr = sb.env, &stderr
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReaderSize(stdout, bufSize).ReadSlice('\n')
			if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
				t.Errorf("reading the first line: %v", err)
			}
			stdout.Close() // like head -1 exiting
			code := exitCode(cmd.Wait())

			if len(line) == 0 || !strings.HasPrefix(full.stdout, string(line)) {
				t.Errorf("the first line read, %.80q, is not the start of the answer %.80q", line, full.stdout)
			}
			if code != 0 {
				t.Errorf("exit code %d after the reader closed the pipe, want 0 (-1: killed by SIGPIPE)", code)
			}
			if stderr.Len() != 0 {
				t.Errorf("stderr should be empty after the reader closed the pipe, got %q", stderr.String())
			}
		})
	}
}
