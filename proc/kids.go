package proc

import (
	"slices"
	"strings"
)

// quietUpdates reports whether update notices are silenced (the CLI Agent
// Spec's F-050): where nobody can answer, where stdout is not a terminal,
// and in CI — wherever nobody would read one.
func quietUpdates(interactive, piped bool, env []string) bool {
	return !interactive || piped || Truthy(lookup(env, "CI"))
}

// Truthy reports whether an environment variable's value says yes: set,
// and not 0, false, no or off (in any case). CI=false is not CI.
func Truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "0", "false", "no", "off", "n", "f":
		return false
	}
	return true
}

// Background returns the pids of the background processes the session
// started (Cmd.Background) that have not exited, in start order.
func (s *Session) Background() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.background)
}
