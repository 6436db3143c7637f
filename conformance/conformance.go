// Package conformance judges any command-line binary by the CLI Agent Spec,
// black-box: it runs the binary — built with Duet or not — in a sandbox of
// its own and reports, requirement by requirement, what holds.
//
//	report, err := conformance.Check(ctx, conformance.Target{Path: "./mytool"}, conformance.Options{})
//
// A check discovers the commands from `describe` (or `manifest`: any tool
// that prints the spec's manifest) where the target's help shows it has
// them, and otherwise crawls --help. It then runs side-effect-free probes
// only — help and version on a pipe and a terminal, --schema, unknown flags
// and commands, bad values, hallucinated ids, --validate-only, --dry-run,
// destructive commands without --yes (refused, and nothing changed), safe
// commands, list paging, colour, width and locale invariance, a closed
// stdout, stdin at its end, JSONL streams (--format jsonl), --output given
// a format's name — and sends signals only to commands that are
// long-running (marked so in the manifest, or named in
// Options.LongRunning). A made-up flag or command goes only to a target
// that speaks the manifest protocol or has shown it refuses one (`<command>
// <made-up> --help` fails): a CLI that takes unknown input would run the
// command. Every run has a time limit, after which the target's process
// group is killed and the hang reported.
//
// Each run happens with a temporary HOME, XDG directories, TMPDIR and working
// directory; PAGER, EDITOR, VISUAL and BROWSER name programs that record being
// run, package managers and openers (npm, pip, brew, apt-get, xdg-open, open
// ...) first on PATH are programs that record being run and refuse, and
// HTTP(S)_PROXY is a recording listener on loopback. The sandbox is removed
// afterwards. A program that starts through [Isolate] does more: its runs
// happen in namespaces of their own, with no network but loopback (DNS
// questions recorded too) and every file system read-only but the sandbox.
// The wire format is judged by the CLI Agent Spec v1.16: every envelope by
// ResponseEnvelope 2.x (warnings as objects, meta.exit_code the process's
// exit code), `tool manifest` by ManifestResponse 3.21, a stream by its
// terminal line (schemas/PROVENANCE.md says where the schemas come from).
// JSON is asked for with --format json, or --output json where a CLI's
// --output is its format flag as before the spec's 1.8; a --output that
// takes a path never gets a format's name.
//
// A requirement passes only when a run could have failed it; otherwise it
// is not judged, and the report says why. [Test] runs the same checks as
// subtests of a Go test.
//
// [LoadProfile] and [RunProfile] are the spec's own conformance kit
// (conformance/run.py) in Go: a profile's directed probes, judged check for
// check as the kit judges them, reported as the spec's [ConformanceResult].
package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// Target is the binary under test.
type Target struct {
	Path string   `json:"path"`
	Args []string `json:"args,omitempty"` // fixed leading arguments, before each command line
	Env  []string `json:"env,omitempty"`  // extra environment, KEY=value
}

// Options tune a check.
type Options struct {
	// ProbeTimeout limits each run of the target; 10 s when zero.
	ProbeTimeout time.Duration
	// LongRunning names commands (dot paths) to send signals to besides
	// those the manifest marks long_running.
	LongRunning []string
	// ReadOnly are command lines (the words after the binary) that only
	// read, run as an agent and as a person would run them: for a CLI whose
	// commands the checker cannot tell apart, the behaviour beyond help and
	// bad input is judged on these.
	ReadOnly [][]string
	// MaxCommands bounds the commands discovery crawls from help, breadth
	// first (the root's commands before theirs), two levels deep: every
	// command costs runs of the target. 100 when zero.
	MaxCommands int
	// Budget bounds the whole check; none when zero. Discovery crawls
	// --help for at most half of it. A run that would start once it is
	// spent is not made (one under way is cut short), and what it would
	// have judged is not judged: a CLI that takes seconds to start is
	// judged on what fits. (A budget makes the verdicts depend on the
	// machine's speed: a test that compares them sets none.)
	Budget time.Duration
}

// Status is the verdict on a requirement or a check.
type Status string

// The verdicts.
const (
	Pass          Status = "pass"
	Fail          Status = "fail"
	NotApplicable Status = "not_applicable"
	// NotJudged: nothing ran that could have failed the requirement (the
	// target never succeeded, or a probe would not have been safe); the
	// finding says why.
	NotJudged Status = "not_judged"
)

