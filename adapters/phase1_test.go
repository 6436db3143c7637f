package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/input"
	"github.com/duet-cli/duet/proc"
	"github.com/duet-cli/duet/schema"
)

// answered is one invocation's envelope, as much of it as these tests read.
type answered struct {
	code int
	Data json.RawMessage `json:"data"`
	Err  *struct {
		Code   string `json:"code"`
		Phase  string `json:"phase"`
		Hint   string `json:"hint"`
		Errors []struct {
			Code  string `json:"code"`
			Field string `json:"field"`
		} `json:"errors"`
	} `json:"error"`
	Warnings []envelope.Warning `json:"warnings"`
	Meta     map[string]any     `json:"meta"`
	stderr   string
}

// errorCodes are the codes of error.errors, or error.code alone.
func (a answered) errorCodes() []string {
	if a.Err == nil {
		return nil
	}
	var codes []string
	for _, e := range a.Err.Errors {
		codes = append(codes, e.Code)
	}
	if len(codes) == 0 {
		codes = []string{a.Err.Code}
	}
	return codes
}

func (a answered) warningCodes() []string {
	var codes []string
	for _, w := range a.Warnings {
		codes = append(codes, w.Code)
	}
	return codes
}

func (a answered) warning(code string) (envelope.Warning, bool) {
	for _, w := range a.Warnings {
		if w.Code == code {
			return w, true
		}
	}
	return envelope.Warning{}, false
}

// answer runs root as an agent (piped, spec-strict) with stdin and returns
// its one envelope.
func answer(t *testing.T, root *cli.Command, stdin string, args ...string) answered {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := urfave.Run(context.Background(), root, args, adapters.WithSpecStrict(),
		adapters.WithStdio(strings.NewReader(stdin), &stdout, &stderr), adapters.WithEnv([]string{"HOME=" + t.TempDir(), "TMPDIR=" + t.TempDir()}),
		adapters.WithTerminal(adapters.Piped))
	var a answered
	if err := json.Unmarshal(stdout.Bytes(), &a); err != nil {
		t.Fatalf("%q: stdout is not one envelope: %v\nstdout: %s\nstderr: %s", args, err, stdout.String(), stderr.String())
	}
	wantExitCode(t, stdout.Bytes(), code)
	a.code, a.stderr = code, stderr.String()
	return a
}

