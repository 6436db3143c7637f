package config_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/examples/meridian/internal/config"
	"github.com/duet-cli/duet/internal/golden"
)

func TestScaffoldGolden(t *testing.T) {
	golden.Assert(t, "scaffold.toml", config.Scaffold())
}

// settingLine is a commented-out section header or key = value line of the
// scaffold: what a user uncomments.
var settingLine = regexp.MustCompile(`^# (\[[a-z_]+\]|[a-z_]+ = .*)$`)

// uncomment does what a user does to every setting of the scaffold, and
// fails on a line that is neither a setting, a header comment nor blank, so
// that a description cannot hide on a line of its own.
func uncomment(t *testing.T, scaffold []byte) (doc string, keys []string) {
	t.Helper()
	var out []string
	section := ""
	inHeader := true
	for _, line := range strings.Split(strings.TrimSuffix(string(scaffold), "\n"), "\n") {
		switch m := settingLine.FindStringSubmatch(line); {
		case m != nil:
			inHeader = false
			setting := m[1]
			if strings.HasPrefix(setting, "[") {
				section = strings.Trim(setting, "[]")
			} else {
				keys = append(keys, section+"."+strings.Fields(setting)[0])
			}
			out = append(out, setting)
		case line == "":
			inHeader = false
			out = append(out, line)
		case inHeader && strings.HasPrefix(line, "# "):
			// The header: not a setting, stays a comment.
			out = append(out, line)
		default:
			t.Fatalf("scaffold line %q is neither a setting, a header comment nor blank", line)
		}
	}
	return strings.Join(out, "\n") + "\n", keys
}

func TestScaffoldIsTheDefaults(t *testing.T) {
	scaffold := config.Scaffold()
	if !strings.HasPrefix(string(scaffold), "# Meridian configuration\n# Uncomment and modify options to override defaults.\n") {
		t.Errorf("the scaffold does not start with the seed's header:\n%s", scaffold)
	}

	// As written, the scaffold sets nothing.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, config.FileName), scaffold, 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := config.Load(dir, "")
	if err != nil {
		t.Fatalf("Load(scaffold) = %v", err)
	}
	for _, s := range loaded.Settings() {
		if s.Source != config.SourceBuiltin {
			t.Errorf("the commented scaffold sets %s (source %q)", s.Key, s.Source)
		}
	}

	// Uncommented, it sets every key, to its default.
	doc, scaffoldKeys := uncomment(t, scaffold)
	path := filepath.Join(dir, config.FileName)
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err = config.Load(dir, "")
	if err != nil {
		t.Fatalf("Load(uncommented scaffold) = %v\n%s", err, doc)
	}
	if diff := cmp.Diff(config.Default(), loaded.Config); diff != "" {
		t.Errorf("uncommented scaffold != defaults (-want +got):\n%s", diff)
	}
	var settingKeys []string
	for _, s := range loaded.Settings() {
		settingKeys = append(settingKeys, s.Key)
		if s.Source != path {
			t.Errorf("%s: source %q, want the uncommented scaffold %s", s.Key, s.Source, path)
		}
	}
	if diff := cmp.Diff(settingKeys, scaffoldKeys); diff != "" {
		t.Errorf("keys of Settings() (-) and of the scaffold (+) differ:\n%s", diff)
	}
}

