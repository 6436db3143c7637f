// Package project finds the Meridian project a command works in: the
// directory whose .meridian/ holds the spaces, the configuration, the agent
// profiles and the skills, and the user's own ~/.meridian beside it.
package project

import (
	"os"
	"path/filepath"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/examples/meridian/internal/catalog"
	"github.com/duet-cli/duet/examples/meridian/internal/config"
	"github.com/duet-cli/duet/examples/meridian/internal/state"
	"github.com/duet-cli/duet/exitcode"
)

// Dir is the name of Meridian's directory in a project and in the home directory.
const Dir = ".meridian"

// Project is where a command's state and settings are.
type Project struct {
	Root           string     // the project directory: agents run here
	State          state.Root // Root/.meridian
	UserDir        string     // ~/.meridian; "" without a home directory
	ConfigOverride string     // --config or MERIDIAN_CONFIG: a file merged over config.toml
	NoConfig       bool       // --no-config: no file is read, the built-in settings apply
}

// Find returns the project of a command run in cwd: the nearest directory,
// cwd or above, that has a .meridian/; else the nearest with a .git (a
// repository that has not met Meridian yet); else cwd itself. An explicit
// root (MERIDIAN_REPO_ROOT) wins.
func Find(cwd, root, home, configOverride string) Project {
	if root == "" {
		root = nearest(cwd, Dir)
	}
	if root == "" {
		root = nearest(cwd, ".git")
	}
	if root == "" {
		root = cwd
	}
	p := Project{Root: root, State: state.Root{Dir: filepath.Join(root, Dir)}, ConfigOverride: configOverride}
	if home != "" {
		p.UserDir = filepath.Join(home, Dir)
	}
	return p
}

func nearest(dir, name string) string {
	for {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Config loads the merged configuration. A broken file is a CONFIG_INVALID
// error naming it.
func (p Project) Config() (*config.Loaded, error) {
	if p.NoConfig {
		return config.Builtin(), nil
	}
	cfg, err := config.Load(p.State.Dir, p.ConfigOverride)
	if err != nil {
		return nil, FileError(err)
	}
	return cfg, nil
}

// FileError reports a configuration or catalog file that cannot be used: a
// precondition a person must fix, not bad input.
func FileError(err error) error {
	return envelope.Errorf(exitcode.Precondition, "CONFIG_INVALID", "%w", err).
		WithSuggestion("fix the file named in the message; 'meridian config show' prints what is in effect").
		WithFix("correct the file", "")
}

// Catalog returns where agent profiles and skills are looked up: the
// project's first, then the user's.
func (p Project) Catalog() catalog.Dirs {
	return catalog.Dirs{Project: p.State.Dir, User: p.UserDir}
}
