package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/feature/idempotency"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// runAgent runs root once as an agent would: stdout a pipe, CLAUDECODE set.
func runAgent(t *testing.T, root *cli.Command, args ...string) result {
	t.Helper()
	return runAgentIn(t, t.TempDir(), root, nil, args...)
}

// runAgentIn is runAgent with home as HOME and more options.
func runAgentIn(t *testing.T, home string, root *cli.Command, opts []urfave.Option, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	opts = append([]urfave.Option{
		adapters.WithStdio(strings.NewReader(""), &stdout, &stderr),
		adapters.WithEnv([]string{"CLAUDECODE=1", "HOME=" + home}), adapters.WithTerminal(adapters.Piped),
		adapters.WithRequestID(func() string { return "req-test" })}, opts...)
	code := urfave.Run(context.Background(), root, args, opts...)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// TestDangerLevelRequired: a ported command that declares no danger level
// fails Wrap, naming it (C-002); an app nobody ported still wraps and runs,
// its commands reported as of unknown danger; --schema gives every
// command's danger_level; a destructive command must implement --dry-run;
// a safe one runs without --idempotency-key and has no such flag.
func TestDangerLevelRequired(t *testing.T) {
	noop := func(context.Context, *cli.Command) error { return nil }
	undeclared := &cli.Command{Name: "sync", Action: noop}
	urfave.Annotate(undeclared, schema.Meta{Examples: []schema.Example{{Description: "sync", Command: "sync"}}})
	_, err := urfave.Wrap(&cli.Command{Name: "app", Commands: []*cli.Command{undeclared, {Name: "legacy", Action: noop}}})
	if err == nil || !strings.Contains(err.Error(), `"sync"`) || !strings.Contains(err.Error(), "Meta.Danger") || strings.Contains(err.Error(), `"legacy"`) {
		t.Errorf("Wrap of a declared command with no danger level: %v", err)
	}
	_, err = urfave.Wrap(&cli.Command{Name: "app", Commands: []*cli.Command{{Name: "wipe", Action: noop}}})
	if err != nil {
		t.Errorf("Wrap of an app nobody ported: %v", err)
	}

	newApp := func() *cli.Command {
		return &cli.Command{Name: "app", Commands: []*cli.Command{
			urfave.Annotate(&cli.Command{Name: "show", Action: noop}, schema.Meta{Danger: schema.Safe}),
			urfave.Annotate(&cli.Command{Name: "set", Action: func(ctx context.Context, _ *cli.Command) error {
				envelope.From(ctx).Effect(envelope.Updated)
				return nil
			}}, schema.Meta{Danger: schema.Mutating}),
			urfave.Annotate(&cli.Command{Name: "drop", Action: func(ctx context.Context, _ *cli.Command) error {
				envelope.From(ctx).Effect(envelope.Deleted)
				return nil
			}}, schema.Meta{Danger: schema.Destructive, DryRun: true}),
			{Name: "legacy", Action: noop},
		}}
	}
	for cmd, want := range map[string]string{"show": "safe", "set": "mutating", "drop": "destructive", "legacy": "unknown"} {
		w := wantOK(t, runAgent(t, newApp(), cmd, "--schema"))
		var s map[string]any
		json.Unmarshal(w.Data, &s)
		if s["danger_level"] != want {
			t.Errorf("%s --schema: danger_level %v, want %s", cmd, s["danger_level"], want)
		}
		_, hasKey := s["flags"].(map[string]any)[flagname.IdempotencyKey]
		if cmd == "show" && hasKey {
			t.Errorf("a safe command has --%s", flagname.IdempotencyKey)
		}
	}
	wantOK(t, runAgent(t, newApp(), "show"))
	w := wantOK(t, runAgent(t, newApp(), "drop", "--dry-run"))
	if w.Meta["effect"] != "would_delete" {
		t.Errorf("a destructive dry run: meta.effect %v", w.Meta["effect"])
	}
	_, err = urfave.Wrap(&cli.Command{Name: "app", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "drop", Action: noop}, schema.Meta{Danger: schema.Destructive}),
	}})
	if err == nil || !strings.Contains(err.Error(), "must implement --dry-run") {
		t.Errorf("a destructive command without a dry run: %v", err)
	}
}

