//go:build linux

package e2e

// Re-check of four registry rows, on built binaries, black-box: argv,
// environment and stdin in; stdout, stderr, exit code and the files on
// disk out.
//
//   - O-009, C-006: --validate-only runs the same phase 1 as the real run,
//     the command's own checks (Meta.Validate) included, so it refuses what
//     the real run refuses, with the same answer, and changes nothing.
//   - F-002: exit 2 never follows a change Duet can see; what it sees is
//     proved on a small app built here (recheckApp), whose commands change
//     something through Duet's APIs and then report invalid input.
//   - F-021, C-020: registration warnings without the app's tests (`tool
//     doctor`), and a VOLATILE_DATA warning on data that holds the time of
//     the call.
//
// The helpers are this file's own (rc...), apart from the binaries TestMain
// builds.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// rcEnvelope is an envelope as these tests read it.
type rcEnvelope struct {
	OK    bool            `json:"ok"`
	Data  json.RawMessage `json:"data"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Phase   string `json:"phase"`
		Errors  []struct {
			Code  string `json:"code"`
			Field string `json:"field"`
		} `json:"errors"`
	} `json:"error"`
	Warnings []struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Context map[string]any `json:"context"`
	} `json:"warnings"`
	Meta map[string]any `json:"meta"`
}

// codes are the error's code and the codes of its errors list, or nil.
func (e rcEnvelope) codes() []string {
	if e.Error == nil {
		return nil
	}
	codes := []string{e.Error.Code}
	for _, p := range e.Error.Errors {
		codes = append(codes, p.Code)
	}
	return codes
}

func (e rcEnvelope) warningCodes() []string {
	var codes []string
	for _, w := range e.Warnings {
		codes = append(codes, w.Code)
	}
	return codes
}

// rcEnv is a clean environment for one test: its own HOME, XDG dirs and
// TODO_FILE, nothing inherited that changes the audience.
func rcEnv(t *testing.T, dir string, extra ...string) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "CI", name == "NO_COLOR", name == "TERM", name == "HOME", strings.HasPrefix(name, "XDG_"),
			strings.HasPrefix(name, "TODO_"), strings.HasPrefix(name, "RECHECK_"):
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+filepath.Join(dir, "home"), "XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"XDG_STATE_HOME="+filepath.Join(dir, "state"), "TMPDIR="+filepath.Join(dir, "tmp"), "TODO_FILE="+filepath.Join(dir, "todo.json"))
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	return append(env, extra...)
}

// rcRun runs bin as an agent (pipes) with stdin, and decodes its one envelope.
func rcRun(t *testing.T, bin string, env []string, stdin string, args ...string) (rcEnvelope, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env, cmd.Stdin = env, strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s %q: %v", filepath.Base(bin), args, err)
	}
	var e rcEnvelope
	dec := json.NewDecoder(&stdout)
	if err := dec.Decode(&e); err != nil || dec.More() {
		t.Fatalf("%s %q: stdout is not one envelope (%v): %s\nstderr: %s", filepath.Base(bin), args, err, stdout.String(), stderr.String())
	}
	if e.OK != (code == 0) || e.Meta["exit_code"] != float64(code) {
		t.Fatalf("%s %q: ok %v, meta.exit_code %v, exit %d", filepath.Base(bin), args, e.OK, e.Meta["exit_code"], code)
	}
	return e, code
}

// rcState is every file under dir, path to content: what a run changed.
func rcState(t *testing.T, dir string) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if strings.HasPrefix(rel, "state"+string(filepath.Separator)) || strings.HasSuffix(rel, ".lock") {
			return nil // the audit log and the lock: Duet's own, for every call
		}
		raw, err := os.ReadFile(path)
		state[rel] = string(raw)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// TestRecheckValidateOnlyRefusesWhatTheRunRefuses: O-009, C-006. import's
// checks of its payload and of --defaults are its Meta.Validate: with
// --validate-only each seen case exits 2 with the error the real run gives,
// every problem at once, and nothing changes; input the run accepts passes
// validation (exit 0, meta.validation_only) and then imports.
func TestRecheckValidateOnlyRefusesWhatTheRunRefuses(t *testing.T) {
	t.Parallel()
	for _, b := range binaries {
		t.Run(b.framework, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := rcEnv(t, dir)
			if _, code := rcRun(t, b.path, env, "", "add", "keep me"); code != 0 {
				t.Fatalf("add: exit %d", code)
			}
			refused := []struct {
				name  string
				stdin string
				args  []string
				codes []string // error.code, then error.errors' codes
			}{
				{"a bad enum value on stdin", `{"title": "a", "priority": "urgent"}` + "\n", []string{"import"},
					[]string{"INVALID_ENUM_VALUE", "INVALID_ENUM_VALUE"}},
				{"a --defaults that is no defaults", `{"title": "a"}` + "\n", []string{"import", "--defaults", "{title:1}"},
					[]string{"INVALID_DEFAULTS"}},
				{"every bad line at once", "{title: 'fine'}\n{\"priority\": \"high\"}\n{title: write docs}\n", []string{"import"},
					[]string{"VALIDATION_FAILED", "INVALID_TODO", "INVALID_JSON"}},
				{"a missing --input-file", "", []string{"import", "--input-file", filepath.Join(dir, "nope.jsonl")},
					[]string{"INVALID_INPUT_FILE", "INVALID_INPUT_FILE"}},
			}
			for _, tt := range refused {
				before := rcState(t, dir)
				var answers [2]rcEnvelope
				for i, only := range []bool{true, false} {
					args := tt.args
					if only {
						args = append(append([]string(nil), args...), "--validate-only")
					}
					e, code := rcRun(t, b.path, env, tt.stdin, args...)
					if code != 2 || e.Error == nil || e.Error.Phase != "validation" {
						t.Errorf("%s: todo %q: exit %d, error %+v; want exit 2 in phase validation", tt.name, args, code, e.Error)
						continue
					}
					if diff := cmp.Diff(tt.codes, e.codes()); diff != "" {
						t.Errorf("%s: todo %q: error codes (-want +got):\n%s", tt.name, args, diff)
					}
					if only && e.Meta["validation_only"] != true {
						t.Errorf("%s: --validate-only's refusal lacks meta.validation_only: %v", tt.name, e.Meta)
					}
					answers[i] = e
				}
				if answers[0].Error != nil && answers[1].Error != nil && answers[0].Error.Message != answers[1].Error.Message {
					t.Errorf("%s: --validate-only said %q, the run %q", tt.name, answers[0].Error.Message, answers[1].Error.Message)
				}
				if diff := cmp.Diff(before, rcState(t, dir)); diff != "" {
					t.Errorf("%s: the files changed (-before +after):\n%s", tt.name, diff)
				}
			}

			// Input the run accepts passes, changes nothing, and then imports.
			good := "{title: 'a', priority: 'high'}\n" + `{"title": "b"}` + "\n"
			before := rcState(t, dir)
			e, code := rcRun(t, b.path, env, good, "import", "--defaults", "{tags: ['inbox']}", "--validate-only")
			if code != 0 || e.Meta["validation_only"] != true || string(e.Data) != "null" {
				t.Errorf("import --validate-only of good input: exit %d, meta %v, data %s", code, e.Meta, e.Data)
			}
			if diff := cmp.Diff(before, rcState(t, dir)); diff != "" {
				t.Errorf("--validate-only changed the files (-before +after):\n%s", diff)
			}
			e, code = rcRun(t, b.path, env, good, "import", "--defaults", "{tags: ['inbox']}")
			var added []struct{ Title, Priority string }
			if err := json.Unmarshal(e.Data, &added); code != 0 || err != nil || len(added) != 2 || added[0].Priority != "high" {
				t.Errorf("import of good input: exit %d, data %s", code, e.Data)
			}
		})
	}
}

// recheckApp is a small app on Duet, built once: commands that change
// something through Duet's APIs and then report invalid input (F-002), and
// ones whose declarations or data registration warnings are about (F-021,
// C-020), built by each test that runs it. RECHECK_DIR is where its files go.
const recheckApp = `package main

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/proc"
	"github.com/duet-cli/duet/schema"
)

