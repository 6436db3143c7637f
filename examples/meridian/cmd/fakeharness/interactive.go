package main

import (
	"bufio"
	"fmt"
	"strings"
)

// interact is the fake's terminal session: a banner with the session id,
// then "you said: <line>" for each line (the initial prompt first, if the
// command line gave one), until end of input or /exit.
func interact(h host, name string, inv *invocation) int {
	session := inv.resumeID
	if session == "" || inv.fork {
		session = clis[name].newSessionID()
	}
	fmt.Fprintf(h.stdout, "fake %s interactive session %s\n", name, session)
	if inv.model != "" {
		fmt.Fprintf(h.stdout, "model: %s\n", inv.model)
	}
	fmt.Fprintln(h.stdout, "type /exit or end the input to leave")
	if p := strings.TrimSpace(inv.prompt); p != "" {
		fmt.Fprintf(h.stdout, "you said: %s\n", p)
	}
	sc := bufio.NewScanner(h.stdin)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "/exit" {
			fmt.Fprintln(h.stdout, "bye")
			return 0
		}
		fmt.Fprintf(h.stdout, "you said: %s\n", line)
	}
	return 0
}
