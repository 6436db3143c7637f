// Package harnesstest puts the fake harness CLIs (cmd/fakeharness) on a
// test's PATH, as httptest puts a server on a port:
//
//	bin := harnesstest.Install(t)
//	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
//	t.Setenv("FAKE_HARNESS_RECORD", recDir) // optional: what each call got
//	... run Meridian, which starts "claude", "codex", ...
//	calls := harnesstest.Records(t, recDir)
//
// The fake is built once per test process. Its build directory is deleted
// as soon as the binary is opened, so nothing is left behind however the
// process ends; each Install copies the open binary into the test's own
// temporary directory.
package harnesstest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// names are the programs Install provides, one per harness.
func names() []string { return []string{"claude", "codex", "opencode", "gemini"} }

const fakePackage = "github.com/duet-cli/duet/examples/meridian/cmd/fakeharness"

// built is the fake harness binary, built once per process: an open file
// whose directory is already gone.
var built = sync.OnceValues(build)

func build() (*os.File, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	dir, err := os.MkdirTemp("", "fakeharness-build-")
	if err != nil {
		return nil, fmt.Errorf("build fake harness: %w", err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "fakeharness")
	//duetvet:allow rawexec -- a build step of the tests
	cmd := exec.Command(goTool, "build", "-o", bin, fakePackage)
	cmd.Dir = sourceDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build fake harness: %w\n%s", err, out)
	}
	f, err := os.Open(bin)
	if err != nil {
		return nil, fmt.Errorf("build fake harness: %w", err)
	}
	return f, nil
}

// sourceDir is this package's directory, inside the module the fake is in.
func sourceDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "."
	}
	return filepath.Dir(file)
}

// Install builds the fake harness (once per test process) and returns a
// directory, removed with the test, holding it as claude, codex, opencode
// and gemini; put it first on PATH.
func Install(t testing.TB) (binDir string) {
	t.Helper()
	src, err := built()
	if err != nil {
		t.Fatal(err)
	}
	binDir = filepath.Join(t.TempDir(), "bin")
	if err := os.Mkdir(binDir, 0o755); err != nil {
		t.Fatal(err)
	}
	all := names()
	first := filepath.Join(binDir, all[0])
	if err := copyFile(first, src); err != nil {
		t.Fatalf("install fake harness: %v", err)
	}
	for _, n := range all[1:] {
		if err := os.Link(first, filepath.Join(binDir, n)); err != nil {
			if err := copyFile(filepath.Join(binDir, n), src); err != nil {
				t.Fatalf("install fake harness: %v", err)
			}
		}
	}
	return binDir
}

func copyFile(dst string, src *os.File) error {
	st, err := src.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, io.NewSectionReader(src, 0, st.Size()))
	return errors.Join(err, out.Close())
}

// Record is one call of a fake harness, as it wrote it under
// $FAKE_HARNESS_RECORD.
type Record struct {
	Harness  string            `json:"harness"`
	Argv     []string          `json:"argv"`
	Stdin    string            `json:"stdin"`
	Cwd      string            `json:"cwd"`
	Env      map[string]string `json:"env"`       // the MERIDIAN_* variables it saw
	PID      int               `json:"pid"`       // its process id
	PGID     int               `json:"pgid"`      // its process group
	ChildPID int               `json:"child_pid"` // the child it started in hang mode, else 0
	Mode     string            `json:"mode"`      // the mode it ran ("" when it refused its argv)
	Time     time.Time         `json:"time"`      // when it started
}

// Records reads the calls recorded in dir, oldest first.
func Records(t testing.TB, dir string) []Record {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("read fake harness records: %v", err)
	}
	var recs []Record
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatalf("read fake harness record: %v", err)
		}
		var r Record
		if err := json.NewDecoder(bytes.NewReader(b)).Decode(&r); err != nil {
			t.Fatalf("fake harness record %s: %v", e.Name(), err)
		}
		recs = append(recs, r)
	}
	slices.SortStableFunc(recs, func(a, b Record) int { return a.Time.Compare(b.Time) })
	return recs
}
