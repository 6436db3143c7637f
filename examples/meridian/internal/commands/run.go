package commands

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/examples/meridian/internal/config"
	"github.com/duet-cli/duet/examples/meridian/internal/run"
	"github.com/duet-cli/duet/examples/meridian/internal/space"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// Patterns of the ids an agent passes: checked before anything runs, so a
// made-up "<run-id>" is refused as input, not looked for.
const (
	spaceIDPattern = `^s[1-9][0-9]*$`
	runIDPattern   = `^r[1-9][0-9]*$`
	// A skill is named as Agent Skills are: lowercase letters, digits and
	// hyphens.
	skillNamePattern = `^[a-z0-9][a-z0-9-]{0,63}$`
)

var (
	sandboxes = []string{"read-only", "workspace-write", "full-access"}
	statuses  = []string{"running", "succeeded", "failed", "cancelled"}
)

func (e Env) runCommand() *cli.Command {
	detail := schema.Of[run.Detail]()
	runArg := schema.Arg{Name: "run-id", Type: schema.String, ID: true, Pattern: runIDPattern, Usage: "a run of the space, such as r3"}
	codes := run.Codes.Merge(space.Codes)
	return urfave.Annotate(&cli.Command{
		Name:     "run",
		Category: catRuns,
		Usage:    "Spawn, continue and inspect agent runs",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "space", Usage: "the space to work in (default: $MERIDIAN_SPACE_ID)", Sources: cli.EnvVars(space.EnvID)},
		},
		Commands: []*cli.Command{
			urfave.Annotate(&cli.Command{
				Name:  "spawn",
				Usage: "Start a new agent run (new conversation)",
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: "prompt", Aliases: []string{"p"}, Required: true, Usage: "what the agent is asked to do"},
					&cli.StringFlag{Name: "agent", Aliases: []string{"a"}, Usage: "an agent profile of .meridian/agents or ~/.meridian/agents"},
					&cli.StringSliceFlag{Name: "skills", Aliases: []string{"s"}, Usage: "skills to load, by name; repeat or separate with commas"},
					&cli.StringFlag{Name: "sandbox", Usage: "what the agent may touch: read-only, workspace-write or full-access (default: the profile's)"},
				}, turnFlags()...),
				Action: func(ctx context.Context, cmd *cli.Command) error {
					r, err := e.runner(ctx, cmd)
					if err != nil {
						return err
					}
					d, err := r.Spawn(ctx, run.SpawnRequest{Space: cmd.String("space"), Prompt: cmd.String("prompt"),
						Model: cmd.String("model"), Agent: cmd.String("agent"), Skills: cmd.StringSlice("skills"),
						Files: cmd.StringSlice("file"), AppendSystemPrompt: cmd.String("append-system-prompt"),
						Sandbox: cmd.String("sandbox"), Timeout: cmd.Duration("run-timeout"), Wait: cmd.Bool("wait")})
					return started(ctx, d, err)
				},
			}, schema.Meta{Danger: schema.Mutating, Output: detail, Timeout: schema.NoTimeout, ExitCodes: codes,
				Flags:      map[string]schema.FlagMeta{"sandbox": {Enum: sandboxes}, "model": {Subprocess: true}, "file": {Path: schema.InProject}},
				Subprocess: harnessProgram, Background: supervisor,
				Validate: e.validateSpawn, // the run is planned before anything is written, with --validate-only too
				Examples: []schema.Example{
					{Description: "start a run and go on", Command: `run spawn -p "review the auth module" -m opus`},
					{Description: "start a run with a profile and wait for its report", Command: `run spawn -a reviewer -p "review src/auth" --wait`},
				}}),
			urfave.Annotate(&cli.Command{
				Name:      "continue",
				Usage:     "Continue a previous run's conversation",
				ArgsUsage: "[run-id]",
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: "prompt", Aliases: []string{"p"}, Required: true, Usage: "the next message of the conversation"},
					&cli.BoolFlag{Name: "fork", Usage: "continue in a fork of the conversation, leaving the original as it was"},
				}, turnFlags()...),
				Action: func(ctx context.Context, cmd *cli.Command) error {
					r, err := e.runner(ctx, cmd)
					if err != nil {
						return err
					}
					d, err := r.Continue(ctx, run.ContinueRequest{Space: cmd.String("space"), Run: cmd.Args().First(),
						Prompt: cmd.String("prompt"), Model: cmd.String("model"), Files: cmd.StringSlice("file"),
						AppendSystemPrompt: cmd.String("append-system-prompt"), Fork: cmd.Bool("fork"),
						Timeout: cmd.Duration("run-timeout"), Wait: cmd.Bool("wait")})
					return started(ctx, d, err)
				},
			}, schema.Meta{Danger: schema.Mutating, Output: detail, Timeout: schema.NoTimeout, ExitCodes: codes.Merge(exitcode.Table{
				exitcode.Conflict: {Description: "The run is still running: wait for it first.", Retryable: true, SideEffects: exitcode.None},
			}),
				Flags:      map[string]schema.FlagMeta{"model": {Subprocess: true}, "file": {Path: schema.InProject}},
				Subprocess: harnessProgram, Background: supervisor,
				Validate: e.validateContinue,
				Args:     []schema.Arg{{Name: "run-id", Type: schema.String, ID: true, Pattern: runIDPattern, Usage: "the run to continue (default: the last run of the current chat)"}},
				Examples: []schema.Example{
					{Description: "ask a finished run a follow-up", Command: `run continue r3 -p "now add tests" --wait`},
				}}),
			urfave.Annotate(&cli.Command{
				Name:  "list",
				Usage: "List runs",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "status", Usage: "only runs in this status"},
					&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "only runs of this model"},
					&cli.StringFlag{Name: "agent", Aliases: []string{"a"}, Usage: "only runs of this agent profile"},
				},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					r, err := e.runner(ctx, cmd)
					if err != nil {
						return err
					}
					out := envelope.From(ctx)
					w, paged := out.Window()
					l, err := r.List(ctx, cmd.String("space"), filter(cmd), w, paged)
					switch {
					case err != nil:
						return err
					case !paged:
						return out.Result(l.Runs)
					case l.Counted:
						return out.Page(l.Runs, l.Total)
					}
					return out.PageMore(l.Runs, l.More)
				},
			}, schema.Meta{Danger: schema.Safe, List: true, Output: schema.Of[[]run.Summary](), ExitCodes: codes,
				Flags: map[string]schema.FlagMeta{"status": {Enum: statuses}},
				Examples: []schema.Example{
					{Description: "the failed runs, ids only", Command: "run list --status failed --format id"},
				}}),
			urfave.Annotate(&cli.Command{
				Name:  "review",
				Usage: "Have one agent implement a task and another review the change it made",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "prompt", Aliases: []string{"p"}, Required: true, Usage: "the task the implementer is given"},
					&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "the implementer's model, an id or alias of the catalog"},
					&cli.StringFlag{Name: "review-model", Usage: "the reviewer's model (default: the implementer's)"},
					&cli.DurationFlag{Name: "run-timeout", Usage: "stop each run, with everything it started, after this long (default: [timeouts] run, 30m)"},
				},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					r, err := e.runner(ctx, cmd)
					if err != nil {
						return err
					}
					rv, err := r.Review(ctx, run.ReviewRequest{Space: cmd.String("space"), Prompt: cmd.String("prompt"),
						Model: cmd.String("model"), ReviewModel: cmd.String("review-model"), Timeout: cmd.Duration("run-timeout")})
					if rv.Implement != nil { // the runs so far are the answer, whatever stage failed
						renderReviewed(ctx, rv)
						envelope.From(ctx).Result(rv)
					}
					return err
				},
				// Not a tool: the MCP surface is the seed's 11 tools.
			}, schema.Meta{Danger: schema.Mutating, Output: schema.Of[run.Reviewed](), Timeout: schema.NoTimeout, ExitCodes: codes, Tool: schema.ToolNever,
				Flags:      map[string]schema.FlagMeta{"model": {Subprocess: true}, "review-model": {Subprocess: true}},
				Subprocess: harnessProgram, Background: supervisor,
				Examples: []schema.Example{
					{Description: "Claude implements, Codex reviews", Command: `run review -p "add a hello.py" -m opus --review-model codex`},
				}}),
			urfave.Annotate(&cli.Command{
				Name:      "show",
				Usage:     "Show run details",
				ArgsUsage: "<run-id>",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					r, err := e.runner(ctx, cmd)
					if err != nil {
						return err
					}
					d, err := r.Show(ctx, cmd.String("space"), cmd.Args().First())
					if err == nil {
						renderDetail(ctx, d)
					}
					return result(ctx, d, err)
				},
			}, schema.Meta{Danger: schema.Safe, Output: detail, ExitCodes: codes, Args: []schema.Arg{withRequired(runArg)}}),
			urfave.Annotate(&cli.Command{
				Name:      "output",
				Usage:     "Show what a run's harness has printed so far, from a byte on: follow a run while it runs",
				ArgsUsage: "<run-id>",
				Flags:     []cli.Flag{&cli.IntFlag{Name: "from", Usage: "the byte to start at: the last answer's to"}},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					r, err := e.runner(ctx, cmd)
					if err != nil {
						return err
					}
					o, err := r.Output(ctx, cmd.String("space"), cmd.Args().First(), int64(max(cmd.Int("from"), 0)), run.MaxOutput)
					return result(ctx, o, err)
				},
				// Not a tool: the MCP surface is the seed's 11 tools.
			}, schema.Meta{Danger: schema.Safe, Output: schema.Of[run.Output](), ExitCodes: codes, Tool: schema.ToolNever,
				Args: []schema.Arg{withRequired(runArg)},
				Examples: []schema.Example{
					{Description: "what run r3 printed since the last look, which ended at byte 4096", Command: "run output r3 --from 4096"},
				}}),
			urfave.Annotate(&cli.Command{
				Name:      "follow",
				Usage:     "Stream what a run's harness prints, a line at a time as it comes, until the run ends",
				ArgsUsage: "<run-id>",
				Flags:     []cli.Flag{&cli.IntFlag{Name: "from", Usage: "the byte to start at: the last line's at plus its length"}},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					r, err := e.runner(ctx, cmd)
					if err != nil {
						return err
					}
					out := envelope.From(ctx)
					_, err = r.Follow(ctx, cmd.String("space"), cmd.Args().First(), int64(max(cmd.Int("from"), 0)),
						func(l run.Line) error { return out.Item(l) })
					return err
				},
				// Not a tool: a stream has no one answer to give.
			}, schema.Meta{Danger: schema.Safe, Streaming: true, Output: schema.Of[[]run.Line](), ExitCodes: codes, Tool: schema.ToolNever,
				Args: []schema.Arg{withRequired(runArg)},
				Examples: []schema.Example{
					{Description: "follow run r3 until it ends, a JSON line per line it prints", Command: "run follow r3 --format jsonl"},
				}}),
			urfave.Annotate(&cli.Command{
				Name:      "cancel",
				Usage:     "Stop a running run, with everything it started",
				ArgsUsage: "<run-id>",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					r, err := e.runner(ctx, cmd)
					if err != nil {
						return err
					}
					d, err := r.Cancel(ctx, cmd.String("space"), cmd.Args().First())
					if err == nil {
						renderDetail(ctx, d)
					}
					return result(ctx, d, err)
				},
				// Not a tool — the MCP surface is the seed's 11 tools — but an
				// agent runs it: it is the data.cleanup_command of a run it
				// started, and a command for people only is refused to agents.
			}, schema.Meta{Danger: schema.Mutating, Output: detail, Timeout: schema.NoTimeout, ExitCodes: codes, Tool: schema.ToolNever,
				Args: []schema.Arg{withRequired(runArg)},
				Examples: []schema.Example{
					{Description: "stop a run left running in the background (its cleanup_command)", Command: "run cancel r3 --space s1"},
				}}),
			urfave.Annotate(&cli.Command{
				Name:  "stats",
				Usage: "Aggregate run statistics",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "only runs of this model"},
					&cli.StringFlag{Name: "agent", Aliases: []string{"a"}, Usage: "only runs of this agent profile"},
					&cli.StringFlag{Name: "chat", Usage: "only runs started in this chat (c1, c2 ...)"},
				},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					r, err := e.runner(ctx, cmd)
					if err != nil {
						return err
					}
					st, err := r.Stats(ctx, cmd.String("space"), filter(cmd))
					return result(ctx, st, err)
				},
			}, schema.Meta{Danger: schema.Safe, Output: schema.Of[run.Stats](), ExitCodes: codes,
				// The runs summed so far, so the next stats folds only what
				// was appended since; deleting it costs one full read.
				SideEffects: []schema.SideEffect{{Path: ".meridian/.spaces/{space}/runs.tally.json", Kind: schema.CacheFile}}}),
			urfave.Annotate(&cli.Command{
				Name:      "wait",
				Usage:     "Wait for running runs",
				ArgsUsage: "[run-id...]",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					r, err := e.runner(ctx, cmd)
					if err != nil {
						return err
					}
					w, err := r.Wait(ctx, cmd.String("space"), cmd.Args().Slice())
					if err == nil {
						renderWaited(ctx, w)
					}
					return result(ctx, w, err)
				},
				// A wait lasts as long as the runs do, longer than an agent's
				// call may: past the call's budget it goes on as a job, and the
				// call answers INCOMPLETE with the command that picks it up.
			}, schema.Meta{Danger: schema.Safe, Output: schema.Of[run.Waited](), Timeout: schema.NoTimeout,
				Interruption: &schema.Interruption{Detach: true},
				ExitCodes:    codes.Merge(exitcode.Table{exitcode.Timeout: {Description: "The runs did not end in time; they go on.", Retryable: true, SideEffects: exitcode.None}}),
				Args: []schema.Arg{{Name: "run-id", Type: schema.String, ID: true, Pattern: runIDPattern, Variadic: true,
					Usage: "runs to wait for (default: every running run of the space)"}},
				Examples: []schema.Example{
					{Description: "wait at most five minutes for two runs", Command: "run wait r3 r4 --timeout 5m"},
				}}),
		},
	}, schema.Meta{Flags: map[string]schema.FlagMeta{"space": spaceFlag()}})
}

