package walk_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/walk"
)

// tree makes files (names ending in /), directories and symlinks
// ("link -> target", the target relative to the link's directory) under a
// fresh directory, and returns its absolute, symlink-free path.
func tree(t *testing.T, spec ...string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range spec {
		name, target, link := strings.Cut(s, " -> ")
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		switch {
		case link:
			err = os.Symlink(target, p)
		case strings.HasSuffix(s, "/"):
			err = os.MkdirAll(p, 0o755)
		default:
			err = os.WriteFile(p, []byte(s), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return root
}

type seen struct {
	Rel   string
	Depth int
	Dir   bool
	Link  bool
}

// walkAll walks root with o and returns what was visited, relative to root.
func walkAll(t *testing.T, root string, o walk.Options) ([]seen, walk.Stats, error) {
	t.Helper()
	var got []seen
	stats, err := walk.Walk(walk.WithOptions(context.Background(), o), root, func(e walk.Entry) error {
		rel, _ := filepath.Rel(root, e.Path)
		got = append(got, seen{filepath.ToSlash(rel), e.Depth, e.IsDir(), e.Link})
		return nil
	})
	return got, stats, err
}

func TestWalkWholeTree(t *testing.T) {
	root := tree(t, "a/b/c/d/file", "a/x", "top", "empty/", "a/b/link -> ../x")
	got, stats, err := walkAll(t, root, walk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []seen{
		{".", 0, true, false},
		{"a", 1, true, false},
		{"a/b", 2, true, false},
		{"a/b/c", 3, true, false},
		{"a/b/c/d", 4, true, false},
		{"a/b/c/d/file", 5, false, false},
		{"a/b/link", 3, false, true}, // followed: it leads to a file
		{"a/x", 2, false, false},
		{"empty", 1, true, false},
		{"top", 1, false, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("visited (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(walk.Stats{Visited: len(want)}, stats); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
}

// wantWalkError checks that err is the *envelope.Error of code, exit 4 in
// the execution phase, with the fields it names.
func wantWalkError(t *testing.T, err error, code string, want envelope.Error) {
	t.Helper()
	var e *envelope.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want an *envelope.Error", err)
	}
	got := envelope.Error{Code: e.Code, Exit: e.Exit, Phase: e.Phase, Path: e.Path, LoopTarget: e.LoopTarget,
		CompletedCount: e.CompletedCount, MaxDepth: e.MaxDepth, Hint: e.Hint}
	want.Code, want.Exit, want.Phase = code, exitcode.Precondition, envelope.Execution
	if diff := cmp.Diff(&want, &got, cmp.AllowUnexported(envelope.Error{})); diff != "" {
		t.Errorf("error (-want +got):\n%s\nmessage: %s", diff, e.Message)
	}
}

func intp(n int) *int { return &n }

func TestWalkSymlinkLoop(t *testing.T) {
	tests := []struct {
		name       string
		spec       []string
		path, loop string // relative to the root
		completed  int
	}{
		{"a link to its own directory", []string{"f", "self -> ."}, "self", ".", 2},
		{"a to b to a", []string{"a/link_to_b -> ../b", "b/link_to_a -> ../a"}, "a/link_to_b/link_to_a", "a", 3},
		{"a link to the root, deep down", []string{"x/y/z/up -> ../../.."}, "x/y/z/up", ".", 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := tree(t, tc.spec...)
			_, stats, err := walkAll(t, root, walk.Options{})
			if !errors.Is(err, walk.ErrSymlinkLoop) {
				t.Fatalf("err = %v, want ErrSymlinkLoop", err)
			}
			wantWalkError(t, err, "SYMLINK_LOOP", envelope.Error{
				Path: filepath.Join(root, tc.path), LoopTarget: filepath.Join(root, tc.loop),
				CompletedCount: intp(tc.completed), Hint: "pass --no-follow-symlinks to skip symlinks"})
			if stats.Visited != tc.completed {
				t.Errorf("visited %d, want %d", stats.Visited, tc.completed)
			}
		})
	}
}

// With NoFollow, the same loops are links like any other: the walk ends
// normally and says how many it did not follow.
func TestWalkNoFollow(t *testing.T) {
	root := tree(t, "a/link_to_b -> ../b", "b/link_to_a -> ../a", "b/f", "self -> .")
	got, stats, err := walkAll(t, root, walk.Options{NoFollow: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []seen{
		{".", 0, true, false},
		{"a", 1, true, false},
		{"a/link_to_b", 2, false, true},
		{"b", 1, true, false},
		{"b/f", 2, false, false},
		{"b/link_to_a", 2, false, true},
		{"self", 1, false, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("visited (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(walk.Stats{Visited: 7, SymlinksSkipped: 3}, stats); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
}

func TestWalkMaxDepth(t *testing.T) {
	root := tree(t, "1/2/3/4/5/f")
	tests := []struct {
		max     int
		tooDeep string // relative; "" when the walk ends normally
		visited int
	}{
		{3, "1/2/3/4", 4},
		{4, "1/2/3/4/5", 5},
		{5, "1/2/3/4/5/f", 6},
		{6, "", 7},
		{0, "", 7}, // the default, 50
	}
	for _, tc := range tests {
		_, stats, err := walkAll(t, root, walk.Options{MaxDepth: tc.max})
		if tc.tooDeep == "" {
			if err != nil {
				t.Errorf("max %d: %v", tc.max, err)
			}
		} else {
			if !errors.Is(err, walk.ErrDepthExceeded) {
				t.Fatalf("max %d: err = %v, want ErrDepthExceeded", tc.max, err)
			}
			wantWalkError(t, err, "DEPTH_EXCEEDED", envelope.Error{Path: filepath.Join(root, tc.tooDeep), MaxDepth: tc.max,
				CompletedCount: intp(tc.visited), Hint: "Use --max-depth to adjust the limit"})
		}
		if stats.Visited != tc.visited {
			t.Errorf("max %d: visited %d, want %d", tc.max, stats.Visited, tc.visited)
		}
	}
	// The default is 50 levels.
	deep := tree(t, strings.Repeat("d/", 51)+"f")
	if _, _, err := walkAll(t, deep, walk.Options{}); !errors.Is(err, walk.ErrDepthExceeded) {
		t.Errorf("52 levels with the default: err = %v, want ErrDepthExceeded", err)
	}
}

// Two links to one directory are no loop: it is walked once.
func TestWalkRevisit(t *testing.T) {
	root := tree(t, "shared/f", "l1 -> shared", "l2 -> shared")
	got, stats, err := walkAll(t, root, walk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []seen{{".", 0, true, false}, {"l1", 1, true, true}, {"l1/f", 2, false, false}, {"l2", 1, true, true}, {"shared", 1, true, false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("visited (-want +got):\n%s", diff)
	}
	if stats.Revisited != 2 {
		t.Errorf("revisited %d, want 2 (l2 and shared)", stats.Revisited)
	}
}

func TestWalkSkipAndStop(t *testing.T) {
	root := tree(t, "a/f", "b/f", "c/f")
	ctx := context.Background()
	var got []string
	_, err := walk.Walk(ctx, root, func(e walk.Entry) error {
		rel, _ := filepath.Rel(root, e.Path)
		got = append(got, rel)
		switch rel {
		case "a":
			return walk.SkipDir
		case "b/f":
			return walk.SkipAll
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{".", "a", "b", "b/f"}, got); diff != "" {
		t.Errorf("visited (-want +got):\n%s", diff)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := walk.Walk(cancelled, root, func(walk.Entry) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled walk: err = %v", err)
	}
	boom := errors.New("boom")
	if _, err := walk.Walk(ctx, root, func(walk.Entry) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("visit's error: err = %v", err)
	}
	if _, err := walk.Walk(ctx, filepath.Join(root, "missing"), func(walk.Entry) error { return nil }); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing root: err = %v", err)
	}
}

func TestOptionsFrom(t *testing.T) {
	if got := walk.OptionsFrom(context.Background()); got != (walk.Options{MaxDepth: walk.DefaultMaxDepth}) {
		t.Errorf("defaults = %+v", got)
	}
	ctx := walk.WithOptions(context.Background(), walk.Options{MaxDepth: 3, NoFollow: true})
	if got := walk.OptionsFrom(ctx); got != (walk.Options{MaxDepth: 3, NoFollow: true}) {
		t.Errorf("set = %+v", got)
	}
}
