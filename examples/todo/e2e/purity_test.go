//go:build linux

package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestE2EHelpPurity holds help and version to F-068: --help, -h, a
// command's --help, a group's bare name and the bare tool exit 0 with help,
// and --version and -V with the version, even where the command itself
// fails (its store cannot be opened); none of them creates or writes a
// file anywhere — HOME, XDG_DATA_HOME, TMPDIR, the store's directory, the
// audit log included; and 1000 --help calls in parallel all exit 0 with
// the same help, and still write nothing.
func TestE2EHelpPurity(t *testing.T) { onEach(t, testHelpPurity) }

func testHelpPurity(t *testing.T, bin string) {
	sb := newSandbox(t, bin)
	blocker := filepath.Join(sb.dir, "blocker")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(sb.dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	env := append(slices.Clone(sb.env), "TMPDIR="+tmp, "TODO_FILE="+filepath.Join(blocker, "todo.json"))
	before := tree(t, sb.dir)
	if r := run(t, bin, env, "list"); r.code == 0 {
		t.Fatalf("todo list with an unusable store: exit 0, want a failure\n%s", r.stdout)
	}
	_ = os.RemoveAll(filepath.Join(sb.dir, "data")) // the failed list's audit log: not what is under test
	for _, args := range [][]string{{"--help"}, {"-h"}, {"list", "--help"}, {"add", "-h"}, {"job"}, {}, {"--version"}, {"-V"}} {
		r := run(t, bin, env, args...)
		if r.code != 0 || strings.TrimSpace(r.stdout+r.stderr) == "" {
			t.Errorf("todo %q: exit %d, output %q; want 0 and help or the version", args, r.code, r.stdout+r.stderr)
		}
		if after := tree(t, sb.dir); !slices.Equal(before, after) {
			t.Errorf("todo %q wrote files: before %q, after %q", args, before, after)
		}
	}

	const calls, workers = 1000, 16
	first := run(t, bin, env, "list", "--help")
	help := helpText(first)
	var wg sync.WaitGroup
	var mu sync.Mutex
	failures := map[string]int{}
	next := make(chan struct{})
	for range workers {
		wg.Go(func() {
			for range next {
				r := run(t, bin, env, "list", "--help")
				if r.code != 0 || helpText(r) != help {
					mu.Lock()
					failures[r.stderr]++
					mu.Unlock()
				}
			}
		})
	}
	for range calls {
		next <- struct{}{}
	}
	close(next)
	wg.Wait()
	if len(failures) > 0 {
		t.Errorf("of %d parallel --help calls, some failed or differed: %v", calls, failures)
	}
	if after := tree(t, sb.dir); !slices.Equal(before, after) {
		t.Errorf("parallel --help wrote files: before %q, after %q", before, after)
	}
}

// helpText is an invocation's help as an agent gets it: the text on stderr
// (and stdout) without the envelope's volatile meta.
func helpText(r result) string {
	if strings.HasPrefix(r.stdout, "{") {
		return r.stderr
	}
	return r.stdout + r.stderr
}

// tree lists every path under dir, with each file's size.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		paths = append(paths, rel+" "+info.Mode().String()+" "+strconv.FormatInt(info.Size(), 10))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}
