package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// in runs the test app with dir as its working directory, where a relative
// --output resolves.
func (r run) in(dir string) run {
	r.opts = append(append([]urfave.Option(nil), r.opts...), adapters.WithWorkDir(dir))
	return r
}

// files lists the names in dir: what an invocation left there.
func files(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// wantWritten checks the envelope of a command whose answer went to a file
// (--output): data says what was written where, and the file holds it.
func wantWritten(t *testing.T, w wire, path, contentType string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the answer's file: %v", err)
	}
	var got envelope.Written
	dec := json.NewDecoder(bytes.NewReader(w.Data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("data: %v\n%s", err, w.Data)
	}
	want := envelope.Written{Path: path, Bytes: len(raw), ContentType: contentType}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("data, what was written (-want +got):\n%s", diff)
	}
	return raw
}

// TestOutputFile: --output <path> writes the answer, in the --format
// representation, to the file, relative paths resolved against the working
// directory; stdout then carries the envelope that says what was written
// (REQ-O-001). A command that fails leaves no file, and answers on stdout as
// it would without --output.
func TestOutputFile(t *testing.T) {
	tests := []struct {
		name        string
		args        []string
		file        string // relative to the working directory
		contentType string
		content     func(t *testing.T, raw []byte)
	}{
		{"json, an agent's default", []string{"--output", "answer.json"}, "answer.json", "application/json", func(t *testing.T, raw []byte) {
			if w := wantOK(t, result{stdout: string(raw)}); string(w.Data) != `{"id":"i1","name":"alpha"}` {
				t.Errorf("the file's envelope has data %s", w.Data)
			}
		}},
		{"tsv", []string{"--format", "tsv", "--output", "answer.tsv"}, "answer.tsv", "text/tab-separated-values", func(t *testing.T, raw []byte) {
			if string(raw) != "id\tname\ni1\talpha\n" {
				t.Errorf("the file holds %q", raw)
			}
		}},
		{"text, in a directory", []string{"--output", "out/answer.txt", "--format", "text"}, "out/answer.txt", "text/plain", func(t *testing.T, raw []byte) {
			if string(raw) != "id:   i1\nname: alpha\n" {
				t.Errorf("the file holds %q", raw)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
				t.Fatal(err)
			}
			h := newHarness(t)
			r := run{}.in(dir).do(t, h, append([]string{"show"}, tt.args...)...)
			w := wantOK(t, r)
			tt.content(t, wantWritten(t, w, filepath.Join(dir, tt.file), tt.contentType))
			if h.called("show") != 1 || len(w.Warnings) != 0 || r.stderr != "" {
				t.Errorf("ran %d times, warnings %q, stderr %q", h.called("show"), w.Warnings, r.stderr)
			}
		})
	}
	t.Run("an absolute path", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(t.TempDir(), "answer.json")
		wantWritten(t, wantOK(t, run{}.in(dir).do(t, newHarness(t), "show", "--output", path)), path, "application/json")
		if got := files(t, dir); len(got) != 0 {
			t.Errorf("the working directory holds %q", got)
		}
	})
	t.Run("for a person", func(t *testing.T) {
		dir := t.TempDir()
		r := run{tty: adapters.Console, env: []string{"TERM=dumb"}}.in(dir).do(t, newHarness(t), "show", "--output", "answer.txt")
		path := filepath.Join(dir, "answer.txt")
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := "path:         " + path + "\nbytes:        21\ncontent_type: text/plain\n"
		if r.code != 0 || string(raw) != "id:   i1\nname: alpha\n" || r.stdout != want {
			t.Errorf("exit %d, the file holds %q, stdout %q; want the text in the file and\n%s", r.code, raw, r.stdout, want)
		}
	})
	// A failure writes no file, whatever its stage.
	for _, tt := range []struct {
		cmd  string
		exit int
		code string
	}{
		{"missing", 5, "NOT_FOUND"},           // the command failed
		{"purge", 2, "CONFIRMATION_REQUIRED"}, // refused after its preview ran
		{"need", 2, "MISSING_REQUIRED_FLAG"},  // refused before it ran
		{"boom", 1, "INTERNAL_ERROR"},         // it panicked
	} {
		t.Run("a failed "+tt.cmd, func(t *testing.T) {
			dir := t.TempDir()
			w := wantError(t, run{}.in(dir).do(t, newHarness(t), tt.cmd, "--output", "answer.json"), tt.exit, tt.code)
			if string(w.Data) != "null" {
				t.Errorf("data %s, want null", w.Data)
			}
			if got := files(t, dir); len(got) != 0 {
				t.Errorf("a failed command left %q", got)
			}
		})
	}
}

