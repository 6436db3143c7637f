//go:build unix

package adapters_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSignalWhileWrapping: a SIGTERM that comes while Main is still wrapping
// the app is held for the run. A run Duet answers answers it as CANCELLED
// with exit 143, one envelope for an agent; a command nobody ported, run
// for a script, dies of it as the app would without Duet (issue 34: a
// signal in the first milliseconds killed every run with no answer).
func TestSignalWhileWrapping(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "slowwrap")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/slowwrap").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		name     string
		args     []string
		env      []string
		exit     int  // when answered
		killed   bool // dies of the signal instead
		envelope bool
	}{
		{name: "agent", args: []string{"wait"}, env: []string{"CLAUDECODE=1"}, exit: 143, envelope: true},
		{name: "ported, for a script", args: []string{"ported"}, exit: 143},
		{name: "unported, for a script", args: []string{"wait"}, killed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Env = append(os.Environ(), tc.env...)
			stdin, _ := cmd.StdinPipe()
			stderr, _ := cmd.StderrPipe()
			var stdout []byte
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(stderr).ReadString('\n')
			if line != "wrapping\n" {
				t.Fatalf("stderr %q, want wrapping", line)
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			stdin.Write([]byte("go on\n"))
			stdin.Close()
			buf := make([]byte, 1<<16)
			for {
				n, err := out.Read(buf)
				stdout = append(stdout, buf[:n]...)
				if err != nil {
					break
				}
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatal(err)
			}
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if tc.killed {
				if !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
					t.Errorf("status %v, want killed by SIGTERM as without Duet; stdout %q", cmd.ProcessState, stdout)
				}
				return
			}
			if ws.Signaled() || cmd.ProcessState.ExitCode() != tc.exit {
				t.Errorf("status %v, want exit %d; stdout %q", cmd.ProcessState, tc.exit, stdout)
			}
			if tc.envelope {
				var env struct {
					OK    bool `json:"ok"`
					Error struct {
						Code string `json:"code"`
					} `json:"error"`
				}
				if err := json.Unmarshal(stdout, &env); err != nil || env.OK || env.Error.Code != "CANCELLED" {
					t.Errorf("stdout %q (%v), want one envelope with CANCELLED", stdout, err)
				}
			}
		})
	}
}
