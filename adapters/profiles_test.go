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

// secretApp has a sensitive profileable flag bound to an environment
// variable, and a plain one.
func secretApp() *cli.Command {
	call := &cli.Command{Name: "call", Flags: []cli.Flag{&cli.StringFlag{Name: "token"}, &cli.StringFlag{Name: "region"}},
		Action: func(context.Context, *cli.Command) error { return nil }}
	urfave.Annotate(call, schema.Meta{Danger: schema.Safe, Flags: map[string]schema.FlagMeta{
		"token":  {Sensitive: true, Profile: true, Env: []string{"APP_TOKEN"}},
		"region": {Profile: true},
	}})
	return &cli.Command{Name: "app", Commands: []*cli.Command{call}}
}

// TestSensitiveFlagsAndProfiles checks that a sensitive flag is never saved
// in a profile (the refusal says what to do instead, and nothing is written)
// and that --show-config redacts it wherever its value comes from.
func TestSensitiveFlagsAndProfiles(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home, "APP_TOKEN=s3cr3t-value"}
	path := filepath.Join(home, ".config", "app", "profiles.json")
	runApp := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := urfave.Run(context.Background(), secretApp(), args,
			adapters.WithStdio(strings.NewReader(""), &stdout, &stderr), adapters.WithEnv(env), adapters.WithTerminal(adapters.Piped), adapters.WithSpecStrict())
		return code, stdout.String() + stderr.String()
	}

	code, out := runApp("profile", "save", "p", "--token", "abc", "--region", "eu")
	if code != 2 || !strings.Contains(out, `"SENSITIVE_FLAG"`) || !strings.Contains(out, "environment variable") {
		t.Errorf("saving a sensitive flag: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a refused save wrote %s (%v)", path, err)
	}
	if code, out := runApp("profile", "save", "p", "--region", "eu"); code != 0 {
		t.Fatalf("save: exit %d\n%s", code, out)
	}

	code, out = runApp("call", "--show-config", "--profile", "p")
	if code != 0 || strings.Contains(out, "s3cr3t") {
		t.Fatalf("--show-config: exit %d, the secret shows or it failed:\n%s", code, out)
	}
	var answer struct {
		Data struct {
			Flags []map[string]any `json:"flags"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(out[:strings.IndexByte(out, '\n')]), &answer); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := []map[string]any{
		{"flag": "region", "value": "eu", "source": "profile:p"},
		{"flag": "token", "value": "[REDACTED]", "source": "env:APP_TOKEN"},
	}
	if diff := cmp.Diff(want, answer.Data.Flags); diff != "" {
		t.Errorf("--show-config (-want +got):\n%s", diff)
	}
}

// TestConfigFlagIsolatesFromProfiles: in an app with configuration files
// and saved profiles, --config reads that file only (O-024): the default
// profile, or one $APP_PROFILE names, is not applied from the profiles'
// file; a context the caller names with --context still is.
func TestConfigFlagIsolatesFromProfiles(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	isolated := filepath.Join(dir, "isolated.json")
	if err := os.WriteFile(isolated, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	newApp := func() *cli.Command {
		call := &cli.Command{Name: "call", Flags: []cli.Flag{&cli.StringFlag{Name: "region"}},
			Action: func(ctx context.Context, c *cli.Command) error {
				return envelope.From(ctx).Result(map[string]string{"region": c.String("region")})
			}}
		urfave.Annotate(call, schema.Meta{Danger: schema.Safe, Flags: map[string]schema.FlagMeta{"region": {Profile: true}}})
		return &cli.Command{Name: "app", Commands: []*cli.Command{call}}
	}
	cfg := []urfave.Option{adapters.WithConfig(adapters.Config{Files: func(adapters.ConfigQuery) []string { return nil }})}
	run := func(env []string, args ...string) wire {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := urfave.Run(context.Background(), newApp(), args, append([]urfave.Option{
			adapters.WithStdio(strings.NewReader(""), &stdout, &stderr),
			adapters.WithEnv(append([]string{"CLAUDECODE=1", "HOME=" + home}, env...)), adapters.WithTerminal(adapters.Piped)}, cfg...)...)
		return wantOK(t, result{code: code, stdout: stdout.String(), stderr: stderr.String()})
	}
	run(nil, "profile", "save", "staging", "--region", "eu-staging")
	run(nil, "profile", "use", "staging")
	profiles := filepath.Join(home, ".config", "app", "profiles.json")
	tests := []struct {
		env     []string
		args    []string
		region  string
		sources []any
	}{
		{nil, []string{"call"}, "eu-staging", []any{profiles}},
		{nil, []string{"call", "--config", isolated}, "", []any{isolated}},
		{[]string{"APP_PROFILE=staging"}, []string{"call", "--config", isolated}, "", []any{isolated}},
		{nil, []string{"call", "--config", isolated, "--context", "staging"}, "eu-staging", []any{profiles, isolated}},
	}
	for _, tt := range tests {
		w := run(tt.env, tt.args...)
		var data map[string]string
		json.Unmarshal(w.Data, &data)
		if data["region"] != tt.region {
			t.Errorf("%q %q: region %q, want %q", tt.env, tt.args, data["region"], tt.region)
		}
		if diff := cmp.Diff(tt.sources, w.Meta["config_sources"]); diff != "" {
			t.Errorf("%q %q: config_sources (-want +got):\n%s", tt.env, tt.args, diff)
		}
	}
}
