package adapters

import (
	"regexp"
	"testing"
)

func TestIsDispatchCmd(t *testing.T) {
	spec := regexp.MustCompile(`^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)*$`)
	for _, cmd := range []string{"", "list", "run.spawn", "run.", ".run", "a-1.b-2", "Run", "1a", "a..b", "a.b.c", "a_b", "a b", "ü"} {
		if got, want := isDispatchCmd(cmd), spec.MatchString(cmd); got != want {
			t.Errorf("isDispatchCmd(%q) = %v, want %v", cmd, got, want)
		}
	}
}
