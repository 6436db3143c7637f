package proc_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/proc"
)

// TestOutputExitError: a program that fails under Output returns an
// *ExitError — its message and the *exec.ExitError (with the stderr) as
// before — that a command can return as it is: SUBPROCESS_FAILED with the
// program, its exit code and its stderr's tail in error.context, the stderr
// marked external (REQ-F-035). Wrapped in the app's words, the message is
// theirs; a program stopped because the context ended is left to the
// lifecycle.
func TestOutputExitError(t *testing.T) {
	dir := t.TempDir()
	script := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	fails := script("fails", "echo partial; echo 'no such host: db1' >&2; exit 3")
	_, err := proc.Command(context.Background(), fails).Output()
	var exit *proc.ExitError
	var raw *exec.ExitError
	if !errors.As(err, &exit) || !errors.As(err, &raw) || err.Error() != "exit status 3" || string(raw.Stderr) != "no such host: db1\n" {
		t.Fatalf("Output = %T %v", err, err)
	}
	e := envelope.As(err)
	if e.Code != "SUBPROCESS_FAILED" || e.Message != fails+" exited 3" || int(e.Exit) != 1 {
		t.Errorf("As = %s (exit %d)", e, e.Exit)
	}
	if diff := cmp.Diff(map[string]any{"command": fails, "exit_code": 3, "stderr": "no such host: db1"}, e.Context); diff != "" {
		t.Errorf("context (-want +got):\n%s", diff)
	}

	if e := envelope.As(fmt.Errorf("running the hook: %w", err)); e.Code != "SUBPROCESS_FAILED" || e.Message != "running the hook: exit status 3" {
		t.Errorf("wrapped: %s", e)
	}

	// A long stderr keeps its end, from a line's start.
	_, err = proc.Command(context.Background(), script("long", "i=0; while [ $i -lt 2000 ]; do echo line $i >&2; i=$((i+1)); done; exit 1")).Output()
	tail, _ := envelope.As(err).Context["stderr"].(string)
	if len(tail) > 4096 || !strings.HasPrefix(tail, "line ") || !strings.HasSuffix(tail, "line 1999") {
		t.Errorf("stderr tail: %d bytes, %.20q…%q", len(tail), tail, tail[max(0, len(tail)-12):])
	}

	ctx, cancel := context.WithCancel(context.Background())
	cmd := proc.Command(ctx, "sleep", "30")
	go cancel()
	if _, err := cmd.Output(); errors.As(err, &exit) {
		t.Errorf("a program the context stopped: %T %v", err, err)
	}
}
