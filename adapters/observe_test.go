package adapters_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// jwt is a token with subject user_123 that expires at 2024-03-11T15:00:00Z.
var jwt = b64url(`{"alg":"HS256","typ":"JWT"}`) + "." + b64url(`{"sub":"user_123","exp":1710169200}`) + ".c2lnbmF0dXJl"

func b64url(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// blob is 192 random-looking bytes: 256 characters of base64.
var blob = func() string {
	b := make([]byte, 192)
	for i := range b {
		b[i] = byte(i*73 + i*i*31 + 17)
	}
	return base64.StdEncoding.EncodeToString(b)
}()

// observed is what the commands of observeApp report to the test.
type observed struct {
	mu      sync.Mutex
	ran     map[string]int
	cwd     string
	abs     string
	config  envelope.ConfigChoice
	answer  string
	confirm bool
}

func (o *observed) record(name string, fn func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ran == nil {
		o.ran = map[string]int{}
	}
	o.ran[name]++
	if fn != nil {
		fn()
	}
}

func (o *observed) runs(name string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.ran[name]
}

// observeApp is an app whose commands use what this part of Duet gives
// them: paths, configuration, retries, secrets, questions, a display.
func observeApp(o *observed) *cli.Command {
	cmd := func(name string, meta schema.Meta, flags []cli.Flag, fn func(ctx context.Context, c *cli.Command) error) *cli.Command {
		return urfave.Annotate(&cli.Command{Name: name, Usage: name, Flags: flags, Action: func(ctx context.Context, c *cli.Command) error {
			o.record(name, nil)
			return fn(ctx, c)
		}}, meta)
	}
	safe := schema.Meta{Danger: schema.Safe}
	var attempts int
	return &cli.Command{Name: "app", Commands: []*cli.Command{
		cmd("where", safe, nil, func(ctx context.Context, _ *cli.Command) error {
			out := envelope.From(ctx)
			o.record("where.seen", func() { o.cwd, o.abs, o.config = out.Cwd(), string(out.Abs("notes/a.txt")), out.Config() })
			out.ProjectRoot(out.Cwd())
			return out.Result(map[string]any{"file": envelope.Path("notes/a.txt"), "made": out.Abs("b.txt")})
		}),
		cmd("login", schema.Meta{Danger: schema.Mutating, Flags: map[string]schema.FlagMeta{"token": {Sensitive: true}}},
			[]cli.Flag{&cli.StringFlag{Name: "token"}, &cli.StringFlag{Name: "region", Sources: cli.EnvVars("APP_REGION")}},
			func(ctx context.Context, c *cli.Command) error {
				out := envelope.From(ctx)
				out.Logger().Info("logging in", "region", c.String("region"))
				out.Logger().Debug("token in use", "value", c.String("token"))
				out.Effect(envelope.Updated)
				return out.Result(map[string]string{"region": c.String("region")})
			}),
		cmd("secrets", schema.Meta{Danger: schema.Safe, HighEntropy: []string{"api_key"}}, nil, func(ctx context.Context, _ *cli.Command) error {
			return envelope.From(ctx).Result(map[string]any{
				"session": jwt, "cert": blob, "api_key": "ghp_abcdefgh12345678", "commit": "0123456789abcdef0123456789abcdef01234567",
				"path": "/home/someone/projects/SomeProject2024/internal/handlers", "tokens": []string{jwt},
			})
		}),
		cmd("warn", safe, []cli.Flag{&cli.BoolFlag{Name: "quietly"}}, func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			if !c.Bool("quietly") {
				out.Warn("OLD_FORMAT", "the store is in the old format", "run 'app migrate'")
			}
			out.Progress("working", 1, 2)
			out.Logger().Error("disk nearly full")
			return out.Result(map[string]int{"n": 1})
		}),
		cmd("flaky", schema.Meta{Danger: schema.Safe, Retries: 3, RetryDelay: time.Millisecond}, []cli.Flag{&cli.IntFlag{Name: "fail"}},
			func(ctx context.Context, c *cli.Command) error {
				out := envelope.From(ctx)
				attempts = 0
				err := out.Retry(ctx, func(context.Context) error {
					attempts++
					if attempts <= int(c.Int("fail")) {
						return envelope.Errorf(exitcode.Unavailable, "UPSTREAM_DOWN", "upstream refused attempt %d", attempts)
					}
					return nil
				})
				if err != nil {
					return err
				}
				return out.Result(map[string]int{"attempts": attempts})
			}),
		cmd("repl", schema.Meta{Danger: schema.Safe, Interactive: true}, nil, func(ctx context.Context, _ *cli.Command) error {
			return envelope.From(ctx).Result(map[string]bool{"talked": true})
		}),
		cmd("commit", schema.Meta{Danger: schema.Mutating, Editor: true, Alternatives: []string{"message", "from-file"}},
			[]cli.Flag{&cli.StringFlag{Name: "message", Usage: "the commit message"}, &cli.StringFlag{Name: "from-file", Usage: "read the message from a file"}},
			func(ctx context.Context, c *cli.Command) error {
				out := envelope.From(ctx)
				out.Effect(envelope.Created)
				return out.Result(map[string]string{"message": c.String("message")})
			}),
		cmd("ask", schema.Meta{Danger: schema.Mutating, Prompts: true}, []cli.Flag{&cli.StringFlag{Name: "name"}},
			func(ctx context.Context, c *cli.Command) error {
				name := c.String("name")
				if name == "" {
					var err error
					if name, err = adapters.Prompt(ctx, "Your name: ", "name"); err != nil {
						return err
					}
				}
				ok, err := adapters.Confirm(ctx, "Save it?")
				if err != nil {
					return err
				}
				o.record("ask.answered", func() { o.answer, o.confirm = name, ok })
				out := envelope.From(ctx)
				out.Effect(envelope.Updated)
				return out.Result(map[string]any{"name": name, "saved": ok})
			}),
		cmd("open", schema.Meta{Danger: schema.Safe, GUI: []string{"browser_open"}, Headless: schema.EmitInOutput}, nil,
			func(ctx context.Context, _ *cli.Command) error {
				out := envelope.From(ctx)
				if err := out.Open("https://example.com/device?code=ABC"); err != nil {
					return err
				}
				return out.Result(map[string]string{"code": "ABC"})
			}),
		cmd("notify", schema.Meta{Danger: schema.Safe, GUI: []string{"desktop_notification"}, Headless: schema.SkipHeadless}, nil,
			func(ctx context.Context, _ *cli.Command) error { return envelope.From(ctx).Open("notes/a.txt") }),
		cmd("preview", schema.Meta{Danger: schema.Safe, GUI: []string{"browser_open"}, Headless: schema.FailHeadless}, nil,
			func(ctx context.Context, _ *cli.Command) error { return envelope.From(ctx).Open("https://example.com") }),
		cmd("sneaky", safe, nil, func(ctx context.Context, _ *cli.Command) error {
			return envelope.From(ctx).Open("https://example.com")
		}),
	}}
}

