package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// TestDurationMeasured: meta.duration_ms is the time the invocation took,
// whatever its end — success, failure, timeout or a signal (F-039). The
// clock is synctest's, so a second is exactly 1000 ms.
func TestDurationMeasured(t *testing.T) {
	nap := func(ctx context.Context, cmd *cli.Command) error {
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return ctx.Err()
		}
		if cmd.Bool("fail") {
			return envelope.Errorf(exitcode.Unavailable, "GONE", "the store went away")
		}
		return envelope.From(ctx).Result(map[string]bool{"rested": true})
	}
	block := func(ctx context.Context, _ *cli.Command) error { <-ctx.Done(); return ctx.Err() }
	tests := []struct {
		name   string
		args   []string
		signal bool // SIGINT after a second
		exit   int
	}{
		{"success", []string{"nap"}, false, 0},
		{"failure", []string{"nap", "--fail"}, false, 12},
		{"timeout", []string{"block", "--timeout", "1s"}, false, 10},
		{"cancelled", []string{"block"}, true, 130},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				root := &cli.Command{Name: "app", Commands: []*cli.Command{
					urfave.Annotate(&cli.Command{Name: "nap", Flags: []cli.Flag{&cli.BoolFlag{Name: "fail"}}, Action: nap}, schema.Meta{Danger: schema.Safe}),
					urfave.Annotate(&cli.Command{Name: "block", Action: block}, schema.Meta{Danger: schema.Safe, Timeout: schema.NoTimeout}),
				}}
				sigs := make(chan os.Signal, 1)
				if tt.signal {
					go func() { time.Sleep(time.Second); sigs <- os.Interrupt }()
				}
				var stdout, stderr bytes.Buffer
				code := urfave.Run(context.Background(), root, tt.args, adapters.WithSpecStrict(),
					adapters.WithStdio(strings.NewReader(""), &stdout, &stderr), adapters.WithEnv(nil),
					adapters.WithTerminal(adapters.Piped), adapters.WithSignals(sigs))
				var env struct {
					Meta map[string]any `json:"meta"`
				}
				if err := json.Unmarshal(stdout.Bytes(), &env); err != nil {
					t.Fatalf("stdout is not one envelope: %v\n%s", err, stdout.String())
				}
				if code != tt.exit || env.Meta["duration_ms"] != 1000.0 {
					t.Errorf("exit %d, meta.duration_ms %v; want exit %d and 1000\nstdout: %s", code, env.Meta["duration_ms"], tt.exit, stdout.String())
				}
			})
		})
	}
}