// TestEffectReported: a mutating command's answer says what it did, as
// meta.effect, and which one it was (C-003); a safe command is asked
// nothing. One that succeeds without saying fails the call for an agent at
// run time, as C-003 asks of the framework, without hiding that it ran:
// exit 1 EFFECT_UNREPORTED, never retryable, error.context.completed, the
// command's data kept, the warning beside it; --warnings-as-errors changes
// nothing of that. Its idempotency key is recorded all the same, so the
// same key again replays with effect noop instead of acting twice. A
// person's run keeps the app's ways: it is not checked.
func TestEffectReported(t *testing.T) {
	ran := map[string]int{}
	newApp := func() *cli.Command {
		mutating := func(name string, effect envelope.Effect) *cli.Command {
			return urfave.Annotate(&cli.Command{Name: name, Action: func(ctx context.Context, _ *cli.Command) error {
				ran[name]++
				if effect != "" {
					envelope.From(ctx).Effect(effect)
				}
				return envelope.From(ctx).Result(map[string]string{"name": name})
			}}, schema.Meta{Danger: schema.Mutating})
		}
		return &cli.Command{Name: "app", Commands: []*cli.Command{
			mutating("create", envelope.Created), mutating("update", envelope.Updated),
			mutating("same", envelope.Noop), mutating("silent", ""),
			urfave.Annotate(&cli.Command{Name: "show", Action: func(context.Context, *cli.Command) error { return nil }}, schema.Meta{Danger: schema.Safe}),
		}}
	}
	for cmd, want := range map[string]string{"create": "created", "update": "updated", "same": "noop"} {
		w := wantOK(t, runAgent(t, newApp(), cmd))
		if w.Meta["effect"] != want || len(w.Warnings) != 0 {
			t.Errorf("%s: meta.effect %v, warnings %q; want %s and none", cmd, w.Meta["effect"], w.Warnings, want)
		}
	}
	for _, args := range [][]string{{"silent"}, {"silent", "--warnings-as-errors"}} {
		w := wantError(t, runAgent(t, newApp(), args...), 1, adapters.EffectUnreported)
		if w.Error.Retryable || w.Error.Context["completed"] != true || !strings.Contains(w.Error.Message, "may have changed state") {
			t.Errorf("%v: error %+v; want it not retryable, context.completed true, and a message that says the change may have happened", args, w.Error)
		}
		if string(w.Data) != `{"name":"silent"}` {
			t.Errorf("%v: data %s, want the command's own answer kept", args, w.Data)
		}
		if len(w.Warnings) != 1 || w.Warnings[0].Code != adapters.EffectUnreported {
			t.Errorf("%v: warnings %q, want EFFECT_UNREPORTED", args, w.Warnings)
		}
	}

	home := t.TempDir()
	before := ran["silent"]
	wantError(t, runAgentIn(t, home, newApp(), []urfave.Option{adapters.WithFeatures(idempotency.New())}, "silent", "--idempotency-key", "k1"), 1, adapters.EffectUnreported)
	w := wantOK(t, runAgentIn(t, home, newApp(), []urfave.Option{adapters.WithFeatures(idempotency.New())}, "silent", "--idempotency-key", "k1"))
	if ran["silent"] != before+1 || w.Meta["idempotency_hit"] != true || w.Meta["effect"] != "noop" {
		t.Errorf("the same key again: ran %d times, meta %v; want once, and a replay with effect noop", ran["silent"]-before, w.Meta)
	}

	var stdout, stderr bytes.Buffer
	code := urfave.Run(context.Background(), newApp(), []string{"silent"}, run{tty: adapters.Console, env: []string{"TERM=dumb"}}.options(&stdout, &stderr)...)
	if code != 0 || strings.Contains(stdout.String()+stderr.String(), "EFFECT_UNREPORTED") {
		t.Errorf("a person: exit %d, stderr %q; want 0, and the app's ways kept", code, stderr.String())
	}
	if w := wantOK(t, runAgent(t, newApp(), "show")); len(w.Warnings) != 0 {
		t.Errorf("a safe command: warnings %q", w.Warnings)
	}
}

