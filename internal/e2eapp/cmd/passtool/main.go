// Command passtool is the tool e2eapp's passthrough commands delegate to
// (REQ-C-031): a stand-in for beangulp or a linter, with its own parser.
// It writes its argv to stdout as one JSON line and a line to stderr, and
// records that it started in the file PASSTOOL_MARK names. Its first
// argument picks what else it does: "exit N" exits N, "hang" prints
// "ready" and waits to be stopped (a timeout, a signal).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"
)

func main() {
	args := os.Args[1:]
	if mark := os.Getenv("PASSTOOL_MARK"); mark != "" {
		f, err := os.OpenFile(mark, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			fmt.Fprintln(os.Stderr, "passtool:", err)
			os.Exit(70)
		}
		fmt.Fprintf(f, "%d\n", os.Getpid())
		f.Close()
	}
	line, _ := json.Marshal(map[string][]string{"argv": args})
	fmt.Println(string(line))
	fmt.Fprintln(os.Stderr, "passtool: done parsing")
	switch {
	case len(args) >= 2 && args[0] == "exit":
		n, err := strconv.Atoi(args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "passtool: exit takes a number")
			os.Exit(64)
		}
		os.Exit(n)
	case len(args) >= 1 && args[0] == "hang":
		fmt.Println("ready")
		time.Sleep(time.Hour) // until a signal ends it
	}
}
