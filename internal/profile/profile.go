// Package profile keeps a tool's saved profiles: named sets of flag values,
// so that an agent or a person need not repeat `--region us-east-1
// --token-file ~/.t` on every call.
//
// A tool's profiles live in one JSON file (see [Path]) with a schema version,
// the name of the default profile and the profiles themselves. Readers never
// lock: every change is written to a temporary file in the same directory,
// synced and renamed over the old one, under an exclusive lock on a sibling
// lock file, so concurrent processes never see half a file and never lose one
// another's profiles. A file that cannot be read or parsed is an error
// ([CorruptError]), never silently replaced.
package profile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/duet-cli/duet/internal/atomicfile"
	"github.com/duet-cli/duet/internal/filelock"
	"github.com/duet-cli/duet/internal/safefile"
)

// SchemaVersion is the version of the file format this package writes. It
// reads files of this version or older.
const SchemaVersion = 1

// FileName is the name of a tool's profiles file in its config directory.
const FileName = "profiles.json"

// File is the content of a tool's profiles file.
type File struct {
	SchemaVersion int                `json:"schema_version"`
	Default       string             `json:"default,omitempty"` // the profile used when none is named
	Profiles      map[string]Profile `json:"profiles"`
}

// Profile is one named set of flag values.
type Profile struct {
	// Flags maps a flag's long name to its value as it would be typed on the
	// command line (a list flag's values comma-separated).
	Flags   map[string]string `json:"flags"`
	Updated time.Time         `json:"updated"`
}

// Names returns the profile names in order.
func (f *File) Names() []string { return slices.Sorted(maps.Keys(f.Profiles)) }

// ValidName reports why name cannot name a profile: 1 to 64 letters, digits,
// '-', '_' or '.', not starting with '.' or '-'.
func ValidName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("a profile name has 1 to 64 characters, not %d", len(name))
	}
	if name[0] == '.' || name[0] == '-' {
		return fmt.Errorf("a profile name cannot start with %q", name[0])
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("a profile name has letters, digits, '-', '_' and '.' only, not %q", r)
		}
	}
	return nil
}

// Path returns where a tool keeps its profiles: $<TOOL>_CONFIG_DIR/profiles.json
// when that variable is set, else <user config dir>/<tool>/profiles.json.
// getenv reads the environment; the result is absolute.
func Path(tool string, getenv func(string) string) (string, error) {
	dir := getenv(envName(tool, "CONFIG_DIR"))
	if dir == "" {
		base, err := userConfigDir(getenv)
		if err != nil {
			return "", fmt.Errorf("profile: no config directory: %w", err)
		}
		dir = filepath.Join(base, tool)
	}
	return filepath.Abs(filepath.Join(dir, FileName))
}

// userConfigDir is os.UserConfigDir reading the given environment.
func userConfigDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return d, nil
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config"), nil
	}
	return os.UserConfigDir()
}

// envName is <TOOL>_<SUFFIX>, the tool's name upper-cased with '-' as '_'.
func envName(tool, suffix string) string {
	return strings.ToUpper(strings.ReplaceAll(tool, "-", "_")) + "_" + suffix
}

// EnvName returns the environment variable that selects a profile for one
// invocation: <TOOL>_PROFILE.
func EnvName(tool string) string { return envName(tool, "PROFILE") }

// CorruptError reports a profiles file that exists but cannot be used. The
// file is left as it is: nothing is lost, and the fix is the person's.
type CorruptError struct {
	Path string
	Err  error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("profiles file %s is unusable: %v", e.Path, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// Store is a tool's profiles file.
type Store struct {
	Path string
}

// MaxBytes bounds a profiles file: a few hundred profiles of a few
// hundred flags each fit; a file any larger is not one.
const MaxBytes = 16 << 20

// Load reads the file. A file that does not exist yet holds no profiles;
// a FIFO, a device or a file over MaxBytes in its place is refused without
// blocking or filling memory.
func (s *Store) Load() (*File, error) {
	raw, err := safefile.ReadFile(s.Path, MaxBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &File{SchemaVersion: SchemaVersion, Profiles: map[string]Profile{}}, nil
	case err != nil:
		return nil, &CorruptError{Path: s.Path, Err: err}
	}
	return decode(s.Path, raw)
}

func decode(path string, raw []byte) (*File, error) {
	f := &File{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(f); err != nil {
		return nil, &CorruptError{Path: path, Err: err}
	}
	switch {
	case dec.More():
		return nil, &CorruptError{Path: path, Err: errors.New("data after the JSON object")}
	case f.SchemaVersion < 1 || f.SchemaVersion > SchemaVersion:
		return nil, &CorruptError{Path: path, Err: fmt.Errorf("schema_version %d: this tool reads 1 to %d", f.SchemaVersion, SchemaVersion)}
	}
	if f.Profiles == nil {
		f.Profiles = map[string]Profile{}
	}
	if _, ok := f.Profiles[f.Default]; f.Default != "" && !ok {
		return nil, &CorruptError{Path: path, Err: fmt.Errorf("the default profile %q does not exist", f.Default)}
	}
	return f, nil
}

// lockWait bounds how long Update waits for another process's change.
const lockWait = 10 * time.Second

// Update changes the file: under an exclusive lock it reads the current
// content, lets change modify it, and writes the result atomically with mode
// 0600. If change fails, nothing is written. It waits for another process's
// change at most until ctx is done or 10 s have passed.
func (s *Store) Update(ctx context.Context, change func(*File) error) error {
	dir := filepath.Dir(s.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, lockWait)
	defer cancel()
	return filelock.With(ctx, s.Path+".lock", func() error {
		f, err := s.Load()
		if err != nil {
			return err
		}
		if err := change(f); err != nil {
			return err
		}
		f.SchemaVersion = SchemaVersion
		raw, err := json.MarshalIndent(f, "", "  ")
		if err != nil {
			return fmt.Errorf("profile: encode: %w", err)
		}
		return atomicfile.Write(s.Path, append(raw, '\n'), 0o600)
	})
}