// validateSpawn is run spawn's phase 1 (Meta.Validate): the run is planned
// as the spawn plans it — space, agent profile, model, skills, --file
// references, the harness's program — and nothing is written, so that
// --validate-only refuses what the spawn would, with the same answer. A
// value the declarations refuse (a malformed --space) is theirs to report.
func (e Env) validateSpawn(ctx context.Context, in schema.Input) error {
	if !declaredOK(in) {
		return nil
	}
	r, err := e.runnerWith(ctx, in.String("config"))
	if err != nil {
		return err
	}
	return r.CheckSpawn(ctx, run.SpawnRequest{Space: in.String("space"), Prompt: in.String("prompt"),
		Model: in.String("model"), Agent: in.String("agent"), Skills: listed(in.Strings("skills")),
		Files: listed(in.Strings("file")), AppendSystemPrompt: in.String("append-system-prompt"),
		Sandbox: in.String("sandbox")}, in.Has("prompt"))
}

// validateContinue is run continue's phase 1 (Meta.Validate), as
// validateSpawn is spawn's: the turn is planned, nothing written.
func (e Env) validateContinue(ctx context.Context, in schema.Input) error {
	if !declaredOK(in) || len(in.Args()) > 0 && !runIDRe.MatchString(in.Args()[0]) {
		return nil
	}
	r, err := e.runnerWith(ctx, in.String("config"))
	if err != nil {
		return err
	}
	req := run.ContinueRequest{Space: in.String("space"), Prompt: in.String("prompt"), Model: in.String("model"),
		Files: listed(in.Strings("file")), AppendSystemPrompt: in.String("append-system-prompt"), Fork: in.String("fork") == "true"}
	if len(in.Args()) > 0 {
		req.Run = in.Args()[0]
	}
	return r.CheckContinue(ctx, req, in.Has("prompt"))
}