// obsRun is one in-process invocation of observeApp.
type obsRun struct {
	env   []string
	tty   adapters.Terminal
	stdin string
	opts  []urfave.Option
}

func (r obsRun) do(t *testing.T, o *observed, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	opts := append([]urfave.Option{
		adapters.WithSpecStrict(),
		adapters.WithStdio(strings.NewReader(r.stdin), &stdout, &stderr),
		adapters.WithEnv(r.env),
		adapters.WithTerminal(r.tty),
		adapters.WithClock(func() time.Time { return time.Date(2026, 3, 17, 14, 0, 0, 0, time.UTC) }),
	}, r.opts...)
	code := urfave.Run(context.Background(), observeApp(o), args, opts...)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// TestMetaSaysWhatHappened: every answer carries a request id unique to it,
// the caller's trace id (<TOOL>_TRACE_ID, else TOOL_TRACE_ID, else none),
// the command, when it started, where it ran and whether there is a display.
func TestMetaSaysWhatHappened(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		env  []string
		tty  adapters.Terminal
		want map[string]any
	}{
		{"no trace", nil, adapters.Piped, map[string]any{"trace_id": nil, "headless": true}},
		{"the tool's trace", []string{"APP_TRACE_ID=abc123", "TOOL_TRACE_ID=other"}, adapters.Piped, map[string]any{"trace_id": "abc123"}},
		{"the spec's literal name", []string{"TOOL_TRACE_ID=span-pipeline-42"}, adapters.Piped, map[string]any{"trace_id": "span-pipeline-42"}},
		{"a display at a terminal", []string{"DISPLAY=:0", "APP_FORMAT=json"}, adapters.Console, map[string]any{"headless": nil}},
		{"a terminal without a display", []string{"APP_FORMAT=json"}, adapters.Console, map[string]any{"headless": true}},
		{"over SSH", []string{"DISPLAY=:0", "SSH_TTY=/dev/pts/1", "APP_FORMAT=json"}, adapters.Console, map[string]any{"headless": true}},
		{"in CI", []string{"DISPLAY=:0", "CI=true", "APP_FORMAT=json"}, adapters.Console, map[string]any{"headless": true}},
		{"a Wayland display", []string{"WAYLAND_DISPLAY=wayland-0", "APP_FORMAT=json"}, adapters.Console, map[string]any{"headless": nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := wantOK(t, obsRun{env: tt.env, tty: tt.tty, opts: []urfave.Option{adapters.WithWorkDir(dir)}}.do(t, &observed{}, "where"))
			want := map[string]any{"command": "where", "timestamp": "2026-03-17T14:00:00.000Z", "cwd": dir}
			for k, v := range tt.want {
				want[k] = v
			}
			for k, v := range want {
				if got := w.Meta[k]; !cmp.Equal(got, v) {
					t.Errorf("meta.%s = %v, want %v", k, got, v)
				}
			}
		})
	}
	a := wantOK(t, obsRun{}.do(t, &observed{}, "where"))
	b := wantOK(t, obsRun{}.do(t, &observed{}, "where"))
	if a.Meta["request_id"] == b.Meta["request_id"] || a.Meta["request_id"] == "" {
		t.Errorf("request ids %v and %v, want two different ones", a.Meta["request_id"], b.Meta["request_id"])
	}
	if _, err := time.Parse(time.RFC3339Nano, wantOK(t, run{}.do(t, newHarness(t), "show")).Meta["timestamp"].(string)); err != nil {
		t.Errorf("meta.timestamp is not RFC 3339: %v", err)
	}
}

// TestCwdFlag: --cwd moves where relative paths resolve, and what meta.cwd
// says, without changing the process's working directory; a directory that
// is not there is refused before anything runs. A Path in data is absolute.
func TestCwdFlag(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	before, _ := os.Getwd()
	o := &observed{}
	w := wantOK(t, obsRun{opts: []urfave.Option{adapters.WithWorkDir(dir)}}.do(t, o, "where", "--cwd", other))
	if w.Meta["cwd"] != other || w.Meta["project_root"] != other {
		t.Errorf("meta.cwd %v, project_root %v, want %s", w.Meta["cwd"], w.Meta["project_root"], other)
	}
	if o.cwd != other || o.abs != filepath.Join(other, "notes", "a.txt") {
		t.Errorf("the command saw Cwd %q, Abs %q", o.cwd, o.abs)
	}
	var data map[string]string
	json.Unmarshal(w.Data, &data)
	if data["file"] != filepath.Join(other, "notes", "a.txt") || data["made"] != filepath.Join(other, "b.txt") {
		t.Errorf("data %v: a relative Path and Abs both resolve against --cwd", data)
	}
	w = wantOK(t, obsRun{}.do(t, &observed{}, "where"))
	json.Unmarshal(w.Data, &data)
	if data["file"] != filepath.Join(before, "notes", "a.txt") {
		t.Errorf("data %v: without --cwd a Path resolves against the process's directory", data)
	}
	if after, _ := os.Getwd(); after != before {
		t.Errorf("the working directory changed from %s to %s", before, after)
	}
	rel := wantOK(t, obsRun{opts: []urfave.Option{adapters.WithWorkDir(filepath.Dir(other))}}.do(t, &observed{}, "where", "--cwd", filepath.Base(other)))
	if rel.Meta["cwd"] != other {
		t.Errorf("a relative --cwd: meta.cwd %v, want %s", rel.Meta["cwd"], other)
	}
	o = &observed{}
	e := wantError(t, obsRun{}.do(t, o, "where", "--cwd", filepath.Join(dir, "missing")), 2, "INVALID_CWD")
	if e.Error.Phase != "validation" || o.runs("where") != 0 {
		t.Errorf("a missing --cwd: phase %q, runs %d", e.Error.Phase, o.runs("where"))
	}
}

