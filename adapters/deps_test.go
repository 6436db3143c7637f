package adapters_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestStartCostDeps: what every wrapped app links stays small, because an
// app nobody ported pays for it at every start (bench/adopt.sh). Package net
// makes a cgo build link libc dynamically; crypto starts its FIPS self-checks;
// a tokenizer's vocabulary is megabytes. They are for apps that ask for them
// (nethttp, tokens/tiktoken).
func TestStartCostDeps(t *testing.T) {
	for adapter, banned := range map[string][]string{
		// cobra's pflag links net itself: an app built on it pays that anyway.
		"./urfave": {"net", "net/http", "runtime/cgo", "os/user", "crypto/rand", "crypto/sha256", "math/big", "github.com/tiktoken-go/tokenizer", "golang.org/x/tools/go/analysis"},
		"./cobra":  {"net/http", "os/user", "crypto/rand", "crypto/sha256", "math/big", "github.com/tiktoken-go/tokenizer", "golang.org/x/tools/go/analysis"},
	} {
		out, err := exec.Command("go", "list", "-deps", adapter).Output()
		if err != nil {
			t.Fatal(err)
		}
		deps := strings.Fields(string(out))
		for _, b := range banned {
			if slices.Contains(deps, b) {
				t.Errorf("%s links %s", adapter, b)
			}
		}
	}
}
