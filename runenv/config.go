package runenv

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/duet-cli/duet/internal/atomicfile"
)

// ErrNoConfigFile is returned by [Env.WriteConfig] for a command that
// declares no configuration it writes (schema.Meta.ConfigWrite).
var ErrNoConfigFile = errors.New("runenv: the command declares no configuration it writes")

// WriteConfig replaces the configuration file the invocation writes,
// [Env.ConfigFile], with data, atomically: it goes to a temporary file
// that is renamed over the old one, so a write interrupted half way leaves
// the previous configuration whole (the CLI Agent Spec's C-025). The
// directory is made if need be.
func (e Env) WriteConfig(data []byte) error {
	if e.ConfigFile == "" {
		return ErrNoConfigFile
	}
	if err := os.MkdirAll(filepath.Dir(e.ConfigFile), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(e.ConfigFile, data, 0o600)
}