// Finding is what one probe saw of one requirement.
type Finding struct {
	Requirement string `json:"requirement"`
	Probe       string `json:"probe"`
	Status      Status `json:"status"`
	Command     string `json:"command,omitempty"` // the command line, shell-quoted
	// How the run was made: on a pipe or a terminal, what its stdin was
	// (empty, at its end, or open and never written), and the environment
	// the probe set beyond the check's bare one.
	Via      string   `json:"via,omitempty"`
	Stdin    string   `json:"stdin,omitempty"`
	Env      []string `json:"env,omitempty"`
	Exit     *int     `json:"exit,omitempty"`
	Evidence string   `json:"evidence,omitempty"` // why, with the offending bytes cut short
	Stderr   string   `json:"stderr,omitempty"`   // what the run said on stderr, cut short, where it did not pass
}

// checker is one check run.
type checker struct {
	target  Target
	opts    Options
	sandbox *probeSandbox
	iso     isolation
	base    []string // the environment every run starts from

	mu       sync.Mutex
	findings []Finding
	// What the checks over every run found, noted as each run ends so
	// that no run's output is kept: the first carriage return, the first
	// stack trace on stdout.
	carriageReturn, stackTrace string
	// prompt is the first run on a pipe that printed a question and exited
	// 0, as if a person had answered (F-009).
	prompt string
	// worked are the runs of the target that did some work and finished
	// with exit 0 (help, version and schemas are no work). Until there is
	// one, what the target does when it works (a pager, a browser, the
	// network) has not been seen, and is not judged; the verdicts name
	// them.
	worked   []string
	rootHelp runOutcome // the root's piped --help, which discovery reads
	pristine fsSnapshot // the sandbox before the first run
	// documented: the undocumented words discovery may try, describe and
	// manifest, that the target showed it has (see discover).
	documented map[string]bool
	// refused: whether `<command> <made-up word> --help` failed, by
	// command and word (see refusesMadeUp), asked before the probes.
	refused map[string]bool

	start, deadline time.Time          // the check's, by Options.Budget
	unrun           int                // runs not made: the budget was spent
	unrunLines      []string           // the first of them, for the report
	made            int                // runs made
	byTag           map[string]madeRun // each run, by its DUET_CHECK_RUN
	runTime         time.Duration
	crawlCut        bool // discovery stopped crawling at half the budget
}

// parallel calls fn(i) for each i below n, as many at once as the process
// may run threads, and returns when all have. It is for runs that change
// nothing, such as help: probes that snapshot the sandbox run alone.
func parallel(n int, fn func(i int)) {
	var wg sync.WaitGroup
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := range n {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			fn(i)
		})
	}
	wg.Wait()
}

// errOverBudget is the error of a run not made because the check's time
// budget is spent.
var errOverBudget = errors.New("not run: the check's time budget is spent")

// Check runs every probe against target and returns the report. It fails
// only when the check cannot be made at all (the sandbox cannot be created);
// a target that cannot be run is reported, with every requirement failing.
func Check(ctx context.Context, target Target, opts Options) (*Report, error) {
	reports, err := CheckEach(ctx, []Target{target}, opts)
	if err != nil {
		return nil, err
	}
	return reports[0], nil
}

