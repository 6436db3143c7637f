package argvfuzz_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/internal/argvfuzz"
)

func TestSeedRoundTrip(t *testing.T) {
	for _, line := range []string{"list --limit 5", "show <id>", "add ü"} {
		got := argvfuzz.Argv(argvfuzz.Seed(line), []string{"x"})
		if diff := cmp.Diff(strings.Fields(line), got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", line, diff)
		}
	}
}

func TestPanicked(t *testing.T) {
	for out, want := range map[string]bool{
		"panic: runtime error: index out of range":      true,
		"goroutine 1 [running]:\nmain.main()":           true,
		`{"ok":false,"error":{"code":"INVALID_INPUT"}}`: false,
		"the goroutine count is 3":                      false,
	} {
		if got := argvfuzz.Panicked(out); got != want {
			t.Errorf("Panicked(%q) = %v, want %v", out, got, want)
		}
	}
}

func ExampleArgv() {
	words := []string{"list", "--limit", "5"}
	fmt.Printf("%q\n", argvfuzz.Argv([]byte{0, 1, 2, 0xe0 + 3, 'a', '\x00', 'b'}, words))
	// Output: ["list" "--limit" "5" "ab"]
}

func TestFault(t *testing.T) {
	for _, tc := range []struct {
		code  int
		outs  []string
		fault bool
	}{
		{0, []string{`{"ok":true}`, ""}, false},
		{14, nil, false},
		{15, nil, true},
		{-1, nil, true},
		{1, []string{"", "panic: boom"}, true},
	} {
		if got := argvfuzz.Fault(tc.code, tc.outs...); (got != "") != tc.fault {
			t.Errorf("Fault(%d, %q) = %q, want a fault %v", tc.code, tc.outs, got, tc.fault)
		}
	}
}
