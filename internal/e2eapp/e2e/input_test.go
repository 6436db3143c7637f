//go:build linux

package e2e

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// ---------------------------------------------------------------------------
// REQ-F-054 Stdin payload size cap with --input-file fallback.

// records returns n JSON lines of size bytes each, newline included.
func records(n, size int) string {
	var b strings.Builder
	for range n {
		b.WriteString(`{"v":"` + strings.Repeat("x", size-9) + `"}` + "\n")
	}
	return b.String()
}

// feed runs args with stdin reading payload, as a shell pipeline gives it.
func (sb *sandbox) feed(t *testing.T, payload string, extra []string, args ...string) result {
	t.Helper()
	cmd := sb.command(sb.dir, extra, args...)
	cmd.Stdin = strings.NewReader(payload)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return wait(t, cmd, &stdout, &stderr)
}

// TestF054BufferedCap: REQ-F-054 criteria 1 to 4 on `restore`, which reads
// its payload whole (Meta.Stdin): 65537 bytes are refused, exit 2
// STDIN_TOO_LARGE, with a hint naming --input-file and nothing restored;
// 65535 bytes are restored; --input-file is there without being declared,
// and reads the larger file.
func TestF054BufferedCap(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	doc := func(n int) string { return `{"v":"` + strings.Repeat("x", n-8) + `"}` }
	env := expect(t, "restore 65537", sb.feed(t, doc(65537), nil, "restore"), 2)
	want(t, "restore 65537", env, map[string]any{"error.code": "STDIN_TOO_LARGE", "error.context.limit_bytes": 65536.0, "data": nil})
	if hint, _ := get(env, "error.hint").(string); !strings.Contains(hint, "--input-file") {
		t.Errorf("the hint %q does not name --input-file", hint)
	}
	if exists(sb.path("data", "e2eapp", "settings.json")) {
		t.Fatal("a refused payload was restored")
	}
	want(t, "restore 65535", expect(t, "restore 65535", sb.feed(t, doc(65535), nil, "restore"), 0), map[string]any{"data.bytes": 65535.0})
	if flags := flagNames(sb.schemaOf(t, "restore")); !strings.Contains(strings.Join(flags, " "), "input-file") {
		t.Errorf("restore --schema has no --input-file: %v", flags)
	}
	big := sb.path("big.json")
	if err := os.WriteFile(big, []byte(doc(200_000)), 0o600); err != nil {
		t.Fatal(err)
	}
	want(t, "restore --input-file", expect(t, "restore --input-file", sb.run(t, "restore", "--input-file", big), 0), map[string]any{"data.bytes": 200000.0})
}

// TestF054LineMode: REQ-F-054's line-mode criteria (v1.8) on `load`, which
// declares Meta.StdinLines. 300 lines of 320 bytes (96000, over the
// buffered cap) are all applied, exit 0, even with E2EAPP_MAX_STDIN_BYTES
// at 1000, which caps buffered stdin only; --input-file reads the same
// lines from a file, and "--input-file -" from stdin; a third line of 1048577 bytes ends the run with exit
// 1 LINE_TOO_LARGE, not retryable, context.line 3, after the first two
// lines were applied, from stdin and from a file alike.
func TestF054LineMode(t *testing.T) {
	t.Parallel()
	payload := records(300, 320)
	if len(payload) != 96000 {
		t.Fatalf("payload of %d bytes", len(payload))
	}
	tooLong := records(2, 100) + `"` + strings.Repeat("y", 1048575) + `"` + "\n" + records(1, 100)
	t.Run("stdin", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		for _, extra := range [][]string{nil, {"E2EAPP_MAX_STDIN_BYTES=1000"}} {
			env := expect(t, "load", sb.feed(t, payload, extra, "load"), 0)
			want(t, "load", env, map[string]any{"data.lines": 300.0, "meta.effect": "updated"})
		}
		if got := readFile(t, sb.path("data", "e2eapp", "loaded")); got != payload+payload {
			t.Errorf("loaded %d bytes, want every line of both runs (%d)", len(got), 2*len(payload))
		}
	})
	t.Run("input file", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		file := sb.path("lines.ndjson")
		if err := os.WriteFile(file, []byte(payload), 0o600); err != nil {
			t.Fatal(err)
		}
		want(t, "load --input-file", expect(t, "load --input-file", sb.run(t, "load", "--input-file", file), 0), map[string]any{"data.lines": 300.0})
		want(t, "load --input-file -", expect(t, "load --input-file -", sb.feed(t, payload, nil, "load", "--input-file", "-"), 0), map[string]any{"data.lines": 300.0})
	})
	for _, from := range []string{"stdin", "input file"} {
		t.Run("a line too long, "+from, func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t)
			var r result
			if from == "stdin" {
				r = sb.feed(t, tooLong, []string{"E2EAPP_MAX_STDIN_BYTES=10000000"}, "load")
			} else {
				file := sb.path("lines.ndjson")
				if err := os.WriteFile(file, []byte(tooLong), 0o600); err != nil {
					t.Fatal(err)
				}
				r = sb.run(t, "load", "--input-file", file)
			}
			env := expect(t, "load", r, 1)
			want(t, "load", env, map[string]any{"error.code": "LINE_TOO_LARGE", "error.retryable": false, "error.context.line": 3.0, "error.context.limit_bytes": 1048576.0})
			if got := readFile(t, sb.path("data", "e2eapp", "loaded")); got != records(2, 100) {
				t.Errorf("loaded %q, want the two lines before the long one", got)
			}
		})
	}
}

