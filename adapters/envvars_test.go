package adapters_test

import (
	"strings"
	"testing"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
)

// TestWithInstall: AGENTS.md says how to install the tool with the
// command WithInstall gives; a test binary, whose build names no main
// package, says nothing of installing without it.
func TestWithInstall(t *testing.T) {
	h := &harness{}
	const install = "go install example.com/app@v1.2.3"
	md := run{opts: []urfave.Option{adapters.WithInstall(install)}}.do(t, h, "describe", "--agents-md", "--format", "text").stdout
	if !strings.Contains(md, install) {
		t.Errorf("AGENTS.md does not give %q:\n%s", install, md)
	}
	if md := (run{}).do(t, h, "describe", "--agents-md", "--format", "text").stdout; strings.Contains(md, "go install") {
		t.Errorf("AGENTS.md of a test binary gives an install command:\n%s", md)
	}
}

// TestWithEnvVar holds O-043's Environment Variables section to what the app
// declares it reads itself: AGENTS.md lists each declared variable with its
// type and description, the root's --help names it (which duet-check
// agents-md requires of every variable AGENTS.md lists), and a declaration
// AGENTS.md could not list fails Wrap.
func TestWithEnvVar(t *testing.T) {
	h := &harness{}
	declared := run{opts: []urfave.Option{
		adapters.WithEnvVar("APP_TOKEN", "string", "the API token the app calls its service with"),
		adapters.WithEnvVar("APP_RETRIES", "integer", "how often a failed request is retried"),
	}}
	md := declared.do(t, h, "describe", "--agents-md", "--format", "text").stdout
	_, env, _ := strings.Cut(md, "## Environment Variables\n")
	env, _, _ = strings.Cut(env, "\n## ")
	for _, want := range []string{
		"- `APP_TOKEN` (string, optional): the API token the app calls its service with\n",
		"- `APP_RETRIES` (integer, optional): how often a failed request is retried\n",
	} {
		if !strings.Contains(env, want) {
			t.Errorf("AGENTS.md's Environment Variables section lacks %q:\n%s", want, env)
		}
	}
	r := declared.do(t, h, "--help")
	help := r.stdout + r.stderr
	for _, want := range []string{"APP_TOKEN (string): the API token", "APP_RETRIES (integer): how often"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help does not name %q:\n%s", want, help)
		}
	}
	if r := (run{}).do(t, h, "--help"); strings.Contains(r.stdout+r.stderr, "Environment variables it reads") {
		t.Errorf("--help of an app that declares no variable lists some:\n%s", r.stdout+r.stderr)
	}

	for _, bad := range [][3]string{{"app_token", "string", "lower case"}, {"APP_TOKEN", "", "no type"}, {"APP-TOKEN", "string", "a hyphen"}} {
		if _, err := urfave.Wrap(newApp(h),
			adapters.WithEnvVar(bad[0], bad[1], bad[2])); err == nil || !strings.Contains(err.Error(), "WithEnvVar") {
			t.Errorf("WithEnvVar(%q, %q, %q): Wrap error %v, want one naming WithEnvVar", bad[0], bad[1], bad[2], err)
		}
	}
}
