package version_test

import (
	"fmt"
	"testing"

	"github.com/duet-cli/duet/internal/version"
)

func TestCompare(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"1.10.0", "1.9.0", 1},
		{"1.2", "1.2.0", 0},
		{"v2.0.0", "2.0.0", 0},
		{"1.2.0-rc1", "1.2.0", 0},
		{"0.9", "1.0", -1},
		{"x", "0.0.1", -1},
	} {
		if got := version.Compare(tt.a, tt.b); got != tt.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestValid(t *testing.T) {
	for s, want := range map[string]bool{"1.2.3": true, "v1": true, "1.2.3-beta+7": true, "": false, "v": false, "1.x": false, "soon": false} {
		if got := version.Valid(s); got != want {
			t.Errorf("Valid(%q) = %v, want %v", s, got, want)
		}
	}
}

func ExampleCompare() {
	fmt.Println(version.Compare("1.10.0", "1.9.2"), version.Compare("1.2", "v1.2.0"))
	// Output: 1 0
}