// TestExit2AfterASeenChange: an exit 2 promises that nothing changed
// (F-002). A command that reports invalid input after a change the
// lifecycle can see — a file kept for the caller, a step completed, an undo
// registered, a program started, a declared file written — exits 1, with
// an EXIT_2_AFTER_CHANGE warning saying what was seen; its error keeps its
// code. What the lifecycle removes itself (the session's temp files) is no
// change, nor a program a safe command starts, nor a declared file left as
// it was.
func TestExit2AfterASeenChange(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache.json")
	refuse := func() error { return envelope.Validationf("BAD_NAME", "no such name").WithField("name") }
	cmd := func(name string, meta schema.Meta, fn func(ctx context.Context, out *envelope.Output) error) *cli.Command {
		return urfave.Annotate(&cli.Command{Name: name, Action: func(ctx context.Context, _ *cli.Command) error {
			return fn(ctx, envelope.From(ctx))
		}}, meta)
	}
	mutating := schema.Meta{Danger: schema.Mutating}
	root := func() *cli.Command {
		return &cli.Command{Name: "app", Commands: []*cli.Command{
			cmd("keep", mutating, func(_ context.Context, out *envelope.Output) error {
				f, _, err := out.OutputFile("report.json")
				if err != nil {
					return err
				}
				f.WriteString("{}\n")
				f.Close()
				return refuse()
			}),
			cmd("step", schema.Meta{Danger: schema.Mutating, Steps: []string{"one", "two"}}, func(ctx context.Context, out *envelope.Output) error {
				if err := out.Step(ctx, "one", func(context.Context) error { return nil }); err != nil {
					return err
				}
				return refuse() // between the steps, outside both
			}),
			cmd("undo", mutating, func(_ context.Context, out *envelope.Output) error {
				out.Undo(func(context.Context) error { return nil })
				return refuse()
			}),
			cmd("program", mutating, func(ctx context.Context, _ *envelope.Output) error {
				if err := proc.Command(ctx, "true").Run(); err != nil {
					return err
				}
				return refuse()
			}),
			cmd("safe-program", schema.Meta{Danger: schema.Safe}, func(ctx context.Context, _ *envelope.Output) error {
				if err := proc.Command(ctx, "true").Run(); err != nil {
					return err
				}
				return refuse()
			}),
			cmd("declared", schema.Meta{Danger: schema.Mutating, SideEffects: []schema.SideEffect{{Path: cache, Kind: schema.CacheFile}}},
				func(context.Context, *envelope.Output) error {
					if err := os.WriteFile(cache, []byte("{}"), 0o600); err != nil {
						return err
					}
					return refuse()
				}),
			cmd("declared-untouched", schema.Meta{Danger: schema.Mutating, SideEffects: []schema.SideEffect{{Path: filepath.Join(dir, "other.json"), Kind: schema.CacheFile}}},
				func(context.Context, *envelope.Output) error { return refuse() }),
			cmd("temp", mutating, func(_ context.Context, out *envelope.Output) error {
				f, err := out.TempFile("scratch-*")
				if err != nil {
					return err
				}
				f.Close()
				return refuse()
			}),
		}}
	}
	tests := []struct {
		cmd   string
		exit  int
		phase string
		seen  string // what the warning names; "" for no warning
	}{
		{"keep", 1, "execution", "kept the file "},
		{"step", 1, "execution", `completed the step "one"`},
		{"undo", 1, "execution", "registered 1 undo hook(s)"},
		{"program", 1, "execution", "started the program true"},
		{"safe-program", 2, "validation", ""},
		{"declared", 1, "execution", `changed the declared file "` + cache + `"`},
		{"declared-untouched", 2, "validation", ""},
		{"temp", 2, "validation", ""},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			a := answer(t, root(), "", tt.cmd)
			w, warned := a.warning("EXIT_2_AFTER_CHANGE")
			got := []any{a.code, a.Err.Code, a.Err.Phase, warned}
			if diff := cmp.Diff([]any{tt.exit, "BAD_NAME", tt.phase, tt.seen != ""}, got); diff != "" {
				t.Fatalf("(-want +got):\n%s\nwarnings: %v", diff, a.Warnings)
			}
			if warned && !strings.Contains(w.Message, tt.seen) {
				t.Errorf("warning %q does not say it %s", w.Message, tt.seen)
			}
		})
	}
}

