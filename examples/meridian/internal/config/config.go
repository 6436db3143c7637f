// Package config loads Meridian's settings and writes the scaffold that
// `meridian init` puts in place.
//
// Settings come in three layers, later wins: the built-in defaults,
// <.meridian>/config.toml (optional), and an override file named by --config
// or MERIDIAN_CONFIG (which must exist). Every key remembers which layer set
// it, because `meridian config show` has to answer "why is this the value?"
// and not only "what is the value?".
//
// Decoding is strict: a key Meridian does not know, a value of the wrong type
// or an invalid value is a [*FileError] naming the file, the dotted key and,
// where go-toml reports it, the line — a typo in a config file must not be
// silently ignored and leave the user wondering why the setting has no effect.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/duet-cli/duet/examples/meridian/internal/fileerror"
	"github.com/pelletier/go-toml/v2"
)

// FileName is the name of the project's config file inside the .meridian
// directory.
const FileName = "config.toml"

// SourceBuiltin is the source of a key no file sets.
const SourceBuiltin = "built-in"

// harnessNames lists the harnesses Meridian can launch, for messages. They
// are spelled out here rather than imported so that config depends on
// nothing else of Meridian's.
const harnessNames = "claude, codex, opencode, gemini"

// Config is Meridian's effective configuration.
type Config struct {
	Start    Start
	Harness  Harness
	Defaults Defaults
	Timeouts Timeouts
}

// Start is the [start] section: how `meridian start` picks a space.
type Start struct {
	// AutoResume makes `meridian start` without --new or --space resume the
	// last active space instead of creating one.
	AutoResume bool
}

// Harness is the [harness] section: which harness runs by default, and the
// command that launches each.
type Harness struct {
	// Default is the harness of runs that name no model: "claude", "codex",
	// "opencode" or "gemini".
	Default string
	// Claude, Codex, OpenCode and Gemini are the commands that launch each
	// harness: a name looked up on PATH, or a path. Never empty.
	Claude, Codex, OpenCode, Gemini string
}

// Command returns the command configured for harness, and false for a
// harness Meridian does not know.
func (h Harness) Command(harness string) (string, bool) {
	switch harness {
	case "claude":
		return h.Claude, true
	case "codex":
		return h.Codex, true
	case "opencode":
		return h.OpenCode, true
	case "gemini":
		return h.Gemini, true
	}
	return "", false
}

// Defaults is the [defaults] section: what a run uses when it names neither
// a model nor an agent.
type Defaults struct {
	// Model is a model id or alias; "" leaves the choice to the catalog
	// (the default harness's default model).
	Model string
	// Agent is the name of an agent profile; "" means no profile. It is not
	// checked here: the catalog checks it when a run uses it.
	Agent string
}

// Timeouts is the [timeouts] section. A zero duration is accepted; what it
// means (for Run and Wait: no limit) is up to the command that uses it.
type Timeouts struct {
	// Run is how long a run may take before it is stopped.
	Run time.Duration
	// Wait is how long `meridian run wait` waits when given no timeout.
	Wait time.Duration
	// KillGrace is how long a stopped harness has to exit before it is
	// killed.
	KillGrace time.Duration
}

// Default returns the built-in configuration.
func Default() Config {
	return Config{
		Start: Start{AutoResume: true},
		Harness: Harness{
			Default: "claude",
			Claude:  "claude", Codex: "codex", OpenCode: "opencode", Gemini: "gemini",
		},
		Timeouts: Timeouts{Run: 30 * time.Minute, Wait: 10 * time.Minute, KillGrace: 2 * time.Second},
	}
}

// Builtin returns the built-in configuration, read from no file.
func Builtin() *Loaded { return &Loaded{Config: Default(), sources: map[string]string{}} }

// Loaded is the effective configuration together with where each key's value
// came from.
type Loaded struct {
	Config
	// sources maps a dotted key to the file that set it; a key not in the
	// map has its built-in value.
	sources map[string]string
}

// Source returns where key (dotted, e.g. "timeouts.run") got its value:
// [SourceBuiltin] or the path of the file that set it last. It returns ""
// for a key that does not exist.
func (l *Loaded) Source(key string) string {
	if src, ok := l.sources[key]; ok {
		return src
	}
	for _, k := range keys() {
		if k.dotted() == key {
			return SourceBuiltin
		}
	}
	return ""
}

// Setting is one key of the effective configuration, as `meridian config
// show` prints it.
type Setting struct {
	// Key is the dotted key, e.g. "start.auto_resume".
	Key string `json:"key"`
	// Value is what the key would be set to in config.toml: a bool or a
	// string (durations in their shortest form, e.g. "30m").
	Value any `json:"value"`
	// Source is [SourceBuiltin] or the path of the file that set the key.
	Source string `json:"source"`
}

