package conformance

import (
	"encoding/json"
	"os"
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
	Work     string   `json:"work,omitempty"`
	Writable []string `json:"writable,omitempty"` // the program's own state, writable too
	UID, GID int      // the user outside, whom the targets run as

	Users    bool `json:"users,omitempty"`     // in a user namespace of its own: targets run in one more, without privilege over this one
	Network  bool `json:"network,omitempty"`   // in a network namespace with loopback only, DNS answered by the sandbox
	ReadOnly bool `json:"read_only,omitempty"` // every file system read-only but Work

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
	s := "sandbox directories, sentinels on PATH and a recording proxy"
	if len(parts) > 0 {
		s += "; " + strings.Join(parts, "; ")
	}
	if iso.Missing != "" {
		s += "; not isolated further: " + iso.Missing
	}
	return s
}

// encode is iso as isolationEnv holds it.
func (iso isolation) encode() string {
	b, _ := json.Marshal(iso) // strings, ints and bools: cannot fail
	return string(b)
}
