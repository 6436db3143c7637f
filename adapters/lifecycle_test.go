package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/golden"
	"github.com/duet-cli/duet/internal/jsontest"
	"github.com/duet-cli/duet/schema"
)

// spaceEnv is the environment variable the "need" command's required flag
// reads. It must not be set in the test process, so that only WithEnv can
// provide it.
const spaceEnv = "APP_ADAPTERS_TEST_SPACE" // the app's prefix: a spec-strict app reads no other (REQ-F-073)

// harness is what the test app's handlers report back to the test.
type harness struct {
	mu      sync.Mutex
	calls   map[string]int
	space   string
	started chan struct{} // closed when a blocking handler has started
	release chan struct{} // closed at cleanup: lets blocking handlers return
	once    sync.Once
}

func newHarness(t *testing.T) *harness {
	h := &harness{calls: map[string]int{}, started: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(h.release) })
	return h
}

func (h *harness) called(name string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls[name]
}

func (h *harness) record(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls[name]++
}

func (h *harness) start() { h.once.Do(func() { close(h.started) }) }

type item struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// newApp builds a fresh urfave app: a *cli.Command runs once.
func newApp(h *harness) *cli.Command {
	action := func(name string, fn func(ctx context.Context, cmd *cli.Command) error) cli.ActionFunc {
		return func(ctx context.Context, cmd *cli.Command) error {
			h.record(name)
			return fn(ctx, cmd)
		}
	}
	show := &cli.Command{Name: "show", Usage: "Show an item", Action: action("show", func(ctx context.Context, _ *cli.Command) error {
		return envelope.From(ctx).Result(item{ID: "i1", Name: "alpha"})
	})}
	urfave.Annotate(show, schema.Meta{Danger: schema.Safe, Output: schema.Of[item]()})

	boom := &cli.Command{Name: "boom", Usage: "Panic", Action: action("boom", func(context.Context, *cli.Command) error {
		panic("kaboom")
	})}
	missing := &cli.Command{Name: "missing", Usage: "Open a missing file", Action: action("missing", func(context.Context, *cli.Command) error {
		return fmt.Errorf("open %s: %w", "cfg.toml", fs.ErrNotExist)
	})}
	deadline := &cli.Command{Name: "deadline", Usage: "Return a deadline error", Action: action("deadline", func(context.Context, *cli.Command) error {
		return context.DeadlineExceeded
	})}
	stubborn := &cli.Command{Name: "stubborn", Usage: "Ignore cancellation", Action: action("stubborn", func(context.Context, *cli.Command) error {
		h.start()
		<-h.release // ignores ctx entirely
		return nil
	})}
	wait := &cli.Command{Name: "wait", Usage: "Wait for cancellation", Action: action("wait", func(ctx context.Context, _ *cli.Command) error {
		h.start()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-h.release:
			return nil
		}
	})}
	slowstart := &cli.Command{Name: "slowstart", Usage: "Slow to start",
		Before: func(ctx context.Context, _ *cli.Command) (context.Context, error) {
			h.start()
			<-h.release // a slow Before hook that ignores ctx
			return ctx, nil
		},
		Action: action("slowstart", func(context.Context, *cli.Command) error { return nil })}
	group := &cli.Command{Name: "group", Usage: "A group", Commands: []*cli.Command{
		{Name: "inner", Usage: "Inner", Action: action("inner", func(context.Context, *cli.Command) error { return nil })},
	}}
	need := &cli.Command{Name: "need", Usage: "Needs a space",
		Flags: []cli.Flag{&cli.StringFlag{Name: "space", Usage: "the space", Required: true, Sources: cli.EnvVars(spaceEnv)}},
		Action: action("need", func(ctx context.Context, cmd *cli.Command) error {
			h.mu.Lock()
			h.space = cmd.String("space")
			h.mu.Unlock()
			return envelope.From(ctx).Result(map[string]string{"space": cmd.String("space")})
		})}
	count := &cli.Command{Name: "count", Usage: "Count",
		Flags:  []cli.Flag{&cli.IntFlag{Name: "n", Usage: "how many"}},
		Action: action("count", func(ctx context.Context, cmd *cli.Command) error { return envelope.From(ctx).Result(cmd.Int("n")) })}
	// purge honours --dry-run: it records "purge" only when it acts.
	purge := &cli.Command{Name: "purge", Usage: "Delete everything", Action: func(ctx context.Context, _ *cli.Command) error {
		out := envelope.From(ctx)
		out.Effect(envelope.Deleted)
		if out.DryRun() {
			h.record("purge --dry-run")
			out.WouldAffect(map[string]any{"items": 3, "reversible": false})
		} else {
			h.record("purge")
		}
		return out.Result(map[string]int{"deleted": 3})
	}}
	urfave.Annotate(purge, schema.Meta{Danger: schema.Destructive, DryRun: true})
	// reset needs confirmation and knows nothing of --dry-run; sloppy
	// declares it implements --dry-run and acts all the same.
	reset := &cli.Command{Name: "reset", Usage: "Start again", Action: action("reset", func(ctx context.Context, _ *cli.Command) error {
		envelope.From(ctx).Effect(envelope.Updated)
		return nil
	})}
	urfave.Annotate(reset, schema.Meta{Danger: schema.Mutating, Confirm: true})
	sloppy := &cli.Command{Name: "sloppy", Usage: "Ignore --dry-run", Action: action("sloppy", func(context.Context, *cli.Command) error { return nil })}
	urfave.Annotate(sloppy, schema.Meta{Danger: schema.Mutating, DryRun: true})
	var pickFlags []cli.Flag
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		pickFlags = append(pickFlags, &cli.StringFlag{Name: n, Usage: "flag " + n})
	}
	pick := &cli.Command{Name: "pick", Usage: "Flag groups", Flags: pickFlags,
		Action: action("pick", func(context.Context, *cli.Command) error { return nil })}
	urfave.Annotate(pick, schema.Meta{Danger: schema.Safe, Groups: []schema.Group{
		{Kind: schema.MutuallyExclusive, Flags: []string{"a", "b"}},
		{Kind: schema.RequiredTogether, Flags: []string{"c", "d"}},
		{Kind: schema.OneRequired, Flags: []string{"e", "f"}},
	}})
	secret := &cli.Command{Name: "secret", Usage: "For people only",
		Action: action("secret", func(context.Context, *cli.Command) error { return nil })}
	urfave.Annotate(secret, schema.Meta{Danger: schema.Safe, Audience: schema.HumanOnly})

	// Every command is ported: these tests hold the contract (faithful_test.go
	// has an app nobody ported).
	for _, c := range []*cli.Command{boom, missing, deadline, stubborn, wait, slowstart, need, count} {
		urfave.Annotate(c, schema.Meta{Danger: schema.Safe})
	}
	urfave.Annotate(group.Commands[0], schema.Meta{Danger: schema.Safe})
	return &cli.Command{
		Name:     "app",
		Usage:    "a test app",
		Commands: []*cli.Command{show, boom, missing, deadline, stubborn, wait, slowstart, group, need, count, purge, reset, sloppy, pick, secret},
	}
}

