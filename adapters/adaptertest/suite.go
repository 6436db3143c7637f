package adaptertest

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/schema"
)

// Command is a command of the app TestFramework holds an adapter to,
// described apart from any framework, for the adapter's test to build in
// its own (see Build).
type Command struct {
	Name     string
	Usage    string
	Flags    []Flag
	Meta     *schema.Meta // nil: not ported, the command is as the app wrote it
	Run      func(ctx context.Context, c Call) error
	Commands []*Command
}

// Flag is a flag of a Command. Flags of the root are the app's global
// flags: every command takes them, before or after its name.
type Flag struct {
	Name    string
	Short   string // one letter, or ""
	Kind    Kind
	Default string // for String and Int, as the framework's default value
	Usage   string
}

// Kind is a flag's type.
type Kind int

// The kinds of flag the suite's app has.
const (
	Bool    Kind = iota // --name, no value
	Int                 // --name 3
	String              // --name text
	Strings             // --name a --name b
)

// Call is what a command's Run reads of its invocation: the framework's
// values of its flags and its positional arguments, and where it prints.
type Call interface {
	Bool(flag string) bool
	Int(flag string) int
	String(flag string) string
	Strings(flag string) []string
	Args() []string
	Stdout() io.Writer
}

// Build makes a wrapped app of root in the adapter's framework: a command
// for each Command, with its flags of their kind (Default as the
// framework's default, Short as its one-letter alias), Meta given to the
// adapter's Annotate when it is not nil, and Run called with the
// framework's own values as the action. Given a root it was given before,
// it wraps again the framework command it made then (Made keeps them), as
// an app's tests do that run one package-level root case after case.
type Build func(t *testing.T, root *Command) adapters.Framework

// Made keeps the framework command a Build made of each root, for a Build
// given the same root again.
type Made[C any] struct {
	mu   sync.Mutex
	made map[*Command]C
}

// Of returns the command make made of root, making it the first time.
func (m *Made[C]) Of(root *Command, make func(*Command) C) C {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.made[root]
	if !ok {
		if m.made == nil {
			m.made = map[*Command]C{}
		}
		c = make(root)
		m.made[root] = c
	}
	return c
}

// TestFramework holds an adapter to the contract every adapter keeps, as
// slogtest holds a slog.Handler: build makes the same app in the adapter's
// framework, anew for each invocation (a framework's command tree runs
// once), and the suite checks what the lifecycle makes of it — parsing as
// the framework parses, each audience's answer, the errors, help,
// describe (the same document from every adapter), signals.
func TestFramework(t *testing.T, build Build) {
	s := &suite{build: build}
	t.Run("parse", s.testParse)
	t.Run("agent", s.testAgent)
	t.Run("errors", s.testErrors)
	t.Run("script", s.testScript)
	t.Run("person", s.testPerson)
	t.Run("help", s.testHelp)
	t.Run("describe", s.testDescribe)
	t.Run("signals", s.testSignals)
	t.Run("again", s.testAgain)
}

type suite struct {
	build Build
	// started is closed by the wait command once it runs; it is set by
	// the signals test before wait is run.
	started chan struct{}
}

// greeting is what greet answers: all it was given, as the framework
// gave it to the action.
type greeting struct {
	Text   string   `json:"text"`
	Region string   `json:"region"`
	Loud   bool     `json:"loud"`
	Times  int      `json:"times"`
	Args   []string `json:"args"`
}

type note struct {
	ID    string   `json:"id"`
	Title string   `json:"title"`
	Tags  []string `json:"tags"`
}

