//go:build unix

package adapters_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// unbufferedArgsEnv, set, makes TestUnbufferedStdout run tailApp with
// urfave.Main in a process of its own, with these arguments.
const unbufferedArgsEnv = "DUET_TEST_UNBUFFERED_ARGS"

// tailApp's one command, long-running and streaming, writes a line, then
// waits until someone opens the fifo --wait names for writing, then writes
// a second line: it cannot finish before its reader has had the first.
func tailApp() *cli.Command {
	return &cli.Command{Name: "app", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "tail",
			Flags: []cli.Flag{&cli.StringFlag{Name: "wait"}},
			Action: func(ctx context.Context, c *cli.Command) error {
				out := envelope.From(ctx)
				py, err := exec.Command("sh", "-c", `printf %s "$PYTHONUNBUFFERED"`).Output()
				if err != nil {
					return err
				}
				if err := out.Item(map[string]string{"line": "1", "child_pythonunbuffered": string(py)}); err != nil {
					return err
				}
				f, err := os.Open(c.String("wait")) // blocks until the fifo has a writer
				if err != nil {
					return err
				}
				io.Copy(io.Discard, f)
				f.Close()
				return out.Item(map[string]string{"line": "2"})
			}}, schema.Meta{Danger: schema.Safe, LongRunning: true, Streaming: true}),
	}}
}

// TestUnbufferedStdout: in a process of its own with stdout a pipe, a
// line a command writes reaches the reader while the command still runs —
// the command waits for the reader to have it — as do the JSON heartbeats
// of --heartbeat-ms, each exactly {"status":"running","heartbeat":true,
// "elapsed_ms":N}; and a child the command starts has PYTHONUNBUFFERED=1
// (REQ-F-053), with --format jsonl and with --stream (REQ-O-004).
func TestUnbufferedStdout(t *testing.T) {
	if args, ok := os.LookupEnv(unbufferedArgsEnv); ok {
		os.Args = append([]string{"app"}, strings.Fields(args)...)
		urfave.Main(tailApp())
		return
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to start a child with")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// --stream is --format jsonl (REQ-O-004): both write as they go.
	for _, flags := range []string{"--format jsonl", "--stream"} {
		t.Run(flags, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "go")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("no fifo: %v", err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a bound on a hang, not a timed assertion
			defer cancel()
			cmd := exec.CommandContext(ctx, exe, "-test.run=^TestUnbufferedStdout$")
			cmd.Env = []string{unbufferedArgsEnv + "=tail --wait " + fifo + " --heartbeat-ms 1 " + flags, "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			lines := bufio.NewScanner(stdout)
			next := func() map[string]any {
				t.Helper()
				if !lines.Scan() {
					cancel()
					t.Fatalf("stdout ended early: %v", lines.Err())
				}
				var obj map[string]any
				if err := json.Unmarshal(lines.Bytes(), &obj); err != nil {
					cancel()
					t.Fatalf("line %q is not a JSON object: %v", lines.Text(), err)
				}
				return obj
			}
			isBeat := func(obj map[string]any) bool {
				keys := make([]string, 0, len(obj))
				for k := range obj {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				_, n := obj["elapsed_ms"].(float64)
				return cmp.Equal([]string{"elapsed_ms", "heartbeat", "status"}, keys) && obj["status"] == "running" && obj["heartbeat"] == true && n
			}

			// Before the fifo is opened the command cannot finish: what is read
			// now was written while it ran.
			var first map[string]any
			beats := 0
			for first == nil || beats < 2 {
				obj := next()
				switch {
				case isBeat(obj):
					beats++
				case first == nil && obj["line"] == "1":
					first = obj
				default:
					cancel()
					t.Fatalf("while the command runs, a line that is neither the first item nor a heartbeat: %v", obj)
				}
			}
			if first["child_pythonunbuffered"] != "1" {
				t.Errorf("the child's PYTHONUNBUFFERED is %q, want 1", first["child_pythonunbuffered"])
			}
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			w.Close()
			var last map[string]any
			second := false
			for lines.Scan() {
				last = nil // a fresh map a line: Unmarshal would merge into the last one
				if err := json.Unmarshal(lines.Bytes(), &last); err != nil {
					t.Fatalf("line %q is not JSON: %v", lines.Text(), err)
				}
				second = second || last["line"] == "2"
			}
			if !second || last["_summary"] != true || last["total"] != 2.0 {
				t.Errorf("after the fifo opened: second item %v, last line %v; want the item, then the summary line of 2 items", second, last)
			}
		})
	}
}