var (
	spaceIDRe = regexp.MustCompile(spaceIDPattern)
	runIDRe   = regexp.MustCompile(runIDPattern)
)

// declaredOK reports whether the values a hook looks up passed their
// declared checks: a malformed --space is refused by its pattern, and is not
// looked up as well.
func declaredOK(in schema.Input) bool {
	sp := in.String("space")
	return sp == "" || spaceIDRe.MatchString(sp)
}

// listed is a list flag's values as urfave/cli hands them to the action:
// each value split at its commas.
func listed(values []string) []string {
	var out []string
	for _, v := range values {
		out = append(out, strings.Split(v, ",")...)
	}
	return out
}

// turnFlags are the flags of a run's turn, spawned or continued.
// harnessProgram is the program a run's input is passed to: the model's
// harness. Only --model is passed as an argument of its own; the prompt goes
// on stdin, and free text such as --append-system-prompt is passed as one
// argument, verbatim (no shell ever sees it).
var harnessProgram = schema.Subprocess{Binary: "the model's harness: claude, codex, opencode or gemini"}

// supervisor declares the run's supervisor, which a run starts in the
// background: it ends with the run, at the latest at the run's time limit
// (the default's is declared); SIGTERM to it cancels the run, recorded as
// cancelled, which is what `run cancel` does. The answer's
// data.cleanup_command names the run.
var supervisor = &schema.Background{
	CleanupCommand: "meridian run cancel <run-id> --space <space>",
	MaxLifetime:    config.Default().Timeouts.Run + config.Default().Timeouts.KillGrace,
}

func turnFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "a model id or alias of the catalog (see 'meridian models list'); it picks the harness"},
		&cli.StringSliceFlag{Name: "file", Aliases: []string{"f"}, Usage: "a file given to the agent as reference; repeat for more"},
		&cli.StringFlag{Name: "append-system-prompt", Usage: "text added to the harness's system prompt, where the harness has one"},
		&cli.DurationFlag{Name: "run-timeout", Usage: "stop the run, with everything it started, after this long (default: [timeouts] run, 30m)"},
		&cli.BoolFlag{Name: "wait", Usage: "wait for the run to end and answer with its report"},
	}
}

func spaceFlag() schema.FlagMeta {
	return schema.FlagMeta{ID: true, Pattern: spaceIDPattern, Env: []string{space.EnvID}}
}

func withRequired(a schema.Arg) schema.Arg {
	a.Required = true
	return a
}

func filter(cmd *cli.Command) run.Filter {
	return run.Filter{Status: cmd.String("status"), Model: cmd.String("model"), Agent: cmd.String("agent"), Chat: cmd.String("chat")}
}

// started answers spawn and continue. A person is told the run's id and how
// to follow it; an agent gets the run.
func started(ctx context.Context, d run.Detail, err error) error {
	if err != nil {
		if d.ID != "" { // waited for, and it did not succeed: the run is the answer all the same
			renderDetail(ctx, d)
			envelope.From(ctx).Result(d)
		}
		return err
	}
	if d.Status == "running" {
		envelope.From(ctx).RenderText(func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "Started %s in space %s: %s on %s.\nFollow it with 'meridian run wait %s --space %s'; its files are in %s\n",
				d.ID, d.Space, d.Model, d.Harness, d.ID, d.Space, d.Dir)
			return err
		})
	} else {
		renderDetail(ctx, d)
	}
	return envelope.From(ctx).Result(d)
}