// TestVerbosityFlags: --quiet, --verbose and --debug exclude one another;
// --quiet leaves stderr empty, errors included; --debug traces the
// lifecycle with the trace id on every line and never shows a secret, from
// a flag or from the environment.
func TestVerbosityFlags(t *testing.T) {
	for _, pair := range [][]string{{"--quiet", "--verbose"}, {"--verbose", "--debug"}, {"--quiet", "--debug"}} {
		wantError(t, obsRun{}.do(t, &observed{}, append([]string{"where"}, pair...)...), 2, "MUTUALLY_EXCLUSIVE_FLAGS")
	}
	person := adapters.Console
	r := obsRun{tty: person, env: []string{"TERM=dumb"}}.do(t, &observed{}, "preview", "--quiet")
	if r.code != 4 || r.stderr != "" {
		t.Errorf("--quiet at a terminal: exit %d, stderr %q; want 4 and not a byte", r.code, r.stderr)
	}
	r = obsRun{tty: person, env: []string{"TERM=dumb"}}.do(t, &observed{}, "warn", "--quiet")
	if r.code != 0 || r.stderr != "" {
		t.Errorf("--quiet with a warning: exit %d, stderr %q", r.code, r.stderr)
	}

	const canary, envCanary, headerish = "tok-canary-1", "aws-canary-2", "api-canary-3"
	env := []string{"APP_TRACE_ID=t-42", "AWS_SECRET_ACCESS_KEY=" + envCanary, "API_BASE=" + headerish, "HOME=/home/x", "LOGIN_TOKEN=" + canary}
	r = obsRun{env: env}.do(t, &observed{}, "login", "--token-from-env", "LOGIN_TOKEN", "--region", "eu", "--debug")
	wantOK(t, r)
	for _, secret := range []string{canary, envCanary, headerish} {
		if strings.Contains(r.stderr+r.stdout, secret) {
			t.Errorf("a secret shows under --debug: %q\nstderr: %s", secret, r.stderr)
		}
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) < 5 {
		t.Fatalf("--debug wrote %d lines, want the lifecycle's steps:\n%s", len(lines), r.stderr)
	}
	for _, l := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec["trace_id"] != "t-42" {
			t.Errorf("a debug line without the trace id (%v): %s", err, l)
		}
	}
	for _, want := range []string{"AWS_SECRET_ACCESS_KEY=[REDACTED]", "API_BASE=[REDACTED]", "--token-from-env=[REDACTED]", "--region=eu", `"msg":"configuration"`, `"msg":"finished"`} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("--debug lacks %q:\n%s", want, r.stderr)
		}
	}
}

// TestAutoQuiet: where nobody watches stderr — a pipe, CI, an agent —
// progress and info lines stay off unless --verbose asks for them; a person
// at a terminal sees them; an error line is always written.
func TestAutoQuiet(t *testing.T) {
	tests := []struct {
		name     string
		env      []string
		tty      adapters.Terminal
		args     []string
		progress bool
	}{
		{"a pipe", nil, adapters.Piped, nil, false},
		{"a pipe, --verbose", nil, adapters.Piped, []string{"--verbose"}, true},
		{"a pipe, --debug", nil, adapters.Piped, []string{"--debug"}, true},
		{"a person", []string{"TERM=dumb"}, adapters.Console, nil, true},
		{"an agent at a terminal", []string{"CLAUDECODE=1"}, adapters.Console, nil, false},
		{"an agent at a terminal, --verbose", []string{"CLAUDECODE=1"}, adapters.Console, []string{"--verbose"}, true},
		{"CI at a terminal", []string{"TERM=dumb", "CI=true"}, adapters.Console, nil, false},
		{"CI at a terminal, --verbose", []string{"TERM=dumb", "CI=true"}, adapters.Console, []string{"--verbose"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := obsRun{env: tt.env, tty: tt.tty}.do(t, &observed{}, append([]string{"warn", "--quietly"}, tt.args...)...)
			if got := strings.Contains(r.stderr, "working"); got != tt.progress {
				t.Errorf("progress shown %v, want %v; stderr %q", got, tt.progress, r.stderr)
			}
			if !strings.Contains(r.stderr, "disk nearly full") {
				t.Errorf("the error line is missing; stderr %q", r.stderr)
			}
		})
	}
	r := obsRun{}.do(t, &observed{}, "login", "--region", "eu")
	if strings.Contains(r.stderr, "logging in") {
		t.Errorf("an info line on a pipe: %q", r.stderr)
	}
	r = obsRun{}.do(t, &observed{}, "login", "--region", "eu", "--verbose")
	if !strings.Contains(r.stderr, "logging in") {
		t.Errorf("--verbose, no info line: %q", r.stderr)
	}
}