// TestValidateHookIsPhaseOne: a command's Meta.Validate runs as the last
// check of phase 1 with what the command would get — the payload on stdin
// (input.From) and the Output (envelope.From) — so --validate-only refuses
// exactly what the real run refuses, with the same answer, and neither runs
// the command (O-009, C-006).
func TestValidateHookIsPhaseOne(t *testing.T) {
	ran := 0
	hookMode := ""
	root := func() *cli.Command {
		load := urfave.Annotate(&cli.Command{Name: "load",
			Flags: []cli.Flag{&cli.StringFlag{Name: "kind"}},
			Action: func(ctx context.Context, _ *cli.Command) error {
				ran++
				out := envelope.From(ctx)
				out.Warn("SLOW_DISK", "the disk is slow", "wait")
				out.Effect(envelope.Created)
				return out.Result(map[string]int{"loaded": 1})
			}}, schema.Meta{Danger: schema.Mutating, Stdin: "JSON lines of {name}", NoArgs: true,
			Flags: map[string]schema.FlagMeta{"kind": {Enum: []string{"a", "b"}}},
			Validate: func(ctx context.Context, in schema.Input) error {
				out := envelope.From(ctx)
				hookMode = string(out.Mode().Format)
				out.Warn("SLOW_DISK", "the disk is slow", "wait") // said again by the action: reported once
				raw, err := input.From(ctx).ReadAll()
				if err != nil {
					return err
				}
				var problems []envelope.FieldError
				for i, line := range strings.Split(string(raw), "\n") {
					if line == "" {
						continue
					}
					var v struct{ Name string }
					if json.Unmarshal([]byte(line), &v) != nil || v.Name == "" {
						problems = append(problems, envelope.FieldError{Code: "BAD_LINE", Field: "line " + strconv.Itoa(i+1), Message: "a line needs a name"})
					}
				}
				if in.String("kind") == "a" && len(raw) > 0 && strings.Contains(string(raw), "b-only") {
					problems = append(problems, envelope.FieldError{Code: "WRONG_KIND", Field: "kind", Message: "b-only lines need --kind b"})
				}
				if in.String("kind") == "c" {
					problems = append(problems, envelope.FieldError{Code: "KIND_C", Field: "kind", Message: "c is no kind"})
				}
				if len(problems) > 0 {
					return envelope.Invalid(problems)
				}
				return nil
			}})
		return &cli.Command{Name: "app", Commands: []*cli.Command{load}}
	}
	tests := []struct {
		name  string
		stdin string
		args  []string
		exit  int
		codes []string
	}{
		{"a good payload", `{"name":"x"}`, nil, 0, nil},
		{"a bad line", "{\"name\":\"x\"}\n{}", nil, 2, []string{"BAD_LINE"}},
		{"every problem at once", "{}\n{\"name\":\"b-only\"}", []string{"--kind", "a"}, 2, []string{"BAD_LINE", "WRONG_KIND"}},
		// The declared enum refuses c first: the hook's own word on --kind is left out.
		{"a declared problem stands for its field", `{"name":"x"}`, []string{"--kind", "c"}, 2, []string{"INVALID_ENUM_VALUE"}},
	}
	for _, tt := range tests {
		for _, only := range []bool{false, true} {
			name := tt.name
			args := append([]string{"load"}, tt.args...)
			if only {
				name += ", --validate-only"
				args = append(args, "--validate-only")
			}
			t.Run(name, func(t *testing.T) {
				ran, hookMode = 0, ""
				a := answer(t, root(), tt.stdin, args...)
				if diff := cmp.Diff([]any{tt.exit, tt.codes}, []any{a.code, a.errorCodes()}); diff != "" {
					t.Errorf("(-want +got):\n%s\nerror: %+v", diff, a.Err)
				}
				if a.Err != nil && a.Err.Phase != "validation" {
					t.Errorf("phase %q, want validation", a.Err.Phase)
				}
				wantRan := 0
				if tt.exit == 0 && !only {
					wantRan = 1
				}
				if ran != wantRan {
					t.Errorf("the action ran %d times, want %d", ran, wantRan)
				}
				if tt.codes == nil || !slices.Contains(tt.codes, "INVALID_ENUM_VALUE") {
					if hookMode != "json" {
						t.Errorf("the hook saw the Output's format %q, want the agent's json", hookMode)
					}
					if diff := cmp.Diff([]string{"SLOW_DISK"}, a.warningCodes()); diff != "" {
						t.Errorf("warnings (-want +got):\n%s", diff)
					}
				}
				if only && a.Meta["validation_only"] != true {
					t.Errorf("meta.validation_only = %v", a.Meta["validation_only"])
				}
			})
		}
	}
}

