package conformance

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// cpuTime is the time the process pid has run on a CPU, its threads
// together, to the nanosecond (each thread's schedstat; the clock ticks of
// /proc/<pid>/stat are too coarse to tell a start-up from a wait).
func cpuTime(pid int) (time.Duration, bool) {
	tasks, err := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "schedstat"))
	if err != nil || len(tasks) == 0 {
		return 0, false
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // a thread that just ended
		}
		field, _, _ := bytes.Cut(b, []byte(" "))
		ns, err := strconv.ParseInt(string(field), 10, 64)
		if err != nil {
			return 0, false
		}
		sum += time.Duration(ns)
	}
	return sum, true
}
