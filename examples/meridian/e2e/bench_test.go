//go:build linux

package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/mcp"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/examples/meridian/internal/commands"
	"github.com/duet-cli/duet/examples/meridian/internal/state"
	"github.com/duet-cli/duet/examples/meridian/internal/state/statetest"
	"github.com/duet-cli/duet/examples/meridian/internal/web"
	"github.com/duet-cli/duet/internal/mcptest"
)

// BenchmarkLargeSpace times whole meridian processes — start, read 100,000
// runs (300,000 events of runs.jsonl), answer — as an agent calls them:
//
//	go test -run XXX -bench LargeSpace -benchtime 20x ./examples/meridian/e2e
func BenchmarkLargeSpace(b *testing.B) {
	const runs = 100_000
	dir := b.TempDir()
	root := state.Root{Dir: filepath.Join(dir, ".meridian")}
	sp, err := root.CreateSpace(context.Background(), "bench", time.Now())
	if err != nil {
		b.Fatal(err)
	}
	if err := statetest.WriteRuns(filepath.Join(root.SpaceDir(sp.ID), "runs.jsonl"), runs); err != nil {
		b.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "MERIDIAN_SPACE_ID=" + sp.ID}
	tally := filepath.Join(root.SpaceDir(sp.ID), "runs.tally.json")
	for _, tc := range []struct {
		name string
		args []string
		cold bool // without the tally a previous stats left
	}{
		{"list", []string{"run", "list"}, false},
		{"list-failed", []string{"run", "list", "--status", "failed"}, false},
		{"stats", []string{"run", "stats"}, false},
		{"stats-cold", []string{"run", "stats"}, true},
		{"show", []string{"run", "show", "r99999"}, false},
	} {
		run := func(b *testing.B) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Env, cmd.Dir = env, dir
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%s: %v\n%s", tc.args, err, out)
			}
		}
		b.Run(tc.name, func(b *testing.B) {
			run(b) // as a space is read after its first stats
			for b.Loop() {
				if tc.cold {
					b.StopTimer()
					os.Remove(tally)
					b.StartTimer()
				}
				run(b)
			}
		})
	}
	// What the web UI's server takes to answer everything the dashboard
	// asks for to show this space: the spaces, the first page of its runs,
	// their totals and its chats.
	ui := (&web.Server{Exe: bin, Dir: dir, Env: env[:2], StateDir: root.Dir, Token: "t"}).Handler()
	b.Run("ui-first-page", func(b *testing.B) {
		for b.Loop() {
			for _, path := range []string{"/api/spaces", "/api/spaces/" + sp.ID + "/runs?limit=50", "/api/spaces/" + sp.ID + "/stats", "/api/spaces/" + sp.ID} {
				req := httptest.NewRequest("GET", path, nil)
				req.Header.Set(web.TokenHeader, "t")
				rec := httptest.NewRecorder()
				ui.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
				}
			}
		}
	})
}

// BenchmarkWait measures what `run wait` costs in CPU (user + system, of the
// process and of the job it starts) for a run of one second and for one of
// three: the difference, halved, is the cost of waiting a second, near zero
// for a wait that sleeps (bench/meridian.sh prints it). A lock retried every
// 5 ms made it 75 ms.
//
//	go test -run XXX -bench Wait -benchtime 5x ./examples/meridian/e2e
func BenchmarkWait(b *testing.B) {
	for _, tc := range []struct{ name, prompt string }{
		{"1s", "[fake:sleep=1s] slowly"},
		{"3s", "[fake:sleep=3s] slowly"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			sb := newSandbox(b)
			env := sb.env // the first spawn creates s1
			var cpu time.Duration
			for range b.N {
				b.StopTimer()
				var spawned struct{ ID string }
				sb.ok(b, env, &spawned, "run", "spawn", "-p", tc.prompt)
				env = sb.inSpace("s1")
				b.StartTimer()
				r := sb.run(b, env, "run", "wait", spawned.ID)
				if r.code != 0 {
					b.Fatalf("run wait %s: exit %d: %s", spawned.ID, r.code, r.stdout)
				}
				cpu += r.cpu
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkToolCall times one MCP tools/call of models_list, a client and
// meridian's server joined in memory, with each runner: the command run in
// the server's process on an app made for the call (mcp.InProcess), and in
// a child process, the default (mcp.Exec):
//
//	go test -run XXX -bench ToolCall ./examples/meridian/e2e
func BenchmarkToolCall(b *testing.B) {
	dir := b.TempDir()
	vars := []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	env := commands.Env{
		Getenv: func(k string) string {
			for _, kv := range vars {
				if v, ok := strings.CutPrefix(kv, k+"="); ok {
					return v
				}
			}
			return ""
		},
		Environ: func() []string { return vars }, Dir: dir, Exe: bin, Now: time.Now,
	}
	newApp := func() (adapters.Framework, error) {
		return urfave.Wrap(commands.New(env), commands.Options("0.1.0")...)
	}
	child := mcp.Exec(bin)
	child.Env = vars
	mcptest.BenchToolCall(b, newApp, []adapters.Option{adapters.WithEnv(vars), adapters.WithWorkDir(dir)}, child, "models_list", map[string]any{})
}