// TestF054LinesArriveAsWritten: REQ-F-054, "the handler receives line 1
// before the producer writes line 2". The test is the producer: it writes
// one line to load's stdin and writes the next only once the first is
// applied — a command that read stdin whole first would never apply it,
// and the test fails at its deadline.
func TestF054LinesArriveAsWritten(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	cmd := sb.command(sb.dir, nil, "load")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	loaded := sb.path("data", "e2eapp", "loaded")
	for i, line := range []string{`{"n":1}`, `{"n":2}`, `{"n":3}`} {
		if _, err := stdin.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for !strings.HasSuffix(readFile(t, loaded), line+"\n") {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("line %d was not applied within 20 s of being written, the next not yet written: %q", i+1, readFile(t, loaded))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	stdin.Close()
	err = cmd.Wait()
	want(t, "load", expect(t, "load", result{stdout: stdout.String(), stderr: stderr.String(), code: exitCode(err)}, 0), map[string]any{"data.lines": 3.0})
}

// TestF054ManifestStdinMode: REQ-F-054's last criterion (ManifestResponse
// 3.8): the manifest's CommandEntry.stdin says how each command reads
// stdin — buffered with its cap for restore, lines with the line cap for
// load — and a command that reads no payload has none.
func TestF054ManifestStdinMode(t *testing.T) {
	t.Parallel()
	commands, _ := newSandbox(t).manifest(t)["commands"].(map[string]any)
	for cmd, stdin := range map[string]any{
		"restore": map[string]any{"mode": "buffered", "max_bytes": 65536.0},
		"load":    map[string]any{"mode": "lines", "max_line_bytes": 1048576.0},
		"status":  nil,
	} {
		if got := get(commands, cmd+".stdin"); !cmp.Equal(got, stdin) {
			t.Errorf("%s: stdin %v, want %v", cmd, got, stdin)
		}
	}
}

// ---------------------------------------------------------------------------
// REQ-O-039 --input-file for large payloads.

// TestO039InputFile: REQ-O-039's criteria. restore reads a 10 MB document
// from --input-file, and the same 10 MB on stdin is refused, exit 2
// STDIN_TOO_LARGE with a hint naming --input-file; "--input-file -" is
// stdin, as a pipe is. load, a line-mode command, reads a 10 MB file of
// short lines through --input-file, and one whose third line is over the
// cap exits 1 LINE_TOO_LARGE, context.line 3 (TestF054LineMode).
func TestO039InputFile(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	big := `{"v":"` + strings.Repeat("x", 10<<20) + `"}`
	file := sb.path("big.json")
	if err := os.WriteFile(file, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	want(t, "restore --input-file", expect(t, "restore --input-file", sb.run(t, "restore", "--input-file", file), 0), map[string]any{"data.bytes": float64(len(big))})
	env := expect(t, "restore, 10 MB on stdin", sb.feed(t, big, nil, "restore"), 2)
	want(t, "restore, 10 MB on stdin", env, map[string]any{"error.code": "STDIN_TOO_LARGE"})
	if hint, _ := get(env, "error.hint").(string); !strings.Contains(hint, "--input-file") {
		t.Errorf("the hint %q does not name --input-file", hint)
	}
	want(t, "restore --input-file -", expect(t, "restore --input-file -", sb.feed(t, `{"a":1}`, nil, "restore", "--input-file", "-"), 0), map[string]any{"data.settings": 1.0})

	lines := records((10<<20)/100, 100)
	file = sb.path("lines.ndjson")
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	want(t, "load --input-file", expect(t, "load --input-file", sb.run(t, "load", "--input-file", file), 0), map[string]any{"data.lines": float64((10 << 20) / 100)})
}
