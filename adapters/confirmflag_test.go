package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/feature/idempotency"
	"github.com/duet-cli/duet/schema"
)

// confirmApp has a mutating command confirmed by its own --yes, a
// destructive one confirmed by --confirm-destructive (O-021), and an idempotent one;
// applied counts the runs that acted.
func confirmApp(applied *atomic.Int32) *cli.Command {
	act := func(ctx context.Context, _ *cli.Command) error {
		out := envelope.From(ctx)
		out.Effect(envelope.Updated)
		if out.DryRun() {
			out.WouldAffect(map[string]any{"migrations": 2})
			return out.Result(map[string]int{"pending": 2})
		}
		applied.Add(1)
		return out.Result(map[string]int{"applied": 2})
	}
	migrate := urfave.Annotate(&cli.Command{Name: "migrate", Usage: "Apply migrations",
		Flags:  []cli.Flag{&cli.BoolFlag{Name: "yes", Usage: "apply them; omit to preview"}},
		Action: act}, schema.Meta{Danger: schema.Mutating, DryRun: true, ConfirmFlag: "yes", NoArgs: true})
	wipe := urfave.Annotate(&cli.Command{Name: "wipe", Usage: "Wipe the store", Action: act},
		schema.Meta{Danger: schema.Destructive, DryRun: true, ConfirmFlag: "confirm-destructive", NoArgs: true})
	sync := urfave.Annotate(&cli.Command{Name: "sync", Usage: "Rewrite the snapshot", Action: act},
		schema.Meta{Danger: schema.Mutating, Idempotent: true, NoArgs: true})
	return &cli.Command{Name: "app", Usage: "a confirm-flag test app",
		Commands: []*cli.Command{migrate, wipe, sync}}
}

func confirmRun(t *testing.T, args ...string) (result, int32) {
	t.Helper()
	var applied atomic.Int32
	var stdout, stderr bytes.Buffer
	home := t.TempDir() // where the idempotency store lives
	code := urfave.Run(context.Background(), confirmApp(&applied), args,
		adapters.WithSpecStrict(), adapters.WithFeatures(idempotency.New()),
		adapters.WithStdio(strings.NewReader(""), &stdout, &stderr),
		adapters.WithEnv([]string{"PATH=" + t.TempDir(), "HOME=" + home, "XDG_STATE_HOME=" + home, "XDG_DATA_HOME=" + home, "XDG_CACHE_HOME=" + home, "XDG_CONFIG_HOME=" + home}),
		adapters.WithTerminal(adapters.Piped),
		adapters.WithRequestID(func() string { return "req-test" }))
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}, applied.Load()
}

// TestConfirmFlag holds REQ-O-048's confirm_flag: without the flag the
// command previews, with it it runs confirmed, and --dry-run wins.
func TestConfirmFlag(t *testing.T) {
	type got struct {
		Applied   int32
		DryRun    any
		Confirmed any
		Effect    any
	}
	for _, tc := range []struct {
		args []string
		want got
	}{
		{[]string{"migrate"}, got{0, true, nil, "would_update"}},
		{[]string{"migrate", "--yes"}, got{1, false, true, "updated"}},
		{[]string{"migrate", "--yes", "--dry-run"}, got{0, true, nil, "would_update"}},
		{[]string{"migrate", "--dry-run"}, got{0, true, nil, "would_update"}},
		// A destructive command previews without asking, and its root
		// flag confirms it.
		{[]string{"wipe"}, got{0, true, nil, "would_update"}},
		{[]string{"wipe", "--confirm-destructive"}, got{1, false, true, "updated"}},
		{[]string{"wipe", "--confirm-destructive", "--dry-run"}, got{0, true, nil, "would_update"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r, applied := confirmRun(t, tc.args...)
			w := wantOK(t, r)
			g := got{applied, w.Meta["dry_run"], w.Meta["confirmed"], w.Meta["effect"]}
			if d := cmp.Diff(tc.want, g); d != "" {
				t.Errorf("(-want +got):\n%s\n%s", d, r.stdout)
			}
		})
	}
}