// run is one in-process invocation.
type run struct {
	stdin string
	env   []string
	tty   adapters.Terminal // stdin, stdout, stderr
	opts  []urfave.Option
}

type result struct {
	code   int
	stdout string
	stderr string
}

// options are the run's settings with stdout and stderr going to the given writers.
func (r run) options(stdout, stderr io.Writer) []urfave.Option {
	return append([]urfave.Option{
		adapters.WithSpecStrict(), // these tests hold the agent contract; faithful_test.go the rest
		adapters.WithStdio(strings.NewReader(r.stdin), stdout, stderr),
		adapters.WithEnv(r.env),
		adapters.WithTerminal(r.tty),
		adapters.WithRequestID(func() string { return "req-test" }),
		adapters.WithClock(func() time.Time { return time.Date(2026, 3, 17, 14, 0, 0, 0, time.UTC) }),
		adapters.WithWorkDir("/work/dir"),
	}, r.opts...)
}

func (r run) do(t *testing.T, h *harness, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	opts := r.options(&stdout, &stderr)
	code := urfave.Run(context.Background(), newApp(h), args, opts...)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// async runs an invocation on its own goroutine; wait collects it, failing
// the test if it does not return within a generous bound.
func (r run) async(t *testing.T, h *harness, args ...string) func() result {
	t.Helper()
	var stdout, stderr syncBuffer
	opts := r.options(&stdout, &stderr)
	app := newApp(h)
	done := make(chan int, 1)
	go func() { done <- urfave.Run(context.Background(), app, args, opts...) }()
	return func() result {
		t.Helper()
		select {
		case code := <-done:
			return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
		case <-time.After(10 * time.Second):
			t.Fatalf("Run(%q) did not return", args)
			return result{}
		}
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader on different
// goroutines: an abandoned handler may outlive Run.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// wire is an envelope as an agent reads it.
type wire struct {
	OK       bool               `json:"ok"`
	Data     json.RawMessage    `json:"data"`
	Error    *envelope.Error    `json:"error"`
	Warnings []envelope.Warning `json:"warnings"`
	Meta     map[string]any     `json:"meta"`
}

// codes are the codes of the warnings, in order.
func (w wire) codes() []string {
	out := make([]string, len(w.Warnings))
	for i, x := range w.Warnings {
		out[i] = x.Code
	}
	return out
}

// warned reports whether a warning of code is among the envelope's.
func (w wire) warned(code string) bool { return slices.Contains(w.codes(), code) }

// text is the warnings as a person reads them, "WARNING [CODE]: message",
// a line each.
func (w wire) text() string {
	lines := make([]string, len(w.Warnings))
	for i, x := range w.Warnings {
		lines[i] = x.String()
	}
	return strings.Join(lines, "\n")
}

// envelopeOf decodes stdout, which must hold exactly one envelope.
func envelopeOf(t *testing.T, r result) wire {
	t.Helper()
	one := jsontest.One(t, []byte(r.stdout))
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(one, &keys); err != nil {
		t.Fatalf("envelope is not an object: %s", one)
	}
	if len(keys) != 5 {
		t.Errorf("envelope has %d top-level keys, want 5: %s", len(keys), one)
	}
	var w wire
	dec := json.NewDecoder(bytes.NewReader(one))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		t.Fatalf("decode envelope: %v\n%s", err, one)
	}
	if w.Warnings == nil {
		t.Errorf("warnings is null, want an array")
	}
	wantExitCode(t, one, r.code)
	return w
}

// wantExitCode checks that meta.exit_code is there, meta's first key, and
// the process's exit code (ResponseEnvelope 2.x).
func wantExitCode(t *testing.T, one []byte, code int) {
	t.Helper()
	var env struct {
		Meta json.RawMessage `json:"meta"`
	}
	if err := json.Unmarshal(one, &env); err != nil {
		t.Fatalf("decode envelope: %v\n%s", err, one)
	}
	if keys := jsontest.Keys(t, env.Meta); len(keys) == 0 || keys[0] != "exit_code" {
		t.Errorf("meta's keys %q, want exit_code first", keys)
	}
	var meta struct {
		ExitCode *int `json:"exit_code"`
	}
	if err := json.Unmarshal(env.Meta, &meta); err != nil || meta.ExitCode == nil || *meta.ExitCode != code {
		t.Errorf("meta.exit_code %v (%v), want %d, the exit code", meta.ExitCode, err, code)
	}
}

// wantError checks the exit code and the error code of a failed invocation.
func wantError(t *testing.T, r result, exit int, code string) wire {
	t.Helper()
	w := envelopeOf(t, r)
	if r.code != exit {
		t.Errorf("exit code = %d, want %d\nstdout: %s\nstderr: %s", r.code, exit, r.stdout, r.stderr)
	}
	if w.OK {
		t.Errorf("ok = true for a failure")
	}
	if w.Error == nil {
		t.Fatalf("error = null, want %s", code)
	}
	if w.Error.Code != code {
		t.Errorf("error.code = %q, want %q (message %q)", w.Error.Code, code, w.Error.Message)
	}
	return w
}

func wantOK(t *testing.T, r result) wire {
	t.Helper()
	w := envelopeOf(t, r)
	if r.code != 0 || !w.OK || w.Error != nil {
		t.Errorf("exit %d ok %v error %+v, want success\nstdout: %s\nstderr: %s", r.code, w.OK, w.Error, r.stdout, r.stderr)
	}
	return w
}

// stable re-encodes an envelope with duration_ms zeroed, indented, for a
// golden file.
func stable(t *testing.T, stdout string) []byte {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatal(err)
	}
	if m, ok := v["meta"].(map[string]any); ok {
		m["duration_ms"] = 0
	}
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(raw, '\n')
}

func TestMain(m *testing.M) {
	flag.Parse()
	if _, ok := os.LookupEnv(spaceEnv); ok {
		fmt.Fprintf(os.Stderr, "%s must not be set in the test environment\n", spaceEnv)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

func TestPanicBecomesOneEnvelope(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		t.Run(fmt.Sprintf("verbose=%v", verbose), func(t *testing.T) {
			h := newHarness(t)
			args := []string{"boom"}
			if verbose {
				args = append(args, "--verbose")
			}
			r := run{}.do(t, h, args...)
			w := wantError(t, r, 1, "INTERNAL_ERROR")
			if !strings.Contains(w.Error.Message, "kaboom") {
				t.Errorf("message %q does not carry the panic value", w.Error.Message)
			}
			if w.Error.Phase != envelope.Execution {
				t.Errorf("phase = %q, want execution", w.Error.Phase)
			}
			for _, bad := range []string{"goroutine", "panic:", ".go:"} {
				if strings.Contains(r.stdout, bad) {
					t.Errorf("stdout carries %q:\n%s", bad, r.stdout)
				}
			}
			if verbose && !strings.Contains(r.stderr, "goroutine") {
				t.Errorf("--verbose: no stack trace on stderr: %q", r.stderr)
			}
			if !verbose && strings.Contains(r.stderr, "goroutine") {
				t.Errorf("stack trace on stderr without --verbose:\n%s", r.stderr)
			}
			if h.called("boom") != 1 {
				t.Errorf("handler ran %d times", h.called("boom"))
			}
		})
	}
}

func TestErrorMapping(t *testing.T) {
	tests := []struct {
		cmd       string
		exit      int
		code      string
		retryable bool
	}{
		{"missing", 5, "NOT_FOUND", false},
		// A safe command's timeout changed nothing, but the identical call
		// would most often time out again: not retryable (REQ-C-014, v1.14).
		{"deadline", 10, "TIMEOUT", false},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			r := run{}.do(t, newHarness(t), tt.cmd)
			w := wantError(t, r, tt.exit, tt.code)
			if w.Error.Retryable != tt.retryable {
				t.Errorf("retryable = %v, want %v", w.Error.Retryable, tt.retryable)
			}
			if r.stderr != "" {
				t.Errorf("stderr = %q, want empty in agent mode", r.stderr)
			}
		})
	}
}

