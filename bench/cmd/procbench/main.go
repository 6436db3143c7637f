// Command procbench times two programs run with the same arguments as whole
// processes, interleaved (a, b, a, b, …) so that drift in the machine's load
// falls on both alike, and reports the median and 90th percentile of each and
// the ratio of the medians a/b.
//
//	procbench -runs 300 -name list -a bin/todo -b bin/todo-bare -- list
//
// The last line is machine-readable:
//
//	RESULT name=list ratio=1.04 a_median_ms=2.310 b_median_ms=2.221 a_p90_ms=… b_p90_ms=… runs=300
//
// Stdout and stdin of the programs are /dev/null, or with -tty a
// pseudo-terminal, as a person's shell gives them; their stderr is kept and
// shown if a run fails. A run that exits non-zero stops the benchmark with
// exit status 1, unless -exit says which code to expect.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"time"

	"github.com/creack/pty"
)

func main() {
	runs := flag.Int("runs", 300, "runs of each program")
	a := flag.String("a", "", "the program measured (numerator)")
	b := flag.String("b", "", "the baseline program (denominator)")
	name := flag.String("name", "bench", "a label for the RESULT line")
	warmup := flag.Int("warmup", 5, "untimed runs of each program first")
	tty := flag.Bool("tty", false, "run the programs on a pseudo-terminal (stdin, stdout, stderr)")
	exit := flag.Int("exit", 0, "the exit code every run must end with")
	flag.Parse()
	if *a == "" || *b == "" || *runs < 1 {
		fmt.Fprintln(os.Stderr, "usage: procbench -runs N -a PROG -b PROG [-name NAME] [--] ARGS...")
		os.Exit(2)
	}
	args := flag.Args()
	runOnce := func(prog string, args []string) (time.Duration, error) {
		return run(prog, args, *tty, *exit)
	}

	for range *warmup {
		for _, p := range []string{*a, *b} {
			if _, err := runOnce(p, args); err != nil {
				fail(err)
			}
		}
	}
	ta := make([]time.Duration, 0, *runs)
	tb := make([]time.Duration, 0, *runs)
	for i := range *runs {
		// Alternate which goes first, so neither always follows the other.
		first, second := *a, *b
		if i%2 == 1 {
			first, second = *b, *a
		}
		d1, err := runOnce(first, args)
		if err != nil {
			fail(err)
		}
		d2, err := runOnce(second, args)
		if err != nil {
			fail(err)
		}
		if i%2 == 1 {
			d1, d2 = d2, d1
		}
		ta, tb = append(ta, d1), append(tb, d2)
	}

	ma, pa := stats(ta)
	mb, pb := stats(tb)
	ratio := float64(ma) / float64(mb)
	fmt.Printf("%s: %d runs each of %q\n", *name, *runs, args)
	fmt.Printf("  a %-40s median %8.3f ms   p90 %8.3f ms\n", *a, ms(ma), ms(pa))
	fmt.Printf("  b %-40s median %8.3f ms   p90 %8.3f ms\n", *b, ms(mb), ms(pb))
	fmt.Printf("  ratio of medians a/b: %.3f\n", ratio)
	fmt.Printf("RESULT name=%s ratio=%.3f a_median_ms=%.3f b_median_ms=%.3f a_p90_ms=%.3f b_p90_ms=%.3f runs=%d\n",
		*name, ratio, ms(ma), ms(mb), ms(pa), ms(pb), *runs)
}

// run runs prog with args and returns its wall time, from start to wait.
func run(prog string, args []string, tty bool, want int) (time.Duration, error) {
	//duetvet:allow rawexec -- a benchmark driver, not a command
	cmd := exec.Command(prog, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr // stdin and stdout stay nil: /dev/null
	var screen *os.File
	if tty {
		master, slave, err := pty.Open()
		if err != nil {
			return 0, err
		}
		defer master.Close()
		go io.Copy(io.Discard, master) // what the terminal shows
		cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
		screen = slave
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	if screen != nil {
		screen.Close() // the child holds its own
	}
	err := cmd.Wait()
	d := time.Since(start)
	if code := cmd.ProcessState.ExitCode(); err != nil && code != want || err == nil && want != 0 {
		return 0, fmt.Errorf("%s %q: exit %d, want %d: %v\n%s", prog, args, code, want, err, stderr.Bytes())
	}
	return d, nil
}

// stats returns the median and the 90th percentile (nearest rank).
func stats(ds []time.Duration) (median, p90 time.Duration) {
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		median = s[n/2]
	} else {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	rank := (90*n + 99) / 100 // ceil(0.9 n)
	p90 = s[max(rank-1, 0)]
	return median, p90
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "procbench:", err)
	os.Exit(1)
}