// TestWarningsAsErrors: with the flag, a warning fails the command (exit 1)
// and stays in warnings; without a warning, or without the flag, it passes.
func TestWarningsAsErrors(t *testing.T) {
	w := wantError(t, obsRun{}.do(t, &observed{}, "warn", "--warnings-as-errors"), 1, "WARNINGS_AS_ERRORS")
	if len(w.Warnings) != 1 || w.Warnings[0].Code != "OLD_FORMAT" || w.Error.Retryable {
		t.Errorf("warnings %q, retryable %v", w.Warnings, w.Error.Retryable)
	}
	wantOK(t, obsRun{}.do(t, &observed{}, "warn", "--quietly", "--warnings-as-errors"))
	if w := wantOK(t, obsRun{}.do(t, &observed{}, "warn")); len(w.Warnings) != 1 {
		t.Errorf("without the flag: warnings %q", w.Warnings)
	}
}

// TestRetries: a command that retries reports how often in meta.retries
// (left out at 0); --retries 0 fails at the first error, as it was; an
// exhausted budget fails not retryable, so the agent does not retry again.
func TestRetries(t *testing.T) {
	w := wantOK(t, obsRun{}.do(t, &observed{}, "flaky", "--fail", "2"))
	if w.Meta["retries"] != 2.0 {
		t.Errorf("meta.retries = %v, want 2", w.Meta["retries"])
	}
	if w := wantOK(t, obsRun{}.do(t, &observed{}, "flaky")); w.Meta["retries"] != nil {
		t.Errorf("no retry, yet meta.retries = %v", w.Meta["retries"])
	}
	w = wantError(t, obsRun{}.do(t, &observed{}, "flaky", "--fail", "1", "--retries", "0"), 12, "UPSTREAM_DOWN")
	if w.Meta["retries"] != nil || !w.Error.Retryable {
		t.Errorf("--retries 0: meta.retries %v, retryable %v; want none, and the error as it was", w.Meta["retries"], w.Error.Retryable)
	}
	w = wantError(t, obsRun{}.do(t, &observed{}, "flaky", "--fail", "9", "--retries", "2", "--retry-delay", "1ms"), 12, "UPSTREAM_DOWN")
	if w.Meta["retries"] != 2.0 || w.Error.Retryable || !strings.Contains(w.Error.Message, "after 3 attempts") {
		t.Errorf("exhausted: meta.retries %v, retryable %v, message %q", w.Meta["retries"], w.Error.Retryable, w.Error.Message)
	}
	doc := wantOK(t, obsRun{}.do(t, &observed{}, "flaky", "--schema"))
	for _, f := range []string{"retries", "retry-delay"} {
		if !strings.Contains(string(doc.Data), `"`+f+`":{`) {
			t.Errorf("--schema lacks --%s", f)
		}
	}
}

// TestMasking: in JSON, a JWT, a long base64 blob and a declared secret
// field are summarised; a hash and a path are not; --unmask, and nothing
// else (no environment variable), shows them as they are.
func TestMasking(t *testing.T) {
	w := wantOK(t, obsRun{}.do(t, &observed{}, "secrets"))
	var data map[string]any
	json.Unmarshal(w.Data, &data)
	want := map[string]any{
		"session": "[JWT: sub=user_123, exp=2024-03-11T15:00:00Z]",
		"cert":    "[BASE64: 192 bytes]",
		"api_key": "[KEY: ghp_abcd...]",
		"commit":  "0123456789abcdef0123456789abcdef01234567",
		"path":    "/home/someone/projects/SomeProject2024/internal/handlers",
		"tokens":  []any{"[JWT: sub=user_123, exp=2024-03-11T15:00:00Z]"},
	}
	if diff := cmp.Diff(want, data); diff != "" {
		t.Errorf("masked data (-want +got):\n%s", diff)
	}
	for _, env := range [][]string{nil, {"APP_UNMASK=1", "UNMASK=1"}} {
		w := wantOK(t, obsRun{env: env}.do(t, &observed{}, "secrets", "--unmask"))
		if !strings.Contains(string(w.Data), jwt) || !strings.Contains(string(w.Data), blob) {
			t.Errorf("--unmask: %s", w.Data)
		}
		w = wantOK(t, obsRun{env: env}.do(t, &observed{}, "secrets"))
		if strings.Contains(string(w.Data), jwt) {
			t.Errorf("unmasked without --unmask (env %q)", env)
		}
	}
	doc := wantOK(t, obsRun{}.do(t, &observed{}, "secrets", "--schema"))
	var d struct {
		Flags       map[string]schema.FlagEntry `json:"flags"`
		HighEntropy []string                    `json:"high_entropy_fields"`
	}
	json.Unmarshal(doc.Data, &d)
	if !strings.Contains(d.Flags["unmask"].Description, "exposes sensitive values") || !slices.Equal(d.HighEntropy, []string{"api_key"}) {
		t.Errorf("--schema: unmask %+v, high_entropy_fields %v", d.Flags["unmask"], d.HighEntropy)
	}
	// A person's text is theirs to read.
	r := obsRun{tty: adapters.Console, env: []string{"TERM=dumb"}}.do(t, &observed{}, "secrets")
	if !strings.Contains(r.stdout, jwt) {
		t.Errorf("text at a terminal was masked: %s", r.stdout)
	}
}

