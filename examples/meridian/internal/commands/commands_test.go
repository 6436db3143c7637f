package commands_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/adaptertest"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/examples/meridian/internal/commands"
	"github.com/duet-cli/duet/examples/meridian/internal/harnesstest"
	"github.com/duet-cli/duet/examples/meridian/internal/run"
)

// TestMain lets this test binary be a run's supervisor too: spawns made in
// process start it as `<test binary> __supervise <run-dir>`.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == run.SupervisorArg {
		os.Exit(run.SupervisorMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// app wraps meridian for one project directory, with env as its whole
// environment — the one the commands read and the one Duet detects the
// audience from.
func app(t *testing.T, dir string, env map[string]string) *urfave.App {
	t.Helper()
	list := make([]string, 0, len(env))
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	e := commands.Env{
		Getenv:  func(k string) string { return env[k] },
		Environ: func() []string { return list },
		Dir:     dir,
		Exe:     os.Args[0],
		Now:     time.Now,
	}
	a, err := urfave.Wrap(commands.New(e), append(commands.Options("test"), adapters.WithEnv(list))...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestDeclarations(t *testing.T) {
	a := app(t, t.TempDir(), nil)
	adaptertest.AssertDeclarations(t, a)
	if w := adaptertest.Warnings(a); len(w) > 0 {
		t.Errorf("declarations to fix:\n%s", strings.Join(w, "\n"))
	}
}

// TestOutputSchemas runs every command that answers with data and holds the
// data to the output schema the command declares.
func TestOutputSchemas(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{
		"HOME": filepath.Join(dir, "home"),
		"PATH": harnesstest.Install(t) + ":" + os.Getenv("PATH"),
	}
	skill := filepath.Join(dir, ".meridian", "skills", "go", "SKILL.md")
	os.MkdirAll(filepath.Dir(skill), 0o755)
	os.WriteFile(skill, []byte("---\ndescription: Go style\n---\nKeep packages small.\n"), 0o644)

	steps := []struct {
		args  []string
		space bool // run with MERIDIAN_SPACE_ID=s1
	}{
		{args: []string{"init"}},
		{args: []string{"config", "show"}},
		{args: []string{"run", "spawn", "-p", "hello", "-s", "go", "--wait"}},
		{args: []string{"run", "spawn", "-p", "again"}, space: true},
		{args: []string{"run", "wait"}, space: true},
		{args: []string{"run", "continue", "r1", "-p", "more", "--wait"}, space: true},
		{args: []string{"run", "list"}, space: true},
		{args: []string{"run", "show", "r1"}, space: true},
		{args: []string{"run", "stats"}, space: true},
		{args: []string{"space", "list"}},
		{args: []string{"space", "show", "s1"}},
		{args: []string{"skills", "list"}},
		{args: []string{"skills", "show", "go"}},
		{args: []string{"models", "list"}},
		{args: []string{"models", "show", "codex"}},
		{args: []string{"doctor"}},
		{args: []string{"space", "close", "s1", "--yes"}},
	}
	for _, st := range steps {
		t.Run(strings.Join(st.args, " "), func(t *testing.T) {
			e := env
			if st.space {
				e = map[string]string{"MERIDIAN_SPACE_ID": "s1"}
				for k, v := range env {
					e[k] = v
				}
			}
			var list []string
			for k, v := range e {
				list = append(list, k+"="+v)
			}
			r := adaptertest.Run(t, app(t, dir, e), st.args, list...)
			r.AssertOK(t)
			r.AssertOutputSchema(t)
		})
	}
}