// TestNoInjectionProtectionAudited: --no-injection-protection is recorded
// in the audit log, the flag among the entry's args and its warning among
// its warnings; a run without it records neither (O-023).
func TestNoInjectionProtectionAudited(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log := []urfave.Option{adapters.WithAuditLog(path)}
	r, _ := trustRun(t, nil, log, "read", "--no-injection-protection")
	wantOK(t, r)
	r, _ = trustRun(t, nil, log, "read")
	wantOK(t, r)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d audit entries, want 2:\n%s", len(lines), raw)
	}
	var off, on adapters.AuditEntry
	json.Unmarshal([]byte(lines[0]), &off)
	json.Unmarshal([]byte(lines[1]), &on)
	if off.Args["no-injection-protection"] != true || !slices.Contains(off.Warnings, "INJECTION_PROTECTION_DISABLED") {
		t.Errorf("the entry of a run with --no-injection-protection: args %v, warnings %v", off.Args, off.Warnings)
	}
	if _, ok := on.Args["no-injection-protection"]; ok || slices.Contains(on.Warnings, "INJECTION_PROTECTION_DISABLED") {
		t.Errorf("the entry of a protected run: args %v, warnings %v", on.Args, on.Warnings)
	}
}

// TestAuditLogRedactsData: the audit log records the answer's data with
// every field whose name looks secret redacted, in any case and at any
// depth, and the arguments of secret flags redacted; the answer on stdout
// and what the command saw are not redacted (F-034).
func TestAuditLogRedactsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	var seen string
	login := urfave.Annotate(&cli.Command{Name: "login", Flags: []cli.Flag{&cli.StringFlag{Name: "api-token"}, &cli.StringFlag{Name: "user"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			seen = c.String("api-token")
			envelope.From(ctx).Effect(envelope.Created)
			return envelope.From(ctx).Result(map[string]any{
				"user": c.String("user"), "Password": "hunter2",
				"session": map[string]any{"API_KEY": "k-123", "note": "made with " + seen},
				"items":   []any{map[string]any{"secret": "s-1", "name": "n"}},
			})
		}}, schema.Meta{Danger: schema.Mutating})
	r := runAgentIn(t, t.TempDir(), &cli.Command{Name: "app", Commands: []*cli.Command{login}}, []urfave.Option{adapters.WithAuditLog(path)},
		"login", "--api-token", "abc123", "--user", "alice")
	w := wantOK(t, r)
	if seen != "abc123" || !strings.Contains(string(w.Data), `"Password":"hunter2"`) || !strings.Contains(string(w.Data), "abc123") {
		t.Errorf("redaction reached the command or its answer: saw %q, data %s", seen, w.Data)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"abc123", "hunter2", "k-123", "s-1"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("the audit log holds %q:\n%s", secret, raw)
		}
	}
	var e struct {
		Args map[string]any `json:"args"`
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"user": "alice", "Password": envelope.Redacted,
		"session": map[string]any{"API_KEY": envelope.Redacted, "note": "made with " + envelope.Redacted},
		"items":   []any{map[string]any{"secret": envelope.Redacted, "name": "n"}},
	}
	if diff := cmp.Diff(want, e.Data); diff != "" {
		t.Errorf("audit log data (-want +got):\n%s", diff)
	}
	if e.Args["api-token"] != envelope.Redacted || e.Args["user"] != "alice" {
		t.Errorf("audit log args %v", e.Args)
	}
}