// TestValidateHook: a command's own checks run in phase 1 (C-006): their
// problems are reported at once with the declared ones, with --validate-only
// too; another error they return is the answer; the action never runs.
func TestValidateHook(t *testing.T) {
	ran := 0
	newMove := func() *cli.Command {
		move := &cli.Command{Name: "move",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "from", Value: "here"},
				&cli.StringFlag{Name: "to", Sources: cli.EnvVars("APP_TO")},
				&cli.StringFlag{Name: "mode"},
			},
			Action: func(ctx context.Context, _ *cli.Command) error {
				ran++
				return envelope.From(ctx).Result(map[string]bool{"moved": true})
			}}
		urfave.Annotate(move, schema.Meta{Danger: schema.Safe, Flags: map[string]schema.FlagMeta{"mode": {Enum: []string{"slow", "careful"}}}, Validate: func(_ context.Context, in schema.Input) error {
			var problems []envelope.FieldError
			if in.String("from") == "ghost" {
				return envelope.Errorf(exitcode.NotFound, "PLACE_NOT_FOUND", "there is no place %q", in.String("from"))
			}
			if in.String("from") == in.String("to") {
				problems = append(problems, envelope.FieldError{Code: "SAME_PLACE", Field: "to", Message: "--to is where it already is: " + in.String("to")})
			}
			for _, a := range in.Args() {
				if a == "forbidden" {
					problems = append(problems, envelope.FieldError{Code: "FORBIDDEN_ITEM", Field: "item", Message: "forbidden cannot be moved"})
				}
			}
			if len(problems) > 0 {
				return envelope.Invalid(problems)
			}
			return nil
		}})
		return &cli.Command{Name: "app", Commands: []*cli.Command{move}}
	}
	tests := []struct {
		name  string
		args  []string
		env   []string
		exit  int
		codes []string // error.errors, or error.code alone
		phase string
	}{
		{"fine", []string{"move", "--to", "there", "box"}, nil, 0, nil, ""},
		{"the default is seen", []string{"move", "--to", "here"}, nil, 2, []string{"SAME_PLACE"}, "validation"},
		{"the environment is seen", []string{"move"}, []string{"APP_TO=here"}, 2, []string{"SAME_PLACE"}, "validation"},
		{"every problem at once", []string{"move", "--to", "here", "--mode", "fast", "forbidden"}, nil, 2, []string{"INVALID_ENUM_VALUE", "SAME_PLACE", "FORBIDDEN_ITEM"}, "validation"},
		{"with --validate-only", []string{"move", "--to", "here", "--validate-only"}, nil, 2, []string{"SAME_PLACE"}, "validation"},
		{"--validate-only, fine", []string{"move", "--to", "there", "--validate-only"}, nil, 0, nil, ""},
		{"another answer", []string{"move", "--from", "ghost", "--to", "there"}, nil, 5, []string{"PLACE_NOT_FOUND"}, "validation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ran = 0
			var stdout, stderr bytes.Buffer
			code := urfave.Run(context.Background(), newMove(), tt.args, adapters.WithSpecStrict(),
				adapters.WithStdio(strings.NewReader(""), &stdout, &stderr), adapters.WithEnv(tt.env))
			var env struct {
				Error *struct {
					Code   string `json:"code"`
					Phase  string `json:"phase"`
					Errors []struct {
						Code string `json:"code"`
					} `json:"errors"`
				} `json:"error"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &env); err != nil {
				t.Fatalf("not one envelope: %v\n%s", err, stdout.String())
			}
			var codes []string
			phase := ""
			if env.Error != nil {
				phase = env.Error.Phase
				for _, e := range env.Error.Errors {
					codes = append(codes, e.Code)
				}
				if len(codes) == 0 {
					codes = []string{env.Error.Code}
				}
			}
			got := []any{code, codes, phase}
			if diff := cmp.Diff([]any{tt.exit, tt.codes, tt.phase}, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nstdout: %s", diff, stdout.String())
			}
			wantRan := 0
			if tt.exit == 0 && !slices.Contains(tt.args, "--validate-only") {
				wantRan = 1
			}
			if ran != wantRan {
				t.Errorf("the action ran %d times, want %d", ran, wantRan)
			}
		})
	}
}

// TestExitCodesHeldToTheTable: exit 2 only when nothing changed, with phase
// validation (F-002); a code the command's table does not declare exits 1,
// with a warning naming it (F-001, C-001).
func TestExitCodesHeldToTheTable(t *testing.T) {
	fails := func(name string, meta schema.Meta, fn func(out *envelope.Output) error) *cli.Command {
		return urfave.Annotate(&cli.Command{Name: name, Action: func(ctx context.Context, _ *cli.Command) error { return fn(envelope.From(ctx)) }}, meta)
	}
	mutating := schema.Meta{Danger: schema.Mutating}
	root := func() *cli.Command {
		return &cli.Command{Name: "app", Commands: []*cli.Command{
			fails("early", mutating, func(*envelope.Output) error { return envelope.Validationf("BAD_NAME", "no such name") }),
			fails("bare", mutating, func(*envelope.Output) error { return envelope.Errorf(exitcode.ArgError, "BAD_NAME", "no such name") }),
			fails("late", mutating, func(out *envelope.Output) error {
				out.Effect(envelope.Updated)
				return envelope.Validationf("BAD_NAME", "no such name")
			}),
			fails("marked", mutating, func(*envelope.Output) error {
				return envelope.Errorf(exitcode.ArgError, "BAD_NAME", "no such name").WithPhase(envelope.Execution)
			}),
			fails("odd", mutating, func(*envelope.Output) error { return envelope.Errorf(exitcode.Code(200), "ODD", "odd") }),
			fails("custom", schema.Meta{Danger: schema.Mutating, ExitCodes: exitcode.Table{80: {Name: "DRIFTED", Description: "The plan drifted.", SideEffects: exitcode.None}}},
				func(*envelope.Output) error { return envelope.Errorf(80, "DRIFTED", "drifted") }),
			fails("undeclared", mutating, func(*envelope.Output) error { return envelope.Errorf(81, "DRIFTED", "drifted") }),
		}}
	}
	tests := []struct {
		cmd     string
		exit    int
		phase   string
		warning string // the code of the one warning, if any
	}{
		{"early", 2, "validation", ""},
		{"bare", 2, "validation", ""},
		{"late", 1, "execution", "EXIT_2_AFTER_CHANGE"},
		{"marked", 1, "execution", "EXIT_2_AFTER_CHANGE"},
		{"odd", 1, "execution", "UNDECLARED_EXIT_CODE"},
		{"custom", 80, "execution", ""},
		{"undeclared", 1, "execution", "UNDECLARED_EXIT_CODE"},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := urfave.Run(context.Background(), root(), []string{tt.cmd}, adapters.WithSpecStrict(),
				adapters.WithStdio(strings.NewReader(""), &stdout, &stderr), adapters.WithEnv(nil))
			var env struct {
				Error struct {
					Code  string `json:"code"`
					Phase string `json:"phase"`
				} `json:"error"`
				Warnings []envelope.Warning `json:"warnings"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &env); err != nil {
				t.Fatalf("not one envelope: %v\n%s", err, stdout.String())
			}
			wantExitCode(t, stdout.Bytes(), code)
			warning := ""
			if len(env.Warnings) > 0 {
				warning = env.Warnings[0].Code
			}
			got := []any{code, env.Error.Phase, warning, len(env.Warnings) <= 1}
			if diff := cmp.Diff([]any{tt.exit, tt.phase, tt.warning, true}, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nstdout: %s", diff, stdout.String())
			}
		})
	}
}