// TestValidateHookAnswers: a hook's single error is the answer as it gave
// it (its hint kept) when the declarations found nothing; a hook that acts
// is refused, and one that panics is answered, and the command runs in
// neither case.
func TestValidateHookAnswers(t *testing.T) {
	ran := 0
	hooked := func(name string, hook func(ctx context.Context, in schema.Input) error) *cli.Command {
		return urfave.Annotate(&cli.Command{Name: name, Action: func(ctx context.Context, _ *cli.Command) error {
			ran++
			return envelope.From(ctx).Result(map[string]bool{"done": true})
		}}, schema.Meta{Danger: schema.Mutating, Validate: hook})
	}
	root := func() *cli.Command {
		return &cli.Command{Name: "app", Commands: []*cli.Command{
			hooked("hinted", func(context.Context, schema.Input) error {
				return envelope.Validationf("NO_ROOM", "the shelf is full").WithHint("free a shelf first")
			}),
			hooked("acting", func(ctx context.Context, _ schema.Input) error {
				envelope.From(ctx).Effect(envelope.Created)
				return nil
			}),
			hooked("keeping", func(ctx context.Context, _ schema.Input) error {
				f, _, err := envelope.From(ctx).OutputFile("x.json")
				if err == nil {
					f.Close()
				}
				return nil
			}),
			hooked("panicking", func(context.Context, schema.Input) error { panic("the hook broke") }),
		}}
	}
	tests := []struct {
		cmd, code string
		exit      int
		hint      string
	}{
		{"hinted", "NO_ROOM", 2, "free a shelf first"},
		{"acting", "VALIDATE_HOOK_ACTED", 1, ""},
		{"keeping", "VALIDATE_HOOK_ACTED", 1, ""},
		{"panicking", "INTERNAL_ERROR", 1, ""},
	}
	for _, tt := range tests {
		for _, only := range []bool{false, true} {
			args := []string{tt.cmd}
			if only {
				args = append(args, "--validate-only")
			}
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				ran = 0
				a := answer(t, root(), "", args...)
				if diff := cmp.Diff([]any{tt.exit, tt.code, tt.hint, 0}, []any{a.code, a.Err.Code, a.Err.Hint, ran}); diff != "" {
					t.Errorf("(-want +got):\n%s\nerror: %+v", diff, a.Err)
				}
			})
		}
	}
}

// TestVolatileData: data that holds the time of the call — a field named
// for it, holding a time — is answered with a VOLATILE_DATA warning naming
// it (F-021), at the top of an object or of each item of a list; a time
// the resource has (created_at) is not volatile, nor a field so named that
// holds no time; a person is not warned.
func TestVolatileData(t *testing.T) {
	now := time.Now().UTC()
	answering := func(name string, v any) *cli.Command {
		return urfave.Annotate(&cli.Command{Name: name, Action: func(ctx context.Context, _ *cli.Command) error {
			return envelope.From(ctx).Result(v)
		}}, schema.Meta{Danger: schema.Safe})
	}
	root := func() *cli.Command {
		return &cli.Command{Name: "app", Commands: []*cli.Command{
			answering("stamped", map[string]any{"name": "x", "generated_at": now, "created_at": now}),
			answering("epoch", map[string]any{"name": "x", "now": now.Unix()}),
			answering("items", []map[string]any{{"name": "x", "fetched_at": now.Format(time.RFC3339)}}),
			answering("stable", map[string]any{"name": "x", "created_at": now, "timestamp": "soon"}),
			answering("struct", struct {
				Name     string    `json:"name"`
				Fetched  time.Time `json:"fetched_at"`
				Requests int       `json:"requested_at"` // no time: a count
			}{"x", now, 3}),
		}}
	}
	tests := []struct {
		cmd    string
		fields []any
	}{
		{"stamped", []any{"data.generated_at"}},
		{"epoch", []any{"data.now"}},
		{"items", []any{"data[].fetched_at"}},
		{"stable", nil},
		{"struct", []any{"data.fetched_at"}},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			a := answer(t, root(), "", tt.cmd)
			w, warned := a.warning(envelope.VolatileData)
			var fields []any
			if warned {
				fields, _ = w.Context["fields"].([]any)
			}
			if diff := cmp.Diff(tt.fields, fields); diff != "" || a.code != 0 {
				t.Errorf("exit %d; VOLATILE_DATA fields (-want +got):\n%s\nwarnings: %v", a.code, diff, a.Warnings)
			}
		})
	}
	t.Run("a person", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		code := urfave.Run(context.Background(), root(), []string{"stamped"},
			adapters.WithStdio(strings.NewReader(""), &stdout, &stderr), adapters.WithEnv([]string{"HOME=" + t.TempDir()}),
			adapters.WithTerminal(adapters.Console))
		if code != 0 || strings.Contains(stderr.String(), envelope.VolatileData) {
			t.Errorf("exit %d; a person was warned: %s", code, stderr.String())
		}
	})
}

