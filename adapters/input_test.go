package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	duetcobra "github.com/duet-cli/duet/adapters/cobra"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/feature/json5"
	"github.com/duet-cli/duet/input"
	"github.com/duet-cli/duet/schema"
	"github.com/duet-cli/duet/schema/validator"
	"github.com/duet-cli/duet/walk"
)

// The input area's test app, "inapp", built on both frameworks from the same
// declarations and actions: what the lifecycle rewrites on the command line
// (--raw-payload, "-", JSON5, rule defaults) must reach either framework the
// same.

// received is what create, export and the id commands were given, as the
// framework handed it to them.
type received struct {
	Name     string   `json:"name,omitempty"`
	Count    int64    `json:"count,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Config   string   `json:"config,omitempty"`
	Force    bool     `json:"force,omitempty"`
	Region   string   `json:"region,omitempty"`
	IDs      []string `json:"ids,omitempty"`
	Format   string   `json:"format,omitempty"`
	Sep      string   `json:"separator,omitempty"`
	Level    int64    `json:"level,omitempty"`
	Compress bool     `json:"compress,omitempty"`
}

// ran counts the actions that ran, by name, for one app.
type ran map[string]int

func inputMeta() map[string]schema.Meta {
	return map[string]schema.Meta{
		"import": {Danger: schema.Mutating, Stdin: "JSON lines, one item each", NoArgs: true},
		"create": {Danger: schema.Mutating, RawPayload: true,
			Args:  []schema.Arg{{Name: "region", Type: schema.String}},
			Flags: map[string]schema.FlagMeta{"config": {JSON: true}, "name": {Enum: []string{"foo", "prod", "x"}}}},
		"done": {Danger: schema.Mutating, Args: []schema.Arg{{Name: "id", Required: true, Type: schema.String, ID: true, Pipe: true}}},
		"tag":  {Danger: schema.Mutating, Args: []schema.Arg{{Name: "ids", Required: true, Variadic: true, Type: schema.String, ID: true, Pipe: true}}},
		"get":  {Danger: schema.Safe, NoArgs: true, Flags: map[string]schema.FlagMeta{"id": {ID: true, Pipe: true}}},
		"export": {Danger: schema.Safe, NoArgs: true,
			Flags: map[string]schema.FlagMeta{"type": {Enum: []string{"csv", "json", "parquet"}}, "separator": {Env: []string{"INAPP_SEPARATOR"}}},
			Requires: []schema.Rule{
				schema.IfValue("type", "csv", "separator"),
				schema.IfPresent("output", "stdout"),
				schema.DefaultWhenAbsent("compress", "level", 0),
			}},
		"clean": {Danger: schema.Mutating, Traverses: true, Args: []schema.Arg{{Name: "dir", Required: true, Type: schema.String}}},
	}
}

// importAction answers with what it read: its size, lines and source.
func importAction(ctx context.Context) error {
	src := input.From(ctx)
	data, err := src.ReadAll()
	if err != nil {
		return err
	}
	return created(ctx).Result(map[string]any{"bytes": len(data), "lines": bytes.Count(data, []byte("\n")), "source": src.Name()})
}

// created is the command's Output, the effect created reported: the
// mutating commands of these apps say what they did (C-003).
func created(ctx context.Context) *envelope.Output {
	out := envelope.From(ctx)
	out.Effect(envelope.Created)
	return out
}

// cleanAction deletes a tree: it walks it whole first, so a loop or a tree
// too deep deletes nothing, then removes what it found, deepest first.
func cleanAction(ctx context.Context, dir string) error {
	var found []walk.Entry
	stats, err := walk.Walk(ctx, dir, func(e walk.Entry) error {
		found = append(found, e)
		return nil
	})
	if err != nil {
		return err
	}
	for _, e := range slices.Backward(found) {
		if err := os.Remove(e.Path); err != nil {
			return err
		}
	}
	out := envelope.From(ctx)
	out.Effect(envelope.Deleted)
	return out.Result(map[string]int{"deleted_count": len(found), "symlinks_skipped": stats.SymlinksSkipped})
}

func newInputURFave(r ran) *cli.Command {
	meta := inputMeta()
	done := func(name string) { r[name]++ }
	cmds := []*cli.Command{
		{Name: "import", Action: func(ctx context.Context, _ *cli.Command) error { done("import"); return importAction(ctx) }},
		{Name: "create", Flags: []cli.Flag{
			&cli.StringFlag{Name: "name", Required: true}, &cli.IntFlag{Name: "count"}, &cli.StringSliceFlag{Name: "tag"},
			&cli.StringFlag{Name: "config", Aliases: []string{"c"}}, &cli.BoolFlag{Name: "force"}},
			Action: func(ctx context.Context, c *cli.Command) error {
				done("create")
				return created(ctx).Result(received{Name: c.String("name"), Count: int64(c.Int("count")), Tags: c.StringSlice("tag"),
					Config: c.String("config"), Force: c.Bool("force"), Region: c.Args().First()})
			}},
		{Name: "done", Action: func(ctx context.Context, c *cli.Command) error {
			done("done")
			return created(ctx).Result(received{IDs: c.Args().Slice()})
		}},
		{Name: "tag", Action: func(ctx context.Context, c *cli.Command) error {
			done("tag")
			return created(ctx).Result(received{IDs: c.Args().Slice()})
		}},
		{Name: "get", Flags: []cli.Flag{&cli.StringFlag{Name: "id"}}, Action: func(ctx context.Context, c *cli.Command) error {
			done("get")
			return envelope.From(ctx).Result(received{IDs: []string{c.String("id")}})
		}},
		{Name: "export", Flags: []cli.Flag{
			&cli.StringFlag{Name: "type", Value: "json"}, &cli.StringFlag{Name: "separator"}, &cli.StringFlag{Name: "output"},
			&cli.BoolFlag{Name: "stdout"}, &cli.BoolFlag{Name: "compress"}, &cli.IntFlag{Name: "level", Value: 6}},
			Action: func(ctx context.Context, c *cli.Command) error {
				done("export")
				return envelope.From(ctx).Result(received{Format: c.String("type"), Sep: c.String("separator"), Level: int64(c.Int("level")), Compress: c.Bool("compress")})
			}},
		{Name: "clean", Action: func(ctx context.Context, c *cli.Command) error {
			done("clean")
			return cleanAction(ctx, c.Args().First())
		}},
	}
	for _, c := range cmds {
		c.Usage = c.Name
		urfave.Annotate(c, meta[c.Name])
	}
	return &cli.Command{Name: "inapp", Usage: "the input area's test app", Commands: cmds}
}

func newInputCobra(r ran) *cobra.Command {
	meta := inputMeta()
	done := func(name string) { r[name]++ }
	root := &cobra.Command{Use: "inapp", Short: "the input area's test app"}
	add := func(c *cobra.Command) *cobra.Command {
		c.Short = c.Use
		root.AddCommand(duetcobra.Annotate(c, meta[c.Use]))
		return c
	}
	add(&cobra.Command{Use: "import", RunE: func(c *cobra.Command, _ []string) error { done("import"); return importAction(c.Context()) }})
	var name, config string
	var count int64
	var tags []string
	var force bool
	create := add(&cobra.Command{Use: "create", RunE: func(c *cobra.Command, args []string) error {
		done("create")
		region := ""
		if len(args) > 0 {
			region = args[0]
		}
		return created(c.Context()).Result(received{Name: name, Count: count, Tags: tags, Config: config, Force: force, Region: region})
	}})
	create.Flags().StringVar(&name, "name", "", "")
	create.MarkFlagRequired("name")
	create.Flags().Int64Var(&count, "count", 0, "")
	create.Flags().StringSliceVar(&tags, "tag", nil, "")
	create.Flags().StringVarP(&config, "config", "c", "", "")
	create.Flags().BoolVar(&force, "force", false, "")
	ids := func(n string) func(*cobra.Command, []string) error {
		return func(c *cobra.Command, args []string) error {
			done(n)
			return created(c.Context()).Result(received{IDs: args})
		}
	}
	add(&cobra.Command{Use: "done", RunE: ids("done")})
	add(&cobra.Command{Use: "tag", RunE: ids("tag")})
	var id string
	get := add(&cobra.Command{Use: "get", RunE: func(c *cobra.Command, _ []string) error {
		done("get")
		return envelope.From(c.Context()).Result(received{IDs: []string{id}})
	}})
	get.Flags().StringVar(&id, "id", "", "")
	var format, sep, output string
	var stdout, compress bool
	var level int64
	export := add(&cobra.Command{Use: "export", RunE: func(c *cobra.Command, _ []string) error {
		done("export")
		return envelope.From(c.Context()).Result(received{Format: format, Sep: sep, Level: level, Compress: compress})
	}})
	export.Flags().StringVar(&format, "type", "json", "")
	export.Flags().StringVar(&sep, "separator", "", "")
	export.Flags().StringVar(&output, "output", "", "")
	export.Flags().BoolVar(&stdout, "stdout", false, "")
	export.Flags().BoolVar(&compress, "compress", false, "")
	export.Flags().Int64Var(&level, "level", 6, "")
	add(&cobra.Command{Use: "clean", RunE: func(c *cobra.Command, args []string) error {
		done("clean")
		return cleanAction(c.Context(), args[0])
	}})
	return root
}

// frameworks build inapp on each framework and run it once.
var frameworks = []struct {
	name string
	run  func(args []string, r ran, opts ...urfave.Option) int
}{
	{"urfave", func(args []string, r ran, opts ...urfave.Option) int {
		return urfave.Run(context.Background(), newInputURFave(r), args, opts...)
	}},
	{"cobra", func(args []string, r ran, opts ...urfave.Option) int {
		return duetcobra.Run(context.Background(), newInputCobra(r), args, opts...)
	}},
}

// in is one invocation of inapp, as an agent makes it.
type in struct {
	stdin  io.Reader
	env    []string
	stdinT bool // stdin is a terminal (the others are pipes)
	opts   []urfave.Option
}

func stdinTerminal(t bool) adapters.Terminal {
	if t {
		return adapters.StdinTerminal
	}
	return adapters.Piped
}

func (i in) do(t *testing.T, framework string, args ...string) (result, ran) {
	t.Helper()
	for _, fw := range frameworks {
		if fw.name != framework {
			continue
		}
		var stdout, stderr bytes.Buffer
		stdin := i.stdin
		if stdin == nil {
			stdin = strings.NewReader("")
		}
		r := ran{}
		opts := append([]urfave.Option{
			adapters.WithSpecStrict(),
			adapters.WithStdio(stdin, &stdout, &stderr),
			adapters.WithEnv(i.env),
			adapters.WithTerminal(stdinTerminal(i.stdinT)),
			adapters.WithRequestID(func() string { return "req-test" }),
			adapters.WithClock(func() time.Time { return time.Date(2026, 3, 17, 14, 0, 0, 0, time.UTC) }),
			adapters.WithFeatures(json5.New()), // the whole input pipeline: JSON5 is read (F-059)
		}, i.opts...)
		code := fw.run(args, r, opts...)
		return result{code: code, stdout: stdout.String(), stderr: stderr.String()}, r
	}
	t.Fatalf("no framework %q", framework)
	return result{}, nil
}

// onBoth runs test once per framework.
func onBoth(t *testing.T, test func(t *testing.T, fw string)) {
	for _, fw := range frameworks {
		t.Run(fw.name, func(t *testing.T) { test(t, fw.name) })
	}
}

func dataOf[T any](t *testing.T, w wire) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(w.Data, &v); err != nil {
		t.Fatalf("data: %v\n%s", err, w.Data)
	}
	return v
}

func schemaOf(t *testing.T, fw string, command string) map[string]any {
	t.Helper()
	r, _ := in{}.do(t, fw, command, "--schema")
	return dataOf[map[string]any](t, wantOK(t, r))
}

// ---------------------------------------------------------------------------
// F-054, O-039: the stdin cap and --input-file

func TestStdinCap(t *testing.T) {
	onBoth(t, func(t *testing.T, fw string) {
		tests := []struct {
			name  string
			size  int
			env   []string
			limit int // 0: accepted
		}{
			{"65535 bytes", 65535, nil, 0},
			{"65536 bytes, the cap itself", 65536, nil, 0},
			{"65537 bytes", 65537, nil, 65536},
			{"10 MB", 10 << 20, nil, 65536},
			{"a cap set in the environment", 11, []string{"INAPP_MAX_STDIN_BYTES=10"}, 10},
			{"a cap the environment cannot set", 65536, []string{"INAPP_MAX_STDIN_BYTES=lots"}, 0},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				payload := bytes.Repeat([]byte("x"), tc.size)
				r, ran := in{stdin: bytes.NewReader(payload), env: tc.env}.do(t, fw, "import")
				if tc.limit == 0 {
					w := wantOK(t, r)
					if got := dataOf[map[string]any](t, w)["bytes"]; got != float64(tc.size) {
						t.Errorf("the command read %v bytes, want %d", got, tc.size)
					}
					return
				}
				w := wantError(t, r, 2, "STDIN_TOO_LARGE")
				e := w.Error
				if ran["import"] != 0 {
					t.Error("the command ran")
				}
				if e.Phase != envelope.Validation || !strings.Contains(e.Hint, "--input-file") {
					t.Errorf("phase %q hint %q: want validation, and a hint naming --input-file", e.Phase, e.Hint)
				}
				want := map[string]any{"received_bytes": float64(tc.size), "limit_bytes": float64(tc.limit)}
				if diff := cmp.Diff(want, e.Context); diff != "" {
					t.Errorf("context (-want +got):\n%s", diff)
				}
			})
		}
	})
}

func TestInputFile(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.jsonl")
	line := `{"title":"x"}` + "\n"
	if err := os.WriteFile(big, bytes.Repeat([]byte(line), (10<<20)/len(line)+1), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(big)
	onBoth(t, func(t *testing.T, fw string) {
		// A 10 MB file is read from the file, not from stdin.
		r, _ := in{stdin: strings.NewReader("from stdin\n")}.do(t, fw, "import", "--input-file", big)
		got := dataOf[map[string]any](t, wantOK(t, r))
		if want := (map[string]any{"bytes": float64(fi.Size()), "lines": float64(fi.Size()) / float64(len(line)), "source": big}); !cmp.Equal(want, got) {
			t.Errorf("--input-file: read %v, want %v", got, want)
		}
		// - is stdin, under the same cap.
		r, _ = in{stdin: strings.NewReader("a\nb\n")}.do(t, fw, "import", "--input-file=-")
		if got := dataOf[map[string]any](t, wantOK(t, r)); got["bytes"] != 4.0 || got["source"] != "stdin" {
			t.Errorf("--input-file -: read %v", got)
		}
		r, _ = in{stdin: bytes.NewReader(make([]byte, 70000))}.do(t, fw, "import", "--input-file", "-")
		wantError(t, r, 2, "STDIN_TOO_LARGE")
		// A file that is not there, or a directory, is refused before anything runs.
		for _, bad := range []string{filepath.Join(t.TempDir(), "missing"), t.TempDir()} {
			r, ran := in{}.do(t, fw, "import", "--input-file", bad)
			wantError(t, r, 2, "INVALID_INPUT_FILE")
			if ran["import"] != 0 {
				t.Error("the command ran")
			}
		}
		// Only a command that reads stdin has --input-file.
		r, _ = in{}.do(t, fw, "export", "--input-file", big)
		wantError(t, r, 2, "UNKNOWN_FLAG")
		// --schema says what stdin takes and how to send more.
		doc := schemaOf(t, fw, "import")
		if _, ok := doc["flags"].(map[string]any)["input-file"]; !ok {
			t.Errorf("--schema lists no input-file flag: %v", doc["flags"])
		}
		want := map[string]any{"description": "JSON lines, one item each", "mode": "buffered", "max_bytes": 65536.0, "overflow_flag": "--input-file"}
		if diff := cmp.Diff(want, doc["stdin_input"]); diff != "" {
			t.Errorf("stdin_input (-want +got):\n%s", diff)
		}
	})
}

// blockingReader is a stdin that never ends: the writer never closes it.
type blockingReader struct{ unblock chan struct{} }

func (b blockingReader) Read([]byte) (int, error) {
	<-b.unblock
	return 0, io.EOF
}

// TestStdinNeverHangs: a stdin left open ends at the time limit, a signal
// cancels the read, a terminal nobody types at is refused at once, and an
// empty one is an error — never a command that waits for ever.
func TestStdinNeverHangs(t *testing.T) {
	onBoth(t, func(t *testing.T, fw string) {
		open := blockingReader{make(chan struct{})}
		defer close(open.unblock)
		r, ran := in{stdin: open}.do(t, fw, "import", "--timeout", "20ms")
		w := wantError(t, r, 10, "STDIN_TIMEOUT")
		if w.Error.Phase != envelope.Validation || ran["import"] != 0 {
			t.Errorf("phase %q, ran %v: want validation, nothing run", w.Error.Phase, ran)
		}

		sigs := make(chan os.Signal, 1)
		sigs <- syscall.SIGTERM
		r, _ = in{stdin: open, opts: []urfave.Option{adapters.WithSignals(sigs)}}.do(t, fw, "import")
		wantError(t, r, 143, "CANCELLED")

		r, _ = in{stdin: open, stdinT: true}.do(t, fw, "import")
		w = wantError(t, r, 4, "STDIN_REQUIRED")
		if !strings.Contains(w.Error.Hint, "--input-file") {
			t.Errorf("hint %q does not name --input-file", w.Error.Hint)
		}

		r, _ = in{stdin: strings.NewReader("")}.do(t, fw, "import")
		wantError(t, r, 2, "EMPTY_STDIN")
	})
}

// ---------------------------------------------------------------------------
// F-059: JSON5 in flags declared JSON

func TestJSON5Flags(t *testing.T) {
	onBoth(t, func(t *testing.T, fw string) {
		accepted := []struct {
			name string
			args []string
			want string // what the command receives
		}{
			{"strict JSON, untouched", []string{"--config", `{"key": "value"}`}, `{"key": "value"}`},
			{"a trailing comma", []string{"--config", `{"key": "value",}`}, `{"key":"value"}`},
			{"a block comment", []string{"--config", `{"key": "value" /* comment */}`}, `{"key":"value"}`},
			{"a comment in between", []string{"--config={'env': /* staging */ 'prod'}"}, `{"env":"prod"}`},
			{"unquoted keys, short flag", []string{"-c", `{env: 'prod', n: 0x10,}`}, `{"env":"prod","n":16}`},
		}
		for _, tc := range accepted {
			t.Run(tc.name, func(t *testing.T) {
				r, _ := in{}.do(t, fw, append([]string{"create", "--name", "x"}, tc.args...)...)
				if got := dataOf[received](t, wantOK(t, r)).Config; got != tc.want {
					t.Errorf("the command received %s, want %s", got, tc.want)
				}
			})
		}
		r, ran := in{}.do(t, fw, "create", "--name", "x", "--config", `{env prod}`)
		w := wantError(t, r, 2, "INVALID_JSON")
		if ran["create"] != 0 {
			t.Error("the command ran")
		}
		e := w.Error
		if e.CorrectedInput != `{"env":"prod"}` || e.Field != "config" || e.Phase != envelope.Validation || e.FixRequired == "" {
			t.Errorf("corrected_input %q field %q phase %q fix_required %q", e.CorrectedInput, e.Field, e.Phase, e.FixRequired)
		}
		// Sent back, the corrected input is accepted.
		r, _ = in{}.do(t, fw, "create", "--name", "x", "--config", e.CorrectedInput)
		wantOK(t, r)
	})
}

// ---------------------------------------------------------------------------
// O-032: --raw-payload

func TestRawPayload(t *testing.T) {
	onBoth(t, func(t *testing.T, fw string) {
		same := []struct {
			payload string
			flags   []string
		}{
			{`{"name": "foo", "count": 3}`, []string{"--name", "foo", "--count", "3"}},
			{`{name: 'prod', tag: ['a', 'b',], force: true, region: 'us-east-1', config: {env: 'prod'}}`,
				[]string{"--name", "prod", "--tag", "a", "--tag", "b", "--force", "--config", `{"env":"prod"}`, "us-east-1"}},
			{`{"name": "x", "tag": "one", "count": null}`, []string{"--name", "x", "--tag", "one"}},
			{`{"name": "x", "region": "-weird"}`, []string{"--name", "x", "--", "-weird"}},
		}
		r, _ := in{}.do(t, fw, "create", "--raw-payload", `{"name": "x", "region": "-weird"}`)
		if got := dataOf[received](t, wantOK(t, r)).Region; got != "-weird" {
			t.Errorf("a positional argument that looks like a flag: region = %q", got)
		}
		for _, tc := range same {
			raw, _ := in{}.do(t, fw, "create", "--raw-payload", tc.payload)
			flags, _ := in{}.do(t, fw, append([]string{"create"}, tc.flags...)...)
			if diff := cmp.Diff(wantOK(t, flags).Data, wantOK(t, raw).Data); diff != "" {
				t.Errorf("--raw-payload %s differs from %q (-flags +payload):\n%s", tc.payload, tc.flags, diff)
			}
		}
		refused := []struct {
			name, payload string
			codes         []string
			fields        []string
		}{
			{"not JSON", `{name foo`, []string{"INVALID_JSON"}, []string{"raw-payload"}},
			{"not an object", `["foo"]`, []string{"INVALID_RAW_PAYLOAD"}, []string{"raw-payload"}},
			{"wrong types", `{"name": "foo", "count": "three", "force": "yes"}`, []string{"INVALID_FIELD_TYPE", "INVALID_FIELD_TYPE"}, []string{"count", "force"}},
			{"an unknown field", `{"name": "foo", "colour": "red"}`, []string{"UNKNOWN_FIELD"}, []string{"colour"}},
			{"a required field missing", `{"count": 1}`, []string{"MISSING_REQUIRED_FLAG"}, []string{"name"}},
			{"a value not in the enum", `{"name": "bar"}`, []string{"INVALID_ENUM_VALUE"}, []string{"name"}},
			{"a fraction for an integer", `{"name": "foo", "count": 1.5}`, []string{"INVALID_FIELD_TYPE"}, []string{"count"}},
		}
		for _, tc := range refused {
			t.Run(tc.name, func(t *testing.T) {
				r, ran := in{}.do(t, fw, "create", "--raw-payload", tc.payload)
				code := tc.codes[0]
				if len(tc.codes) > 1 {
					code = "VALIDATION_FAILED"
				}
				w := wantError(t, r, 2, code)
				var codes, fields []string
				for _, p := range w.Error.Errors {
					codes, fields = append(codes, p.Code), append(fields, p.Field)
				}
				if diff := cmp.Diff([][]string{tc.codes, tc.fields}, [][]string{codes, fields}); diff != "" {
					t.Errorf("problems (-want +got):\n%s", diff)
				}
				if ran["create"] != 0 {
					t.Error("the command ran")
				}
			})
		}
		for _, mixed := range [][]string{
			{"create", "--raw-payload", `{"name":"foo"}`, "--count", "3"},
			{"create", "--name", "foo", "--raw-payload", `{"count":3}`},
			{"create", "--raw-payload", `{"name":"foo"}`, "eu"},
		} {
			r, _ := in{}.do(t, fw, mixed...)
			wantError(t, r, 2, "RAW_PAYLOAD_CONFLICT")
		}
		// Only a command that declares it takes --raw-payload.
		r, _ = in{}.do(t, fw, "export", "--raw-payload", `{}`)
		wantError(t, r, 2, "UNKNOWN_FLAG")
	})
}

// TestRawPayloadSchema: --schema carries raw_payload_schema, and a payload
// the lifecycle accepts is one the schema accepts; one it refuses for its
// shape, the schema refuses. JSON5 and strict JSON are judged alike.
func TestRawPayloadSchema(t *testing.T) {
	doc := schemaOf(t, "urfave", "create")
	raw, ok := doc["raw_payload_schema"].(map[string]any)
	if !ok {
		t.Fatalf("--schema has no raw_payload_schema: %v", doc)
	}
	props := raw["properties"].(map[string]any)
	var names []string
	for n := range props {
		names = append(names, n)
	}
	slices.Sort(names)
	if diff := cmp.Diff([]string{"config", "count", "force", "name", "region", "tag"}, names); diff != "" {
		t.Errorf("raw_payload_schema properties (-want +got):\n%s", diff)
	}
	compiled, err := validator.Compile(schema.Schema(raw))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ strict, json5 string }{
		{`{"name":"foo","count":3}`, `{name: 'foo', count: 3,}`},
		{`{"name":"foo","count":"three"}`, `{name: 'foo', /* wrong */ count: 'three'}`},
		{`{"name":"foo","colour":"red"}`, `{name: "foo", colour: "red"}`},
		{`{"name":"bar"}`, `{'name': 'bar'}`},
		{`{"count":1}`, `{count: +1}`},
	} {
		strictRun, _ := in{}.do(t, "urfave", "create", "--raw-payload", tc.strict)
		json5Run, _ := in{}.do(t, "urfave", "create", "--raw-payload", tc.json5)
		if diff := cmp.Diff(string(stable(t, strictRun.stdout)), string(stable(t, json5Run.stdout))); diff != "" || strictRun.code != json5Run.code {
			t.Errorf("%s and %s are judged differently (-strict +json5):\n%s", tc.strict, tc.json5, diff)
		}
		schemaOK := compiled.Validate(json.RawMessage(tc.strict)) == nil
		if runOK := strictRun.code == 0; runOK != schemaOK {
			t.Errorf("%s: the lifecycle accepts it: %v; raw_payload_schema accepts it: %v", tc.strict, runOK, schemaOK)
		}
	}
}

// ---------------------------------------------------------------------------
// O-006: "-" reads ids from stdin

func TestPipedIDs(t *testing.T) {
	redirect := filepath.Join(t.TempDir(), "ids")
	if err := os.WriteFile(redirect, []byte("t7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	onBoth(t, func(t *testing.T, fw string) {
		ids := func(r result) []string { t.Helper(); return dataOf[received](t, wantOK(t, r)).IDs }
		direct, _ := in{}.do(t, fw, "done", "42")
		piped, _ := in{stdin: strings.NewReader("42\n")}.do(t, fw, "done", "-")
		if diff := cmp.Diff(wantOK(t, direct).Data, wantOK(t, piped).Data); diff != "" {
			t.Errorf("echo 42 | done - differs from done 42:\n%s", diff)
		}
		f, err := os.Open(redirect) // done - < file
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r, _ := in{stdin: f}.do(t, fw, "done", "-")
		if diff := cmp.Diff([]string{"t7"}, ids(r)); diff != "" {
			t.Errorf("from a redirected file (-want +got):\n%s", diff)
		}
		r, _ = in{stdin: strings.NewReader("a1\n\n  a2  \na3")}.do(t, fw, "tag", "-")
		if diff := cmp.Diff([]string{"a1", "a2", "a3"}, ids(r)); diff != "" {
			t.Errorf("a variadic argument (-want +got):\n%s", diff)
		}
		r, _ = in{stdin: strings.NewReader("g1\n")}.do(t, fw, "get", "--id", "-")
		if diff := cmp.Diff([]string{"g1"}, ids(r)); diff != "" {
			t.Errorf("a flag (-want +got):\n%s", diff)
		}

		r, ran := in{stdin: strings.NewReader("")}.do(t, fw, "done", "-")
		w := wantError(t, r, 2, "EMPTY_STDIN")
		if w.Error.Phase != envelope.Validation || ran["done"] != 0 {
			t.Errorf("phase %q ran %v", w.Error.Phase, ran)
		}
		r, _ = in{stdin: strings.NewReader("a\nb\n")}.do(t, fw, "done", "-")
		wantError(t, r, 2, "TOO_MANY_VALUES")
		r, _ = in{stdin: strings.NewReader("../etc/passwd\n")}.do(t, fw, "done", "-")
		wantError(t, r, 2, "INVALID_ID") // what stdin gives is checked as the command line is
		r, _ = in{stdin: blockingReader{}, stdinT: true}.do(t, fw, "done", "-")
		wantError(t, r, 4, "STDIN_REQUIRED")
		r, _ = in{stdin: bytes.NewReader(bytes.Repeat([]byte("id\n"), 30000))}.do(t, fw, "tag", "-")
		wantError(t, r, 2, "STDIN_TOO_LARGE")
		// Without "-", stdin is not read.
		r, _ = in{stdin: blockingReader{}}.do(t, fw, "done", "42")
		wantOK(t, r)
		// On a command that does not declare Pipe, "-" is a value like any other.
		r, _ = in{stdin: blockingReader{}}.do(t, fw, "create", "--name", "x", "-")
		if got := dataOf[received](t, wantOK(t, r)).Region; got != "-" {
			t.Errorf("region = %q, want -", got)
		}
	})
	if doc := schemaOf(t, "urfave", "done"); !strings.Contains(mustJSON(t, doc["arguments"]), `"pipe_compatible":true`) {
		t.Errorf("--schema does not mark the argument pipe_compatible: %v", doc["arguments"])
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ---------------------------------------------------------------------------
// C-026: conditional rules

func TestRequires(t *testing.T) {
	onBoth(t, func(t *testing.T, fw string) {
		tests := []struct {
			args  []string
			codes []string // nil: accepted
			want  received
		}{
			{[]string{"--type", "csv"}, []string{"MISSING_REQUIRED_FLAG"}, received{}},
			{[]string{"--type", "csv", "--separator", ";"}, nil, received{Format: "csv", Sep: ";"}},
			{[]string{"--type", "json"}, nil, received{Format: "json"}},
			{[]string{"--output", "r.json", "--stdout"}, []string{"MUTUALLY_EXCLUSIVE_FLAGS"}, received{}},
			{[]string{"--output", "r.json", "--stdout", "--type=csv"}, []string{"MISSING_REQUIRED_FLAG", "MUTUALLY_EXCLUSIVE_FLAGS"}, received{}},
			{[]string{"--compress"}, nil, received{Format: "json", Compress: true, Level: 6}},
			{nil, nil, received{Format: "json"}}, // level 0: the rule's default when --compress is absent
			{[]string{"--level", "9"}, nil, received{Format: "json", Level: 9}},
		}
		for _, tc := range tests {
			r, ran := in{}.do(t, fw, append([]string{"export"}, tc.args...)...)
			if tc.codes == nil {
				if got := dataOf[received](t, wantOK(t, r)); !cmp.Equal(tc.want, got) {
					t.Errorf("export %q: received %+v, want %+v", tc.args, got, tc.want)
				}
				continue
			}
			code := tc.codes[0]
			if len(tc.codes) > 1 {
				code = "VALIDATION_FAILED"
			}
			w := wantError(t, r, 2, code)
			var codes []string
			for _, p := range w.Error.Errors {
				codes = append(codes, p.Code)
			}
			if !cmp.Equal(tc.codes, codes) || ran["export"] != 0 {
				t.Errorf("export %q: problems %v, ran %v; want %v", tc.args, codes, ran, tc.codes)
			}
		}
		// A value from the environment is given as much as one on the command line.
		r, _ := in{env: []string{"INAPP_SEPARATOR=;"}}.do(t, fw, "export", "--type", "csv")
		if got := dataOf[received](t, wantOK(t, r)); got.Sep != ";" {
			t.Errorf("separator from the environment: %+v", got)
		}
	})
	// --schema lists the whole graph.
	want := []any{
		map[string]any{"if_flag": "type", "if_value": "csv", "then_required": []any{"separator"}},
		map[string]any{"if_flag": "output", "prohibited": []any{"stdout"}},
		map[string]any{"if_flag": "compress", "target_flag": "level", "default": 0.0},
	}
	for _, fw := range []string{"urfave", "cobra"} {
		if diff := cmp.Diff(want, schemaOf(t, fw, "export")["requires"]); diff != "" {
			t.Errorf("%s: requires (-want +got):\n%s", fw, diff)
		}
	}
}

// TestBrokenDeclarations: what the input area declares is checked when the
// app is wrapped.
func TestBrokenInputDeclarations(t *testing.T) {
	tests := []struct {
		name string
		meta schema.Meta
		want string
	}{
		{"a rule on a flag that is not there", schema.Meta{Requires: []schema.Rule{schema.IfValue("nope", "x", "level")}}, `names "nope"`},
		{"a rule that requires nothing", schema.Meta{Requires: []schema.Rule{{IfFlag: "level"}}}, "requires and prohibits nothing"},
		{"an if_value outside the enum", schema.Meta{Flags: map[string]schema.FlagMeta{"mode": {Enum: []string{"a", "b"}}}, Requires: []schema.Rule{schema.IfValue("mode", "c", "level")}}, `if_value "c"`},
		{"a default without a value", schema.Meta{Requires: []schema.Rule{schema.DefaultWhenAbsent("mode", "level", nil)}}, "needs a default"},
		{"JSON on a number", schema.Meta{Flags: map[string]schema.FlagMeta{"level": {JSON: true}}}, "declared JSON"},
		{"Pipe on a switch", schema.Meta{Flags: map[string]schema.FlagMeta{"on": {Pipe: true}}}, "takes no value"},
		{"stdin twice", schema.Meta{Stdin: "x", Flags: map[string]schema.FlagMeta{"mode": {Pipe: true}}}, "cannot also read values"},
	}
	for _, tc := range tests {
		cmd := &cli.Command{Name: "x", Flags: []cli.Flag{&cli.IntFlag{Name: "level"}, &cli.StringFlag{Name: "mode"}, &cli.BoolFlag{Name: "on"}},
			Action: func(context.Context, *cli.Command) error { return nil }}
		urfave.Annotate(cmd, tc.meta)
		_, err := urfave.Wrap(&cli.Command{Name: "app", Commands: []*cli.Command{cmd}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Wrap = %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// ---------------------------------------------------------------------------
// F-061, O-040: walks

// loopTree makes dir/a/{f, b/{g, back -> ..}} and returns dir/a.
func loopTree(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(dir, "a")
	for _, d := range []string{filepath.Join(a, "b")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(a, "f"), filepath.Join(a, "b", "g")} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("..", filepath.Join(a, "b", "back")); err != nil {
		t.Fatal(err)
	}
	return a
}

func TestTraversal(t *testing.T) {
	onBoth(t, func(t *testing.T, fw string) {
		a := loopTree(t)
		r, _ := in{}.do(t, fw, "clean", a)
		w := wantError(t, r, 4, "SYMLINK_LOOP")
		e := w.Error
		if e.Path != filepath.Join(a, "b", "back") || e.LoopTarget != a || e.CompletedCount == nil || *e.CompletedCount != 2 || e.Phase != envelope.Execution {
			t.Errorf("path %q loop_target %q completed_count %v phase %q", e.Path, e.LoopTarget, e.CompletedCount, e.Phase)
		}
		if _, err := os.Stat(filepath.Join(a, "f")); err != nil {
			t.Errorf("something was deleted: %v", err)
		}

		r, _ = in{}.do(t, fw, "clean", "--no-follow-symlinks", a)
		got := dataOf[map[string]int](t, wantOK(t, r))
		if diff := cmp.Diff(map[string]int{"deleted_count": 5, "symlinks_skipped": 1}, got); diff != "" {
			t.Errorf("--no-follow-symlinks (-want +got):\n%s", diff)
		}
		if _, err := os.Stat(a); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the tree is still there: %v", err)
		}

		deep := filepath.Join(t.TempDir(), "deep")
		if err := os.MkdirAll(filepath.Join(deep, "1", "2", "3", "4"), 0o755); err != nil {
			t.Fatal(err)
		}
		r, _ = in{}.do(t, fw, "clean", "--max-depth", "3", deep)
		w = wantError(t, r, 4, "DEPTH_EXCEEDED")
		if w.Error.MaxDepth != 3 || w.Error.Path != filepath.Join(deep, "1", "2", "3", "4") || !strings.Contains(w.Error.Hint, "--max-depth") {
			t.Errorf("max_depth %d path %q hint %q", w.Error.MaxDepth, w.Error.Path, w.Error.Hint)
		}
		r, _ = in{}.do(t, fw, "clean", "--max-depth", "4", deep)
		wantOK(t, r)
		r, _ = in{}.do(t, fw, "clean", "--max-depth", "0", deep)
		wantError(t, r, 2, "INVALID_FLAG_VALUE")

		doc := schemaOf(t, fw, "clean")
		flags := doc["flags"].(map[string]any)
		if flags["no-follow-symlinks"] == nil || flags["max-depth"] == nil || doc["recursive_traversal"] != true {
			t.Errorf("--schema: flags %v, recursive_traversal %v", slices.Sorted(mapKeysOf(flags)), doc["recursive_traversal"])
		}
		if d := flags["max-depth"].(map[string]any)["default"]; d != 50.0 {
			t.Errorf("--max-depth defaults to %v, want 50", d)
		}
	})
}

func mapKeysOf(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestStdinAtATerminal: a person at a terminal types the input, told how to
// end it; nothing is refused.
func TestStdinAtATerminal(t *testing.T) {
	onBoth(t, func(t *testing.T, fw string) {
		r, ran := in{stdin: strings.NewReader("typed\n"), stdinT: true,
			opts: []urfave.Option{adapters.WithTerminal(adapters.Console)}}.do(t, fw, "import")
		if r.code != 0 || ran["import"] != 1 {
			t.Fatalf("exit %d, ran %v\nstdout %s\nstderr %s", r.code, ran, r.stdout, r.stderr)
		}
		// A terminal gets colour: judge the text without it.
		plain := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(r.stdout, "")
		if !strings.Contains(r.stderr, "end it with Ctrl-D") || !strings.Contains(plain, "bytes:  6") {
			t.Errorf("stdout %q stderr %q", r.stdout, r.stderr)
		}
	})
}