func TestHumanErrorOnStderr(t *testing.T) {
	r := run{tty: adapters.Console, env: []string{"TERM=dumb"}}.do(t, newHarness(t), "missing")
	if r.code != 5 {
		t.Errorf("exit = %d, want 5", r.code)
	}
	if r.stdout != "" {
		t.Errorf("stdout = %q, want empty", r.stdout)
	}
	if want := "ERROR [NOT_FOUND]: open cfg.toml: file does not exist.\n"; r.stderr != want {
		t.Errorf("stderr = %q, want %q", r.stderr, want)
	}
}

func TestTimeout(t *testing.T) {
	h := newHarness(t)
	start := time.Now()
	wait := run{opts: []urfave.Option{adapters.WithGrace(50 * time.Millisecond)}}.async(t, h, "stubborn", "--timeout", "50ms")
	r := wait()
	w := wantError(t, r, 10, "TIMEOUT")
	if got := w.Meta["timeout_ms"]; got != float64(50) {
		t.Errorf("meta.timeout_ms = %v, want 50", got)
	}
	if !strings.Contains(w.Error.Message, "50ms") {
		t.Errorf("message %q does not state the limit", w.Error.Message)
	}
	select {
	case <-h.release:
		t.Error("the handler was released before Run returned")
	default:
	}
	t.Logf("returned after %v", time.Since(start))
}