// TestConfirmFlagAndIdempotentDeclared holds the manifest's confirm_flag
// (REQ-O-048) and idempotent (REQ-C-002): in --schema and describe, and an
// idempotent mutating command still takes --idempotency-key.
func TestConfirmFlagAndIdempotentDeclared(t *testing.T) {
	docOf := func(cmd string) map[string]any {
		t.Helper()
		r, _ := confirmRun(t, cmd, "--schema")
		w := wantOK(t, r)
		var doc map[string]any
		if err := json.Unmarshal(w.Data, &doc); err != nil {
			t.Fatalf("%s --schema: %v\n%s", cmd, err, r.stdout)
		}
		return doc
	}
	for cmd, want := range map[string][2]any{
		"migrate": {"yes", nil},
		"wipe":    {"confirm-destructive", nil},
		"sync":    {nil, true},
	} {
		doc := docOf(cmd)
		if got := [2]any{doc["confirm_flag"], doc["idempotent"]}; got != want {
			t.Errorf("%s --schema: confirm_flag, idempotent = %v, want %v", cmd, got, want)
		}
	}
	if !hasParam(docOf("sync"), "idempotency-key") {
		t.Error("an idempotent mutating command lost --idempotency-key")
	}
	r, applied := confirmRun(t, "sync", "--idempotency-key", "k1")
	if wantOK(t, r); applied != 1 {
		t.Errorf("sync --idempotency-key k1 ran %d times", applied)
	}

	r, _ = confirmRun(t, "manifest")
	w := wantOK(t, r)
	var m struct {
		Commands map[string]map[string]any `json:"commands"`
	}
	if err := json.Unmarshal(w.Data, &m); err != nil {
		t.Fatalf("manifest: %v\n%s", err, r.stdout)
	}
	for cmd, want := range map[string][2]any{"migrate": {"yes", nil}, "wipe": {"confirm-destructive", nil}, "sync": {nil, true}} {
		c := m.Commands[cmd]
		if got := [2]any{c["confirm_flag"], c["idempotent"]}; got != want {
			t.Errorf("manifest %s: confirm_flag, idempotent = %v, want %v", cmd, got, want)
		}
	}
}

// TestConfirmFlagRefused holds REQ-O-048's registration errors.
func TestConfirmFlagRefused(t *testing.T) {
	noop := func(context.Context, *cli.Command) error { return nil }
	yes := []cli.Flag{&cli.BoolFlag{Name: "yes"}}
	for name, tc := range map[string]struct {
		flags []cli.Flag
		meta  schema.Meta
		want  string
	}{
		"safe":                                   {yes, schema.Meta{Danger: schema.Safe, ConfirmFlag: "yes"}, "a safe command"},
		"safe default":                           {yes, schema.Meta{Danger: schema.Destructive, DryRun: true, SafeDefault: true, ConfirmFlag: "yes"}, "SafeDefault"},
		"no dry run":                             {yes, schema.Meta{Danger: schema.Mutating, ConfirmFlag: "yes"}, "declare Meta.DryRun"},
		"destructive confirmed by its own --yes": {yes, schema.Meta{Danger: schema.Destructive, DryRun: true, ConfirmFlag: "yes"}, "confirmed by --confirm-destructive"},
		"no such flag":                           {nil, schema.Meta{Danger: schema.Mutating, DryRun: true, ConfirmFlag: "apply"}, `"apply" names no boolean flag`},
		"not boolean":                            {[]cli.Flag{&cli.StringFlag{Name: "apply"}}, schema.Meta{Danger: schema.Mutating, DryRun: true, ConfirmFlag: "apply"}, `"apply" names no boolean flag`},
	} {
		t.Run(name, func(t *testing.T) {
			app := &cli.Command{Name: "app", Commands: []*cli.Command{
				urfave.Annotate(&cli.Command{Name: "x", Flags: tc.flags, Action: noop}, tc.meta)}}
			if _, err := urfave.Wrap(app); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Wrap: %v, want an error containing %q", err, tc.want)
			}
		})
	}
	// A command Duet passes through cannot preview.
	c := &schema.Command{Name: "x", Runnable: true, Passthrough: true, Meta: schema.Meta{Danger: schema.Mutating, DryRun: true, ConfirmFlag: "yes"},
		Flags: []schema.Flag{{Name: "yes", Type: schema.Boolean}}}
	root := &schema.Command{Name: "app", Commands: []*schema.Command{c}}
	if err := adapters.Prepare(root); err == nil || !strings.Contains(err.Error(), "passthrough") {
		t.Errorf("Prepare of a passthrough confirm-flag command: %v, want a registration error", err)
	}
}
