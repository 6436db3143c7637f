//go:build !nomcp && unix

package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/mcp"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/internal/mcptest"
)

// BenchmarkToolCall times one MCP tools/call of list over 100 to-dos, a
// client and todo's server joined in memory, with each runner: the command
// run in the server's process on an app made for the call (mcp.InProcess),
// and in a child process, the default (mcp.Exec):
//
//	go test -run XXX -bench ToolCall ./examples/todo/cmd/todo
func BenchmarkToolCall(b *testing.B) {
	dir := b.TempDir()
	env := []string{"TODO_FILE=" + filepath.Join(dir, "todo.json"), "TODO_CONFIG_DIR=" + filepath.Join(dir, "config"), "HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	for range 100 {
		if code := urfave.Run(context.Background(), newApp(), []string{"add", "benchmark item"},
			adapters.WithEnv(env), adapters.WithStdio(strings.NewReader(""), io.Discard, io.Discard)); code != 0 {
			b.Fatalf("todo add: exit %d", code)
		}
	}
	bin := filepath.Join(dir, "todo")
	//duetvet:allow rawexec -- building the binary the exec runner runs
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	newTodo := func() (adapters.Framework, error) { return urfave.Wrap(newApp(), wrapping()...) }
	child := mcp.Exec(bin)
	child.Env = env
	mcptest.BenchToolCall(b, newTodo, []adapters.Option{adapters.WithEnv(env)}, child, "list", map[string]any{})
}
