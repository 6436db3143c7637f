package conformance

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
)

// runTagEnv marks the processes of one run of the target: every process it
// starts inherits the variable, so that what a run leaves running once the
// target has exited can be found (by leftovers), reported against F-030
// and ended.
const runTagEnv = "DUET_CHECK_RUN"

// newRunTag is a tag no other run of any check carries. A run's is its
// check's id, a dot, and a tag of its own.
func newRunTag() string {
	b := make([]byte, 8)
	rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// leftover is a process a run left running after the target exited.
type leftover struct {
	PID     int
	Command string // its command line, cut short
}

func (l leftover) String() string { return fmt.Sprintf("pid %d (%s)", l.PID, l.Command) }

// describeLeftovers is the evidence for F-030.
func describeLeftovers(ls []leftover) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = l.String()
	}
	return "still running after the target exited: " + strings.Join(parts, ", ") + "; the checker killed them"
}