// Settings returns every key with its value and source, in the order of the
// scaffold.
func (l *Loaded) Settings() []Setting {
	ks := keys()
	out := make([]Setting, len(ks))
	for i, k := range ks {
		out[i] = Setting{Key: k.dotted(), Value: k.get(&l.Config), Source: l.Source(k.dotted())}
	}
	return out
}

// FileError is a config file whose content cannot be used: it is not valid
// TOML, or it holds a key Meridian does not know, a value of the wrong type,
// or an invalid value. The user has to fix the file.
type FileError = fileerror.Error

// Load returns the configuration of the .meridian directory dir: the
// built-in defaults, overlaid by dir/config.toml when it exists, overlaid by
// the file override when override is not "" (the caller takes it from
// --config or MERIDIAN_CONFIG). An override file that does not exist is an
// error that wraps [fs.ErrNotExist]; a file with bad content is a
// [*FileError].
func Load(dir, override string) (*Loaded, error) {
	l := &Loaded{Config: Default(), sources: map[string]string{}}
	base := filepath.Join(dir, FileName)
	data, err := os.ReadFile(base)
	switch {
	case err == nil:
		if err := l.apply(base, data); err != nil {
			return nil, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("read config: %w", err)
	}
	if override != "" {
		data, err := os.ReadFile(override)
		if err != nil {
			return nil, fmt.Errorf("read override config (--config or MERIDIAN_CONFIG): %w", err)
		}
		if err := l.apply(override, data); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// apply overlays the keys that the file at path sets.
func (l *Loaded) apply(path string, data []byte) error {
	// Two passes over the same document shape. The first has plain strings
	// where the second has validating types: go-toml hands integers and
	// floats to a TextUnmarshaler as text, so only the first pass can tell
	// `run = 0` (wrong type) from `run = "0s"`. The second pass then
	// validates with positions, since go-toml reports the line of an
	// UnmarshalText error.
	var shape document[string, string, string]
	if err := decode(data, &shape, true); err != nil {
		return fileError(path, err)
	}
	var doc document[duration, harnessName, command]
	if err := decode(data, &doc, false); err != nil {
		return fileError(path, err)
	}
	for _, k := range keys() {
		if k.set(&doc, &l.Config) {
			l.sources[k.dotted()] = path
		}
	}
	return nil
}

// document is the shape of a config file. Every leaf is a pointer so that a
// key the file does not set stays nil. D, H and C are the types of
// durations, harness names and commands (see [Loaded.apply]).
type document[D, H, C any] struct {
	Start *struct {
		AutoResume *bool `toml:"auto_resume"`
	} `toml:"start"`
	Harness *struct {
		Default  *H `toml:"default"`
		Claude   *C `toml:"claude"`
		Codex    *C `toml:"codex"`
		OpenCode *C `toml:"opencode"`
		Gemini   *C `toml:"gemini"`
	} `toml:"harness"`
	Defaults *struct {
		Model *string `toml:"model"`
		Agent *string `toml:"agent"`
	} `toml:"defaults"`
	Timeouts *struct {
		Run       *D `toml:"run"`
		Wait      *D `toml:"wait"`
		KillGrace *D `toml:"kill_grace"`
	} `toml:"timeouts"`
}

type fileDoc = document[duration, harnessName, command]

// key describes one setting: where it lives, what it means, how to read it
// from a Config and how to copy it from a file.
type key struct {
	section, name, doc string
	get                func(*Config) any
	// set copies the key from the file into c and reports whether the file
	// set it.
	set func(f *fileDoc, c *Config) bool
}

func (k key) dotted() string { return k.section + "." + k.name }

// keys lists every setting in scaffold order. It is a function rather than
// a package variable so that nothing can change the table at run time.
func keys() []key {
	return []key{
		{"start", "auto_resume", "resume the last active space instead of creating one",
			func(c *Config) any { return c.Start.AutoResume },
			func(f *fileDoc, c *Config) bool {
				return f.Start != nil && copyValue(f.Start.AutoResume, &c.Start.AutoResume)
			}},
		{"harness", "default", "harness of runs that name no model: claude, codex, opencode or gemini",
			func(c *Config) any { return c.Harness.Default },
			func(f *fileDoc, c *Config) bool {
				return f.Harness != nil && copyString(f.Harness.Default, &c.Harness.Default)
			}},
		{"harness", "claude", "command that launches Claude Code: a name looked up on PATH, or a path",
			func(c *Config) any { return c.Harness.Claude },
			func(f *fileDoc, c *Config) bool {
				return f.Harness != nil && copyString(f.Harness.Claude, &c.Harness.Claude)
			}},
		{"harness", "codex", "command that launches Codex",
			func(c *Config) any { return c.Harness.Codex },
			func(f *fileDoc, c *Config) bool {
				return f.Harness != nil && copyString(f.Harness.Codex, &c.Harness.Codex)
			}},
		{"harness", "opencode", "command that launches OpenCode",
			func(c *Config) any { return c.Harness.OpenCode },
			func(f *fileDoc, c *Config) bool {
				return f.Harness != nil && copyString(f.Harness.OpenCode, &c.Harness.OpenCode)
			}},
		{"harness", "gemini", "command that launches Gemini CLI",
			func(c *Config) any { return c.Harness.Gemini },
			func(f *fileDoc, c *Config) bool {
				return f.Harness != nil && copyString(f.Harness.Gemini, &c.Harness.Gemini)
			}},
		{"defaults", "model", `model id or alias of runs that name none; "" = the default harness's default model`,
			func(c *Config) any { return c.Defaults.Model },
			func(f *fileDoc, c *Config) bool {
				return f.Defaults != nil && copyValue(f.Defaults.Model, &c.Defaults.Model)
			}},
		{"defaults", "agent", `agent profile of runs that name none; "" = no profile`,
			func(c *Config) any { return c.Defaults.Agent },
			func(f *fileDoc, c *Config) bool {
				return f.Defaults != nil && copyValue(f.Defaults.Agent, &c.Defaults.Agent)
			}},
		{"timeouts", "run", "a run taking longer is stopped",
			func(c *Config) any { return formatDuration(c.Timeouts.Run) },
			func(f *fileDoc, c *Config) bool {
				return f.Timeouts != nil && copyDuration(f.Timeouts.Run, &c.Timeouts.Run)
			}},
		{"timeouts", "wait", "how long `meridian run wait` waits when given no timeout",
			func(c *Config) any { return formatDuration(c.Timeouts.Wait) },
			func(f *fileDoc, c *Config) bool {
				return f.Timeouts != nil && copyDuration(f.Timeouts.Wait, &c.Timeouts.Wait)
			}},
		{"timeouts", "kill_grace", "how long a stopped harness has to exit before it is killed",
			func(c *Config) any { return formatDuration(c.Timeouts.KillGrace) },
			func(f *fileDoc, c *Config) bool {
				return f.Timeouts != nil && copyDuration(f.Timeouts.KillGrace, &c.Timeouts.KillGrace)
			}},
	}
}

func copyValue[T any](from *T, to *T) bool {
	if from == nil {
		return false
	}
	*to = *from
	return true
}

func copyString[T fmt.Stringer](from *T, to *string) bool {
	if from == nil {
		return false
	}
	*to = (*from).String()
	return true
}

func copyDuration(from *duration, to *time.Duration) bool {
	if from == nil {
		return false
	}
	*to = time.Duration(*from)
	return true
}

// duration is a TOML string parsed by time.ParseDuration, never negative.
type duration time.Duration

func (d *duration) UnmarshalText(text []byte) error {
	s := string(text)
	v, err := time.ParseDuration(s)
	// ParseDuration takes a bare "0"; a unit is required here so that the
	// value reads the same to people as to the parser.
	if err != nil || strings.TrimLeft(s, "+-0") == "" {
		return fmt.Errorf("invalid duration %q: want a number with a unit, e.g. \"30m\", \"90s\", \"1h30m\"", s)
	}
	if v < 0 {
		return fmt.Errorf("invalid duration %q: must not be negative", s)
	}
	*d = duration(v)
	return nil
}

// harnessName is one of the harnesses Meridian knows. It and [command] are
// structs because go-toml assigns a TOML string straight to a type whose kind
// is string, without calling its UnmarshalText.
type harnessName struct{ name string }

func (h harnessName) String() string { return h.name }

func (h *harnessName) UnmarshalText(text []byte) error {
	switch s := string(text); s {
	case "claude", "codex", "opencode", "gemini":
		h.name = s
		return nil
	}
	return fmt.Errorf("unknown harness %q: want one of %s", text, harnessNames)
}

// command is how a harness is launched: never empty, since an empty command
// would only fail later, at launch, far from the file that caused it.
type command struct{ cmd string }

func (c command) String() string { return c.cmd }

func (c *command) UnmarshalText(text []byte) error {
	if strings.TrimSpace(string(text)) == "" {
		return errors.New("command must not be empty")
	}
	if bytes.IndexByte(text, 0) >= 0 {
		return errors.New("command must not contain a NUL byte")
	}
	c.cmd = string(text)
	return nil
}

// formatDuration writes d the way people write it in config.toml: "30m"
// rather than time.Duration's "30m0s". The result parses back to d.
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func decode(data []byte, v any, strict bool) error {
	dec := toml.NewDecoder(bytes.NewReader(data))
	if strict {
		dec.DisallowUnknownFields()
	}
	return dec.Decode(v)
}

// fileError turns a go-toml error into a [*FileError] for path.
func fileError(path string, err error) error { return fileerror.FromTOML(path, err) }
