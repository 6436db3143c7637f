// Package mcptest helps test and time an app's MCP server: start one over
// HTTP as a person does and learn its address, and time a tools/call
// through a client joined to it in memory.
package mcptest

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/mcp"
)

// ServeHTTP starts cmd, a `serve --http` command line, and returns the URL
// the server says on stderr that it serves at, with the lines it said
// before. When the test ends the server is sent stop, and must exit with
// exit.
func ServeHTTP(t testing.TB, cmd *exec.Cmd, stop os.Signal, exit int) (url string, said []string) {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(stop)
		if err := cmd.Wait(); cmd.ProcessState.ExitCode() != exit {
			t.Errorf("%s after %v: %v, exit %d; want %d", strings.Join(cmd.Args, " "), stop, err, cmd.ProcessState.ExitCode(), exit)
		}
	})
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		if url, ok := strings.CutPrefix(lines.Text(), "serving MCP at "); ok {
			go func() { // read on, so the server never blocks on stderr
				for lines.Scan() {
				}
			}()
			return url, said
		}
		said = append(said, lines.Text())
	}
	t.Fatalf("%s said no address: %q", strings.Join(cmd.Args, " "), said)
	return "", nil
}

// BenchToolCall times tools/call of tool with args, with each runner as a
// sub-benchmark: "in-process", the commands run on an app newApp makes
// for the call (mcp.InProcess with opts), and "exec", run by child. Each
// reports the median call (median-ms) beside the mean; bench/mcp.sh reads
// both by these names.
func BenchToolCall(b *testing.B, newApp func() (adapters.Framework, error), opts []adapters.Option, child mcp.Runner, tool string, args map[string]any) {
	for _, r := range []struct {
		name   string
		runner mcp.Runner
	}{{"in-process", mcp.InProcess(newApp, opts...)}, {"exec", child}} {
		b.Run(r.name, func(b *testing.B) {
			app, err := newApp()
			if err != nil {
				b.Fatal(err)
			}
			benchCall(b, app, r.runner, tool, args)
		})
	}
}

// benchCall times tools/call of tool with args, app's server running its
// commands with runner.
func benchCall(b *testing.B, app adapters.Framework, runner mcp.Runner, tool string, args map[string]any) {
	b.Helper()
	s, err := mcp.NewServer(app, mcp.WithRunner(runner))
	if err != nil {
		b.Fatal(err)
	}
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		b.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &sdk.CallToolParams{Name: tool, Arguments: args}
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-ms")
}