func TestLoadLayers(t *testing.T) {
	const base = `
[start]
auto_resume = false

[harness]
default = "codex"
codex = "/opt/codex/bin/codex"

[timeouts]
run = "1h30m"
`
	const override = `
harness.default = "gemini"
defaults = { model = "opus", agent = "reviewer" }

[timeouts]
wait = "45s"
kill_grace = "0s"
`
	// full sets every key to something other than its default, so that a
	// key Load forgot to copy shows.
	const full = `
[start]
auto_resume = false
[harness]
default = "opencode"
claude = "my-claude"
codex = "my-codex"
opencode = "my-opencode"
gemini = "my gemini"
[defaults]
model = "gpt52h"
agent = "coder"
[timeouts]
run = "2h"
wait = "1m"
kill_grace = "500ms"
`
	tests := []struct {
		name           string
		base, override string // "" = no such file
		want           config.Config
		// sources of the keys not built in: "base" or "override".
		sources map[string]string
		// values of Settings() that differ from the defaults'.
		values map[string]any
	}{
		{
			name: "defaults only",
			want: config.Default(),
		},
		{
			name: "base",
			base: base,
			want: func() config.Config {
				c := config.Default()
				c.Start.AutoResume = false
				c.Harness.Default = "codex"
				c.Harness.Codex = "/opt/codex/bin/codex"
				c.Timeouts.Run = 90 * time.Minute
				return c
			}(),
			sources: map[string]string{"start.auto_resume": "base", "harness.default": "base", "harness.codex": "base", "timeouts.run": "base"},
			values:  map[string]any{"start.auto_resume": false, "harness.default": "codex", "harness.codex": "/opt/codex/bin/codex", "timeouts.run": "1h30m"},
		},
		{
			name:     "override wins over base",
			base:     base,
			override: override,
			want: func() config.Config {
				c := config.Default()
				c.Start.AutoResume = false
				c.Harness.Default = "gemini"
				c.Harness.Codex = "/opt/codex/bin/codex"
				c.Defaults = config.Defaults{Model: "opus", Agent: "reviewer"}
				c.Timeouts = config.Timeouts{Run: 90 * time.Minute, Wait: 45 * time.Second, KillGrace: 0}
				return c
			}(),
			sources: map[string]string{
				"start.auto_resume": "base", "harness.default": "override", "harness.codex": "base",
				"defaults.model": "override", "defaults.agent": "override",
				"timeouts.run": "base", "timeouts.wait": "override", "timeouts.kill_grace": "override",
			},
			values: map[string]any{
				"start.auto_resume": false, "harness.default": "gemini", "harness.codex": "/opt/codex/bin/codex",
				"defaults.model": "opus", "defaults.agent": "reviewer",
				"timeouts.run": "1h30m", "timeouts.wait": "45s", "timeouts.kill_grace": "0s",
			},
		},
		{
			name:     "override without base",
			override: "[start]\nauto_resume = false\n",
			want: func() config.Config {
				c := config.Default()
				c.Start.AutoResume = false
				return c
			}(),
			sources: map[string]string{"start.auto_resume": "override"},
			values:  map[string]any{"start.auto_resume": false},
		},
		{
			name: "every key",
			base: full,
			want: config.Config{
				Start:    config.Start{AutoResume: false},
				Harness:  config.Harness{Default: "opencode", Claude: "my-claude", Codex: "my-codex", OpenCode: "my-opencode", Gemini: "my gemini"},
				Defaults: config.Defaults{Model: "gpt52h", Agent: "coder"},
				Timeouts: config.Timeouts{Run: 2 * time.Hour, Wait: time.Minute, KillGrace: 500 * time.Millisecond},
			},
			sources: map[string]string{
				"start.auto_resume": "base", "harness.default": "base", "harness.claude": "base", "harness.codex": "base",
				"harness.opencode": "base", "harness.gemini": "base", "defaults.model": "base", "defaults.agent": "base",
				"timeouts.run": "base", "timeouts.wait": "base", "timeouts.kill_grace": "base",
			},
			values: map[string]any{
				"start.auto_resume": false, "harness.default": "opencode", "harness.claude": "my-claude",
				"harness.codex": "my-codex", "harness.opencode": "my-opencode", "harness.gemini": "my gemini",
				"defaults.model": "gpt52h", "defaults.agent": "coder",
				"timeouts.run": "2h", "timeouts.wait": "1m", "timeouts.kill_grace": "500ms",
			},
		},
	}
	defaultValues := map[string]any{}
	for _, s := range mustLoad(t, t.TempDir(), "").Settings() {
		defaultValues[s.Key] = s.Value
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), ".meridian")
			paths := map[string]string{"base": filepath.Join(dir, config.FileName)}
			if tt.base != "" {
				writeFile(t, paths["base"], tt.base)
			}
			overridePath := ""
			if tt.override != "" {
				overridePath = filepath.Join(t.TempDir(), "override.toml")
				paths["override"] = overridePath
				writeFile(t, overridePath, tt.override)
			}
			loaded := mustLoad(t, dir, overridePath)
			if diff := cmp.Diff(tt.want, loaded.Config); diff != "" {
				t.Errorf("Config (-want +got):\n%s", diff)
			}
			var want []config.Setting
			for _, s := range loaded.Settings() {
				w := config.Setting{Key: s.Key, Value: defaultValues[s.Key], Source: config.SourceBuiltin}
				if v, ok := tt.values[s.Key]; ok {
					w.Value = v
				}
				if src, ok := tt.sources[s.Key]; ok {
					w.Source = paths[src]
				}
				want = append(want, w)
			}
			if diff := cmp.Diff(want, loaded.Settings()); diff != "" {
				t.Errorf("Settings() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSettingsDefaults(t *testing.T) {
	want := []config.Setting{
		{"start.auto_resume", true, "built-in"},
		{"harness.default", "claude", "built-in"},
		{"harness.claude", "claude", "built-in"},
		{"harness.codex", "codex", "built-in"},
		{"harness.opencode", "opencode", "built-in"},
		{"harness.gemini", "gemini", "built-in"},
		{"defaults.model", "", "built-in"},
		{"defaults.agent", "", "built-in"},
		{"timeouts.run", "30m", "built-in"},
		{"timeouts.wait", "10m", "built-in"},
		{"timeouts.kill_grace", "2s", "built-in"},
	}
	loaded := mustLoad(t, filepath.Join(t.TempDir(), "missing"), "")
	if diff := cmp.Diff(want, loaded.Settings()); diff != "" {
		t.Errorf("Settings() (-want +got):\n%s", diff)
	}
	if got := loaded.Source("timeouts.nope"); got != "" {
		t.Errorf(`Source("timeouts.nope") = %q, want ""`, got)
	}
}

func TestHarnessCommand(t *testing.T) {
	h := config.Harness{Claude: "a", Codex: "b", OpenCode: "c", Gemini: "d"}
	tests := []struct {
		harness string
		want    string
		ok      bool
	}{
		{"claude", "a", true}, {"codex", "b", true}, {"opencode", "c", true}, {"gemini", "d", true},
		{"cursor", "", false}, {"", "", false},
	}
	for _, tt := range tests {
		got, ok := h.Command(tt.harness)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Command(%q) = %q, %v; want %q, %v", tt.harness, got, ok, tt.want, tt.ok)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    config.FileError // Path is filled in
		msg     string           // substring of Msg, instead of want.Msg
	}{
		{"unknown key", "[start]\nauto_resume = true\nauto_resum = false\n",
			config.FileError{Key: "start.auto_resum", Line: 3, Msg: "unknown key"}, ""},
		{"unknown keys", "[start]\nfoo = 1\n\n[bar]\nx = 1\n",
			config.FileError{Key: "start.foo", Line: 2, Msg: "unknown key (other unknown keys: bar)"}, ""},
		{"unknown section", "[permissions]\ndefault_tier = \"read-only\"\n",
			config.FileError{Key: "permissions", Line: 1, Msg: "unknown key"}, ""},
		{"bool as string", "[start]\nauto_resume = \"yes\"\n",
			config.FileError{Key: "start.auto_resume", Line: 2, Msg: "wrong type: want a boolean, got a TOML string"}, ""},
		{"duration as integer", "[timeouts]\nrun = 0\n",
			config.FileError{Key: "timeouts.run", Line: 2, Msg: "wrong type: want a string, got a TOML integer"}, ""},
		{"command as integer", "[harness]\n\nclaude = 5\n",
			config.FileError{Key: "harness.claude", Line: 3, Msg: "wrong type: want a string, got a TOML integer"}, ""},
		{"section as value", "start = true\n",
			config.FileError{Key: "start", Line: 1, Msg: "wrong type: want a table, got a TOML boolean"}, ""},
		{"bad duration", "[timeouts]\nwait = \"10 minutes\"\n",
			config.FileError{Key: "timeouts.wait", Line: 2}, `invalid duration "10 minutes"`},
		{"duration without unit", "[timeouts]\nkill_grace = \"0\"\n",
			config.FileError{Key: "timeouts.kill_grace", Line: 2}, `invalid duration "0"`},
		{"negative duration", "[timeouts]\nkill_grace = \"-2s\"\n",
			config.FileError{Key: "timeouts.kill_grace", Line: 2}, "must not be negative"},
		{"unknown harness", "[harness]\ndefault = \"cursor\"\n",
			config.FileError{Key: "harness.default", Line: 2}, `unknown harness "cursor"`},
		{"harness name case", "[harness]\ndefault = \"Claude\"\n",
			config.FileError{Key: "harness.default", Line: 2}, `unknown harness "Claude"`},
		{"empty command", "[harness]\ncodex = \"  \"\n",
			config.FileError{Key: "harness.codex", Line: 2}, "must not be empty"},
		{"syntax", "[start\nauto_resume = true\n",
			config.FileError{Line: 1}, "expected ']'"},
		{"duplicate key", "[start]\nauto_resume = true\nauto_resume = false\n",
			config.FileError{Key: "auto_resume", Line: 3}, "already defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, layer := range []string{"base", "override"} {
				dir := t.TempDir()
				path := filepath.Join(dir, config.FileName)
				override := ""
				if layer == "override" {
					path = filepath.Join(dir, "override.toml")
					override = path
				}
				writeFile(t, path, tt.content)
				_, err := config.Load(dir, override)
				var fe *config.FileError
				if !errors.As(err, &fe) {
					t.Fatalf("%s: Load = %v, want a *FileError", layer, err)
				}
				want := tt.want
				want.Path = path
				if tt.msg != "" {
					if !strings.Contains(fe.Msg, tt.msg) {
						t.Errorf("%s: Msg = %q, want it to contain %q", layer, fe.Msg, tt.msg)
					}
					want.Msg = fe.Msg
				}
				if diff := cmp.Diff(&want, fe); diff != "" {
					t.Errorf("%s: FileError (-want +got):\n%s", layer, diff)
				}
				if !strings.HasPrefix(err.Error(), path+":") || !strings.Contains(err.Error(), want.Key) {
					t.Errorf("%s: Error() = %q, want the path and the key", layer, err)
				}
			}
		})
	}
}