// TestAuditLog: every answered invocation appends one JSON line — failures
// too, secrets redacted — and audit-log, which is not logged itself, reads
// them back in data.entries, oldest first, filtered by time, command (in
// either spelling) and trace.
func TestAuditLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "audit.jsonl")
	log := adapters.WithAuditLog(path)
	run := func(env []string, args ...string) result {
		return obsRun{env: env, opts: []urfave.Option{log}}.do(t, &observed{}, args...)
	}
	w := wantOK(t, run([]string{"APP_TRACE_ID=tr-1", "LOGIN_TOKEN=s3cr3t-value"}, "login", "--token-from-env", "LOGIN_TOKEN", "--region", "eu"))
	if w.Meta["audit_log_path"] != path {
		t.Errorf("meta.audit_log_path = %v, want %s", w.Meta["audit_log_path"], path)
	}
	wantError(t, run([]string{"APP_TRACE_ID=tr-2"}, "preview"), 4, "NO_DISPLAY")
	wantError(t, run(nil, "where", "--bogus"), 2, "UNKNOWN_FLAG")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "s3cr3t-value") {
		t.Errorf("the audit log holds a secret:\n%s", raw)
	}
	var entries []adapters.AuditEntry
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		var e adapters.AuditEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("not JSONL: %v: %s", err, sc.Bytes())
		}
		entries = append(entries, e)
	}
	if len(entries) != 3 {
		t.Fatalf("%d entries, want 3:\n%s", len(entries), raw)
	}
	first := entries[0]
	if first.Command != "login" || first.ExitCode != 0 || first.TraceID != "tr-1" || first.RequestID == "" ||
		first.Args["token-from-env"] != envelope.Redacted || first.Args["region"] != "eu" || first.Timestamp != "2026-03-17T14:00:00.000Z" {
		t.Errorf("first entry %+v", first)
	}
	if entries[1].ExitCode != 4 || entries[2].ExitCode != 2 || entries[2].Warnings == nil {
		t.Errorf("failures: %+v, %+v", entries[1], entries[2])
	}

	query := func(args ...string) []map[string]any {
		t.Helper()
		w := wantOK(t, run(nil, append([]string{"audit-log"}, args...)...))
		var got struct{ Entries []map[string]any }
		if err := json.Unmarshal(w.Data, &got); err != nil {
			t.Fatalf("%v: %s", err, w.Data)
		}
		return got.Entries
	}
	commands := func(es []map[string]any) []string {
		var out []string
		for _, e := range es {
			out = append(out, e["command"].(string))
		}
		return out
	}
	if got := commands(query("--trace-id", "tr-2")); !slices.Equal(got, []string{"preview"}) {
		t.Errorf("--trace-id tr-2: %v", got)
	}
	if got := query("--command", "login"); len(got) != 1 || got[0]["args"].(map[string]any)["token-from-env"] != envelope.Redacted {
		t.Errorf("--command login: %v", got)
	}
	// The clock stands still: the three entries share a timestamp, and
	// their request ids order them; the cursor walks on to the third.
	page := wantOK(t, run(nil, "audit-log", "--limit", "2"))
	pg, _ := page.Meta["pagination"].(map[string]any)
	if pg["returned"] != 2.0 || pg["total"] != 3.0 || pg["has_more"] != true || pg["next_cursor"] == nil {
		t.Fatalf("--limit 2: meta.pagination %v", pg)
	}
	rest := query("--limit", "2", "--cursor", pg["next_cursor"].(string))
	var firstPage struct{ Entries []map[string]any }
	json.Unmarshal(page.Data, &firstPage)
	if got := commands(append(rest, firstPage.Entries...)); len(rest) != 1 || !slices.Equal(slices.Sorted(slices.Values(got)), []string{"login", "preview", "where"}) {
		t.Errorf("--limit 2, then its cursor: %v", got)
	}
	wantError(t, run(nil, "audit-log", "--command", "where", "--cursor", pg["next_cursor"].(string)), 2, "INVALID_CURSOR")
	if got := query("--since", "2026-03-18T00:00:00Z"); len(got) != 0 {
		t.Errorf("--since a later day: %v", got)
	}
	if got := query("--since", "1h"); len(got) != 3 {
		t.Errorf("--since 1h: %d entries, want 3", len(got))
	}
	r := run(nil, "audit-log", "--since", "1h", "--format", "jsonl")
	if n := strings.Count(r.stdout, "\n"); n != 4 {
		t.Errorf("--format jsonl: one line per entry and a summary, got %d lines:\n%s", n, r.stdout)
	}
	for _, bad := range []string{"yesterday", "1w", "1h30m", "0h", "2026-03-18"} {
		wantError(t, run(nil, "audit-log", "--since", bad), 2, "INVALID_FLAG_VALUE")
	}
}

// TestAuditLogWhere (REQ-O-030): the audit log is off unless the app
// (WithAuditLog) or the operator (<TOOL>_AUDIT_LOG) turns it on: 1 turns it
// on at the app's place or the default one, 0 off, an absolute path on
// there; anything else is refused before the command runs.
func TestAuditLogWhere(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": "/home/u"}, "/home/u/.local/state/app/audit.jsonl"},
		{map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "/state"}, "/state/app/audit.jsonl"},
		{map[string]string{"HOME": "/home/u", "XDG_DATA_HOME": "/data"}, "/home/u/.local/state/app/audit.jsonl"},
		{map[string]string{}, ""},
	} {
		if got := adapters.AuditLogPath("app", func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("AuditLogPath(%v) = %q, want %q", tt.env, got, tt.want)
		}
	}
	own := filepath.Join(t.TempDir(), "own.jsonl")
	for _, tt := range []struct {
		name    string
		setting string // <TOOL>_AUDIT_LOG, "-" for unset
		app     bool   // WithAuditLog(own)
		want    string // the log written: "default", "own", "env", or "" for none
	}{
		{"off by default", "-", false, ""},
		{"the operator turns it on", "1", false, "default"},
		{"the app turns it on", "-", true, "own"},
		{"the operator turns the app's off", "0", true, ""},
		{"1 keeps the app's place", "1", true, "own"},
		{"an absolute path wins", "abs", true, "env"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			env := []string{"HOME=" + home}
			abs := filepath.Join(t.TempDir(), "env.jsonl")
			switch tt.setting {
			case "-":
			case "abs":
				env = append(env, "APP_AUDIT_LOG="+abs)
			default:
				env = append(env, "APP_AUDIT_LOG="+tt.setting)
			}
			var opts []urfave.Option
			if tt.app {
				opts = append(opts, adapters.WithAuditLog(own))
			}
			r := wantOK(t, obsRun{env: env, opts: opts}.do(t, &observed{}, "where"))
			paths := map[string]string{"default": filepath.Join(home, ".local", "state", "app", "audit.jsonl"), "own": own, "env": abs}
			for name, path := range paths {
				_, err := os.Stat(path)
				if written := err == nil; written != (name == tt.want) {
					t.Errorf("%s log %s written: %v", name, path, written)
				}
			}
			if got, ok := r.Meta["audit_log_path"]; (tt.want != "") != ok || ok && got != paths[tt.want] {
				t.Errorf("meta.audit_log_path %v, want %q", got, paths[tt.want])
			}
			os.Remove(own)
		})
	}
	for _, bad := range []string{"true", "off", "logs/audit.jsonl"} {
		home := t.TempDir()
		wantError(t, obsRun{env: []string{"HOME=" + home, "APP_AUDIT_LOG=" + bad}}.do(t, &observed{}, "where"), 2, "INVALID_AUDIT_LOG_SETTING")
		if _, err := os.Stat(filepath.Join(home, ".local")); err == nil {
			t.Errorf("APP_AUDIT_LOG=%s wrote under the home", bad)
		}
	}
}

