package completion_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/completion"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/schema"
)

// newApp is a small app with what a script must get right: an alias, a
// short flag, flags inherited from the root, enums on flags and on an
// argument, a command three levels down, and what must stay out — a hidden
// command, a hidden flag, a command for agents only.
func newApp() *cli.Command {
	noop := func(context.Context, *cli.Command) error { return nil }
	list := urfave.Annotate(&cli.Command{
		Name: "list", Aliases: []string{"ls"}, Usage: "List notes",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "status", Aliases: []string{"s"}, Usage: "open, done or all"},
			&cli.IntFlag{Name: "min-words", Usage: "only notes at least this long"},
			&cli.StringFlag{Name: "debug-token", Hidden: true, Usage: "for maintainers"},
		},
		Action: noop,
	}, schema.Meta{Danger: schema.Safe, List: true, Flags: map[string]schema.FlagMeta{"status": {Enum: []string{"open", "done", "all"}}}})
	add := urfave.Annotate(&cli.Command{Name: "add", Usage: "Add a note", Action: noop},
		schema.Meta{Danger: schema.Mutating, Args: []schema.Arg{{Name: "title", Required: true, Type: schema.String}}})
	set := urfave.Annotate(&cli.Command{Name: "set", Usage: "Set a note's colour tag", Action: noop},
		schema.Meta{Danger: schema.Mutating, Args: []schema.Arg{
			{Name: "id", Required: true, ID: true, Type: schema.String},
			{Name: "colour", Required: true, Type: schema.String, Enum: []string{"red", "green", "blue"}},
		}})
	note := &cli.Command{Name: "note", Usage: "Work on one note", Commands: []*cli.Command{
		add,
		{Name: "tag", Usage: "Tag a note", Commands: []*cli.Command{set}},
	}}
	secret := urfave.Annotate(&cli.Command{Name: "secret", Hidden: true, Action: noop}, schema.Meta{Danger: schema.Safe})
	sync := urfave.Annotate(&cli.Command{Name: "sync", Usage: "Sync for an agent", Action: noop},
		schema.Meta{Danger: schema.Safe, Audience: schema.AgentOnly})
	setup := urfave.Annotate(&cli.Command{Name: "setup", Usage: "Set up, for people", Action: noop},
		schema.Meta{Danger: schema.Safe, Audience: schema.HumanOnly})
	return urfave.Annotate(&cli.Command{
		Name: "notes", Usage: "Notes for tests",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "where the notes are"},
			&cli.StringFlag{Name: "color", Aliases: []string{"colour"}, Usage: "when to use colour"},
		},
		Commands: []*cli.Command{list, note, secret, sync, setup},
	}, schema.Meta{Flags: map[string]schema.FlagMeta{"color": {Enum: []string{"auto", "always", "never"}}}})
}

// leftOut are names of what the scripts must not offer, nor even mention.
var leftOut = []string{"secret", "debug-token", "sync", "__complete"}

func wrap(t testing.TB) adapters.Framework {
	t.Helper()
	app, err := urfave.Wrap(newApp(), adapters.WithVersion("1.0.0"), completion.Command("completion"))
	if err != nil {
		t.Fatal(err)
	}
	return app
}

// run runs one command line of the app in process, on a person's terminal
// (Console) or as an agent would (Piped: the app is spec-strict).
func run(t testing.TB, terminal adapters.Terminal, args ...string) (stdout string, code int) {
	t.Helper()
	stdout, _, code = runAll(t, terminal, args...)
	return stdout, code
}

// runAll is run, with stderr too.
func runAll(t testing.TB, terminal adapters.Terminal, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errs strings.Builder
	code = adapters.Run(context.Background(), wrap(t), args,
		adapters.WithStdio(strings.NewReader(""), &out, &errs),
		adapters.WithEnv(nil),
		adapters.WithTerminal(terminal),
		adapters.WithSpecStrict(),
		adapters.WithRequestID(func() string { return "test" }))
	return out.String(), errs.String(), code
}

// script returns the app's completion script for shell.
func script(t testing.TB, shell string) string {
	t.Helper()
	out, code := run(t, adapters.Piped, "completion", shell)
	if code != 0 {
		t.Fatalf("completion %s: exit %d: %s", shell, code, out)
	}
	return out
}

// scriptFile writes the script for shell into a directory of its own.
func scriptFile(t testing.TB, shell string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "notes."+shell)
	if err := os.WriteFile(path, []byte(script(t, shell)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// needShell returns the path of a shell, skipping the test without it.
func needShell(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed (apt-get install %s): its script is not exercised", name, name)
	}
	return path
}

// filesDir is a working directory with a file and a directory in it, for
// values that complete as files.
func filesDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "nested"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// shellEnv is a clean environment for a shell: no rc files, no history.
func shellEnv(t testing.TB) []string {
	home := t.TempDir()
	return []string{
		"HOME=" + home, "XDG_CONFIG_HOME=" + home, "XDG_DATA_HOME=" + home, "XDG_CACHE_HOME=" + home,
		"PATH=" + os.Getenv("PATH"), "TERM=xterm", "LANG=C.UTF-8", "INPUTRC=/dev/null",
	}
}

// sorted is s sorted, and nil when empty: shells list candidates in orders
// of their own.
func sorted(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// Candidates the cases of every shell share.
var (
	rootCommands = []string{"audit-log", "completion", "describe", "doctor", "exec", "list", "manifest", "note", "setup", "status"}
	// listFlags are what `notes list` accepts, its own and inherited,
	// Duet's built-ins among them, by every spelling but the hidden one.
	listFlags = []string{
		"--color", "--colour", "--cursor", "--cwd", "--debug", "--dir", "--fields", "--format", "--help", "--instance-id", "--limit", "--min-words", "--no-update-check", "--output", "--output-schema", "--quiet", "--schema", "--show-config", "--stable-output", "--status", "--stream", "--timeout", "--token-count", "--token-limit", "--token-offset", "--tokenizer", "--unmask", "--validate-only", "--verbose", "--warnings-as-errors", "--width", "-h", "-s",
	}
)
