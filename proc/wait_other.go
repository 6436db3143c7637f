//go:build !linux

package proc

// awaitExit cannot wait without reaping here: the group is signalled once
// the process is reaped.
func awaitExit(int) bool { return false }