// TestTimeoutBeforeTheAction: the time limit runs out while the framework is
// still in the command's Before hook, so the action never started. That is
// still a timeout, not a usage error.
func TestTimeoutBeforeTheAction(t *testing.T) {
	h := newHarness(t)
	wait := run{opts: []urfave.Option{adapters.WithGrace(50 * time.Millisecond)}}.async(t, h, "slowstart", "--timeout", "50ms")
	r := wait()
	w := wantError(t, r, 10, "TIMEOUT")
	if w.Error.Phase == envelope.Validation {
		t.Errorf("phase = validation for a timeout")
	}
	if h.called("slowstart") != 0 {
		t.Error("the action ran")
	}
}

func TestTimeoutHonoured(t *testing.T) {
	h := newHarness(t)
	wait := run{opts: []urfave.Option{adapters.WithGrace(time.Minute)}}.async(t, h, "wait", "--timeout", "50ms")
	w := wantError(t, wait(), 10, "TIMEOUT")
	if w.Error.Suggestion == "" {
		t.Error("a timeout without a suggestion")
	}
}

func TestDefaultTimeoutInMeta(t *testing.T) {
	w := wantOK(t, run{}.do(t, newHarness(t), "show"))
	if got := w.Meta["timeout_ms"]; got != float64(30000) {
		t.Errorf("meta.timeout_ms = %v, want 30000", got)
	}
	w = wantOK(t, run{}.do(t, newHarness(t), "show", "--timeout", "0"))
	if _, ok := w.Meta["timeout_ms"]; ok {
		t.Errorf("--timeout 0: meta.timeout_ms = %v, want absent", w.Meta["timeout_ms"])
	}
}

func TestSignals(t *testing.T) {
	tests := []struct {
		name string
		sig  os.Signal
		exit int
	}{
		{"SIGINT", os.Interrupt, 130},
		{"SIGTERM", sigterm, 143},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			ch := make(chan os.Signal)
			wait := run{opts: []urfave.Option{adapters.WithSignals(ch), adapters.WithGrace(time.Minute)}}.async(t, h, "wait")
			<-h.started
			ch <- tt.sig
			r := wait()
			w := wantError(t, r, tt.exit, "CANCELLED")
			if !strings.Contains(w.Error.Message, tt.name) {
				t.Errorf("message %q does not name %s", w.Error.Message, tt.name)
			}
			// The signal is in error.context, and data says the work is partial.
			if w.Error.Context["signal"] != tt.name || string(w.Data) != `{"partial":true}` {
				t.Errorf("error.context %v, data %s; want signal %s and {\"partial\":true}", w.Error.Context, w.Data, tt.name)
			}
		})
	}
}

func TestSecondSignalAnswersAtOnce(t *testing.T) {
	h := newHarness(t)
	ch := make(chan os.Signal)
	wait := run{opts: []urfave.Option{adapters.WithSignals(ch), adapters.WithGrace(time.Hour)}}.async(t, h, "stubborn")
	<-h.started
	ch <- os.Interrupt
	ch <- os.Interrupt // the handler ignores the first; a person presses ^C again
	r := wait()
	wantError(t, r, 130, "CANCELLED")
	if strings.Count(r.stdout, `"ok"`) != 1 {
		t.Errorf("stdout holds %d envelopes:\n%s", strings.Count(r.stdout, `"ok"`), r.stdout)
	}
}

