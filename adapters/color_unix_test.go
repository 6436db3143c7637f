//go:build unix

package adapters_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/duet-cli/duet/adapters/urfave"
)

// colorArgsEnv, set, makes TestNoColorForChildrenOfScripts run processApp
// with urfave.Main in a process of its own, without WithSpecStrict: a pipe
// with no agent marker is then a script, not an agent, so only the
// environment can say colour is off.
const colorArgsEnv = "DUET_TEST_COLOR_ARGS"

// TestNoColorForChildrenOfScripts: where only the environment turns colour
// off — NO_COLOR set even empty, CI, GITHUB_ACTIONS, JENKINS_URL, TERM=dumb —
// and no agent reads, a child a ported command starts inherits NO_COLOR=1
// all the same (REQ-F-008); with none of them, its environment is left as
// it was.
func TestNoColorForChildrenOfScripts(t *testing.T) {
	if args, ok := os.LookupEnv(colorArgsEnv); ok {
		os.Args = append([]string{"app"}, strings.Fields(args)...)
		urfave.Main(processApp())
		return
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to start a child with")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		env  []string
		want string
	}{
		{nil, ""},
		{[]string{"NO_COLOR="}, "1"},
		{[]string{"NO_COLOR=yes"}, "yes"},
		{[]string{"CI=true"}, "1"},
		{[]string{"GITHUB_ACTIONS=true"}, "1"},
		{[]string{"JENKINS_URL=http://jenkins.example/"}, "1"},
		{[]string{"TERM=dumb"}, "1"},
	}
	for _, tt := range tests {
		cmd := exec.Command(exe, "-test.run=^TestNoColorForChildrenOfScripts$")
		cmd.Env = append([]string{colorArgsEnv + "=child-env", "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, tt.env...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("env %q: %v\nstderr: %s", tt.env, err, stderr.String())
		}
		if strings.HasPrefix(stdout.String(), "{") {
			t.Fatalf("env %q: a script got JSON: %s", tt.env, stdout.String())
		}
		got := ""
		for _, line := range strings.Split(stdout.String(), "\n") {
			if f := strings.Fields(line); len(f) == 2 && strings.Trim(f[0], ":") == "no_color" {
				got = f[1]
			}
		}
		if got != tt.want {
			t.Errorf("env %q: the child's NO_COLOR is %q, want %q\nstdout: %s", tt.env, got, tt.want, stdout.String())
		}
	}
}
