package fidelity

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// work is where the apps are copied and built; TestMain removes it.
var work string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "duet-fidelity-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	work = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// errUnreachable marks a module the proxy did not give: its tests skip.
var errUnreachable = errors.New("cannot download it from the Go module proxy")

// An app is a third-party module copied where it can be built and changed.
type app struct {
	dir string // the copy
}

// fetch downloads module@version from the Go module proxy and copies it to
// a directory under work that the tests may write to.
func fetch(module, version string) (app, error) {
	return fetchAs(module, version, filepath.Base(module))
}

// fetchAs is fetch to the directory name under work: a second copy of a
// module, changed otherwise.
func fetchAs(module, version, name string) (app, error) {
	out, err := exec.Command("go", "mod", "download", "-json", module+"@"+version).Output()
	var info struct{ Dir, Error string }
	if err != nil || json.Unmarshal(out, &info) != nil || info.Dir == "" {
		return app{}, fmt.Errorf("%s@%s: %w (%v %s)", module, version, errUnreachable, err, info.Error)
	}
	dir := filepath.Join(work, name)
	err = filepath.WalkDir(info.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(info.Dir, p)
		target := filepath.Join(dir, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644) // the module cache's copy is read-only
	})
	return app{dir: dir}, err
}

// goCmd runs the go command in the app's directory, outside any workspace.
func (a app) goCmd(args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = a.dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return out, nil
}

// build builds the app's main package pkg to a program called name, and
// returns its path.
func (a app) build(pkg, name string) (string, error) {
	bin := filepath.Join(work, "bin", name)
	_, err := a.goCmd("build", "-o", bin, pkg)
	return bin, err
}

// adopt points the app's module at this checkout of Duet, and takes Duet's
// go.sum beside its own, so that the build needs nothing but the proxy.
func (a app) adopt() error {
	duet, err := filepath.Abs("..")
	if err != nil {
		return err
	}
	sums, err := os.ReadFile(filepath.Join(duet, "go.sum"))
	if err != nil {
		return err
	}
	return errors.Join(
		appendFile(filepath.Join(a.dir, "go.mod"), "\nrequire github.com/duet-cli/duet v0.0.0\n\nreplace github.com/duet-cli/duet => "+duet+"\n"),
		appendFile(filepath.Join(a.dir, "go.sum"), string(sums)))
}

// adoptAndBuild wraps the app with edits to its files and builds pkg twice:
// wrapped, then as published — with the module versions the wrapped build
// settled on (Duet may need a newer framework than the app asked for), so
// that the edits are all that differs between the two programs.
func (a app) adoptAndBuild(pkg, name string, edits ...[3]string) (builds, error) {
	if err := a.adopt(); err != nil {
		return builds{}, err
	}
	originals := map[string][]byte{}
	for _, e := range edits {
		if _, ok := originals[e[0]]; !ok {
			b, err := os.ReadFile(filepath.Join(a.dir, e[0]))
			if err != nil {
				return builds{}, err
			}
			originals[e[0]] = b
		}
		if err := a.edit(e[0], e[1], e[2]); err != nil {
			return builds{}, err
		}
	}
	wrapped, err := a.build(pkg, name)
	if err != nil {
		return builds{}, err
	}
	edited := map[string][]byte{}
	for file, b := range originals {
		p := filepath.Join(a.dir, file)
		if edited[file], err = os.ReadFile(p); err != nil {
			return builds{}, err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return builds{}, err
		}
	}
	bare, err := a.build(pkg, name+"-bare")
	for file, b := range edited {
		err = errors.Join(err, os.WriteFile(filepath.Join(a.dir, file), b, 0o644))
	}
	return builds{app: a, bare: bare, wrapped: wrapped}, err
}

// edit replaces old with new in the app's file, exactly once: the line an
// adopter changes. It fails when old is not there, as when a new version of
// the app has moved it.
func (a app) edit(file, old, new string) error {
	p := filepath.Join(a.dir, file)
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if n := bytes.Count(b, []byte(old)); n != 1 {
		return fmt.Errorf("%s holds %q %d times, want once", file, old, n)
	}
	return os.WriteFile(p, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644)
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(text)
	return err
}

// builds are an app's two programs, as published and wrapped.
type builds struct {
	app           app
	bare, wrapped string
}

// once prepares an app's builds the first time a test asks for them; every
// later test gets the same, or the same reason to skip or fail.
type once struct {
	sync.Once
	b   builds
	err error
}

func (o *once) get(t *testing.T, prepare func() (builds, error)) builds {
	t.Helper()
	o.Do(func() { o.b, o.err = prepare() })
	switch {
	case errors.Is(o.err, errUnreachable):
		t.Skipf("skipping: %v", o.err)
	case o.err != nil:
		t.Fatal(o.err)
	}
	return o.b
}

// ownTests runs the own tests of pkg of the app called name, plainly and
// with CLAUDECODE=1 set — as a coding agent runs an adopter's tests — as
// subtests named variant/env=…: each must pass, at least floor of them. via
// names how the tests reach the app, for messages.
func (a app) ownTests(t *testing.T, name, variant, pkg, via string, floor int) {
	t.Helper()
	for _, env := range []string{"", "CLAUDECODE=1"} {
		t.Run(variant+"/env="+env, func(t *testing.T) {
			t.Setenv("CLAUDECODE", "1") // restored when the test ends
			if env == "" {
				os.Unsetenv("CLAUDECODE")
			}
			out, err := a.goCmd("test", "-count=1", "-v", pkg)
			passed, failed := strings.Count(string(out), "--- PASS"), strings.Count(string(out), "--- FAIL")
			if err != nil || failed > 0 || passed < floor || !strings.Contains(string(out), "\nok ") {
				t.Fatalf("%s's own tests through %s (%s, %s): %d passed, %d failed (%v):\n%s", name, via, variant, env, passed, failed, err, out)
			}
			t.Logf("%s's own tests pass through %s (%s, %s): %d", name, via, variant, env, passed)
		})
	}
}
