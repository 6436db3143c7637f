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

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// TestE2EInstallCommand holds AGENTS.md's ## Installation to O-044: it
// documents a go install and a verify line. The install line is run as it
// is written, by a shell, with stdin closed (/dev/null) and no terminal:
// the module it names is served from this checkout by a file proxy (as
// the module proxy would serve a release of it), its dependencies from
// the module cache, so nothing reaches the network. It exits 0, and again
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
	install := regexp.MustCompile("(?m)^(go install (\\S+)@(\\S+)) .*non-interactive, idempotent$").FindStringSubmatch(section)
	verify := regexp.MustCompile(`(?m)^todo --version +# verify`).FindString(section)
	if install == nil || verify == "" {
		t.Fatalf("## Installation lacks the install or the verify line:\n%s", section)
	}
	proxy := moduleProxy(t)
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	gobin := filepath.Join(sb.dir, "bin")
	for i := range 2 {
		cmd := exec.Command("sh", "-c", install[1])
		cmd.Dir = t.TempDir() // outside any module
		cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOFLAGS=-modcacherw", "GOSUMDB=off", "GOTOOLCHAIN=local",
			"GOMODCACHE="+filepath.Join(sb.dir, "modcache"),
			"GOPROXY=file://"+proxy+",file://"+filepath.Join(strings.TrimSpace(string(modcache)), "cache", "download"),
			"CI=true")
		cmd.Stdin = nil // /dev/null
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("install %d, %q: %v\n%s", i+1, install[1], err, out.String())
		}
	}
	r := run(t, filepath.Join(gobin, "todo"), sb.env, "--version")
	if r.code != 0 || !regexp.MustCompile(`^todo [0-9]+\.[0-9]+\.[0-9]+\n$`).MatchString(r.stdout) {
		t.Errorf("verify: exit %d, %q; want 0 and \"todo X.Y.Z\"", r.code, r.stdout)
	}
}

// moduleProxy serves this checkout's HEAD as a release of its modules — the
// library and the examples, tagged together at the version of the library
// the examples require — in the module proxy's layout (GOPROXY=file://…),
// and returns its directory.
func moduleProxy(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	// From the committed tree: what a release would hold, whatever other
	// tests write into the working tree meanwhile.
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git to take the modules' committed tree from")
	}
	version := requiredLibrary(t, root)
	proxy := t.TempDir()
	for _, sub := range []string{"", "examples"} {
		release(t, proxy, root, sub, version)
	}
	return proxy
}

// release adds the module in the checkout's directory sub, at HEAD, to
// proxy as version.
func release(t *testing.T, proxy, root, sub, version string) {
	t.Helper()
	gomod, err := exec.Command("git", "-C", root, "show", "HEAD:"+filepath.ToSlash(filepath.Join(sub, "go.mod"))).Output()
	if err != nil {
		t.Skipf("the checkout is no git repository to release from: %v", err)
	}
	path := modfile.ModulePath(gomod)
	dir := filepath.Join(proxy, path, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	z, err := os.Create(filepath.Join(dir, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if err := modzip.CreateFromVCS(z, module.Version{Path: path, Version: version}, root, "HEAD", sub); err != nil {
		t.Skipf("the checkout is no git repository to release from: %v", err) // a worktree's .git is a file x/mod does not read
	}
	for name, text := range map[string]string{
		"list":            version + "\n",
		version + ".info": `{"Version":"` + version + `","Time":"2026-01-01T00:00:00Z"}`,
		version + ".mod":  string(gomod),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// requiredLibrary is the version of the library examples/go.mod requires at
// HEAD: the release the examples' own is made with.
func requiredLibrary(t *testing.T, root string) string {
	t.Helper()
	raw, err := exec.Command("git", "-C", root, "show", "HEAD:examples/go.mod").Output()
	if err != nil {
		t.Skipf("the checkout is no git repository to release from: %v", err)
	}
	f, err := modfile.ParseLax("examples/go.mod", raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	library := strings.TrimSuffix(f.Module.Mod.Path, "/examples")
	for _, r := range f.Require {
		if r.Mod.Path == library {
			return r.Mod.Version
		}
	}
	t.Fatalf("examples/go.mod requires no %s", library)
	return ""
}
