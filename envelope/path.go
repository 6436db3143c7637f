package envelope

import (
	"os"
	"path/filepath"

	"github.com/duet-cli/duet/internal/jsonw"
)

// Path is a filesystem path in a command's data. It encodes as an absolute,
// cleaned path: a relative one is resolved against the effective working
// directory — --cwd when the invocation was given it, else the directory the
// process started in, which Duet never changes (the CLI Agent Spec's F-040,
// O-017) — so an agent can use it from any directory.
type Path string

// MarshalJSON encodes the path made absolute.
func (p Path) MarshalJSON() ([]byte, error) { return jsonw.String(nil, string(p.abs())), nil }

// String returns the path as it was given.
func (p Path) String() string { return string(p) }

func (p Path) abs() Path {
	if p == "" {
		return p
	}
	if filepath.IsAbs(string(p)) {
		return Path(filepath.Clean(string(p)))
	}
	dir, err := os.Getwd()
	if err != nil {
		return p
	}
	return Path(filepath.Join(dir, string(p)))
}
