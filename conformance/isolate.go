package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// isolationEnv carries the isolation from the program Isolate ran again to
// the copy inside, and from there to Check and runInvocation.
const isolationEnv = "DUET_CHECK_ISOLATION"

// isolation is what keeps the runs of a check from the world beyond the
// sandbox's directories, its sentinels and its recording proxy.
type isolation struct {
	// Work is the one directory the isolated copy may write: its TMPDIR,
	// where the sandboxes are made. The program that ran the copy removes it.
	Work string `json:"work,omitempty"`
	// Own is the program's own state (its audit log, its profiles): the
	// directories given to Isolate, each with the path the copy reaches it
	// by once it is hidden from the targets (see OwnDir).
	Own      map[string]string `json:"own,omitempty"`
	UID, GID int               // the user outside, whom the targets run as

	Users     bool `json:"users,omitempty"`     // in a user namespace of its own: targets run in one more, without privilege over this one
	Network   bool `json:"network,omitempty"`   // in a network namespace with loopback only, DNS answered by the sandbox
	ReadOnly  bool `json:"read_only,omitempty"` // every file system read-only but Work
	Processes bool `json:"processes,omitempty"` // in a process namespace of its own, which ends with the copy
	Hidden    bool `json:"hidden,omitempty"`    // the program's own state out of the targets' sight

	Missing string `json:"missing,omitempty"` // why not, or which part did not take
}

// currentIsolation is the isolation this process runs in, as Isolate left
// it in the environment.
func currentIsolation() isolation {
	var iso isolation
	v, ok := os.LookupEnv(isolationEnv)
	if !ok {
		iso.Missing = "the checker was not started through conformance.Isolate"
		return iso
	}
	if err := json.Unmarshal([]byte(v), &iso); err != nil {
		iso = isolation{Missing: "unreadable " + isolationEnv + ": " + err.Error()}
	}
	return iso
}

// String says, for the report, what kept the runs in.
func (iso isolation) String() string {
	var parts []string
	if iso.Network {
		parts = append(parts, "a network namespace with loopback only (DNS and HTTP(S) proxy recorded)")
	}
	if iso.ReadOnly {
		parts = append(parts, "every file system read-only but the sandbox")
	}
	if iso.Users {
		parts = append(parts, "a user namespace of the target's own, without privilege")
	}
	if iso.Processes {
		parts = append(parts, "a process namespace: no process outside it can be signalled, and none outlives the check")
	}
	if iso.Hidden {
		parts = append(parts, "the checker's own state out of the targets' sight")
	}
	s := "sandbox directories, sentinels on PATH and a recording proxy"
	if len(parts) > 0 {
		s += "; " + strings.Join(parts, "; ")
	}
	if iso.Missing != "" {
		s += "; not isolated further: " + iso.Missing
	}
	return s
}

// OwnDir is where this program reaches dir, one of the directories of its
// own state it gave Isolate: in the isolated copy, where the targets see an
// empty read-only directory in its place, a path through a descriptor the
// copy opened before hiding it; anywhere else, dir itself.
func OwnDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if p, ok := currentIsolation().Own[dir]; ok && p != "" {
		return p
	}
	return dir
}

// encode is iso as isolationEnv holds it.
func (iso isolation) encode() string {
	b, _ := json.Marshal(iso) // strings, ints and bools: cannot fail
	return string(b)
}
