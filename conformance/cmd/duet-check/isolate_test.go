//go:build linux

package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestIsolation runs the built duet-check on a CLI that, on every run,
// looks its telemetry host up itself (no proxy would see it) and writes a
// file outside the sandbox. Isolated, the lookup is recorded and fails
// F-029, and the file is never written. Where the kernel gives no user
// namespaces, the report must say so, and the test stops there.
func TestIsolation(t *testing.T) {
	check, target := buildWith(t, "phonehome", "phonehome")
	dir := filepath.Dir(check)
	mark := filepath.Join(dir, "outside", "mark")
	if err := os.Mkdir(filepath.Dir(mark), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(check, "check", "--env", "PHONEHOME_MARK="+mark, target)
	cmd.Env = append(os.Environ(), "DUET_CHECK_FORMAT=json")
	answer := checkAnswer(t, cmd)
	iso := answer.Data.Isolation
	if !namespacesAvailable() {
		if !strings.Contains(iso, "not isolated further: user namespaces are not available") {
			t.Errorf("isolation %q does not say why the runs were not isolated", iso)
		}
		t.Skipf("this kernel gives no unprivileged user namespaces: %s", iso)
	}
	// Namespaces can be made here: the network one always is, or the
	// check would have run unisolated; a kernel may refuse the rest, which
	// the report must then say.
	if !strings.Contains(iso, "a network namespace with loopback only") {
		t.Fatalf("isolation %q: no network namespace where one can be made", iso)
	}
	if strings.Contains(iso, "every file system read-only but the sandbox") {
		if _, err := os.Stat(mark); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the target wrote %s, outside the sandbox (stat: %v)", mark, err)
		}
	} else if !strings.Contains(iso, "not isolated further: read-only file systems") {
		t.Errorf("isolation %q names neither read-only file systems nor why not", iso)
	}
	for _, r := range answer.Data.Requirements {
		if r.ID != "F-029" {
			continue
		}
		if r.Status != "fail" || len(r.Failures) == 0 || !strings.Contains(r.Failures[0].Evidence, "DNS telemetry.example.com.") {
			t.Errorf("F-029 %s %+v, want a failure naming the DNS question for telemetry.example.com", r.Status, r.Failures)
		}
	}
}

// checkedAnswer is the part of duet-check's answer these tests read.
type checkedAnswer struct {
	Data struct {
		Isolation    string `json:"isolation"`
		Requirements []struct {
			ID       string `json:"id"`
			Status   string `json:"status"`
			Failures []struct {
				Command  string `json:"command"`
				Evidence string `json:"evidence"`
			} `json:"failures"`
		} `json:"requirements"`
	} `json:"data"`
}

// checkAnswer runs a check and reads its answer, whatever its exit code.
func checkAnswer(t *testing.T, cmd *exec.Cmd) checkedAnswer {
	t.Helper()
	out, err := cmd.Output()
	if exit := (*exec.ExitError)(nil); err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	var answer checkedAnswer
	if err := json.Unmarshal(out, &answer); err != nil {
		t.Fatalf("stdout is not one envelope: %v\n%s", err, out)
	}
	return answer
}

// namespacesAvailable reports whether this process may make the namespaces
// Isolate asks for, by starting a program in them.
func namespacesAvailable() bool {
	cmd := exec.Command("true")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
	return cmd.Run() == nil
}

