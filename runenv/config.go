package runenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/duet-cli/duet/internal/atomicfile"
	"github.com/duet-cli/duet/lock"
)

// ErrNoConfigFile is returned by [Env.WriteConfig] for a command that
// declares no configuration it writes (schema.Meta.ConfigWrite).
var ErrNoConfigFile = errors.New("runenv: the command declares no configuration it writes")

// WriteConfig replaces the configuration file the invocation writes,
// [Env.ConfigFile], with data, atomically: it goes to a temporary file
// that is renamed over the old one, so a write interrupted half way leaves
// the previous configuration whole (the CLI Agent Spec's C-025). The
// directory is made if need be. It takes no lock: a command that changes
// part of the file, keeping the rest, uses [Env.UpdateConfig].
func (e Env) WriteConfig(data []byte) error {
	if e.ConfigFile == "" {
		return ErrNoConfigFile
	}
	if err := os.MkdirAll(filepath.Dir(e.ConfigFile), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(e.ConfigFile, data, 0o600)
}

// UpdateConfig changes the configuration file the invocation writes,
// [Env.ConfigFile]: holding an exclusive lock on <ConfigFile>.lock, it reads
// the file (old is nil when there is none yet), passes it to change and
// writes what change returns as [Env.WriteConfig] does. Invocations that
// change the same file at once — agents sharing the namespace, without
// --instance-id — so run one after another, and none loses another's
// change (the CLI Agent Spec's O-036). If change fails, nothing is written
// and its error is returned.
//
// The lock file stays beside the configuration: removing it would let two
// writers lock different files. Waiting for another writer ends with ctx,
// or after [lock.DefaultWait] with LOCK_HELD (exit 4, retryable; see
// package lock).
func (e Env) UpdateConfig(ctx context.Context, change func(old []byte) ([]byte, error)) error {
	if e.ConfigFile == "" {
		return ErrNoConfigFile
	}
	if err := os.MkdirAll(filepath.Dir(e.ConfigFile), 0o700); err != nil {
		return err
	}
	return lock.With(ctx, e.ConfigFile+".lock", 0, func() error {
		old, err := os.ReadFile(e.ConfigFile)
		if errors.Is(err, os.ErrNotExist) {
			old, err = nil, nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", e.ConfigFile, err)
		}
		data, err := change(old)
		if err != nil {
			return err
		}
		return atomicfile.Write(e.ConfigFile, data, 0o600)
	})
}