// renderDetail shows a person a run: its facts, then its report.
func renderDetail(ctx context.Context, d run.Detail) {
	envelope.From(ctx).RenderText(func(w io.Writer) error {
		_, err := io.WriteString(w, detailText(d))
		return err
	})
}

// renderWaited shows a person the runs waited for, one after another as
// run show shows them, then how they ended.
func renderWaited(ctx context.Context, wt run.Waited) {
	envelope.From(ctx).RenderText(func(w io.Writer) error {
		var b strings.Builder
		for i, d := range wt.Runs {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString(detailText(d))
		}
		if len(wt.Runs) == 0 {
			b.WriteString("No run was running.\n")
		} else {
			fmt.Fprintf(&b, "\n%d succeeded, %d failed, %d cancelled, %d still running\n", wt.Succeeded, wt.Failed, wt.Cancelled, wt.Running)
		}
		_, err := io.WriteString(w, b.String())
		return err
	})
}

// renderReviewed shows a person the pipeline: each run in a line, then the
// verdict and the issues.
func renderReviewed(ctx context.Context, rv run.Reviewed) {
	envelope.From(ctx).RenderText(func(w io.Writer) error {
		var b strings.Builder
		for _, st := range []struct {
			role string
			run  *run.StageRun
		}{{"implement", rv.Implement}, {"review", rv.Review}} {
			if st.run != nil {
				fmt.Fprintf(&b, "%-9s %s  %s  %s\n", st.role, st.run.ID, st.run.Status, st.run.Model)
			}
		}
		if rv.Stage != "done" {
			fmt.Fprintf(&b, "stopped at stage %s\n", rv.Stage)
		} else {
			fmt.Fprintf(&b, "verdict: %s", rv.Verdict)
			if rv.Summary != "" {
				fmt.Fprintf(&b, " — %s", rv.Summary)
			}
			b.WriteString("\n")
		}
		for _, is := range rv.Issues {
			fmt.Fprintf(&b, "  %-6s %s:%d  %s\n", is.Severity, is.File, is.Line, is.Message)
		}
		_, err := io.WriteString(w, b.String())
		return err
	})
}

