package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/examples/meridian/internal/state"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/proc"
)

// CancelCommand is the command that stops run id of space spaceID: the
// cleanup_command of the supervisor a run starts in the background.
func CancelCommand(spaceID, id string) string {
	return "meridian run cancel " + id + " --space " + spaceID
}

// Cancel stops a running run: its supervisor gets SIGTERM, stops the
// harness with everything it started and records the run cancelled, and
// Cancel waits for that. A run that has ended is answered as it is, so
// that cancelling twice is cancelling once.
func (r *Runner) Cancel(ctx context.Context, spaceID, id string) (Detail, error) {
	sp, all, err := r.load(ctx, spaceID)
	if err != nil {
		return Detail{}, err
	}
	run, err := find(sp.ID, all, id)
	if err != nil {
		return Detail{}, err
	}
	runs := r.runs(sp)
	if alive, err := runs.Alive(id); err != nil || run.Status != state.Running || !alive {
		if err == nil {
			envelope.From(ctx).Effect(envelope.Noop)
		}
		return r.detail(sp.ID, run), err
	}
	// The lock is held, so the supervisor that holds it is alive: its pid
	// is still its own.
	raw, err := os.ReadFile(filepath.Join(runs.ArtifactDir(id), pidFile))
	if err != nil {
		return Detail{}, envelope.Errorf(exitcode.Precondition, "RUN_NOT_CANCELLABLE", "run %s's supervisor is unknown: %w", id, err).
			WithSuggestion(fmt.Sprintf("wait for the run ('meridian run wait %s'), or let its time limit end it", id))
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || pid <= 1 {
		return Detail{}, fmt.Errorf("%s of run %s: %q is not a pid", pidFile, id, raw)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return Detail{}, fmt.Errorf("stop run %s's supervisor (pid %d): %w", id, pid, err)
	}
	envelope.From(ctx).Effect(envelope.Updated)
	return r.waitOne(ctx, sp, id)
}

// awaitExit waits for the supervisor to exit after it finalized the run,
// at most limit: the answer then names no background process that ended.
func awaitExit(sup *proc.Cmd, limit time.Duration) {
	exited := make(chan struct{})
	go func() {
		sup.Wait()
		close(exited)
	}()
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-exited:
	case <-t.C:
	}
}
