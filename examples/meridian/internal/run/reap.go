package run

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// groupFile records the harness's process group, for Reap.
const groupFile = "harness.json"

// group identifies a harness's process group: its id, and when its leader
// (the harness) started, so that no other group is taken for it.
type group struct {
	PGID  int    `json:"pgid"`
	Start uint64 `json:"start"` // the leader's start time in clock ticks since boot; 0 where unknown
}

func writeGroup(dir string, pid int) error {
	raw, err := json.Marshal(group{PGID: pid, Start: startTime(pid)})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, groupFile), append(raw, '\n'), 0o644)
}

// Reap stops what is left of the harness of an orphaned run — its process
// group, whose supervisor was killed outright — and returns how many
// processes it signalled. Only processes of the recorded group that started
// no earlier than the harness are signalled.
func Reap(runDir string) (int, error) {
	raw, err := os.ReadFile(filepath.Join(runDir, groupFile))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil // the harness never started
	}
	if err != nil {
		return 0, err
	}
	var g group
	if err := json.Unmarshal(raw, &g); err != nil || g.PGID <= 1 {
		return 0, errors.New(groupFile + " is unreadable")
	}
	members, err := groupMembers(g)
	if err != nil {
		return 0, err
	}
	for _, pid := range members {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	return len(members), nil
}