func TestWrapRejectsBrokenDeclarations(t *testing.T) {
	tests := []struct {
		name  string
		flags []cli.Flag
		meta  schema.Meta
		want  []string
	}{
		{
			name: "retryable with partial side effects",
			meta: schema.Meta{ExitCodes: exitcodeTable(6, "CONFLICT", true, "partial")},
			want: []string{"retryable", "side_effects"},
		},
		{
			name: "undeclared custom code",
			meta: schema.Meta{ExitCodes: exitcodeTable(99, "", false, "none")},
			want: []string{"custom exit code 99 has no name"},
		},
		{
			name: "output schema does not compile",
			meta: schema.Meta{Output: schema.MustParse(`{"type": 12}`)},
			want: []string{"output schema"},
		},
		{
			name:  "Meta.Flags names a missing flag",
			flags: []cli.Flag{&cli.StringFlag{Name: "real"}},
			meta:  schema.Meta{Flags: map[string]schema.FlagMeta{"ghost": {Enum: []string{"x"}}}},
			want:  []string{`"ghost"`},
		},
		{
			name: "group names a missing flag",
			meta: schema.Meta{Groups: []schema.Group{{Kind: schema.OneRequired, Flags: []string{"nope"}}}},
			want: []string{`"nope"`},
		},
		{
			name:  "a flag pattern that does not compile",
			flags: []cli.Flag{&cli.StringFlag{Name: "id"}},
			meta:  schema.Meta{Flags: map[string]schema.FlagMeta{"id": {Pattern: "(["}}},
			want:  []string{"flag --id: pattern"},
		},
		{
			name: "an argument pattern that does not compile",
			meta: schema.Meta{Args: []schema.Arg{{Name: "id", Pattern: "(["}}},
			want: []string{"argument <id>: pattern"},
		},
		{
			name: "unknown danger",
			meta: schema.Meta{Danger: "spicy"},
			want: []string{`"spicy"`},
		},
		{
			name: "destructive without a dry run",
			meta: schema.Meta{Danger: schema.Destructive},
			want: []string{"must implement --dry-run"},
		},
		{
			name: "a dry run of a safe command",
			meta: schema.Meta{Danger: schema.Safe, DryRun: true},
			want: []string{"nothing to preview"},
		},
		{
			name: "every problem at once",
			meta: schema.Meta{
				ExitCodes: exitcodeTable(99, "", false, "none"),
				Output:    schema.MustParse(`{"type": 12}`),
				Flags:     map[string]schema.FlagMeta{"ghost": {}},
			},
			want: []string{"custom exit code 99", "output schema", `"ghost"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			broken := &cli.Command{Name: "broken", Flags: tt.flags, Action: func(context.Context, *cli.Command) error { return nil }}
			urfave.Annotate(broken, tt.meta)
			root := &cli.Command{Name: "app", Commands: []*cli.Command{
				{Name: "fine", Action: func(context.Context, *cli.Command) error { return nil }},
				{Name: "nest", Commands: []*cli.Command{broken}},
			}}
			app, err := urfave.Wrap(root)
			if err == nil {
				t.Fatalf("Wrap accepted a broken declaration (app %v)", app != nil)
			}
			msg := err.Error()
			if !strings.Contains(msg, `"nest.broken"`) {
				t.Errorf("error does not name the command nest.broken:\n%s", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error lacks %q:\n%s", w, msg)
				}
			}
			if strings.Contains(msg, `"fine"`) {
				t.Errorf("error blames a good command:\n%s", msg)
			}
		})
	}
}

// TestOutputBuiltOnFirstUse checks that an output schema from schema.Of of a
// type encoding/json cannot encode does not stop the app from starting or the
// command from running validation, and is reported, naming the command, where
// the schema is needed.
func TestOutputBuiltOnFirstUse(t *testing.T) {
	newRoot := func() *cli.Command { // a urfave app runs once
		broken := &cli.Command{Name: "broken", Action: func(context.Context, *cli.Command) error { return nil }}
		urfave.Annotate(broken, schema.Meta{Danger: schema.Safe, Output: schema.Of[struct{ C chan int }]()})
		return &cli.Command{Name: "app", Commands: []*cli.Command{broken}}
	}

	var r run
	for _, args := range [][]string{{"broken", "--schema"}, {"describe"}} {
		var stdout, stderr bytes.Buffer
		code := urfave.Run(context.Background(), newRoot(), args, r.options(&stdout, &stderr)...)
		w := wantError(t, result{code, stdout.String(), stderr.String()}, 1, "INVALID_DECLARATION")
		if !strings.Contains(w.Error.Message, `command "broken": output schema`) || !strings.Contains(w.Error.Message, "chan int") {
			t.Errorf("%q: message %q does not name the command and the type", args, w.Error.Message)
		}
	}
	var stdout, stderr bytes.Buffer
	code := urfave.Run(context.Background(), newRoot(), []string{"broken", "--validate-only"}, r.options(&stdout, &stderr)...)
	wantOK(t, result{code, stdout.String(), stderr.String()})
}

func TestWrapAcceptsTheTestApp(t *testing.T) {
	if _, err := urfave.Wrap(newApp(newHarness(t))); err != nil {
		t.Fatalf("Wrap: %v", err)
	}
}

func TestFlagGroups(t *testing.T) {
	t.Run("all problems at once", func(t *testing.T) {
		h := newHarness(t)
		r := run{}.do(t, h, "pick", "--a", "1", "--b", "2", "--c", "3")
		w := wantError(t, r, 2, "VALIDATION_FAILED")
		var codes []string
		for _, e := range w.Error.Errors {
			codes = append(codes, e.Code)
		}
		want := []string{"MUTUALLY_EXCLUSIVE_FLAGS", "FLAGS_REQUIRED_TOGETHER", "ONE_FLAG_REQUIRED"}
		if diff := cmp.Diff(want, codes); diff != "" {
			t.Errorf("error.errors codes (-want +got):\n%s", diff)
		}
		if w.Error.Phase != envelope.Validation {
			t.Errorf("phase = %q, want validation", w.Error.Phase)
		}
		if h.called("pick") != 0 {
			t.Error("the handler ran despite validation failures")
		}
		golden.Assert(t, "pick_groups.json.golden", stable(t, r.stdout))
	})
	t.Run("satisfied", func(t *testing.T) {
		h := newHarness(t)
		wantOK(t, run{}.do(t, h, "pick", "--a", "1", "--c", "3", "--d", "4", "--f", "6"))
		if h.called("pick") != 1 {
			t.Error("the handler did not run")
		}
	})
}

func TestRequiredFlag(t *testing.T) {
	t.Run("missing", func(t *testing.T) {
		h := newHarness(t)
		w := wantError(t, run{}.do(t, h, "need"), 2, "MISSING_REQUIRED_FLAG")
		if w.Error.Field != "space" || w.Error.Phase != envelope.Validation {
			t.Errorf("field %q phase %q, want space, validation", w.Error.Field, w.Error.Phase)
		}
		if h.called("need") != 0 {
			t.Error("the handler ran")
		}
	})
	t.Run("given", func(t *testing.T) {
		h := newHarness(t)
		wantOK(t, run{}.do(t, h, "need", "--space", "s1"))
		if h.space != "s1" {
			t.Errorf("handler saw space %q, want s1", h.space)
		}
	})
	t.Run("from the process environment", func(t *testing.T) {
		t.Setenv(spaceEnv, "from-process")
		h := newHarness(t)
		wantOK(t, run{env: []string{spaceEnv + "=from-process"}}.do(t, h, "need"))
		if h.space != "from-process" {
			t.Errorf("handler saw space %q, want from-process", h.space)
		}
	})
	t.Run("from the environment given with WithEnv", func(t *testing.T) {
		h := newHarness(t)
		r := run{env: []string{spaceEnv + "=from-env"}}.do(t, h, "need")
		wantOK(t, r)
		if h.space != "from-env" {
			t.Errorf("handler saw space %q, want from-env", h.space)
		}
	})
	// WithEnv replaces the process environment: the framework must not read
	// the process's behind the lifecycle's back.
	t.Run("WithEnv over the process environment", func(t *testing.T) {
		t.Setenv(spaceEnv, "from-process")
		h := newHarness(t)
		wantOK(t, run{env: []string{spaceEnv + "=from-env"}}.do(t, h, "need"))
		if h.space != "from-env" {
			t.Errorf("handler saw space %q, want from-env", h.space)
		}
		wantError(t, run{env: []string{}}.do(t, newHarness(t), "need"), 2, "MISSING_REQUIRED_FLAG")
	})
}

func TestBadIntFlag(t *testing.T) {
	h := newHarness(t)
	w := wantError(t, run{}.do(t, h, "count", "--n", "abc"), 2, "INVALID_FLAG_VALUE")
	if w.Error.Field != "n" || w.Error.Phase != envelope.Validation {
		t.Errorf("field %q phase %q, want n, validation", w.Error.Field, w.Error.Phase)
	}
	if h.called("count") != 0 {
		t.Error("the handler ran")
	}
	w = wantOK(t, run{}.do(t, newHarness(t), "count", "--n", "7"))
	if string(w.Data) != `{"value":7}` {
		t.Errorf("data = %s, want {\"value\":7}", w.Data)
	}
}

func TestUnknownCommand(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"nested", []string{"group", "bogus"}},
		{"root", []string{"bogus"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := wantError(t, run{}.do(t, newHarness(t), tt.args...), 2, "UNKNOWN_COMMAND")
			if w.Error.Phase != envelope.Validation {
				t.Errorf("phase = %q, want validation", w.Error.Phase)
			}
			if !strings.Contains(w.Error.Message, `"bogus"`) {
				t.Errorf("message %q does not name the command", w.Error.Message)
			}
		})
	}
	w := wantError(t, run{}.do(t, newHarness(t), "group", "iner"), 2, "UNKNOWN_COMMAND")
	if w.Error.Suggestion != "did you mean group inner?" {
		t.Errorf("suggestion = %q", w.Error.Suggestion)
	}
}

func TestAgentDetector(t *testing.T) {
	detector := adapters.WithAgentDetector(func(getenv func(string) string) bool { return getenv("APP_RUNNER") != "" })
	tty := adapters.Console
	t.Run("detected", func(t *testing.T) {
		r := run{tty: tty, env: []string{"APP_RUNNER=1"}, opts: []urfave.Option{detector}}.do(t, newHarness(t), "show")
		w := wantOK(t, r)
		if string(w.Data) != `{"id":"i1","name":"alpha"}` {
			t.Errorf("data = %s", w.Data)
		}
	})
	t.Run("not detected", func(t *testing.T) {
		r := run{tty: tty, env: []string{"TERM=dumb"}, opts: []urfave.Option{detector}}.do(t, newHarness(t), "show")
		if r.code != 0 || r.stdout != "id:   i1\nname: alpha\n" {
			t.Errorf("exit %d stdout %q, want human text", r.code, r.stdout)
		}
	})
}

func TestHumanAtATerminal(t *testing.T) {
	tty := adapters.Console
	t.Run("text", func(t *testing.T) {
		r := run{tty: tty, env: []string{"TERM=dumb"}}.do(t, newHarness(t), "show")
		if json.Valid([]byte(r.stdout)) {
			t.Errorf("stdout is JSON at a terminal: %s", r.stdout)
		}
		if r.stdout != "id:   i1\nname: alpha\n" || r.code != 0 {
			t.Errorf("exit %d stdout %q", r.code, r.stdout)
		}
	})
	t.Run("colour", func(t *testing.T) {
		r := run{tty: tty}.do(t, newHarness(t), "show")
		if !strings.Contains(r.stdout, "\x1b[") {
			t.Errorf("no colour at a terminal without NO_COLOR: %q", r.stdout)
		}
	})
	tests := []struct {
		name    string
		stdin   string
		exit    int
		ran     int
		errLine string
	}{
		{"confirmed", "y\n", 0, 1, ""},
		{"confirmed yes", "YES\n", 0, 1, ""},
		{"declined", "n\n", 4, 0, "ERROR [CONFIRMATION_DECLINED]: "},
		{"no answer", "", 4, 0, "ERROR [CONFIRMATION_DECLINED]: "},
	}
	for _, tt := range tests {
		t.Run("prompt "+tt.name, func(t *testing.T) {
			h := newHarness(t)
			r := run{tty: tty, stdin: tt.stdin, env: []string{"TERM=dumb"}}.do(t, h, "purge")
			if r.code != tt.exit {
				t.Errorf("exit = %d, want %d\nstderr: %s", r.code, tt.exit, r.stderr)
			}
			if h.called("purge") != tt.ran {
				t.Errorf("handler ran %d times, want %d", h.called("purge"), tt.ran)
			}
			if !strings.HasPrefix(r.stderr, "app purge is destructive. Continue? [y/N] ") {
				t.Errorf("no prompt on stderr: %q", r.stderr)
			}
			if tt.errLine != "" && !strings.Contains(r.stderr, tt.errLine) {
				t.Errorf("stderr %q lacks %q", r.stderr, tt.errLine)
			}
			if tt.exit == 0 && r.stdout != "deleted: 3\n" {
				t.Errorf("stdout = %q", r.stdout)
			}
		})
	}
}

// A person who presses Ctrl-C at the prompt gets CANCELLED, not a hang until
// Enter, when the lifecycle is given the signals (WithSignals); other
// signals on that channel, such as SIGPIPE, are ignored.
func TestPromptInterrupted(t *testing.T) {
	h := newHarness(t)
	stdin, typing := io.Pipe() // nobody answers
	defer typing.Close()
	sigs := make(chan os.Signal, 2)
	sigs <- syscall.SIGPIPE
	sigs <- os.Interrupt
	var stdout, stderr bytes.Buffer
	code := urfave.Run(context.Background(), newApp(h), []string{"purge"},
		adapters.WithStdio(stdin, &stdout, &stderr), adapters.WithEnv([]string{"TERM=dumb"}),
		adapters.WithTerminal(adapters.Console), adapters.WithSignals(sigs))
	if code != 130 {
		t.Errorf("exit = %d, want 130\nstderr: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "ERROR [CANCELLED]") {
		t.Errorf("stderr %q lacks the CANCELLED error", stderr.String())
	}
	if h.called("purge") != 0 {
		t.Error("the handler ran")
	}
}

func TestConfirmationInAgentMode(t *testing.T) {
	t.Run("refused, with a preview", func(t *testing.T) {
		h := newHarness(t)
		r := run{stdin: "y\n"}.do(t, h, "purge")
		w := wantError(t, r, 2, "CONFIRMATION_REQUIRED")
		if w.Error.FixCommand != "" || !strings.Contains(w.Error.Suggestion, "app purge --dry-run") {
			t.Errorf("fix_command %q (want none: the fix acts), suggestion %q (want the --dry-run form)", w.Error.FixCommand, w.Error.Suggestion)
		}
		if h.called("purge") != 0 || h.called("purge --dry-run") != 1 {
			t.Errorf("purge acted %d times and previewed %d, want 0 and 1", h.called("purge"), h.called("purge --dry-run"))
		}
		preview := map[string]any{"effect": w.Meta["effect"], "would_affect": w.Meta["would_affect"], "dry_run": w.Meta["dry_run"], "data": string(w.Data)}
		// data is null on a failure: the preview the refusal ran is in meta alone.
		want := map[string]any{"effect": "would_delete", "would_affect": map[string]any{"items": 3.0, "reversible": false}, "dry_run": true, "data": "null"}
		if diff := cmp.Diff(want, preview); diff != "" {
			t.Errorf("the refusal's preview (-want +got):\n%s", diff)
		}
		if !strings.Contains(w.Error.FixRequired, "meta.would_affect") || strings.Contains(w.Error.FixRequired, "data") {
			t.Errorf("fix_required %q, want it to point at meta.would_affect, not at data", w.Error.FixRequired)
		}
		if strings.Contains(r.stderr, "Continue?") {
			t.Errorf("prompted an agent: %q", r.stderr)
		}
	})
	for _, flag := range []string{"--yes", "--confirm-destructive"} {
		t.Run(flag, func(t *testing.T) {
			h := newHarness(t)
			w := wantOK(t, run{}.do(t, h, "purge", flag))
			if w.Meta["effect"] != "deleted" || w.Meta["confirmed"] != true || h.called("purge") != 1 {
				t.Errorf("meta.effect = %v, meta.confirmed = %v, runs = %d", w.Meta["effect"], w.Meta["confirmed"], h.called("purge"))
			}
		})
	}
	t.Run("--dry-run", func(t *testing.T) {
		h := newHarness(t)
		w := wantOK(t, run{}.do(t, h, "purge", "--dry-run"))
		if w.Meta["dry_run"] != true || w.Meta["effect"] != "would_delete" || w.Meta["confirmed"] != nil || h.called("purge") != 0 {
			t.Errorf("meta = %v, runs = %d", w.Meta, h.called("purge"))
		}
	})
	// A command that does not implement --dry-run has no such flag: given
	// it, it is refused before it runs, and its refusal never offers it.
	t.Run("no --dry-run where none is implemented", func(t *testing.T) {
		h := newHarness(t)
		w := wantError(t, run{}.do(t, h, "reset", "--dry-run"), 2, "UNKNOWN_FLAG")
		if h.called("reset") != 0 {
			t.Errorf("reset ran with --dry-run: %+v", w.Error)
		}
		// Not destructive, it asks a question nobody can answer: INPUT_REQUIRED, exit 4 (REQ-F-009).
		w = wantError(t, run{}.do(t, h, "reset"), 4, "INPUT_REQUIRED")
		if w.Error.FixCommand != "" || strings.Contains(w.Error.Suggestion, "--dry-run") || h.called("reset") != 0 {
			t.Errorf("the refusal offers a form that would act: %+v", w.Error)
		}
	})
	// A command that declares --dry-run and reports no effect may have
	// acted: the author's bug is reported, never answered as a preview.
	t.Run("a dry run that reports nothing", func(t *testing.T) {
		wantError(t, run{}.do(t, newHarness(t), "sloppy", "--dry-run"), 1, "DRY_RUN_UNREPORTED")
	})
}

func TestValidateOnly(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"plain", []string{"need", "--space", "s1", "--validate-only"}},
		{"destructive without --yes", []string{"purge", "--validate-only"}},
		{"handler that panics", []string{"boom", "--validate-only"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			w := wantOK(t, run{}.do(t, h, tt.args...))
			if w.Meta["validation_only"] != true {
				t.Errorf("meta.validation_only = %v, want true", w.Meta["validation_only"])
			}
			if string(w.Data) != "null" {
				t.Errorf("data = %s, want null", w.Data)
			}
			for _, c := range []string{"need", "purge", "boom"} {
				if h.called(c) != 0 {
					t.Errorf("--validate-only ran %s", c)
				}
			}
		})
	}
	t.Run("still validates", func(t *testing.T) {
		h := newHarness(t)
		wantError(t, run{}.do(t, h, "need", "--validate-only"), 2, "MISSING_REQUIRED_FLAG")
	})
}

func TestAudienceInDescribe(t *testing.T) {
	commands := func(t *testing.T, r result) map[string]json.RawMessage {
		t.Helper()
		w := wantOK(t, r)
		var m struct {
			Commands map[string]json.RawMessage `json:"commands"`
		}
		if err := json.Unmarshal(w.Data, &m); err != nil {
			t.Fatalf("describe data: %v", err)
		}
		return m.Commands
	}
	agent := commands(t, run{}.do(t, newHarness(t), "describe"))
	if _, ok := agent["secret"]; ok {
		t.Error("a human-only command appears in describe for an agent")
	}
	if _, ok := agent["show"]; !ok {
		t.Errorf("describe for an agent lacks show: %v", keysOf(agent))
	}
	full := commands(t, run{}.do(t, newHarness(t), "describe", "--human"))
	if _, ok := full["secret"]; !ok {
		t.Errorf("describe --human lacks the human-only command: %v", keysOf(full))
	}
	if len(full) != len(agent)+1 {
		t.Errorf("describe --human has %d commands, agent view %d: want exactly one more", len(full), len(agent))
	}
}

func keysOf(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestOneEnvelopeAndMeta(t *testing.T) {
	w := wantOK(t, run{env: []string{}, opts: []urfave.Option{adapters.WithVersion("9.9.9")}}.do(t, newHarness(t), "show"))
	for k, want := range map[string]any{"schema_version": "1.0", "tool_version": "9.9.9", "command": "show", "request_id": "req-test"} {
		if w.Meta[k] != want {
			t.Errorf("meta.%s = %v, want %v", k, w.Meta[k], want)
		}
	}
	if _, ok := w.Meta["duration_ms"]; !ok {
		t.Error("meta.duration_ms missing")
	}
}
