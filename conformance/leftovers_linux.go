package conformance

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// leftoverGrace is how long the processes of a run that just exited get to
// end on their own before those still there count as left behind.
const leftoverGrace = time.Second

// leftovers waits up to leftoverGrace for the processes carrying tag (all
// but this program's own, when tag is "": in a process namespace of the
// check's own, every other process is a target's) to end, then kills and
// reports those still running. It reaps those it can: in a process
// namespace the checker is the reaper of every orphan.
func leftovers(tag string) []leftover {
	deadline := time.Now().Add(leftoverGrace)
	for {
		found := tagged(tag)
		if len(found) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			for _, l := range found {
				syscall.Kill(l.PID, syscall.SIGKILL)
			}
			reap(found)
			return found
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// tagged lists the live processes whose environment carries tag, or, with
// tag "", every live process but this one. Zombies are not running, and
// left out; with tag "", once every run is over, those that are this
// program's are reaped (before, one could be a run's target, its exit
// status still to be read by the run).
func tagged(tag string) []leftover {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var found []leftover
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if zombie(pid) {
			if tag == "" {
				reap([]leftover{{PID: pid}})
			}
			continue
		}
		if tag != "" && tagIn("/proc/"+e.Name()+"/environ") != tag {
			continue
		}
		found = append(found, leftover{PID: pid, Command: processCommand(pid)})
	}
	return found
}

// zombie reports whether pid has exited and awaits its parent.
func zombie(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// reap collects the exit of each process that is this program's child (an
// orphan reparented to it, in a process namespace), briefly waiting for
// killed ones to go.
func reap(ls []leftover) {
	for _, l := range ls {
		for range 50 {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(l.PID, &ws, syscall.WNOHANG, nil)
			if pid == l.PID || err != nil { // reaped, or not this program's to reap
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
}

// processCommand is pid's command line, cut short, or its name.
func processCommand(pid int) string {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(raw) == 0 {
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		return string(bytes.TrimSpace(comm))
	}
	s := string(bytes.ReplaceAll(bytes.TrimRight(raw, "\x00"), []byte{0}, []byte{' '}))
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// runTagOf is the run tag of the process holding the UDP socket bound to
// port on this network namespace's loopback, or "": the socket's inode
// from /proc/net/udp, the process whose descriptors hold it, and the tag
// in that process's environment.
func runTagOf(port int) string {
	inode := udpInode(port)
	if inode == "" {
		return ""
	}
	link := "socket:[" + inode + "]"
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		fds, _ := os.ReadDir("/proc/" + e.Name() + "/fd")
		for _, fd := range fds {
			if target, _ := os.Readlink("/proc/" + e.Name() + "/fd/" + fd.Name()); target == link {
				return tagIn("/proc/" + e.Name() + "/environ")
			}
		}
	}
	return ""
}

// udpInode is the inode of the IPv4 UDP socket bound to port, from
// /proc/net/udp ("sl local_address rem_address st ... inode"), or "".
func udpInode(port int) string {
	table, err := os.ReadFile("/proc/net/udp")
	if err != nil || port <= 0 {
		return ""
	}
	suffix := fmt.Sprintf(":%04X", port)
	for _, line := range strings.Split(string(table), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) >= 10 && strings.HasSuffix(f[1], suffix) {
			return f[9]
		}
	}
	return ""
}

// tagIn is the run tag in an environment file (/proc/N/environ), or "".
func tagIn(path string) string {
	env, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte(runTagEnv+"=")); ok {
			return string(v)
		}
	}
	return ""
}
