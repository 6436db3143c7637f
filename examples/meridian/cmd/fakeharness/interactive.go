package main

import (
	"bufio"
	"fmt"
	"strings"
)

// interact is the fake's terminal session: a banner with the session id,
// then "you said: <line>" for each line (the initial prompt first, if the
// command line gave one), until end of input or /exit. Each of those
// messages is also written where the real CLI keeps its sessions
// (sessionFiles).
func interact(h host, name string, inv *invocation) int {
	session := inv.session(clis[name])
	files := newSessionFiles(h, name, session, inv.resumeID == "" || inv.fork)
	fmt.Fprintf(h.stdout, "fake %s interactive session %s\n", name, session)
	if inv.model != "" {
		fmt.Fprintf(h.stdout, "model: %s\n", inv.model)
	}
	fmt.Fprintln(h.stdout, "type /exit or end the input to leave")
	say := func(line string) {
		answer := "you said: " + line
		// The files first: once the answer shows, they are there.
		if err := files.message(line, answer); err != nil {
			warnSessionFile(h, err)
		}
		fmt.Fprintln(h.stdout, answer)
	}
	if p := strings.TrimSpace(inv.prompt); p != "" {
		say(p)
	}
	sc := bufio.NewScanner(h.stdin)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "/exit" {
			fmt.Fprintln(h.stdout, "bye")
			return 0
		}
		say(line)
	}
	return 0
}
