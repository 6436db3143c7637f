package adapters_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestStartCostDeps: what every wrapped app links stays small, because an
// app nobody ported pays for it at every start (bench/adopt.sh). Package net
// makes a cgo build link libc dynamically; a tokenizer's vocabulary is
// megabytes. Both are for apps that ask for them (nethttp, tokens/tiktoken).
func TestStartCostDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./urfave", "./cobra").Output()
	if err != nil {
		t.Fatal(err)
	}
	deps := strings.Fields(string(out))
	for _, banned := range []string{"net", "net/http", "runtime/cgo", "os/user", "github.com/tiktoken-go/tokenizer", "golang.org/x/tools/go/analysis"} {
		if slices.Contains(deps, banned) {
			t.Errorf("the adapters link %s", banned)
		}
	}
}