// app is the app the suite runs: kit, with a global --region; greet, a
// ported read; notes add and rm, a write and a destructive one; legacy,
// which nobody ported; wait, which runs until stopped.
func (s *suite) app() *Command {
	return &Command{
		Name: "kit", Usage: "A kit of commands",
		Flags: []Flag{{Name: "region", Kind: String, Default: "eu", Usage: "where to work"}},
		Commands: []*Command{
			{
				Name: "greet", Usage: "Greet someone",
				Flags: []Flag{
					{Name: "loud", Short: "l", Kind: Bool, Usage: "shout"},
					{Name: "times", Kind: Int, Default: "1", Usage: "how many times"},
				},
				Meta: &schema.Meta{Danger: schema.Safe, Output: schema.Of[greeting](),
					Args: []schema.Arg{{Name: "name", Type: schema.String, Usage: "whom to greet"}}},
				Run: func(ctx context.Context, c Call) error {
					name := "world"
					if len(c.Args()) > 0 {
						name = c.Args()[0]
					}
					text := strings.Repeat("hello, "+name+" ", max(c.Int("times"), 0))
					if c.Bool("loud") {
						text = strings.ToUpper(text)
					}
					return envelope.From(ctx).Result(greeting{strings.TrimSpace(text), c.String("region"), c.Bool("loud"), c.Int("times"), c.Args()})
				},
			},
			{
				Name: "notes", Usage: "Keep notes",
				Commands: []*Command{
					{
						Name: "add", Usage: "Add a note",
						Flags: []Flag{{Name: "tag", Kind: Strings, Usage: "a tag; again for more"}},
						Meta: &schema.Meta{Danger: schema.Mutating, Output: schema.Of[note](),
							Args: []schema.Arg{{Name: "title", Type: schema.String, Required: true, Usage: "the note's title"}}},
						Run: func(ctx context.Context, c Call) error {
							out := envelope.From(ctx)
							out.Effect(envelope.Created)
							return out.Result(note{"n1", c.Args()[0], c.Strings("tag")})
						},
					},
					{
						Name: "rm", Usage: "Remove a note",
						Meta: &schema.Meta{Danger: schema.Destructive, DryRun: true, Output: schema.Of[note](),
							Args: []schema.Arg{{Name: "id", Type: schema.String, Required: true, Usage: "the note's id"}}},
						Run: func(ctx context.Context, c Call) error {
							out := envelope.From(ctx)
							if out.DryRun() {
								out.Effect(envelope.Deleted.Would())
							} else {
								out.Effect(envelope.Deleted)
							}
							return out.Result(note{ID: c.Args()[0]})
						},
					},
				},
			},
			{
				Name: "legacy", Usage: "What the app always did",
				Run: func(_ context.Context, c Call) error {
					_, err := fmt.Fprintf(c.Stdout(), "legacy output in %s\n", c.String("region"))
					return err
				},
			},
			{
				Name: "wait", Usage: "Wait until stopped",
				Meta: &schema.Meta{Danger: schema.Safe, Timeout: schema.NoTimeout},
				Run: func(ctx context.Context, _ Call) error {
					if s.started != nil {
						close(s.started)
					}
					<-ctx.Done()
					return ctx.Err()
				},
			},
		},
	}
}

// run runs one invocation of a fresh app with the streams and options
// given, and returns its exit code, stdout and stderr.
func (s *suite) run(t *testing.T, args []string, opts ...adapters.Option) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	opts = append([]adapters.Option{
		adapters.WithStdio(strings.NewReader(""), &stdout, &stderr),
		adapters.WithEnv([]string{"HOME=" + t.TempDir()}),
		adapters.WithRequestID(func() string { return "test" }),
	}, opts...)
	code := adapters.Run(context.Background(), s.build(t, s.app()), args, opts...)
	return code, stdout.String(), stderr.String()
}

// agent runs args as an agent (a pipe, the spec's strict reading) and
// decodes its envelope.
func (s *suite) agent(t *testing.T, args ...string) *Result {
	t.Helper()
	return Run(t, s.build(t, s.app()), args, "HOME="+t.TempDir())
}