func refuse() error { return envelope.Validationf("BAD_NAME", "no such name").WithField("name") }

func cmd(name string, meta schema.Meta, fn func(ctx context.Context, out *envelope.Output) error) *cli.Command {
	return urfave.Annotate(&cli.Command{Name: name, Flags: []cli.Flag{&cli.StringFlag{Name: "id"}},
		Action: func(ctx context.Context, _ *cli.Command) error { return fn(ctx, envelope.From(ctx)) }}, meta)
}

type fetched struct {
	Name    string    ` + "`json:\"name\"`" + `
	Fetched time.Time ` + "`json:\"fetched_at\"`" + `
}

func main() {
	dir := os.Getenv("RECHECK_DIR")
	mutating := schema.Meta{Danger: schema.Mutating, Flags: map[string]schema.FlagMeta{"id": {Pattern: schema.AlphanumericID}}}
	declared := mutating
	declared.SideEffects = []schema.SideEffect{{Path: "$RECHECK_DIR/cache.json", Kind: schema.CacheFile}}
	safe := schema.Meta{Danger: schema.Safe, Flags: map[string]schema.FlagMeta{"id": {Pattern: schema.AlphanumericID}}}
	root := &cli.Command{Name: "recheck", Commands: []*cli.Command{
		cmd("keep", mutating, func(_ context.Context, out *envelope.Output) error {
			f, _, err := out.OutputFile("report.json")
			if err != nil {
				return err
			}
			f.WriteString("{}\n")
			f.Close()
			os.WriteFile(filepath.Join(dir, "kept"), []byte(f.Name()), 0o600)
			return refuse()
		}),
		cmd("program", mutating, func(ctx context.Context, _ *envelope.Output) error {
			if err := proc.Command(ctx, "touch", filepath.Join(dir, "touched")).Run(); err != nil {
				return err
			}
			return refuse()
		}),
		cmd("cache", declared, func(context.Context, *envelope.Output) error {
			if err := os.WriteFile(filepath.Join(dir, "cache.json"), []byte("{}"), 0o600); err != nil {
				return err
			}
			return refuse()
		}),
		cmd("clean", mutating, func(context.Context, *envelope.Output) error { return refuse() }),
		cmd("stamp", safe, func(_ context.Context, out *envelope.Output) error {
			return out.Result(map[string]any{"name": "x", "generated_at": time.Now().UTC().Format(time.RFC3339Nano)})
		}),
		cmd("get", schema.Meta{Danger: schema.Safe}, func(_ context.Context, out *envelope.Output) error {
			return out.Result(map[string]any{"name": "x"})
		}),
		cmd("fetch", schema.Meta{Danger: schema.Safe, Output: schema.Of[fetched](), Flags: map[string]schema.FlagMeta{"id": {Pattern: schema.AlphanumericID}}},
			func(_ context.Context, out *envelope.Output) error {
				return out.Result(fetched{Name: "x", Fetched: time.Now().UTC()})
			}),
	}}
	urfave.Main(root, adapters.WithVersion("1.0.0"), adapters.WithSpecStrict()) // a pipe is an agent
}
`

// recheckBinary builds recheckApp, with this module's packages, into the
// test's temporary directory.
func recheckBinary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte(recheckApp), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "recheck")
	if out, err := exec.Command("go", "build", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("building the recheck app: %v\n%s", err, out)
	}
	return bin
}