// TestOutputIsAPath: --output takes a path; a format's name there (an
// agent's --output json, or yaml as other CLIs take it) or - (stdout, which
// carries the envelope) is refused before the command runs, exit 2, and
// makes no file (CLI Agent Spec §78).
func TestOutputIsAPath(t *testing.T) {
	tests := []struct {
		value      string
		suggestion string
	}{
		{"json", "use --format json"},
		{"jsonl", "use --format jsonl"},
		{"tsv", "use --format tsv"},
		{"text", "use --format text"},
		{"yaml", "choose the format with --format, one of json"},
		{"table", "choose the format with --format, one of json"},
		{"-", "leave --output out"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			dir := t.TempDir()
			h := newHarness(t)
			w := wantError(t, run{}.in(dir).do(t, h, "show", "--output", tt.value), 2, "OUTPUT_IS_A_PATH")
			if w.Error.Field != "output" || w.Error.Phase != envelope.Validation || !strings.Contains(w.Error.Suggestion, tt.suggestion) {
				t.Errorf("field %q, phase %q, suggestion %q; want output, validation and %q", w.Error.Field, w.Error.Phase, w.Error.Suggestion, tt.suggestion)
			}
			if h.called("show") != 0 {
				t.Error("the command ran")
			}
			if got := files(t, dir); len(got) != 0 {
				t.Errorf("left %q", got)
			}
		})
	}
}