func TestFileErrorString(t *testing.T) {
	tests := []struct {
		err  config.FileError
		want string
	}{
		{config.FileError{Path: "c.toml", Key: "timeouts.run", Line: 4, Msg: "bad"}, "c.toml:4: timeouts.run: bad"},
		{config.FileError{Path: "c.toml", Line: 1, Msg: "bad"}, "c.toml:1: bad"},
		{config.FileError{Path: "c.toml", Key: "a.b", Msg: "bad"}, "c.toml: a.b: bad"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestLoadFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := config.Load(dir, filepath.Join(dir, "missing.toml")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load(missing override) = %v, want fs.ErrNotExist", err)
	}
	// A config.toml that cannot be read is an error, not "no file".
	if err := os.Mkdir(filepath.Join(dir, config.FileName), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Load(dir, ""); err == nil {
		t.Error("Load with config.toml a directory succeeded")
	}
}

func TestInit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "project", ".meridian")
	path, created, err := config.Init(dir)
	if err != nil || !created || path != filepath.Join(dir, config.FileName) {
		t.Fatalf("Init = %q, %v, %v; want the new config.toml", path, created, err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(config.Scaffold()), string(got)); diff != "" {
		t.Errorf("config.toml is not the scaffold (-want +got):\n%s", diff)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o644 {
		t.Errorf("config.toml mode = %v, %v; want 0644", info.Mode(), err)
	}

	// Idempotent, and never overwrites what the user wrote.
	writeFile(t, path, "[start]\nauto_resume = false\n")
	for range 2 {
		path2, created, err := config.Init(dir)
		if err != nil || created || path2 != path {
			t.Errorf("Init again = %q, %v, %v; want %q, false, nil", path2, created, err, path)
		}
	}
	if got, _ := os.ReadFile(path); string(got) != "[start]\nauto_resume = false\n" {
		t.Errorf("Init overwrote config.toml: %q", got)
	}
	assertOnlyConfig(t, dir)
}

func TestInitConcurrent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".meridian")
	const n = 16
	var wg sync.WaitGroup
	results := make(chan bool, n)
	for range n {
		wg.Go(func() {
			_, created, err := config.Init(dir)
			if err != nil {
				t.Error(err)
			}
			results <- created
		})
	}
	wg.Wait()
	close(results)
	count := 0
	for created := range results {
		if created {
			count++
		}
	}
	if count != 1 {
		t.Errorf("%d of %d concurrent Inits report they created config.toml, want exactly 1", count, n)
	}
	assertOnlyConfig(t, dir)
}

func TestInitErrors(t *testing.T) {
	// dir's parent is a file: dir cannot be created.
	parent := filepath.Join(t.TempDir(), "file")
	writeFile(t, parent, "")
	if _, _, err := config.Init(filepath.Join(parent, ".meridian")); err == nil {
		t.Error("Init under a file succeeded")
	}
}

// assertOnlyConfig fails if dir holds anything but config.toml: Init must not
// leave temporary files behind.
func assertOnlyConfig(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{config.FileName}, names); diff != "" {
		t.Errorf("directory entries (-want +got):\n%s", diff)
	}
}

func mustLoad(t *testing.T, dir, override string) *config.Loaded {
	t.Helper()
	loaded, err := config.Load(dir, override)
	if err != nil {
		t.Fatal(err)
	}
	return loaded
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