// TestFixCommand: a fix_command is one safe command that resolves the error
// when run as it is, twice harmlessly, after which the original invocation
// no longer fails so; one with a placeholder, or one that runs a destructive
// command other than as a dry run, is left out with a warning (C-030).
func TestFixCommand(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "initialised")
	withFix := func(name, fix string) *cli.Command {
		return urfave.Annotate(&cli.Command{Name: name, Action: func(context.Context, *cli.Command) error {
			return envelope.Errorf(exitcode.Precondition, "NOT_READY", "not ready").WithFix("get ready", fix)
		}}, schema.Meta{Danger: schema.Safe})
	}
	root := func() *cli.Command {
		return &cli.Command{Name: "app", Commands: []*cli.Command{
			urfave.Annotate(&cli.Command{Name: "init", Action: func(ctx context.Context, _ *cli.Command) error {
				out := envelope.From(ctx)
				if _, err := os.Stat(marker); err == nil {
					out.Effect(envelope.Noop)
					return out.Result(map[string]bool{"already_initialized": true})
				}
				out.Effect(envelope.Created)
				return os.WriteFile(marker, []byte("ok"), 0o644)
			}}, schema.Meta{Danger: schema.Mutating}),
			urfave.Annotate(&cli.Command{Name: "status", Action: func(ctx context.Context, _ *cli.Command) error {
				if _, err := os.Stat(marker); err != nil {
					return envelope.Errorf(exitcode.Precondition, "NOT_INITIALIZED", "not initialised").WithFix("initialise", "app init")
				}
				return envelope.From(ctx).Result(map[string]bool{"ready": true})
			}}, schema.Meta{Danger: schema.Safe}),
			urfave.Annotate(&cli.Command{Name: "wipe", Action: func(ctx context.Context, _ *cli.Command) error {
				envelope.From(ctx).Effect(envelope.Deleted)
				return nil
			}}, schema.Meta{Danger: schema.Destructive, DryRun: true}),
			withFix("placeholder", "app show <id>"),
			withFix("variable", "app init --token $TOKEN"),
			withFix("destructive", "app wipe --yes"),
			withFix("preview", "app wipe --dry-run"),
			withFix("elsewhere", "rm -rf /"),
		}}
	}
	type answer struct {
		Error *struct {
			Code       string `json:"code"`
			FixCommand string `json:"fix_command"`
		} `json:"error"`
		Warnings []envelope.Warning `json:"warnings"`
	}
	run := func(t *testing.T, args ...string) (int, answer) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := urfave.Run(context.Background(), root(), args, adapters.WithSpecStrict(),
			adapters.WithStdio(strings.NewReader(""), &stdout, &stderr), adapters.WithEnv(nil))
		var a answer
		if err := json.Unmarshal(stdout.Bytes(), &a); err != nil {
			t.Fatalf("not one envelope: %v\n%s", err, stdout.String())
		}
		return code, a
	}

	t.Run("resolves", func(t *testing.T) {
		code, a := run(t, "status")
		if code != 4 || a.Error == nil || a.Error.FixCommand != "app init" {
			t.Fatalf("status: exit %d, %+v", code, a.Error)
		}
		words := strings.Fields(a.Error.FixCommand)[1:]
		for range 2 { // twice: the second changes nothing
			if code, a := run(t, words...); code != 0 {
				t.Fatalf("the fix_command: exit %d, %+v", code, a.Error)
			}
		}
		if code, a := run(t, "status"); code != 0 {
			t.Errorf("status after its fix_command: exit %d, %+v", code, a.Error)
		}
	})
	for _, tt := range []struct {
		cmd, want string // the fix_command answered
		dropped   bool
	}{
		{"placeholder", "", true},
		{"variable", "", true},
		{"destructive", "", true},
		{"elsewhere", "", true},
		{"preview", "app wipe --dry-run", false},
	} {
		t.Run(tt.cmd, func(t *testing.T) {
			_, a := run(t, tt.cmd)
			dropped := len(a.Warnings) == 1 && a.Warnings[0].Code == "FIX_COMMAND_DROPPED"
			if a.Error == nil || a.Error.FixCommand != tt.want || dropped != tt.dropped {
				t.Errorf("fix_command %+v, warnings %q; want %q, dropped %v", a.Error, a.Warnings, tt.want, tt.dropped)
			}
		})
	}
}