// TestRecheckExit2AfterASeenChange: F-002 on a built binary. A command that
// keeps a file for the caller, starts a program, or writes a file it
// declares, and then reports invalid input, exits 1 with its own error code
// and an EXIT_2_AFTER_CHANGE warning saying what it did — the change is
// there on disk — not 2, which says nothing changed; one that changed
// nothing still exits 2 in phase validation.
func TestRecheckExit2AfterASeenChange(t *testing.T) {
	t.Parallel()
	bin := recheckBinary(t)
	tests := []struct {
		cmd   string
		exit  int
		seen  string // what the warning names; "" for none
		wrote string // the file the command left, under RECHECK_DIR
	}{
		{"keep", 1, "kept the file ", "kept"},
		{"program", 1, "started the program touch", "touched"},
		{"cache", 1, "changed the declared file ", "cache.json"},
		{"clean", 2, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := rcEnv(t, dir, "RECHECK_DIR="+dir)
			e, code := rcRun(t, bin, env, "", tt.cmd)
			phase := "validation"
			if tt.exit != 2 {
				phase = "execution"
			}
			if code != tt.exit || e.Error == nil || e.Error.Code != "BAD_NAME" || e.Error.Phase != phase {
				t.Fatalf("recheck %s: exit %d, error %+v; want exit %d, BAD_NAME in phase %s", tt.cmd, code, e.Error, tt.exit, phase)
			}
			var warned string
			for _, w := range e.Warnings {
				if w.Code == "EXIT_2_AFTER_CHANGE" {
					warned = w.Message
				}
			}
			if (warned != "") != (tt.seen != "") || !strings.Contains(warned, tt.seen) {
				t.Errorf("recheck %s: EXIT_2_AFTER_CHANGE %q, want one naming %q", tt.cmd, warned, tt.seen)
			}
			if tt.wrote != "" {
				if _, err := os.Stat(filepath.Join(dir, tt.wrote)); err != nil {
					t.Errorf("recheck %s changed nothing after all: %v", tt.cmd, err)
				}
			}
		})
	}
}