// CheckEach checks the targets at once, each in a sandbox of its own, and
// returns their reports in order: duet-check checks a CLI on a bare pipe
// and as an agent runs it this way. Checks in one process run through one
// call: at the end, in a process namespace of the check's own, what no
// run's tag names is ended, and fails F-030 in every report, since any of
// the targets may have started it.
func CheckEach(ctx context.Context, targets []Target, opts Options) ([]*Report, error) {
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = 10 * time.Second
	}
	if opts.MaxCommands <= 0 {
		opts.MaxCommands = 100
	}
	if len(targets) == 0 {
		return nil, nil
	}
	iso := currentIsolation() // the process's: the same for every check
	checkers := make([]*checker, len(targets))
	for i, target := range targets {
		// Runs happen in the sandbox's working directory: a relative path
		// names the binary from the caller's.
		if strings.ContainsRune(target.Path, filepath.Separator) && !filepath.IsAbs(target.Path) {
			if abs, err := filepath.Abs(target.Path); err == nil {
				target.Path = abs
			}
		}
		sb, err := makeSandbox()
		if err != nil {
			return nil, fmt.Errorf("conformance: %w", err)
		}
		defer sb.Close()
		c := &checker{target: target, opts: opts, sandbox: sb, iso: iso, refused: map[string]bool{}}
		// A bare environment: what the user's shell has set (CI, NO_COLOR,
		// TERM ...) must not decide the verdict.
		c.base = sb.Env(append([]string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}, target.Env...))
		checkers[i] = c
	}
	trees := make([]*tree, len(targets))
	var wg sync.WaitGroup
	for i, c := range checkers {
		wg.Go(func() {
			c.start = time.Now()
			if opts.Budget > 0 {
				// Runs end a little before the budget does: a run cut short
				// takes a moment to be reaped, and the report to be made.
				c.deadline = c.start.Add(opts.Budget - min(opts.Budget/20, time.Second))
			}
			c.pristine, _ = c.sandbox.Snapshot()
			trees[i] = c.discover(ctx)
			c.probe(ctx, trees[i])
		})
	}
	wg.Wait()
	if iso.Processes {
		// In the check's own process namespace every process but the
		// checker is a target's: one still here shed its run's tag.
		if rest := leftovers(""); len(rest) > 0 {
			whose := "so the run that started them is not known"
			if len(targets) > 1 {
				whose = fmt.Sprintf("so the run that started them, of %d checks made at once, is not known", len(targets))
			}
			for _, c := range checkers {
				c.record("leftover processes", nil, nil, Fail, describeLeftovers(rest)+" (they no longer carried "+runTagEnv+", "+whose+")", "F-030")
			}
		}
	}
	reports := make([]*Report, len(targets))
	for i, c := range checkers {
		reports[i] = c.report(trees[i], time.Since(c.start))
	}
	return reports, nil
}

// invoke is a run of the target with args after its fixed ones, on pipes.
func (c *checker) invoke(args ...string) invocationSpec {
	return invocationSpec{
		Path:    c.target.Path,
		Args:    append(slices.Clone(c.target.Args), args...),
		Env:     c.base,
		Dir:     c.sandbox.Work,
		Timeout: c.opts.ProbeTimeout,
		Check:   c.sandbox.id,
	}
}

// with returns inv with extra environment, which wins over the base.
func with(inv invocationSpec, env ...string) invocationSpec {
	inv.Env = append(slices.Clone(inv.Env), env...)
	return inv
}