// TestRegistrationWarnings: what Duet's registration finds in the app's
// declarations — a resource id with no pattern (C-020), a declared output
// field that is the time of the call (F-021), one that is left out when
// empty (F-074) — `tool doctor` reports, as
// warnings, whether or not the app's tests look; doctor still passes. An
// app that declares its patterns gets none.
func TestRegistrationWarnings(t *testing.T) {
	type stampedOut struct {
		Name    string    `json:"name"`
		Fetched time.Time `json:"fetched_at"`
		Created time.Time `json:"created_at"`
		Tags    []string  `json:"tags,omitempty"`
		Owner   *string   `json:"owner"`
	}
	noop := func(ctx context.Context, _ *cli.Command) error { return envelope.From(ctx).Result(map[string]any{}) }
	app := func(pattern string) *cli.Command {
		return &cli.Command{Name: "app", Commands: []*cli.Command{
			urfave.Annotate(&cli.Command{Name: "get", Action: noop, Flags: []cli.Flag{&cli.StringFlag{Name: "id"}, &cli.StringFlag{Name: "owner-id"}, &cli.StringFlag{Name: "kind"}}},
				schema.Meta{Danger: schema.Safe, Flags: map[string]schema.FlagMeta{
					"id": {Pattern: pattern}, "owner-id": {Pattern: pattern}, "kind": {Enum: []string{"a"}},
				}, Args: []schema.Arg{{Name: "ref", Type: schema.String, ID: true, Pattern: pattern}}}),
			urfave.Annotate(&cli.Command{Name: "fetch", Action: noop}, schema.Meta{Danger: schema.Safe, Output: schema.Of[stampedOut]()}),
		}}
	}
	doctor := func(t *testing.T, root *cli.Command) []string {
		t.Helper()
		a := answer(t, root, "", "doctor")
		if a.code != 0 {
			t.Fatalf("doctor exit %d: %+v", a.code, a.Err)
		}
		var got []string
		for _, w := range a.Warnings {
			got = append(got, w.Code+": "+w.Message)
		}
		return got
	}
	want := []string{
		`VOLATILE_DATA: output field "fetched_at" of "fetch" is the time of the call, so two identical calls answer different data. Next: leave it out of data: meta.timestamp is the time of the call`,
		`OPTIONAL_OUTPUT_FIELD: output field "tags" of "fetch" is left out when it is empty or unset, so the same command answers with different keys. Next: drop omitempty: Duet writes an empty list [] and map {}, and a nil pointer null for an unset value`,
		`ID_WITHOUT_PATTERN: flag --id of "get" is a resource id with no declared pattern, so a made-up or malformed id reaches the command unchecked. Next: declare a Pattern (schema.AlphanumericID, schema.UUID ...) or an Enum for it`,
		`ID_WITHOUT_PATTERN: flag --owner-id of "get" is a resource id with no declared pattern, so a made-up or malformed id reaches the command unchecked. Next: declare a Pattern (schema.AlphanumericID, schema.UUID ...) or an Enum for it`,
		`ID_WITHOUT_PATTERN: argument <ref> of "get" is a resource id with no declared pattern, so a made-up or malformed id reaches the command unchecked. Next: declare a Pattern (schema.AlphanumericID, schema.UUID ...) or an Enum for it`,
	}
	if diff := cmp.Diff(want, doctor(t, app(""))); diff != "" {
		t.Errorf("doctor's warnings, no patterns (-want +got):\n%s", diff)
	}
	got := doctor(t, app(schema.AlphanumericID))
	if diff := cmp.Diff(want[:2], got); diff != "" {
		t.Errorf("doctor's warnings, patterns declared (-want +got):\n%s", diff)
	}
}
