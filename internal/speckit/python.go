package speckit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// pythonCheck exits 0 only under an interpreter that can run the kit:
// run.py needs Python 3.11 (enum.StrEnum), and without rfc3339-validator
// jsonschema checks no date-time, which run.py refuses.
const pythonCheck = `
import sys
if sys.version_info < (3, 11):
    sys.exit("Python %d.%d is older than 3.11" % sys.version_info[:2])
try:
    import jsonschema, referencing, rfc3339_validator
except ImportError as e:
    sys.exit(str(e))
from jsonschema import Draft7Validator
if "date-time" not in Draft7Validator.FORMAT_CHECKER.checkers:
    sys.exit("jsonschema has no date-time format checker")
`

// defaultPythons are tried in order when DUET_SPECKIT_PYTHON is unset: the
// one on PATH first (a virtualenv or pyenv a developer chose), then the
// system's, where Debian's packages install.
func defaultPythons() []string { return []string{"python3", "/usr/bin/python3"} }

// noPythonError says no candidate interpreter can run the kit.
type noPythonError struct {
	tried []string // "candidate: reason"
}

func (e *noPythonError) Error() string {
	return fmt.Sprintf("no Python can run the spec's conformance kit (%s); install %s (Debian/Ubuntu), or set %s to a Python 3.11+ with jsonschema, referencing and rfc3339-validator",
		strings.Join(e.tried, "; "), debianPackages, EnvPython)
}

// interpreter returns the Python that runs the kit, or ends the test: a
// skip when there is none, a failure when DUET_REQUIRE_SPECKIT=1 or when
// DUET_SPECKIT_PYTHON names one that cannot run it.
func interpreter(t testing.TB) string {
	t.Helper()
	python, err := findPython(os.Getenv, defaultPythons())
	if err != nil {
		if skip, msg := verdict(err, os.Getenv(EnvRequire)); skip {
			t.Skip(msg)
		} else {
			t.Fatal(msg)
		}
	}
	return python
}

// verdict decides what a missing interpreter does to the test.
func verdict(err error, require string) (skip bool, msg string) {
	var none *noPythonError
	switch {
	case !errors.As(err, &none):
		return false, "speckit: " + err.Error()
	case require == "1":
		return false, fmt.Sprintf("speckit: %v (%s=1)", err, EnvRequire)
	default:
		return true, fmt.Sprintf("speckit: %v; %s=1 makes this a failure", err, EnvRequire)
	}
}

// findPython returns the interpreter named by DUET_SPECKIT_PYTHON, which
// must work, or else the first candidate that works. A candidate with a
// slash is a path; a bare name is looked up on PATH.
func findPython(getenv func(string) string, candidates []string) (string, error) {
	if named := getenv(EnvPython); named != "" {
		path, err := resolve(named)
		if err == nil {
			err = canRunKit(path)
		}
		if err != nil {
			return "", fmt.Errorf("%s=%s cannot run the spec's conformance kit: %w; it needs Python 3.11+ with jsonschema, referencing and rfc3339-validator (Debian: %s)", EnvPython, named, err, debianPackages)
		}
		return path, nil
	}
	none := &noPythonError{}
	seen := map[string]bool{}
	for _, c := range candidates {
		path, err := resolve(c)
		if err == nil && seen[path] {
			continue // python3 on PATH is often /usr/bin/python3 itself
		}
		if err == nil {
			seen[path] = true
			if err = canRunKit(path); err == nil {
				return path, nil
			}
		}
		none.tried = append(none.tried, fmt.Sprintf("%s: %v", c, err))
	}
	return "", none
}

func resolve(python string) (string, error) {
	if strings.Contains(python, "/") {
		if _, err := os.Stat(python); err != nil {
			return "", errors.New("not found")
		}
		return python, nil
	}
	path, err := exec.LookPath(python)
	if err != nil {
		return "", errors.New("not on PATH")
	}
	return path, nil
}

// canRunKit runs pythonCheck under python.
func canRunKit(python string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	//duetvet:allow rawexec -- probes a test harness's Python, not user input
	out, err := exec.CommandContext(ctx, python, "-c", pythonCheck).CombinedOutput()
	if err == nil {
		return nil
	}
	if msg := strings.TrimSpace(string(out)); msg != "" {
		// the last line is sys.exit's message, or a traceback's error
		return errors.New(msg[strings.LastIndexByte(msg, '\n')+1:])
	}
	return err
}