// TestCheckProfile saves what a CLI needs to be judged (a read-only
// command) as a profile and checks it with --profile: the profile is
// written from inside the isolated copy, and the check runs the command.
func TestCheckProfile(t *testing.T) {
	check, target := buildWith(t, "phonehome", "phonehome")
	dir := filepath.Dir(check)
	env := append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "XDG_CONFIG_HOME=", "XDG_DATA_HOME=", "DUET_CHECK_FORMAT=json")
	save := exec.Command(check, "profile", "save", "phonehome", "--read-only", "status", "--budget", "30s")
	save.Env = env
	if out, err := save.CombinedOutput(); err != nil {
		t.Fatalf("profile save: %v\n%s", err, out)
	}
	cmd := exec.Command(check, "check", "--profile", "phonehome", target)
	cmd.Env = env
	out, err := cmd.Output()
	if exit := (*exec.ExitError)(nil); err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	var answer struct {
		Data struct {
			Requirements []struct {
				Example  *struct{ Probe, Command string }  `json:"example"`
				Failures []struct{ Probe, Command string } `json:"failures"`
			} `json:"requirements"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &answer); err != nil {
		t.Fatalf("stdout is not one envelope: %v\n%s", err, out)
	}
	// Help alone names status: only the profile's --read-only runs it.
	for _, r := range answer.Data.Requirements {
		for _, f := range append(r.Failures, deref(r.Example)...) {
			if strings.HasSuffix(f.Command, "phonehome status") {
				return
			}
		}
	}
	t.Errorf("no finding of the profile's read-only command: %.600s", out)
}

func deref[T any](p *T) []T {
	if p == nil {
		return nil
	}
	return []T{*p}
}

// TestHostileTarget runs the built duet-check on a CLI that attacks it
// (issue 34): it plants a profile in the checker's own config directory,
// found in its mounts and named outright, kills a process of the host, and
// leaves daemons running, one of them with its environment cleared. The
// checker's state stays as it was, the host's process lives, no daemon
// outlives the check, and the report fails F-030 naming them.
func TestHostileTarget(t *testing.T) {
	if !namespacesAvailable() {
		t.Skip("this kernel gives no unprivileged user namespaces")
	}
	check, target := buildWith(t, "hostile", "hostile")
	own := filepath.Join(t.TempDir(), "duet-check")
	victim := exec.Command("sleep", "300")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { victim.Process.Kill(); victim.Wait() })
	cmd := exec.Command(check, "check", "--read-only", "status",
		"--env", "HOSTILE_PLANT="+own, "--env", "HOSTILE_VICTIM="+strconv.Itoa(victim.Process.Pid), target)
	cmd.Env = append(os.Environ(), "DUET_CHECK_FORMAT=json", "DUET_CHECK_CONFIG_DIR="+own)
	answer := checkAnswer(t, cmd)
	for _, part := range []string{"a process namespace", "the checker's own state out of the targets' sight"} {
		if !strings.Contains(answer.Data.Isolation, part) {
			t.Errorf("isolation %q does not name %q", answer.Data.Isolation, part)
		}
	}
	if entries, err := os.ReadDir(own); err != nil || len(entries) > 0 {
		t.Errorf("the checker's config directory holds %v (%v), want it empty", entries, err)
	}
	if !running(victim.Process.Pid) {
		t.Errorf("the target killed a process outside the check (pid %d)", victim.Process.Pid)
	}
	if alive := daemons(); len(alive) > 0 {
		t.Errorf("daemons outlived the check: %v", alive)
		for _, pid := range alive {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	var evidence []string
	for _, r := range answer.Data.Requirements {
		if r.ID != "F-030" {
			continue
		}
		for _, f := range r.Failures {
			evidence = append(evidence, f.Command+": "+f.Evidence)
		}
		if r.Status != "fail" {
			t.Errorf("F-030 is %s, want fail", r.Status)
		}
	}
	all := strings.Join(evidence, "\n")
	if !strings.Contains(all, "status: still running after the target exited") || !strings.Contains(all, "no longer carried DUET_CHECK_RUN") {
		t.Errorf("F-030 failures do not name the daemon of `status` and the one that cleared its environment:\n%s", all)
	}
}

// daemons are the live processes that are the hostile fixture's daemons.
func daemons() []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		if strings.Contains(string(env), "HOSTILE_DAEMON=1") && running(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// running reports whether pid is a process that has not exited (a zombie
// has: it only awaits its parent).
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(stat), ") Z ")
}