// TestLegacyOutput: WithLegacyOutput keeps an app's old command lines
// working: --output with a format's name picks the format, and
// <TOOL>_OUTPUT is read while <TOOL>_FORMAT is unset, each with one
// DEPRECATED warning naming the new form. Any other --output is a path.
func TestLegacyOutput(t *testing.T) {
	legacy := []urfave.Option{adapters.WithLegacyOutput()}
	person := []string{"TERM=dumb"}
	t.Run("--output json", func(t *testing.T) {
		dir := t.TempDir()
		w := wantOK(t, run{opts: legacy}.in(dir).do(t, newHarness(t), "show", "--output", "json"))
		if string(w.Data) != `{"id":"i1","name":"alpha"}` || len(w.Warnings) != 1 || w.Warnings[0].Code != "DEPRECATED" ||
			!strings.HasSuffix(w.Warnings[0].Message, "Next: use --format json") {
			t.Errorf("data %s, warnings %q; want the answer and one DEPRECATED warning naming --format json", w.Data, w.Warnings)
		}
		if got := files(t, dir); len(got) != 0 {
			t.Errorf("--output json made %q", got)
		}
	})
	t.Run("--output tsv", func(t *testing.T) {
		r := run{opts: legacy}.do(t, newHarness(t), "show", "--output", "tsv")
		if r.code != 0 || r.stdout != "id\tname\ni1\talpha\n" || !strings.HasPrefix(r.stderr, "WARNING [DEPRECATED]: --output tsv") || !strings.Contains(r.stderr, "--format tsv") {
			t.Errorf("exit %d, stdout %q, stderr %q; want TSV, and the warning on stderr", r.code, r.stdout, r.stderr)
		}
	})
	// With --format given, --output is a path again: json is refused as one.
	t.Run("--format given as well", func(t *testing.T) {
		dir := t.TempDir()
		wantError(t, run{opts: legacy}.in(dir).do(t, newHarness(t), "show", "--format", "tsv", "--output", "json"), 2, "OUTPUT_IS_A_PATH")
		if got := files(t, dir); len(got) != 0 {
			t.Errorf("left %q", got)
		}
	})
	t.Run("a path", func(t *testing.T) {
		dir := t.TempDir()
		w := wantOK(t, run{opts: legacy}.in(dir).do(t, newHarness(t), "show", "--output", "answer.json"))
		wantWritten(t, w, filepath.Join(dir, "answer.json"), "application/json")
		if len(w.Warnings) != 0 {
			t.Errorf("warnings %q, want none", w.Warnings)
		}
	})
	t.Run("APP_OUTPUT", func(t *testing.T) {
		r := run{tty: adapters.Console, env: append([]string{"APP_OUTPUT=json"}, person...), opts: legacy}.do(t, newHarness(t), "show")
		w := wantOK(t, r)
		if len(w.Warnings) != 1 || w.Warnings[0].Code != "DEPRECATED" || !strings.Contains(w.Warnings[0].Message, "APP_OUTPUT") ||
			!strings.HasSuffix(w.Warnings[0].Message, "Next: set APP_FORMAT instead") {
			t.Errorf("warnings %q, want one DEPRECATED warning naming APP_FORMAT", w.Warnings)
		}
	})
	t.Run("APP_FORMAT over APP_OUTPUT", func(t *testing.T) {
		r := run{tty: adapters.Console, env: append([]string{"APP_OUTPUT=json", "APP_FORMAT=tsv"}, person...), opts: legacy}.do(t, newHarness(t), "show")
		if r.code != 0 || r.stdout != "id\tname\ni1\talpha\n" || r.stderr != "" {
			t.Errorf("exit %d, stdout %q, stderr %q; want TSV and no warning", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("APP_OUTPUT without WithLegacyOutput", func(t *testing.T) {
		r := run{tty: adapters.Console, env: append([]string{"APP_OUTPUT=json"}, person...)}.do(t, newHarness(t), "show")
		if r.code != 0 || r.stdout != "id:   i1\nname: alpha\n" || r.stderr != "" {
			t.Errorf("exit %d, stdout %q, stderr %q; want a person's text: APP_OUTPUT is not read", r.code, r.stdout, r.stderr)
		}
	})
	// A streaming-default command reads the format twice (the audience,
	// then whether to stream): it still warns once.
	t.Run("a streaming-default command", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		code := urfave.Run(context.Background(), streamApp(), []string{"events", "--output", "json"}, run{opts: legacy}.options(&stdout, &stderr)...)
		w := wantOK(t, result{code: code, stdout: stdout.String(), stderr: stderr.String()})
		if diff := cmp.Diff([]string{"DEPRECATED"}, w.codes()); diff != "" || string(w.Data) != `[{"id":"e1"},{"id":"e2"},{"id":"e3"}]` {
			t.Errorf("data %s, warnings (-want +got):\n%s", w.Data, diff)
		}
		stdout.Reset()
		code = urfave.Run(context.Background(), streamApp(), []string{"events"}, run{env: []string{"APP_OUTPUT=jsonl"}, opts: legacy}.options(&stdout, &stderr)...)
		lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
		s := summaryOf(t, []byte(lines[len(lines)-1]), code)
		if diff := cmp.Diff([]string{"DEPRECATED"}, codesOf(s.Warnings)); diff != "" || s.Total != 3 {
			t.Errorf("the summary's total %d, warnings (-want +got):\n%s", s.Total, diff)
		}
	})
}

func codesOf(ws []envelope.Warning) []string {
	return wire{Warnings: ws}.codes()
}

// TestFormatFromTheEnvironment: <TOOL>_FORMAT chooses the format when
// --format does not, for an agent and a person alike; a value that names no
// format is refused as --format's would be.
func TestFormatFromTheEnvironment(t *testing.T) {
	const envelopeOut, tsv, text = "envelope", "id\tname\ni1\talpha\n", "id:   i1\nname: alpha\n"
	tests := []struct {
		name string
		tty  adapters.Terminal
		env  []string
		args []string
		want string // envelopeOut, or the exact stdout
	}{
		{"an agent, tsv", adapters.Piped, []string{"APP_FORMAT=tsv"}, nil, tsv},
		{"a person, json", adapters.Console, []string{"APP_FORMAT=json", "TERM=dumb"}, nil, envelopeOut},
		{"a person, by default", adapters.Console, []string{"TERM=dumb"}, nil, text},
		{"--format over APP_FORMAT", adapters.Piped, []string{"APP_FORMAT=tsv"}, []string{"--format", "json"}, envelopeOut},
		{"APP_OUTPUT is not read", adapters.Piped, []string{"APP_OUTPUT=tsv"}, nil, envelopeOut},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run{tty: tt.tty, env: tt.env}.do(t, newHarness(t), append([]string{"show"}, tt.args...)...)
			if tt.want == envelopeOut {
				if w := wantOK(t, r); string(w.Data) != `{"id":"i1","name":"alpha"}` {
					t.Errorf("data %s", w.Data)
				}
				return
			}
			if r.code != 0 || r.stdout != tt.want || r.stderr != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want %q", r.code, r.stdout, r.stderr, tt.want)
			}
		})
	}
	t.Run("a value that names no format", func(t *testing.T) {
		h := newHarness(t)
		w := wantError(t, run{env: []string{"APP_FORMAT=yaml"}}.do(t, h, "show"), 2, "INVALID_ENUM_VALUE")
		if w.Error.Field != "format" || !strings.Contains(w.Error.Message, `APP_FORMAT (the default of --format)`) || h.called("show") != 0 {
			t.Errorf("field %q, message %q, ran %d; want format, naming APP_FORMAT, not run", w.Error.Field, w.Error.Message, h.called("show"))
		}
	})
}

