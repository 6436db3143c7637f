package adapters

import "os"

// unbufferedForChildren sets PYTHONUNBUFFERED=1 in the process's
// environment when stdout is not a terminal (the CLI Agent Spec's F-053):
// Duet's own writes reach the pipe as they are made, and a Python child a
// command starts, which would otherwise buffer a pipe in blocks until it
// exits, then writes its lines as they come too. A value the caller set is
// kept. As with NO_COLOR, only a process run by Main or Exec is changed,
// and only for an invocation the lifecycle answers.
func (inv *invocation) unbufferedForChildren() {
	if inv.cfg.tty.stdout || !inv.ownStreams() || inv.cfg.envGiven {
		return
	}
	if _, set := inv.cfg.lookupEnv("PYTHONUNBUFFERED"); !set {
		os.Setenv("PYTHONUNBUFFERED", "1")
	}
}