// TestWorkdirKept: the working directory after a command is the one before
// it, whatever the command did, and a change is reported (F-041).
func TestWorkdirKept(t *testing.T) {
	start, elsewhere := t.TempDir(), t.TempDir()
	t.Chdir(start)
	root := &cli.Command{Name: "app", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "wander", Action: func(ctx context.Context, _ *cli.Command) error {
			if err := os.Chdir(elsewhere); err != nil {
				return err
			}
			return envelope.From(ctx).Result(map[string]bool{"wandered": true})
		}}, schema.Meta{Danger: schema.Safe}),
	}}
	var stdout, stderr bytes.Buffer
	code := urfave.Run(context.Background(), root, []string{"wander"}, adapters.WithSpecStrict(),
		adapters.WithStdio(strings.NewReader(""), &stdout, &stderr), adapters.WithEnv(nil))
	now, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	w := wantOK(t, result{code: code, stdout: stdout.String(), stderr: stderr.String()})
	if now != start || len(w.Warnings) != 1 || w.Warnings[0].Code != "CWD_CHANGED" ||
		!strings.HasPrefix(w.Warnings[0].Message, "wander changed the working directory to "+elsewhere) {
		t.Errorf("working directory %s (want %s), warnings %q", now, start, w.Warnings)
	}
}