// testParse: Parse reads a command line as the framework does — the
// command, the flags with their values in order, the arguments — and the
// framework, running it, hands the action the same.
func (s *suite) testParse(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		path   string   // the command Parse finds, dotted
		values []string // flag=value, in order
		rest   []string // positional arguments
		help   bool
		fails  bool
	}{
		{args: []string{"greet", "bob"}, path: "greet", rest: []string{"bob"}},
		{args: []string{"greet", "-l", "--times", "3", "bob"}, path: "greet", values: []string{"loud=true", "times=3"}, rest: []string{"bob"}},
		{args: []string{"greet", "--times=2"}, path: "greet", values: []string{"times=2"}},
		{args: []string{"--region", "us", "greet"}, path: "greet", values: []string{"region=us"}},
		{args: []string{"greet", "--region", "us"}, path: "greet", values: []string{"region=us"}},
		{args: []string{"notes", "add", "--tag", "a", "--tag", "b", "first"}, path: "notes.add", values: []string{"tag=a", "tag=b"}, rest: []string{"first"}},
		{args: []string{"greet", "--", "--loud"}, path: "greet", rest: []string{"--loud"}},
		{args: []string{"notes"}, path: "notes"}, // a group: not Runnable, its help shown
		{args: []string{"greet", "--help"}, path: "greet", help: true},
		{args: []string{"greet", "--nope"}, path: "greet", fails: true},
		{args: []string{"greet", "--times"}, path: "greet", fails: true},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			p := s.build(t, s.app()).Parse(tc.args)
			if p.Node == nil {
				t.Fatalf("Parse found no command (err %v)", p.Err)
			}
			var values []string
			for _, v := range p.Values {
				values = append(values, v.Flag.Name+"="+v.Value)
			}
			if got := p.Node.DotPath(); got != tc.path || p.Help != tc.help || (p.Err != nil) != tc.fails {
				t.Errorf("Parse: command %q help %v err %v; want %q help %v fails %v", got, p.Help, p.Err, tc.path, tc.help, tc.fails)
			}
			if p.Node.Runnable == (tc.path == "notes") {
				t.Errorf("Parse: %q Runnable %v", tc.path, p.Node.Runnable)
			}
			if tc.help || tc.fails {
				return
			}
			if diff := cmp.Diff(tc.values, values, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Parse values (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.rest, p.Args, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Parse args (-want +got):\n%s", diff)
			}
			if tc.path != "greet" {
				return
			}
			// What the framework gave the action, as greet answers it.
			r := s.agent(t, tc.args...)
			r.AssertOK(t)
			var got greeting
			if err := json.Unmarshal(r.Envelope.Data, &got); err != nil {
				t.Fatal(err)
			}
			want := greeting{Region: "eu", Times: 1, Args: tc.rest}
			for _, v := range values {
				name, value, _ := strings.Cut(v, "=")
				switch name {
				case "region":
					want.Region = value
				case "loud":
					want.Loud = value == "true"
				case "times":
					fmt.Sscan(value, &want.Times)
				}
			}
			got.Text = ""
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("the action saw otherwise than Parse read (-Parse +action):\n%s", diff)
			}
		})
	}
}

// testAgent: an agent gets one envelope whose data matches the command's
// declared output, with its effect.
func (s *suite) testAgent(t *testing.T) {
	r := s.agent(t, "greet", "--loud", "--times", "2", "ann")
	r.AssertOK(t)
	r.AssertOutputSchema(t)
	want := `{"text":"HELLO, ANN HELLO, ANN","region":"eu","loud":true,"times":2,"args":["ann"]}`
	if string(r.Envelope.Data) != want {
		t.Errorf("greet: data %s, want %s", r.Envelope.Data, want)
	}
	r = s.agent(t, "notes", "add", "--tag", "x", "milk")
	r.AssertOK(t)
	r.AssertOutputSchema(t)
	if string(r.Envelope.Data) != `{"id":"n1","title":"milk","tags":["x"]}` || r.Envelope.Meta.Effect != envelope.Created {
		t.Errorf("notes add: data %s, effect %q", r.Envelope.Data, r.Envelope.Meta.Effect)
	}
	// A command nobody ported answers too: its stdout is the data.
	r = s.agent(t, "legacy")
	r.AssertOK(t)
	if string(r.Envelope.Data) != `{"stdout":"legacy output in eu\n"}` {
		t.Errorf("legacy: data %s", r.Envelope.Data)
	}
}

