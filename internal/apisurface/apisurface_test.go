package apisurface_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/internal/apisurface"
)

// TestCount prints the module's exported identifiers, by package, with -v.
func TestCount(t *testing.T) {
	pkgs, err := apisurface.Count(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, p := range pkgs {
		total += len(p.Names)
		t.Logf("%4d %s", len(p.Names), p.Dir)
	}
	t.Logf("%4d exported identifiers in %d packages (issue 21's target: 200)", total, len(pkgs))
	if total == 0 {
		t.Fatal("counted nothing: the walk missed the module")
	}
}

// TestCountStd holds the count to packages whose surface is known, the
// models issue 21 names: log/slog has 142 identifiers, net/http/httptest 21.
func TestCountStd(t *testing.T) {
	for dir, want := range map[string]int{"log/slog": 142, "net/http/httptest": 21} {
		pkgs, err := apisurface.Count(filepath.Join(runtime.GOROOT(), "src", filepath.FromSlash(dir)))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, p := range pkgs {
			got[p.Dir] = len(p.Names)
		}
		if diff := cmp.Diff(map[string]int{".": want}, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", dir, diff)
		}
	}
}