// TestConfigSources: an app's registered configuration files are its
// config sources, in precedence order, absent ones left out; the hash
// changes with their content and only with it; --no-config reads none,
// --config one; --show-config answers in the spec's shape.
func TestConfigSources(t *testing.T) {
	dir := t.TempDir()
	project, user := filepath.Join(dir, ".app.json"), filepath.Join(dir, "user.json")
	os.WriteFile(project, []byte(`{"region":"eu"}`), 0o644)
	cfg := adapters.WithConfig(adapters.Config{
		Files: func(q adapters.ConfigQuery) []string {
			return []string{filepath.Join(q.Dir, ".app.json"), user, filepath.Join(q.Dir, "absent.json")}
		},
		Settings: func(_ context.Context, _ adapters.ConfigQuery, files []string) ([]adapters.Setting, error) {
			s := []adapters.Setting{{Key: "region", Value: "us"}}
			if slices.Contains(files, project) {
				s[0].Value, s[0].Source = "eu", project
			}
			return s, nil
		},
	})
	do := func(o *observed, args ...string) wire {
		t.Helper()
		return wantOK(t, obsRun{opts: []urfave.Option{cfg, adapters.WithWorkDir(dir)}}.do(t, o, args...))
	}
	o := &observed{}
	w := do(o, "where")
	hash := w.Meta["effective_config_hash"]
	if diff := cmp.Diff([]any{project}, w.Meta["config_sources"]); diff != "" {
		t.Errorf("config_sources (-want +got):\n%s", diff)
	}
	if !slices.Equal(o.config.Files, []string{project}) || o.config.Skip {
		t.Errorf("the command was told %+v", o.config)
	}
	if again := do(&observed{}, "where"); again.Meta["effective_config_hash"] != hash {
		t.Errorf("the hash moved with nothing changed: %v, %v", hash, again.Meta["effective_config_hash"])
	}
	os.WriteFile(user, []byte(`{"colour":"never"}`), 0o644)
	w = do(&observed{}, "where")
	if diff := cmp.Diff([]any{project, user}, w.Meta["config_sources"]); diff != "" || w.Meta["effective_config_hash"] == hash {
		t.Errorf("a second file: sources %v, hash %v (was %v)", w.Meta["config_sources"], w.Meta["effective_config_hash"], hash)
	}
	o = &observed{}
	w = do(o, "where", "--no-config")
	if diff := cmp.Diff([]any{}, w.Meta["config_sources"]); diff != "" || !o.config.Skip || len(o.config.Files) != 0 {
		t.Errorf("--no-config: sources %v, told %+v", w.Meta["config_sources"], o.config)
	}
	o = &observed{}
	w = do(o, "where", "--config", "user.json")
	if diff := cmp.Diff([]any{user}, w.Meta["config_sources"]); diff != "" || !slices.Equal(o.config.Files, []string{user}) {
		t.Errorf("--config: sources %v, told %+v", w.Meta["config_sources"], o.config)
	}
	wantError(t, obsRun{opts: []urfave.Option{cfg, adapters.WithWorkDir(dir)}}.do(t, &observed{}, "where", "--config", "nope.json"), 2, "CONFIG_NOT_FOUND")
	wantError(t, obsRun{opts: []urfave.Option{cfg}}.do(t, &observed{}, "where", "--config", user, "--no-config"), 2, "MUTUALLY_EXCLUSIVE_FLAGS")

	w = do(&observed{}, "login", "--region", "ap", "--show-config")
	var shown struct {
		Effective  map[string]any    `json:"effective_config"`
		Sources    map[string]string `json:"sources"`
		Precedence []string          `json:"precedence_order"`
	}
	json.Unmarshal(w.Data, &shown)
	if shown.Effective["region"] != "ap" || shown.Sources["region"] != "cli-flags" || shown.Sources["token"] != "default" {
		t.Errorf("--show-config: %+v", shown)
	}
	if want := []string{"cli-flags", "env-vars", "file:" + project, "file:" + user, "defaults"}; !slices.Equal(shown.Precedence, want) {
		t.Errorf("precedence_order %v, want %v", shown.Precedence, want)
	}
	w = wantOK(t, obsRun{env: []string{"APP_REGION=sa"}, opts: []urfave.Option{cfg, adapters.WithWorkDir(dir)}}.do(t, &observed{}, "login", "--show-config"))
	json.Unmarshal(w.Data, &shown)
	if shown.Effective["region"] != "sa" || shown.Sources["region"] != "env:APP_REGION" {
		t.Errorf("a flag from the environment: %+v", shown)
	}
	shown.Effective, shown.Sources = nil, nil
	w = wantOK(t, obsRun{env: []string{"APP_REGION=sa"}, opts: []urfave.Option{cfg, adapters.WithWorkDir(dir)}}.do(t, &observed{}, "login", "--no-config", "--show-config"))
	json.Unmarshal(w.Data, &shown)
	if shown.Effective["region"] != "sa" || shown.Sources["region"] != "env:APP_REGION" || slices.Contains(shown.Precedence, "file:"+project) {
		t.Errorf("--no-config keeps the environment and drops the files: %+v", shown)
	}
	for _, cmd := range []string{"where", "login", "ask"} {
		// --no-config is in every command's --help (O-016); a person's
		// lists --config with the rest of Duet's options under --help-all.
		r := obsRun{tty: adapters.Console, env: []string{"TERM=dumb"}, opts: []urfave.Option{cfg}}.do(t, &observed{}, cmd, "--help")
		if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "--no-config") || !strings.Contains(r.stdout+r.stderr, "--help-all") {
			t.Errorf("%s --help: exit %d, no --no-config or --help-all:\n%s%s", cmd, r.code, r.stdout, r.stderr)
		}
		r = obsRun{tty: adapters.Console, env: []string{"TERM=dumb"}, opts: []urfave.Option{cfg}}.do(t, &observed{}, cmd, "--help-all")
		if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "--no-config") || !strings.Contains(r.stdout+r.stderr, "--config string") {
			t.Errorf("%s --help-all: exit %d, no --no-config or --config:\n%s%s", cmd, r.code, r.stdout, r.stderr)
		}
	}
	w = do(&observed{}, "where", "--show-config")
	json.Unmarshal(w.Data, &shown)
	if shown.Effective["region"] != "eu" || shown.Sources["region"] != "file:"+project {
		t.Errorf("a setting from a file: %+v", shown)
	}
}