// testErrors: what the framework or the declarations refuse is a usage
// error, with no data; a flag that takes one value given two is refused
// (REQ-F-067); and a destructive command waits for a confirmation, its
// preview in meta.
func (s *suite) testErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		exit exitcode.Code
		code string
	}{
		{[]string{"greet", "--nope"}, exitcode.ArgError, errcode.UnknownFlag},
		{[]string{"greet", "--times", "many"}, exitcode.ArgError, errcode.InvalidFlagValue},
		{[]string{"notes", "add"}, exitcode.ArgError, "MISSING_ARGUMENT"},
		{[]string{"nothing"}, exitcode.ArgError, errcode.UnknownCommand},
		{[]string{"greet", "--times", "2", "--times", "3"}, exitcode.ArgError, "CONFLICTING_VALUES"},
		{[]string{"greet", "--loud", "--loud=false"}, exitcode.ArgError, "CONFLICTING_VALUES"},
		{[]string{"--region", "us", "greet", "--region", "eu"}, exitcode.ArgError, "CONFLICTING_VALUES"},
		{[]string{"notes", "rm", "n1"}, exitcode.ArgError, "CONFIRMATION_REQUIRED"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := s.agent(t, tc.args...)
			r.AssertError(t, int(tc.exit), tc.code)
			if string(r.Envelope.Data) != "null" {
				t.Errorf("data %s; want null: the command declared no failure payload", r.Envelope.Data)
			}
		})
	}
	// The same value twice, or a list's items, are no conflict.
	for _, args := range [][]string{{"greet", "--times", "2", "--times=2"}, {"notes", "add", "--tag", "a", "--tag", "b", "milk"}} {
		s.agent(t, args...).AssertOK(t)
	}
	r := s.agent(t, "notes", "rm", "n1")
	if m := r.Envelope.Meta; m.Effect != envelope.Deleted.Would() || !m.DryRun {
		t.Errorf("notes rm, unconfirmed: meta.effect %q, meta.dry_run %v; want the preview, %q and true", m.Effect, m.DryRun, envelope.Deleted.Would())
	}
	r = s.agent(t, "notes", "rm", "--yes", "n1")
	r.AssertOK(t)
	if r.Envelope.Meta.Effect != envelope.Deleted {
		t.Errorf("notes rm --yes: effect %q", r.Envelope.Meta.Effect)
	}
}