// TestRecheckRegistrationWarnings: C-020, F-021 on built binaries. `doctor`
// reports the app's registration warnings — a resource id with no pattern,
// a declared output field that is the time of the call — without any test
// of the app's calling adaptertest.Warnings, and still passes; todo, which
// declares its patterns and keeps times of the call out of data, has none.
func TestRecheckRegistrationWarnings(t *testing.T) {
	t.Parallel()
	bin := recheckBinary(t)
	dir := t.TempDir()
	e, code := rcRun(t, bin, rcEnv(t, dir, "RECHECK_DIR="+dir), "", "doctor")
	var got []string
	for _, w := range e.Warnings {
		got = append(got, w.Code+" "+strings.SplitN(w.Message, ",", 2)[0])
	}
	want := []string{
		`VOLATILE_DATA output field "fetched_at" of "fetch" is the time of the call`,
		`ID_WITHOUT_PATTERN flag --id of "get" is a resource id with no declared pattern`,
	}
	if diff := cmp.Diff(want, got); diff != "" || code != 0 {
		t.Errorf("recheck doctor: exit %d; warnings (-want +got):\n%s", code, diff)
	}
	for _, b := range binaries {
		dir := t.TempDir()
		e, code := rcRun(t, b.path, rcEnv(t, dir), "", "doctor")
		if code != 0 || len(e.Warnings) != 0 {
			t.Errorf("todo doctor (%s): exit %d, warnings %v; want none", b.framework, code, e.Warnings)
		}
	}
}

// TestRecheckVolatileData: F-021 on built binaries. Data that holds the
// time of the call — as two identical calls show — comes with a
// VOLATILE_DATA warning naming the field, for an agent; todo's data, whose
// times are the to-dos' own, comes with none, and is byte-identical from
// one call to the next.
func TestRecheckVolatileData(t *testing.T) {
	t.Parallel()
	bin := recheckBinary(t)
	dir := t.TempDir()
	env := rcEnv(t, dir, "RECHECK_DIR="+dir)
	for _, cmd := range []string{"stamp", "fetch"} {
		first, _ := rcRun(t, bin, env, "", cmd)
		time.Sleep(2 * time.Millisecond)
		second, code := rcRun(t, bin, env, "", cmd)
		if code != 0 || bytes.Equal(first.Data, second.Data) {
			t.Errorf("recheck %s: exit %d; data %s then %s: want two different answers, the time of each call", cmd, code, first.Data, second.Data)
		}
		var fields []any
		for _, w := range second.Warnings {
			if w.Code == "VOLATILE_DATA" {
				fields, _ = w.Context["fields"].([]any)
			}
		}
		want := map[string][]any{"stamp": {"data.generated_at"}, "fetch": {"data.fetched_at"}}[cmd]
		if diff := cmp.Diff(want, fields); diff != "" {
			t.Errorf("recheck %s: VOLATILE_DATA fields (-want +got):\n%s\nwarnings: %v", cmd, diff, second.Warnings)
		}
	}
	for _, b := range binaries {
		dir := t.TempDir()
		env := rcEnv(t, dir)
		rcRun(t, b.path, env, "", "add", "a")
		first, _ := rcRun(t, b.path, env, "", "show", "t1")
		time.Sleep(2 * time.Millisecond)
		second, code := rcRun(t, b.path, env, "", "show", "t1")
		if code != 0 || !bytes.Equal(first.Data, second.Data) || len(second.Warnings) != 0 {
			t.Errorf("todo show (%s): exit %d, data %s then %s, warnings %v", b.framework, code, first.Data, second.Data, second.Warnings)
		}
	}
}