// TestNobodyToAsk: an interactive command runs only at a terminal
// (REPL_MODE_PROHIBITED, exit 4, before it runs); an editor needs one of
// its alternative flags where nobody is there; a question is answered at a
// terminal, by --yes, or refused with INPUT_REQUIRED (exit 4) naming the
// flag that answers it — never waited for.
func TestNobodyToAsk(t *testing.T) {
	person := adapters.Console
	dumb := []string{"TERM=dumb"}
	o := &observed{}
	w := wantError(t, obsRun{}.do(t, o, "repl"), 4, "REPL_MODE_PROHIBITED")
	if w.Error.Phase != "validation" || w.Error.Suggestion == "" || o.runs("repl") != 0 {
		t.Errorf("refused: %+v, runs %d", w.Error, o.runs("repl"))
	}
	if r := (obsRun{tty: person, env: dumb}).do(t, o, "repl"); r.code != 0 || o.runs("repl") != 1 {
		t.Errorf("at a terminal: exit %d, runs %d", r.code, o.runs("repl"))
	}
	if r := (obsRun{tty: person, env: dumb}).do(t, o, "repl", "--non-interactive"); r.code != 4 || o.runs("repl") != 1 {
		t.Errorf("--non-interactive at a terminal: exit %d, runs %d", r.code, o.runs("repl"))
	}
	// No command at all: the root's help, at once, asking nothing.
	root := &observed{}
	if w := wantOK(t, obsRun{stdin: "yes\n"}.do(t, root)); w.Meta["help"] != true || len(root.ran) != 0 {
		t.Errorf("no arguments: meta.help %v, ran %v", w.Meta["help"], root.ran)
	}

	w = wantError(t, obsRun{}.do(t, o, "commit"), 4, "EDITOR_REQUIRED")
	if !strings.Contains(w.Error.Suggestion, "--message <message>") || o.runs("commit") != 0 {
		t.Errorf("an editor with nobody there: %+v", w.Error)
	}
	wantAlts := []envelope.Alternative{{Flag: "--message", Description: "the commit message"}, {Flag: "--from-file", Description: "read the message from a file"}}
	if diff := cmp.Diff(wantAlts, w.Error.Alternatives); diff != "" {
		t.Errorf("error.alternatives (-want +got):\n%s", diff)
	}
	wantOK(t, obsRun{}.do(t, o, "commit", "--message", "fix typo"))
	if r := (obsRun{tty: person, env: dumb}).do(t, o, "commit"); r.code != 0 {
		t.Errorf("at a terminal the editor is the command's: exit %d", r.code)
	}

	o = &observed{}
	w = wantError(t, obsRun{}.do(t, o, "ask"), 4, "INPUT_REQUIRED")
	if w.Error.Field != "name" || !strings.Contains(w.Error.Suggestion, "--name") {
		t.Errorf("a question nobody can answer: %+v", w.Error)
	}
	w = wantError(t, obsRun{}.do(t, o, "ask", "--name", "bo"), 4, "INPUT_REQUIRED")
	if !strings.Contains(w.Error.Suggestion, "--yes") {
		t.Errorf("a confirmation nobody can give: %+v", w.Error)
	}
	w = wantOK(t, obsRun{}.do(t, o, "ask", "--name", "bo", "--yes"))
	if o.answer != "bo" || !o.confirm {
		t.Errorf("--yes: answer %q, confirmed %v", o.answer, o.confirm)
	}
	r := obsRun{tty: person, env: dumb, stdin: "alice\ny\n"}.do(t, o, "ask")
	if r.code != 0 || o.answer != "alice" || !o.confirm || !strings.Contains(r.stderr, "Your name: ") || !strings.Contains(r.stderr, "Save it? [y/N] ") {
		t.Errorf("at a terminal: exit %d, answer %q, confirmed %v, stderr %q", r.code, o.answer, o.confirm, r.stderr)
	}
	r = obsRun{tty: person, env: dumb, stdin: "alice\n"}.do(t, o, "ask", "--non-interactive")
	if r.code != 4 {
		t.Errorf("--non-interactive at a terminal: exit %d, want 4", r.code)
	}
	if _, err := adapters.Prompt(context.Background(), "x?", "x"); envelope.As(err).Code != "INPUT_REQUIRED" {
		t.Errorf("Prompt outside a run: %v", err)
	}

	for cmd, want := range map[string][]string{"ask": {"yes", "non-interactive"}, "repl": {"non-interactive"}, "commit": {"non-interactive"}} {
		doc := wantOK(t, obsRun{}.do(t, o, cmd, "--schema"))
		var d struct {
			Interactive bool                        `json:"interactive"`
			Flags       map[string]schema.FlagEntry `json:"flags"`
			Editor      bool                        `json:"requires_editor"`
			Alts        []string                    `json:"non_interactive_alternatives"`
		}
		json.Unmarshal(doc.Data, &d)
		for _, f := range want {
			if _, ok := d.Flags[f]; !ok || !d.Interactive {
				t.Errorf("%s --schema: interactive %v, flags lack --%s", cmd, d.Interactive, f)
			}
		}
		if cmd == "commit" && (!d.Editor || !slices.Equal(d.Alts, []string{"message", "from-file"})) {
			t.Errorf("commit --schema: requires_editor %v, alternatives %v", d.Editor, d.Alts)
		}
	}
}

