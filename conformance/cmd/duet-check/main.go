// Command duet-check judges any command-line binary by the CLI Agent Spec,
// black-box (see package conformance), and is itself built on Duet: a person
// gets a table, an agent one envelope whose data is the report.
//
//	duet-check ./mytool
//	duet-check --long-running watch -- ./mytool --profile ci
//	duet-check agents-md AGENTS.md ./mytool
//	duet-check artifacts ./mytool
package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/conformance"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/profile"
	"github.com/duet-cli/duet/schema"
)

var version = "dev"

// nonconforming is the exit code of a check that found a required
// requirement failing.
const nonconforming exitcode.Code = 80

func main() {
	// The checker runs the binaries it judges: inside namespaces of their
	// own where the kernel allows, so that no probe reaches the network or
	// writes outside the sandbox. Its own audit log and profiles stay
	// writable for it, and out of the targets' sight: it reaches them by
	// the paths conformance.OwnDir gives, set here as the runtime's.
	// The kit is the exception: it runs only what its profile names, on
	// the sandbox the profile's author set up, as the spec's kit does.
	app, opts := newApp(), []adapters.Option{adapters.WithVersion(version), adapters.WithSpecStrict()}
	if !runsKit(app, os.Args[1:], opts) {
		own := ownState(os.Getenv)
		var dirs []string
		for _, o := range own {
			dirs = append(dirs, o.dir)
		}
		if code, done := conformance.Isolate(dirs...); done {
			os.Exit(code)
		}
		for _, o := range own {
			os.Setenv(o.env, filepath.Join(conformance.OwnDir(o.dir), o.file))
		}
	}
	urfave.Main(app, opts...)
}

// runsKit reports whether args run the kit command, read as the app will
// read them. The app is wrapped with the options it runs with: a second
// Wrap keeps the first's tree.
func runsKit(app *cli.Command, args []string, opts []adapters.Option) bool {
	wrapped, err := urfave.Wrap(app, opts...)
	if err != nil {
		return false
	}
	p := wrapped.Parse(args)
	return p.Err == nil && !p.Help && p.Node != nil && slices.Equal(p.Node.Path, []string{kitName})
}

// ownFile is one place of the checker's own state: its directory, the
// variable the runtime reads it from, and the file's name there ("" when
// the variable names the directory).
type ownFile struct{ dir, env, file string }

// ownState is where the checker keeps its own state: the audit log, when
// it is on (DUET_CHECK_AUDIT_LOG), and the profiles.
func ownState(getenv func(string) string) []ownFile {
	var own []ownFile
	const auditEnv = "DUET_CHECK_AUDIT_LOG"
	audit := getenv(auditEnv)
	if audit == "1" {
		audit = adapters.AuditLogPath("duet-check", getenv)
	}
	if filepath.IsAbs(audit) {
		own = append(own, ownFile{filepath.Dir(audit), auditEnv, filepath.Base(audit)})
	}
	if profiles, err := profile.Path("duet-check", getenv); err == nil {
		own = append(own, ownFile{filepath.Dir(profiles), "DUET_CHECK_CONFIG_DIR", ""})
	}
	return own
}

