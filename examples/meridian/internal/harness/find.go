package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotFound is returned by Find for a command that names no executable.
var ErrNotFound = errors.New("executable file not found")

// Find returns the program a harness command names: the command itself when
// it holds a slash, else the first executable of that name in the
// directories of path (a PATH value). It reads the PATH it is given, not the
// process's, for the harness runs in the environment of the run.
func Find(command, path string) (string, error) {
	if strings.Contains(command, "/") {
		if isExecutable(command) {
			return command, nil
		}
		return "", fmt.Errorf("%s: %w", command, ErrNotFound)
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "." // an empty PATH entry is the working directory, as in a shell
		}
		if p := filepath.Join(dir, command); isExecutable(p) {
			if !filepath.IsAbs(p) {
				if abs, err := filepath.Abs(p); err == nil {
					p = abs
				}
			}
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", command, ErrNotFound)
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir() && info.Mode()&0o111 != 0
}