// TestDeclarationsOfNobodyToAsk: what cannot work is refused when the app
// is wrapped.
func TestDeclarationsOfNobodyToAsk(t *testing.T) {
	tests := []struct {
		meta schema.Meta
		want string
	}{
		{schema.Meta{Editor: true}, "Meta.Editor needs Meta.Alternatives"},
		{schema.Meta{Editor: true, Alternatives: []string{"nope"}}, `"nope", which is not a flag`},
		{schema.Meta{GUI: []string{"browser_open"}}, "Meta.GUI needs Meta.Headless"},
		{schema.Meta{GUI: []string{"browser_open"}, Headless: "maybe"}, `"maybe" is not emit_in_output`},
		{schema.Meta{Headless: schema.SkipHeadless}, "without Meta.GUI"},
	}
	for _, tt := range tests {
		app := &cli.Command{Name: "app", Commands: []*cli.Command{urfave.Annotate(&cli.Command{Name: "x", Action: func(context.Context, *cli.Command) error { return nil }}, tt.meta)}}
		_, err := urfave.Wrap(app)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Wrap(%+v) = %v, want %q", tt.meta, err, tt.want)
		}
	}
}

// TestOpen: where there is no display, a command that would open a browser
// answers with data.open_url instead (emit_in_output), goes on with a
// warning (skip) or fails with exit 4 (error); with a display it opens;
// undeclared, it is the author's bug.
func TestOpen(t *testing.T) {
	var opened []string
	var mu sync.Mutex
	opener := adapters.WithOpener(func(target string) error {
		mu.Lock()
		defer mu.Unlock()
		opened = append(opened, target)
		return nil
	})
	w := wantOK(t, obsRun{opts: []urfave.Option{opener}}.do(t, &observed{}, "open"))
	if string(w.Data) != `{"open_url":"https://example.com/device?code=ABC","opened":false,"code":"ABC"}` || w.Meta["headless"] != true {
		t.Errorf("headless: data %s, meta.headless %v", w.Data, w.Meta["headless"])
	}
	w = wantOK(t, obsRun{opts: []urfave.Option{opener}}.do(t, &observed{}, "notify"))
	if string(w.Data) != "null" || len(w.Warnings) != 1 || w.Warnings[0].Code != "GUI_SKIPPED" {
		t.Errorf("skip: data %s, warnings %q", w.Data, w.Warnings)
	}
	wantError(t, obsRun{opts: []urfave.Option{opener}}.do(t, &observed{}, "preview"), 4, "NO_DISPLAY")
	wantError(t, obsRun{opts: []urfave.Option{opener}}.do(t, &observed{}, "sneaky"), 1, "INVALID_DECLARATION")
	if len(opened) != 0 {
		t.Errorf("opened %v without a display", opened)
	}
	display := obsRun{tty: adapters.Console, env: []string{"DISPLAY=:0", "TERM=dumb"}, opts: []urfave.Option{opener}}
	if r := display.do(t, &observed{}, "open"); r.code != 0 || !slices.Equal(opened, []string{"https://example.com/device?code=ABC"}) {
		t.Errorf("with a display: exit %d, opened %v", r.code, opened)
	}
	doc := wantOK(t, obsRun{}.do(t, &observed{}, "open", "--schema"))
	if !regexp.MustCompile(`"gui_operations":\["browser_open"\],"headless_behavior":"emit_in_output"`).Match(doc.Data) {
		t.Errorf("--schema: %s", doc.Data)
	}
}

// TestSignalExits: a cancelled command names the signal in error.context.signal,
// and every command lists 130 and 143 among its exit codes.
func TestSignalExits(t *testing.T) {
	h := newHarness(t)
	sigs := make(chan os.Signal, 1)
	wait := run{opts: []urfave.Option{adapters.WithSignals(sigs)}}.async(t, h, "wait")
	<-h.started
	sigs <- os.Interrupt
	w := wantError(t, wait(), 130, "CANCELLED")
	if got := w.Error.Signal(); got != "SIGINT" {
		t.Errorf("error.context.signal = %q, want SIGINT", got)
	}
	doc := wantOK(t, run{}.do(t, newHarness(t), "show", "--schema"))
	var d struct {
		ExitCodes map[string]map[string]any `json:"exit_codes"`
	}
	json.Unmarshal(doc.Data, &d)
	for _, code := range []string{"130", "143"} {
		if d.ExitCodes[code]["name"] != "CANCELLED" {
			t.Errorf("exit_codes[%s] = %v, want CANCELLED", code, d.ExitCodes[code])
		}
	}
}

// TestNonDestructiveConfirmation: a command that asks for confirmation and
// is not destructive, where nobody can be asked, is refused with
// INPUT_REQUIRED (exit 4) and a suggestion, and does not run.
func TestNonDestructiveConfirmation(t *testing.T) {
	h := newHarness(t)
	w := wantError(t, run{}.do(t, h, "reset"), 4, "INPUT_REQUIRED")
	if w.Error.Suggestion == "" || w.Error.Phase != "validation" || h.called("reset") != 0 {
		t.Errorf("%+v, runs %d", w.Error, h.called("reset"))
	}
}