// testScript: a script (a pipe, no agent) gets a command nobody ported as
// the app wrote it, byte for byte, and a ported one as text.
func (s *suite) testScript(t *testing.T) {
	pipe := adapters.WithTerminal(adapters.Piped)
	code, stdout, stderr := s.run(t, []string{"legacy", "--region", "us"}, pipe)
	if code != 0 || stdout != "legacy output in us\n" || stderr != "" {
		t.Errorf("legacy as a script: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, _ = s.run(t, []string{"greet", "ann"}, pipe)
	if code != 0 || json.Valid([]byte(stdout)) || !strings.Contains(stdout, "hello, ann") {
		t.Errorf("greet as a script: exit %d, stdout %q; want text", code, stdout)
	}
	// Duet's words the app does not define are the framework's to refuse,
	// as without Duet, unless they ask for Duet's answer by name (--format).
	for _, word := range [][]string{{"--output", "json"}, {"--timeout", "5s"}, {"--yes"}} {
		code, stdout, stderr = s.run(t, append([]string{"legacy"}, word...), pipe)
		if code != 1 || json.Valid([]byte(stdout)) || !strings.Contains(stderr, "-"+strings.TrimPrefix(word[0], "--")) {
			t.Errorf("legacy %s as a script: exit %d, stdout %q, stderr %q; want the framework's unknown flag, exit 1", strings.Join(word, " "), code, stdout, stderr)
		}
	}
	code, stdout, _ = s.run(t, []string{"legacy", "--format", "json"}, pipe)
	if code != 0 || !json.Valid([]byte(stdout)) {
		t.Errorf("legacy --format json as a script: exit %d, stdout %q; want an envelope", code, stdout)
	}
}

// testPerson: a person at a terminal gets text, and errors on stderr.
func (s *suite) testPerson(t *testing.T) {
	tty := adapters.WithTerminal(adapters.Console)
	code, stdout, _ := s.run(t, []string{"greet", "ann"}, tty)
	if code != 0 || json.Valid([]byte(stdout)) || !strings.Contains(stdout, "hello, ann") {
		t.Errorf("greet for a person: exit %d, stdout %q; want text", code, stdout)
	}
	code, stdout, stderr := s.run(t, []string{"greet", "--nope"}, tty)
	if code != int(exitcode.ArgError) || stdout != "" || !strings.Contains(stderr, "nope") {
		t.Errorf("greet --nope for a person: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// testHelp: help is the framework's, on stdout, for whoever asks, and a
// group without an action shows it.
func (s *suite) testHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"greet", "--help"}, {"help", "greet"}, {"notes"}} {
		for name, opt := range map[string]adapters.Option{
			"person": adapters.WithTerminal(adapters.Console),
			"script": adapters.WithTerminal(adapters.Piped),
		} {
			code, stdout, _ := s.run(t, args, opt)
			if code != 0 || !strings.Contains(stdout, "greet") && !strings.Contains(stdout, "add") {
				t.Errorf("%s, %s: exit %d, stdout %q; want help", strings.Join(args, " "), name, code, stdout)
			}
		}
	}
	code, stdout, _ := s.run(t, []string{"greet", "--help"}, adapters.WithTerminal(adapters.Console))
	if code != 0 || !strings.Contains(stdout, "--loud") || !strings.Contains(stdout, "--times") {
		t.Errorf("greet --help: exit %d, stdout %q; want its flags", code, stdout)
	}
	// A person's help is the app's flags and one line for Duet's others;
	// --help-all, a script's and an agent's list them all.
	if !strings.Contains(stdout, "--help-all") || strings.Contains(stdout, "--stable-output") || strings.Contains(stdout, "--token-limit") {
		t.Errorf("greet --help for a person: %q; want the --help-all line, not --stable-output or --token-limit", stdout)
	}
	for name, run := range map[string][]adapters.Option{
		"--help-all, a person": {adapters.WithTerminal(adapters.Console)},
		"--help, a script":     {adapters.WithTerminal(adapters.Piped)},
	} {
		word := map[bool]string{true: "--help-all", false: "--help"}[strings.HasPrefix(name, "--help-all")]
		code, stdout, _ := s.run(t, []string{"greet", word}, run...)
		if code != 0 || !strings.Contains(stdout, "--stable-output") || !strings.Contains(stdout, "--token-limit") || strings.Contains(stdout, "--help-all") {
			t.Errorf("greet %s: exit %d, stdout %q; want every option, and no --help-all line", name, code, stdout)
		}
	}
}

// testDescribe: describe says the same of the app whichever framework
// runs it: what this package's testdata/describe.json holds.
func (s *suite) testDescribe(t *testing.T) {
	got := Describe(t, s.build)
	if diff := cmp.Diff(string(describeDoc), string(got)); diff != "" {
		t.Errorf("describe differs from the document every adapter gives (-want +got):\n%s\n"+
			"(a change to what describe says for every adapter: rewrite adapters/adaptertest/testdata/describe.json with Describe's output)", diff)
	}
}

// describeDoc is what describe answers for the suite's app.
//
//go:embed testdata/describe.json
var describeDoc []byte

// Describe returns what describe answers, indented, for the app
// TestFramework runs, as build makes it: what testdata/describe.json holds
// when the adapter keeps the contract.
func Describe(t *testing.T, build Build) []byte {
	t.Helper()
	s := &suite{build: build}
	r := s.agent(t, "describe")
	r.AssertOK(t)
	var out bytes.Buffer
	if err := json.Indent(&out, r.Envelope.Data, "", "  "); err != nil {
		t.Fatal(err)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// testAgain: a root wrapped again and again — an app's tests that run one
// package-level root through Exec case after case — is each time the app
// the first Wrap made of it: describe says the same (Duet's own additions
// are not read as the app's), a ported command answers, and one nobody
// ported runs for a script as it always did.
func (s *suite) testAgain(t *testing.T) {
	root := s.app()
	for i := range 3 {
		r := Run(t, s.build(t, root), []string{"describe"}, "HOME="+t.TempDir())
		r.AssertOK(t)
		var doc bytes.Buffer
		if err := json.Indent(&doc, r.Envelope.Data, "", "  "); err != nil {
			t.Fatal(err)
		}
		doc.WriteByte('\n')
		if diff := cmp.Diff(string(describeDoc), doc.String()); diff != "" {
			t.Errorf("wrap %d: describe differs from the first wrap's (-want +got):\n%s", i+1, diff)
		}
		r = Run(t, s.build(t, root), []string{"greet", "bob"}, "HOME="+t.TempDir())
		r.AssertOK(t)
		var got greeting
		if err := json.Unmarshal(r.Envelope.Data, &got); err != nil || got.Text != "hello, bob" {
			t.Errorf("wrap %d: greet bob answered %s (%v)", i+1, r.Stdout, err)
		}
		var stdout, stderr bytes.Buffer
		code := adapters.Run(context.Background(), s.build(t, root), []string{"legacy"},
			adapters.WithStdio(strings.NewReader(""), &stdout, &stderr), adapters.WithTerminal(adapters.Piped),
			adapters.WithEnv([]string{"HOME=" + t.TempDir()}))
		if code != 0 || stdout.String() != "legacy output in eu\n" || stderr.Len() > 0 {
			t.Errorf("wrap %d: legacy as a script: exit %d, stdout %q, stderr %q", i+1, code, stdout.String(), stderr.String())
		}
	}
}

// testSignals: an interrupt stops the command through its context, and
// the agent is told so with exit 130, the signal in error.context and data
// that says the work is partial.
func (s *suite) testSignals(t *testing.T) {
	s.started = make(chan struct{})
	defer func() { s.started = nil }()
	sigs := make(chan os.Signal, 1)
	go func() {
		<-s.started
		sigs <- os.Interrupt
	}()
	code, stdout, _ := s.run(t, []string{"wait"}, adapters.WithTerminal(adapters.Piped), adapters.WithSpecStrict(), adapters.WithSignals(sigs))
	var env struct {
		Data  json.RawMessage `json:"data"`
		Error struct {
			Code    string         `json:"code"`
			Context map[string]any `json:"context"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(stdout), &env); err != nil {
		t.Fatalf("stdout is not one envelope: %v: %s", err, stdout)
	}
	if code != int(exitcode.Interrupted) || env.Error.Code != "CANCELLED" {
		t.Errorf("wait, interrupted: exit %d, error %q; want %d CANCELLED", code, env.Error.Code, exitcode.Interrupted)
	}
	if env.Error.Context["signal"] != "SIGINT" || string(env.Data) != `{"partial":true}` {
		t.Errorf("wait, interrupted: error.context %v, data %s; want signal SIGINT, data {\"partial\":true}", env.Error.Context, env.Data)
	}
}