// tagApp has a command with a scalar flag, a list flag and a counter.
func tagApp() *cli.Command {
	var verbosity int
	return &cli.Command{Name: "app", Commands: []*cli.Command{urfave.Annotate(&cli.Command{Name: "tag",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "name"},
			&cli.StringSliceFlag{Name: "label"},
			&cli.BoolFlag{Name: "loud", Aliases: []string{"l"}, Config: cli.BoolConfig{Count: &verbosity}},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			return envelope.From(ctx).Result(map[string]any{"name": c.String("name"), "labels": c.StringSlice("label")})
		}}, schema.Meta{Danger: schema.Safe})}}
}

// TestConflictingValues: a flag that takes one value given twice with
// different values is refused, exit 2 CONFLICTING_VALUES naming it, before
// the command runs, whichever order the values come in and wherever the
// flag stands; the same value twice is one value, and a list takes every
// one (REQ-F-067).
func TestConflictingValues(t *testing.T) {
	tests := []struct {
		args  []string
		field string // "": accepted
	}{
		{[]string{"count", "--n", "1", "--n", "2"}, "n"},
		{[]string{"count", "--n", "2", "--n=2"}, ""},
		{[]string{"show", "--format", "json", "--format", "tsv"}, "format"},
		{[]string{"show", "--format", "tsv", "--format", "json"}, "format"},
		{[]string{"--format", "json", "show", "--format", "text"}, "format"},
		{[]string{"--format", "json", "show", "--format", "json"}, ""},
		{[]string{"show", "--timeout", "5s", "--timeout", "9s"}, "timeout"},
		{[]string{"show", "--fields", "id", "--fields", "name"}, ""}, // a list
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			h := newHarness(t)
			r := run{}.do(t, h, tt.args...)
			if tt.field == "" {
				wantOK(t, r)
				return
			}
			// The refusal is an envelope whichever --format came last.
			w := wantError(t, r, 2, "CONFLICTING_VALUES")
			if w.Error.Field != tt.field || w.Error.Phase != envelope.Validation || !strings.Contains(w.Error.Message, "--"+tt.field) {
				t.Errorf("field %q, phase %q, message %q; want %s, validation", w.Error.Field, w.Error.Phase, w.Error.Message, tt.field)
			}
			if h.called(tt.args[0]) != 0 {
				t.Error("the command ran")
			}
		})
	}
	for _, tt := range []struct {
		args []string
		code string // "": accepted
		data string
	}{
		{[]string{"tag", "--name", "a", "--name", "b"}, "CONFLICTING_VALUES", ""},
		{[]string{"tag", "--name", "a", "--name", "a"}, "", `{"labels":[],"name":"a"}`},
		{[]string{"tag", "--label", "x", "--label", "y"}, "", `{"labels":["x","y"],"name":""}`},
		{[]string{"tag", "-l", "-l", "--loud"}, "", `{"labels":[],"name":""}`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := urfave.Run(context.Background(), tagApp(), tt.args, run{}.options(&stdout, &stderr)...)
			r := result{code: code, stdout: stdout.String(), stderr: stderr.String()}
			if tt.code != "" {
				wantError(t, r, 2, tt.code)
				return
			}
			if w := wantOK(t, r); string(w.Data) != tt.data {
				t.Errorf("data %s, want %s", w.Data, tt.data)
			}
		})
	}
}
