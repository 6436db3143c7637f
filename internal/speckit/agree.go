package speckit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Agree runs the kit on p, then `duetCheck kit` (duet-check's Go port of
// it) on the same profile file, and fails the test wherever the two
// disagree: a level, the tally, or a check's status, runs checked, or
// failed runs (probe, argv, stdin, exit code, time-out). Failure details
// are prose and may be worded apart. It returns the kit's result.
func Agree(t testing.TB, p Profile, duetCheck string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeLimit(t, p))
	defer cancel()
	k, kit := runKit(ctx, t, p)
	ours, err := runDuetCheck(ctx, duetCheck, k.profile)
	if err != nil {
		t.Fatalf("speckit: %v\nprofile: %s", err, k.doc)
	}
	if diff := cmp.Diff(comparable(kit), comparable(ours)); diff != "" {
		t.Errorf("duet-check kit and the spec's kit disagree (-kit +duet-check):\n%s\nprofile: %s", diff, k.doc)
	}
	return kit
}

// DuetCheck builds duet-check into a directory of t's and returns its
// path, for Agree. Call it before the test moves HOME: Go's build cache is
// under it.
func DuetCheck(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "duet-check")
	//duetvet:allow rawexec -- the test harness builds the checker
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/duet-cli/duet/conformance/cmd/duet-check").CombinedOutput(); err != nil {
		t.Fatalf("speckit: build duet-check: %v\n%s", err, out)
	}
	return bin
}

// RunFile runs the kit on the profile file at path, as it is: a profile
// the kit refuses is a *KitError.
func RunFile(t testing.TB, path string) (Result, error) {
	t.Helper()
	python, root := kitDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return run(ctx, python, root, path)
}

// runDuetCheck runs `duetCheck kit --format json profile` and reads its
// result: exit 0 passes, 80 is a result with a failing check.
func runDuetCheck(ctx context.Context, duetCheck, profile string) (Result, error) {
	//duetvet:allow rawexec -- the test harness runs the checker it built
	cmd := exec.CommandContext(ctx, duetCheck, "kit", "--format", "json", profile)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && (!errors.As(err, &exit) || exit.ExitCode() != 80) {
		return Result{}, fmt.Errorf("duet-check kit: %v; stdout:\n%s\nstderr:\n%s", err, tail(stdout.Bytes()), tail(stderr.Bytes()))
	}
	return Parse(stdout.Bytes())
}

// agreement is what Agree compares of a result.
type agreement struct {
	Levels  map[string]string
	Summary Summary
	Checks  []checkVerdict
}

type checkVerdict struct {
	ID, Status    string
	Runs          int
	Failures      []string
	SkippedReason string
}

func comparable(r Result) agreement {
	v := agreement{Levels: r.Levels, Summary: r.Summary}
	for _, c := range r.Checks {
		cv := checkVerdict{ID: c.ID, Status: string(c.Status), Runs: c.RunsChecked, SkippedReason: c.SkippedReason}
		for _, f := range c.Failures {
			ended := "timed out"
			if !f.TimedOut {
				ended = "exit None"
				if f.ExitCode != nil {
					ended = fmt.Sprintf("exit %d", *f.ExitCode)
				}
			}
			cv.Failures = append(cv.Failures, fmt.Sprintf("%s: $ %s%s: %s", f.Probe, shellJoin(f.Argv), f.stdinRedirect(), ended))
		}
		v.Checks = append(v.Checks, cv)
	}
	return v
}
