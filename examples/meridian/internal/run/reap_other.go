//go:build unix && !linux

package run

import "syscall"

func startTime(int) uint64 { return 0 }

// groupMembers is the group itself where processes cannot be listed: the
// whole group is signalled at once.
func groupMembers(g group) ([]int, error) {
	if err := syscall.Kill(-g.PGID, 0); err != nil {
		return nil, nil // no such group
	}
	return []int{-g.PGID}, nil
}
