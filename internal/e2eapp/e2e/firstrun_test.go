//go:build linux

package e2e

import (
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ---------------------------------------------------------------------------
// REQ-F-076 Implicit state initialization.

// shape is the set of key paths of a decoded JSON value: what an agent's
// parser depends on, without the values (ids, times) that differ per call.
func shape(v any) []string {
	var paths []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				paths = append(paths, prefix+k)
				walk(prefix+k+".", e)
			}
		case []any:
			for _, e := range v {
				walk(prefix+"[].", e)
			}
		}
	}
	walk("", v)
	slices.Sort(paths)
	return slices.Compact(paths)
}

// TestF076FirstRunLikeAnyOther: REQ-F-076 criteria 1, 2 and 5. In a clean
// environment — an empty HOME, no XDG directories, nothing run before —
// the first call of each command answers with the same exit code and the
// same keys as its 100th, with no INIT_REQUIRED and no `init` to run first;
// and the safe commands, which declare no file they write, create nothing
// under HOME (Duet makes no state directory of its own unasked). e2eapp has
// no `init`, so criteria 3 and 4 (an init's idempotence and its failure)
// do not apply to it.
func TestF076FirstRunLikeAnyOther(t *testing.T) {
	t.Parallel()
	calls := [][]string{{"status"}, {"lookup", "region"}, {"lookup", "no-such-key"}, {"manifest"}, {"scale", "--env", "qa", "--replicas", "3"}}
	sb := newSandbox(t)
	type answer struct {
		code int
		keys []string
	}
	first := map[string]answer{}
	for _, args := range calls {
		r := sb.run(t, args...)
		env := expect(t, strings.Join(args, " "), r, r.code)
		if get(env, "error.code") == "INIT_REQUIRED" {
			t.Errorf("%v: INIT_REQUIRED on a first run", args)
		}
		first[strings.Join(args, " ")] = answer{r.code, shape(env)}
	}
	home := sb.path("home")
	var created []string
	filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err == nil && path != home {
			created = append(created, strings.TrimPrefix(path, home))
		}
		return nil
	})
	sort.Strings(created)
	if len(created) > 0 {
		t.Errorf("the first calls of safe commands (and a refused scale) created under HOME: %v", created)
	}
	for range 98 {
		sb.run(t, "status")
	}
	for _, args := range calls {
		r := sb.run(t, args...)
		env := expect(t, strings.Join(args, " "), r, r.code)
		was := first[strings.Join(args, " ")]
		if r.code != was.code {
			t.Errorf("%v: exit %d on a later call, %d on the first", args, r.code, was.code)
		}
		if diff := cmp.Diff(was.keys, shape(env)); diff != "" {
			t.Errorf("%v: keys of a later answer (-first +later):\n%s", args, diff)
		}
	}
}
