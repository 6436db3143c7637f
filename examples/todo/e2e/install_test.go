//go:build linux

package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestE2EInstallCommand holds AGENTS.md's ## Installation to O-044: it
// documents a go install and a verify line; the install, run with stdin
// closed (/dev/null), no network (GOPROXY=off: the module is this
// checkout, so @version is dropped) and no terminal, exits 0, and again
// on the installed binary; the verify line's command then exits 0 and
// prints a parseable version.
func TestE2EInstallCommand(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t, binaries[0].path)
	doc := sb.run(t, "describe", "--agents-md").stdout
	_, section, ok := strings.Cut(doc, "## Installation\n")
	if !ok {
		t.Fatalf("AGENTS.md has no ## Installation:\n%s", doc)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	install := regexp.MustCompile("(?m)^go install (\\S+)@\\S+ .*non-interactive, idempotent$").FindStringSubmatch(section)
	verify := regexp.MustCompile(`(?m)^todo --version +# verify`).FindString(section)
	if install == nil || verify == "" {
		t.Fatalf("## Installation lacks the install or the verify line:\n%s", section)
	}
	gobin := filepath.Join(sb.dir, "bin")
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		cmd := exec.Command("go", "install", install[1])
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOPROXY=off", "GOFLAGS=-mod=mod", "CI=true")
		cmd.Stdin = nil // /dev/null
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("install %d: %v\n%s", i+1, err, out.String())
		}
	}
	r := run(t, filepath.Join(gobin, "todo"), sb.env, "--version")
	if r.code != 0 || !regexp.MustCompile(`^todo [0-9]+\.[0-9]+\.[0-9]+\n$`).MatchString(r.stdout) {
		t.Errorf("verify: exit %d, %q; want 0 and \"todo X.Y.Z\"", r.code, r.stdout)
	}
}
