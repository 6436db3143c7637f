package run

import (
	"bytes"
	"os"
	"strconv"
)

// startTime is when process pid started, in clock ticks since boot
// (/proc/<pid>/stat field 22), or 0 when it cannot be read.
func startTime(pid int) uint64 {
	_, start, ok := procStat(strconv.Itoa(pid))
	if !ok {
		return 0
	}
	return start
}

// groupMembers lists the live processes of g: in its group and started no
// earlier than its leader. Linux frees a process group's id only when no
// process uses it, so a group id with members is still that group; the
// start time rules out one that was freed and reused.
func groupMembers(g group) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pgrp, start, ok := procStat(e.Name()); ok && pgrp == g.PGID && start >= g.Start {
			out = append(out, pid)
		}
	}
	return out, nil
}

// procStat reads a process's group and start time from /proc/<pid>/stat.
func procStat(pid string) (pgrp int, start uint64, ok bool) {
	raw, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	fields := bytes.Fields(raw[bytes.LastIndexByte(raw, ')')+1:])
	if len(fields) < 20 || string(fields[0]) == "Z" {
		return 0, 0, false
	}
	pgrp, err1 := strconv.Atoi(string(fields[2]))
	start, err2 := strconv.ParseUint(string(fields[19]), 10, 64)
	return pgrp, start, err1 == nil && err2 == nil
}
