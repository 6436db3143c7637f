// Command child is the program proc's tests start: it reports what it was
// given (its environment, its arguments), waits to be signalled, starts a
// grandchild, or plays a program agents trip over (an update notifier, a
// pager or editor that records being called, a locale-aware number
// printer). See package proctest.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: child env|args|wait|banner|number|record ...")
		os.Exit(2)
	}
	args := os.Args[2:]
	switch os.Args[1] {
	case "env": // child env NAME...: their values as a JSON object, null when unset
		vals := map[string]*string{}
		for _, name := range args {
			if v, ok := os.LookupEnv(name); ok {
				vals[name] = &v
			} else {
				vals[name] = nil
			}
		}
		json.NewEncoder(os.Stdout).Encode(vals)
	case "args": // child args ARG...: the arguments as a JSON array
		json.NewEncoder(os.Stdout).Encode(args)
	case "wait":
		wait(args)
	case "banner": // an update notifier, as npm's update-notifier decides
		if os.Getenv("NO_UPDATE_NOTIFIER") == "" && os.Getenv("CI") == "" && os.Getenv("npm_config_update_notifier") != "false" {
			fmt.Fprintln(os.Stderr, "Update available 1.0.0 → 2.0.0. Run npm i -g child to update.")
		}
		fmt.Println("done")
	case "number": // 1234.56 in the locale's numeric format, by POSIX precedence
		locale := os.Getenv("LC_ALL")
		if locale == "" {
			locale = os.Getenv("LC_NUMERIC")
		}
		if locale == "" {
			locale = os.Getenv("LANG")
		}
		if strings.HasPrefix(locale, "de") {
			fmt.Println("1.234,56")
		} else {
			fmt.Println("1234.56")
		}
	case "record": // child record FILE ARG...: append "ARG..." to FILE, then copy stdin to stdout, as a pager does
		f, err := os.OpenFile(args[0], os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Fprintln(f, strings.Join(append([]string{"called"}, args[1:]...), " "))
		f.Close()
		io.Copy(os.Stdout, os.Stdin)
	default:
		fmt.Fprintf(os.Stderr, "child: unknown mode %q\n", os.Args[1])
		os.Exit(2)
	}
}

// wait [--ignore-term] [--record FILE] [--spawn] [--exit]: print "ready PID"
// once the signals are handled, then wait for SIGTERM or SIGINT, appending
// "PID SIG" to FILE for each; exit on the first unless --ignore-term (after
// the grandchild, which got the signal too, has exited). With
// --spawn it first starts a grandchild (child wait, with the same --record
// and --ignore-term), in its process group, and prints "grandchild PID";
// with --exit it then exits at once, leaving the grandchild behind.
func wait(args []string) {
	var ignore, spawn, exit bool
	var record string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--ignore-term":
			ignore = true
		case "--spawn":
			spawn = true
		case "--exit":
			exit = true
		case "--record":
			i++
			record = args[i]
		}
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	var g *exec.Cmd
	if spawn {
		gargs := []string{"wait"}
		if record != "" {
			gargs = append(gargs, "--record", record)
		}
		if ignore {
			gargs = append(gargs, "--ignore-term")
		}
		//duetvet:allow rawexec -- the test child must start a grandchild as an app would without proc
		g = exec.Command(os.Args[0], gargs...)
		out, err := g.StdoutPipe()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := g.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		fmt.Printf("grandchild %s", strings.TrimPrefix(line, "ready "))
	}
	fmt.Printf("ready %d\n", os.Getpid())
	if exit {
		os.Exit(0)
	}
	for s := range sigs {
		if record != "" {
			if f, err := os.OpenFile(record, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err == nil {
				fmt.Fprintf(f, "%d %s\n", os.Getpid(), sigName(s))
				f.Close()
			}
		}
		if !ignore {
			if g != nil {
				g.Wait() // a parent that ends its children first: it got the signal too
			}
			os.Exit(0)
		}
	}
}

func sigName(s os.Signal) string {
	if s == syscall.SIGINT {
		return "SIGINT"
	}
	return "SIGTERM"
}