func newApp() *cli.Command {
	check := urfave.Annotate(&cli.Command{
		Name:      "check",
		Usage:     "Run the conformance probes against a binary and report per requirement",
		ArgsUsage: "<binary> [args...]",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "long-running", Usage: "a command (dot path) to send signals to; repeat for more"},
			&cli.StringSliceFlag{Name: "env", Usage: "KEY=value for the target's environment; repeat for more"},
			&cli.DurationFlag{Name: "probe-timeout", Value: 10 * time.Second, Usage: "kill a run of the target after this long"},
			&cli.IntFlag{Name: "max-commands", Value: 100, Usage: "crawl at most this many commands from --help"},
			&cli.DurationFlag{Name: "budget", Value: time.Minute, Usage: "spend at most this long on the whole check (the crawl of --help at most half); runs it leaves out are not judged"},
			&cli.StringSliceFlag{Name: "read-only", Usage: "a command line that only reads (\"status\", \"log -1\"), run as an agent and at a terminal; repeat for more"},
			&cli.BoolFlag{Name: "markdown", Usage: "render the report as a markdown scorecard (failure modes scored 0–3) rather than a table"},
			&cli.BoolFlag{Name: "pipe-only", Usage: "run the target only on a bare pipe, not again as a coding agent runs it (" + agentMarker + ")"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			args := cmd.Args().Slice()
			target := conformance.Target{Path: args[0], Args: args[1:], Env: cmd.StringSlice("env")}
			opts := conformance.Options{
				ProbeTimeout: cmd.Duration("probe-timeout"),
				LongRunning:  cmd.StringSlice("long-running"),
				MaxCommands:  cmd.Int("max-commands"),
				Budget:       cmd.Duration("budget"),
				ReadOnly:     readOnly(cmd.StringSlice("read-only")),
			}
			// A bare pipe is a script to most tools, which give an agent
			// what it needs only when it says it is one: the check runs
			// again as a coding agent runs the target, at the same time,
			// unless the caller set that up already.
			targets := []conformance.Target{target}
			if !cmd.Bool("pipe-only") && !marked(target.Env) {
				agent := target
				agent.Env = append(slices.Clone(target.Env), agentMarker)
				targets = append(targets, agent)
			}
			reports, err := conformance.CheckEach(ctx, targets, opts)
			if err != nil {
				return envelope.Errorf(exitcode.GeneralError, "CHECK_FAILED", "%w", err)
			}
			res := checked{Report: reports[0]}
			if len(reports) > 1 {
				res.AsAgent = reports[1]
			}
			out := envelope.From(ctx)
			out.RenderText(func(w io.Writer) error { return res.write(w, cmd.Bool("markdown"), out.Mode().Color) })
			if err := out.Result(res); err != nil {
				return err
			}
			if judged := res.judged(); !judged.OK() {
				return envelope.Errorf(nonconforming, "NONCONFORMANT", "%s does not conform%s: %v", target.Path, res.as(), judged.Failed()).
					WithSuggestion("see each failing requirement's evidence in data.requirements (data.as_agent.requirements for the agent's run)").
					WithResult()
			}
			return nil
		},
	}, schema.Meta{
		Danger: schema.Safe,
		// What a CLI needs to be judged well (its read-only commands, its
		// long-running ones, the budget) is saved once with
		// `profile save <name> ...` and applied with --profile <name>.
		Flags: map[string]schema.FlagMeta{
			"read-only": {Profile: true}, "long-running": {Profile: true}, "env": {Profile: true},
			"budget": {Profile: true}, "probe-timeout": {Profile: true}, "max-commands": {Profile: true},
		},
		Output:  schema.Of[checked](),
		Timeout: schema.NoTimeout,
		Args:    []schema.Arg{{Name: "binary", Usage: "the program to check", Required: true}, {Name: "args", Usage: "fixed leading arguments", Variadic: true}},
		ExitCodes: exitcode.Table{nonconforming: {
			Name: "NONCONFORMANT", Description: "The check ran; a required requirement failed.", SideEffects: exitcode.None,
		}},
		Examples: []schema.Example{{Description: "check a binary", Command: "check ./mytool"}},
	})
	return &cli.Command{
		Name:     "duet-check",
		Usage:    "Check how well a command-line tool serves agents",
		Commands: []*cli.Command{check, kitCommand(), agentsMD(), artifacts()},
	}
}

// agentMarker is what a coding agent (Claude Code) sets in the environment
// of the commands it runs: the second run of a check has it.
const agentMarker = "CLAUDECODE=1"

// marked reports whether env already says an agent runs the target.
func marked(env []string) bool {
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "CLAUDECODE", "CODEX_SANDBOX", "GEMINI_CLI", "OPENCODE", "CURSOR_AGENT", "AGENT":
			return true
		}
	}
	return false
}

// checked is what `duet-check check` answers: the target judged on a bare
// pipe (the report's own fields, as a script runs it) and, unless
// --pipe-only, again as a coding agent runs it (as_agent). The verdict is
// the agent's: the CLI Agent Spec is about what an agent gets.
type checked struct {
	*conformance.Report
	AsAgent *conformance.Report `json:"as_agent,omitempty"`
}

// judged is the report the verdict rests on.
func (c checked) judged() *conformance.Report {
	if c.AsAgent != nil {
		return c.AsAgent
	}
	return c.Report
}

// as says whose run failed, for the error's message.
func (c checked) as() string {
	if c.AsAgent != nil {
		return " for an agent (" + agentMarker + ")"
	}
	return ""
}

// write renders both reports for a person: the agent's run first, which
// the verdict rests on, then the bare pipe's.
func (c checked) write(w io.Writer, markdown, color bool) error {
	write := func(r *conformance.Report) error {
		if markdown {
			return r.WriteMarkdown(w)
		}
		return r.WriteTable(w, color)
	}
	if c.AsAgent == nil {
		return write(c.Report)
	}
	for _, part := range []struct {
		title string
		r     *conformance.Report
	}{{"As a coding agent runs it (" + agentMarker + "):", c.AsAgent}, {"On a bare pipe, as a script runs it:", c.Report}} {
		if _, err := io.WriteString(w, part.title+"\n\n"); err != nil {
			return err
		}
		if err := write(part.r); err != nil {
			return err
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	return nil
}

// readOnly splits each command line into its words, at spaces.
func readOnly(lines []string) [][]string {
	var out [][]string
	for _, l := range lines {
		if words := strings.Fields(l); len(words) > 0 {
			out = append(out, words)
		}
	}
	return out
}