// TestAuditLogDataAsIs: data with nothing that looks secret is logged as
// the command encoded it; a secret flag's value is removed from it even
// where encoding changes how the value reads.
func TestAuditLogDataAsIs(t *testing.T) {
	for _, tc := range []struct {
		name, token, want string
	}{
		{"nothing secret", "abc123", `{"user":"alice","note":"plain"}`},
		{"secret in it", "abc123", `{"note":"made with [REDACTED]","user":"alice"}`},
		{"secret escaped", "a<b>&\"c", `{"note":"made with [REDACTED]","user":"alice"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			login := urfave.Annotate(&cli.Command{Name: "login", Flags: []cli.Flag{&cli.StringFlag{Name: "api-token"}},
				Action: func(ctx context.Context, c *cli.Command) error {
					note := "plain"
					if tc.name != "nothing secret" {
						note = "made with " + c.String("api-token")
					}
					return envelope.From(ctx).Result(struct {
						User string `json:"user"`
						Note string `json:"note"`
					}{"alice", note})
				}}, schema.Meta{Danger: schema.Safe})
			wantOK(t, runAgentIn(t, t.TempDir(), &cli.Command{Name: "app", Commands: []*cli.Command{login}},
				[]urfave.Option{adapters.WithAuditLog(path)}, "login", "--api-token", tc.token))
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var e struct{ Data json.RawMessage }
			if err := json.Unmarshal(raw, &e); err != nil {
				t.Fatal(err)
			}
			if string(e.Data) != tc.want {
				t.Errorf("audit log data %s, want %s", e.Data, tc.want)
			}
		})
	}
}

// TestContextFlag: --context staging uses the context of that name from
// the loaded configuration — the saved profile — and says so in
// meta.context; --config reads only the file it names, and invocations
// that run at once with different --config files each see their own
// (O-024).
func TestContextFlag(t *testing.T) {
	home := t.TempDir()
	newApp := func() *cli.Command {
		call := &cli.Command{Name: "call", Flags: []cli.Flag{&cli.StringFlag{Name: "region"}},
			Action: func(ctx context.Context, c *cli.Command) error {
				return envelope.From(ctx).Result(map[string]string{"region": c.String("region")})
			}}
		urfave.Annotate(call, schema.Meta{Danger: schema.Safe, Flags: map[string]schema.FlagMeta{"region": {Profile: true}}})
		return &cli.Command{Name: "app", Commands: []*cli.Command{call}}
	}
	run := func(args ...string) wire {
		t.Helper()
		return wantOK(t, runAgentIn(t, home, newApp(), nil, args...))
	}
	run("profile", "save", "staging", "--region", "eu-staging")
	run("profile", "save", "prod", "--region", "us-prod")
	for name, region := range map[string]string{"staging": "eu-staging", "prod": "us-prod"} {
		w := run("call", "--context", name)
		var data map[string]string
		json.Unmarshal(w.Data, &data)
		if data["region"] != region || w.Meta["context"] != name {
			t.Errorf("--context %s: region %q, meta.context %v", name, data["region"], w.Meta["context"])
		}
	}
	wantError(t, runAgentIn(t, home, newApp(), nil, "call", "--context", "nope"), 2, "PROFILE_NOT_FOUND")

	dir := t.TempDir()
	files := map[string]string{filepath.Join(dir, "a.json"): "region-a", filepath.Join(dir, "b.json"): "region-b"}
	for f, region := range files {
		run("profile", "save", "staging", "--region", region, "--config", f)
	}
	type answer struct{ file, region string }
	answers := make(chan answer, 20)
	for i := range 20 {
		f := filepath.Join(dir, "a.json")
		if i%2 == 1 {
			f = filepath.Join(dir, "b.json")
		}
		go func() {
			var stdout, stderr bytes.Buffer
			urfave.Run(context.Background(), newApp(), []string{"call", "--config", f, "--context", "staging"},
				adapters.WithStdio(strings.NewReader(""), &stdout, &stderr),
				adapters.WithEnv([]string{"CLAUDECODE=1", "HOME=" + home}), adapters.WithTerminal(adapters.Piped))
			var env struct {
				Data map[string]string `json:"data"`
			}
			json.Unmarshal(stdout.Bytes(), &env)
			answers <- answer{f, env.Data["region"]}
		}()
	}
	for range 20 {
		a := <-answers
		if a.region != files[a.file] {
			t.Errorf("--config %s --context staging: region %q, want %q", a.file, a.region, files[a.file])
		}
	}
	if w := run("call", "--context", "staging"); !strings.Contains(string(w.Data), "eu-staging") {
		t.Errorf("the default file changed: %s", w.Data)
	}
}

// TestSharedNamespaceWritesLocked: without --instance-id, invocations that
// save configuration at once all succeed, one after another under the
// profiles' lock, and every write is kept (O-036).
func TestSharedNamespaceWritesLocked(t *testing.T) {
	home := t.TempDir()
	newApp := func() *cli.Command {
		call := &cli.Command{Name: "call", Flags: []cli.Flag{&cli.StringFlag{Name: "region"}},
			Action: func(context.Context, *cli.Command) error { return nil }}
		urfave.Annotate(call, schema.Meta{Danger: schema.Safe, Flags: map[string]schema.FlagMeta{"region": {Profile: true}}})
		return &cli.Command{Name: "app", Commands: []*cli.Command{call}}
	}
	const n = 12
	codes := make(chan int, n)
	for i := range n {
		go func() {
			var stdout, stderr bytes.Buffer
			codes <- urfave.Run(context.Background(), newApp(), []string{"profile", "save", fmt.Sprintf("p%d", i), "--region", fmt.Sprintf("r%d", i)},
				adapters.WithStdio(strings.NewReader(""), &stdout, &stderr),
				adapters.WithEnv([]string{"CLAUDECODE=1", "HOME=" + home}), adapters.WithTerminal(adapters.Piped))
		}()
	}
	for range n {
		if code := <-codes; code != 0 {
			t.Errorf("a concurrent save exited %d", code)
		}
	}
	raw, err := os.ReadFile(filepath.Join(home, ".config", "app", "profiles.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if !strings.Contains(string(raw), fmt.Sprintf(`"r%d"`, i)) {
			t.Errorf("the save of p%d was lost:\n%s", i, raw)
		}
	}
}

// TestConfigFileScope: a config-writing command is told to write the
// project's file, .<tool>-config in its working directory, unless --global
// (or its declared scope) makes it the user's config.json in the tool's
// state directory, which also warns GLOBAL_CONFIG_MODIFIED; --instance-id
// keeps that apart per instance; a command that writes no configuration is
// told no file (C-025, O-036).
func TestConfigFileScope(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	tests := []struct {
		args   []string
		want   string
		global bool
	}{
		{[]string{"config-set"}, filepath.Join(project, ".app-config"), false},
		{[]string{"config-set", "--global"}, filepath.Join(home, ".config", "app", "config.json"), true},
		{[]string{"global-set", "--global"}, filepath.Join(home, ".config", "app", "config.json"), true},
		{[]string{"config-set", "--global", "--instance-id", "agent-1"}, filepath.Join(home, ".config", "app", "instances", "agent-1", "config.json"), true},
		{[]string{"config-set", "--global", "--instance-id", "agent-2"}, filepath.Join(home, ".config", "app", "instances", "agent-2", "config.json"), true},
	}
	for _, tt := range tests {
		r, h := trustRun(t, []string{"HOME=" + home}, []urfave.Option{adapters.WithWorkDir(project)}, tt.args...)
		w := wantOK(t, r)
		warned := w.warned("GLOBAL_CONFIG_MODIFIED")
		if h.env.ConfigFile != tt.want || warned != tt.global {
			t.Errorf("%v: ConfigFile %q, GLOBAL_CONFIG_MODIFIED %v; want %q, %v", tt.args, h.env.ConfigFile, warned, tt.want, tt.global)
		}
	}
}

// TestEnvNamespace: the tool's settings are read only under its prefix —
// DEBUG=1 changes nothing, APP_DEBUG=1 is --debug (F-073).
func TestEnvNamespace(t *testing.T) {
	newApp := func() *cli.Command {
		return &cli.Command{Name: "app", Commands: []*cli.Command{
			urfave.Annotate(&cli.Command{Name: "show", Flags: []cli.Flag{&cli.StringFlag{Name: "region", Sources: cli.EnvVars("APP_REGION")}},
				Action: func(context.Context, *cli.Command) error { return nil }}, schema.Meta{Danger: schema.Safe}),
		}}
	}
	run := func(env ...string) result {
		t.Helper()
		home := t.TempDir()
		return runAgentIn(t, home, newApp(), []urfave.Option{adapters.WithEnv(append([]string{"CLAUDECODE=1", "HOME=" + home}, env...))}, "show")
	}
	if r := run("DEBUG=1"); r.stderr != "" {
		t.Errorf("DEBUG=1 changed the tool's stderr:\n%s", r.stderr)
	}
	if r := run("APP_DEBUG=1"); !strings.Contains(r.stderr, `"msg":"invocation"`) {
		t.Errorf("APP_DEBUG=1 gave no debug trace:\n%s", r.stderr)
	}
}