// detailText is a run as a person reads it: its facts, then its report.
func detailText(d run.Detail) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s  %s on %s", d.ID, d.Status, d.Model, d.Harness)
	if d.Agent != "" {
		fmt.Fprintf(&b, "  agent %s", d.Agent)
	}
	b.WriteString("\n")
	if d.DurationSecs != nil {
		fmt.Fprintf(&b, "duration %.1fs", *d.DurationSecs)
	}
	if d.TotalCostUSD != nil {
		fmt.Fprintf(&b, "  cost $%.4f", *d.TotalCostUSD)
	}
	if d.InputTokens != nil && d.OutputTokens != nil {
		fmt.Fprintf(&b, "  tokens %d in / %d out", *d.InputTokens, *d.OutputTokens)
	}
	if d.DurationSecs != nil || d.TotalCostUSD != nil {
		b.WriteString("\n")
	}
	if d.Error != "" {
		fmt.Fprintf(&b, "error: %s\n", d.Error)
	}
	fmt.Fprintf(&b, "files: %s\n", d.Dir)
	if ch := d.Changes; ch != nil {
		for _, f := range ch.Files {
			fmt.Fprintf(&b, "  %-9s %s\n", f.Status, f.Path)
		}
		if len(ch.Files) > 0 {
			fmt.Fprintf(&b, "diff: %s\n", filepath.Join(string(d.Dir), "output", "diff.patch"))
		}
		if len(ch.Concurrent) > 0 {
			fmt.Fprintf(&b, "the diff may hold edits of %s, which worked in the same tree meanwhile\n", strings.Join(ch.Concurrent, ", "))
		}
		if ch.Note != "" {
			fmt.Fprintf(&b, "changes: %s\n", ch.Note)
		}
	}
	if d.Report != "" {
		fmt.Fprintf(&b, "\n%s\n", strings.TrimRight(d.Report, "\n"))
	}
	return b.String()
}