// run runs inv and notes what the checks over every run look for.
func (c *checker) run(ctx context.Context, inv invocationSpec) runOutcome {
	// A run gets what is left of the budget at most; one cut short by it
	// is not a hang of the target's.
	left, capped := time.Until(c.deadline), false
	if inv = inv.withDefaults(); c.opts.Budget > 0 && left < inv.Timeout {
		inv.Timeout, capped = left, true
	}
	if capped && left <= 0 {
		c.mu.Lock()
		c.notMade(inv)
		c.mu.Unlock()
		return runOutcome{Exit: -1, Err: errOverBudget}
	}
	out := runInvocation(ctx, inv)
	if len(out.Leftovers) > 0 {
		c.record("leftover processes", &inv, &out, Fail, describeLeftovers(out.Leftovers), "F-030")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.made++
	c.runTime += out.Duration
	if c.byTag == nil {
		c.byTag = map[string]madeRun{}
	}
	c.byTag[out.Tag] = madeRun{line: inv.CommandLine(), terminal: inv.PTY}
	if capped && out.TimedOut {
		c.notMade(inv)
		return runOutcome{Exit: -1, Err: errOverBudget}
	}
	worked := out.Err == nil && !out.TimedOut && out.Exit == 0 && works(c.ownArgs(inv.Args))
	if worked {
		c.worked = append(c.worked, inv.CommandLine())
	}
	if inv.PTY {
		return out // a terminal turns \n into \r\n
	}
	if c.carriageReturn == "" && (bytes.IndexByte(out.Stdout, '\r') >= 0 || bytes.IndexByte(out.Stderr, '\r') >= 0) {
		c.carriageReturn = "a carriage return in the output of " + inv.CommandLine()
	}
	if c.prompt == "" && worked {
		if q := promptAtEnd(out.Stdout, out.Stderr); q != "" {
			c.prompt = fmt.Sprintf("%s, on a pipe where nobody can answer, asked %q and exited 0 as if answered", inv.CommandLine(), q)
		}
	}
	if c.stackTrace == "" && hasStackTrace(out.Stdout) {
		c.stackTrace = "a stack trace on stdout: " + inv.CommandLine() + " printed " + excerpt(out.Stdout)
	}
	return out
}

// promptPattern is the end of a question put to a person: a y/n or a
// numbered choice, or "Enter …:", "Choose …:", "Continue?" — a word that
// asks, on a line that ends waiting for the answer (":", "?" or ">").
var promptPattern = regexp.MustCompile(`(?i)(\[\s*[yn]\s*/\s*[yn]\s*\]|\(\s*[yn](es)?\s*/\s*[yn]o?\s*\))\s*[:?>]?\s*$|\[\d+(\s*[/-]\s*\d+)+\]\s*[:?>]\s*$|^\W*(enter|type|choose|select|press|pick)\b[^\n]{0,60}[:?>]\s*$|\b(continue|proceed|are you sure|overwrite)[^\n]{0,40}\?\s*$`)

// promptAtEnd is the question either output ends with, or "".
func promptAtEnd(outs ...[]byte) string {
	for _, out := range outs {
		tail := bytes.TrimRight(out, " \t")
		if i := bytes.LastIndexByte(tail[:max(len(tail)-1, 0)], '\n'); i >= 0 {
			tail = tail[i+1:]
		}
		if len(tail) > 200 {
			tail = tail[len(tail)-200:]
		}
		if line := strings.TrimSpace(string(tail)); line != "" && promptPattern.MatchString(line) {
			return line
		}
	}
	return ""
}

// ownArgs is args without the target's fixed ones (Target.Args).
func (c *checker) ownArgs(args []string) []string {
	if len(args) >= len(c.target.Args) && slices.Equal(args[:len(c.target.Args)], c.target.Args) {
		return args[len(c.target.Args):]
	}
	return args
}

// extraEnv is what env holds beyond the check's bare environment.
func (c *checker) extraEnv(env []string) []string {
	var extra []string
	for _, kv := range env {
		if !slices.Contains(c.base, kv) {
			extra = append(extra, kv)
		}
	}
	return extra
}

// madeRun is what a sentinel's record is told with: the run that started
// the program, and whether a person could have been at its terminal.
type madeRun struct {
	line     string
	terminal bool
}

// notMade counts a run the budget left out, and keeps the first few to
// say what a longer budget would add; c.mu is held.
func (c *checker) notMade(inv invocationSpec) {
	c.unrun++
	if len(c.unrunLines) < 3 {
		c.unrunLines = append(c.unrunLines, "`"+inv.CommandLine()+"`")
	}
}

// works reports whether a command line asks the target to do its work,
// rather than to describe itself: no help, version, schema or manifest,
// and not the bare invocation, which most CLIs answer with their usage.
func works(args []string) bool {
	if len(args) == 0 {
		return false
	}
	for i, a := range args {
		switch a {
		case "--help", "-h", "--version", "-V", "--schema", "--output-schema":
			return false
		case "help", "version", "describe", "manifest", "completion":
			if i == 0 {
				return false
			}
		}
	}
	return true
}

// record notes a finding for each requirement id.
func (c *checker) record(probe string, inv *invocationSpec, out *runOutcome, status Status, evidence string, ids ...string) {
	if out != nil && errors.Is(out.Err, errOverBudget) {
		status, evidence = NotJudged, fmt.Sprintf("not run: the check's time budget (%v) was spent", c.opts.Budget)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		f := Finding{Requirement: id, Probe: probe, Status: status, Evidence: evidence}
		if inv != nil {
			f.Command, f.Via, f.Stdin, f.Env = inv.CommandLine(), "pipe", inv.Stdin.String(), c.extraEnv(inv.Env)
			if inv.PTY {
				f.Via = "terminal"
			}
		}
		if out != nil && out.Err == nil && !out.TimedOut {
			exit := out.Exit
			f.Exit = &exit
		}
		if out != nil && status != Pass && len(bytes.TrimSpace(out.Stderr)) > 0 {
			f.Stderr = excerpt(bytes.TrimSpace(out.Stderr))
		}
		c.findings = append(c.findings, f)
	}
}

// excerpt cuts b short for evidence, quoting what is not printable.
func excerpt(b []byte) string {
	const max = 160
	s := string(b)
	if len(s) > max {
		s = strings.ToValidUTF8(s[:max], "") + "…"
	}
	return fmt.Sprintf("%q", s)
}
