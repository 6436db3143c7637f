package run

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/duet-cli/duet/examples/meridian/internal/harness"
	"github.com/duet-cli/duet/examples/meridian/internal/lines"
	"github.com/duet-cli/duet/examples/meridian/internal/state"
	"github.com/duet-cli/duet/proc"
)

// maxLine is the longest stdout line handed to a harness's parser; longer
// lines are still kept in output/stdout.jsonl.
const maxLine = 16 << 20

// drainWait is how long the supervisor keeps reading the harness's stdout
// after the harness's process group is gone: a descendant that escaped the
// group may hold the pipe open.
const drainWait = 2 * time.Second

// SupervisorMain is the whole life of a supervisor process, started as
// `meridian __supervise <run-dir>` with the run's liveness lock as fd 3. It
// returns the process's exit code; the run's outcome is in runs.jsonl.
func SupervisorMain(args []string) int {
	if len(args) != 1 {
		fmt.Fprintf(os.Stderr, "usage: meridian %s <run-dir>\n", SupervisorArg)
		return 2
	}
	// The run's liveness lock, held until this process exits — by this
	// process alone: a harness that inherited it (and its children, which
	// may outlive this process) would keep the run looking alive forever.
	syscall.CloseOnExec(3)
	lock := os.NewFile(3, "run.lock")
	defer lock.Close()
	if err := Supervise(context.Background(), args[0]); err != nil {
		fmt.Fprintln(os.Stderr, "supervisor:", err)
		return 1
	}
	return 0
}

// stopReason is why the supervisor stopped a harness before it ended.
type stopReason int

const (
	notStopped stopReason = iota
	timedOut
	cancelled
)

// Supervise runs the harness of the run in dir (runs/<id>/ of a space) as
// launch.json says, keeps its output in output/, records its session id as
// soon as the stream reveals it, stops its whole process group when the run
// times out or the supervisor is told to stop (SIGTERM, SIGINT, SIGHUP),
// and appends the run's finalize event. An error means the finalize event
// could not be written.
func Supervise(ctx context.Context, dir string) error {
	runs := state.Runs{Dir: filepath.Dir(filepath.Dir(dir))}
	id := filepath.Base(dir)
	// Nothing is written anywhere that is not a run's directory.
	if !runID.MatchString(id) || filepath.Base(filepath.Dir(dir)) != "runs" {
		return fmt.Errorf("%s is not a run directory (.meridian/.spaces/<space>/runs/<run>)", dir)
	}
	if _, err := os.Stat(runs.LockPath(id)); err != nil {
		return fmt.Errorf("%s is not a run directory: %w", dir, err)
	}
	l, err := readLaunch(dir)
	if err != nil {
		return finalize(runs, id, outcome{status: state.Failed, err: "launch: " + err.Error(), exit: -1})
	}
	h, ok := harness.Lookup(l.Harness)
	if !ok {
		return finalize(runs, id, outcome{status: state.Failed, err: "unknown harness " + l.Harness, exit: -1})
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(sigs)

	s := &supervision{runs: runs, id: id, dir: dir, launch: l, parser: h.NewParser(), recorded: l.ResumeID}
	o := s.run(ctx, sigs)
	if o.result.SessionID == s.recorded {
		o.result.SessionID = "" // already in the log
	}
	return finalize(runs, id, o)
}

type supervision struct {
	runs     state.Runs
	id       string
	dir      string
	launch   Launch
	parser   harness.Parser
	recorded string // the harness session id runs.jsonl already has
}

type outcome struct {
	status   string
	exit     int
	err      string
	duration time.Duration
	result   harness.Result
	report   bool // output/report.md holds the report
}

func (s *supervision) run(ctx context.Context, sigs <-chan os.Signal) outcome {
	out := filepath.Join(s.dir, outputDir)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return outcome{status: state.Failed, err: err.Error(), exit: -1}
	}
	// Stopping the harness is cancelling its context: proc sends its
	// process group SIGTERM, and SIGKILL once the grace period has passed.
	harnessCtx, stop := context.WithCancel(ctx)
	defer stop()
	cmd, stdout, closeAll, err := s.command(harnessCtx, out)
	if err != nil {
		return outcome{status: state.Failed, err: err.Error(), exit: -1}
	}
	recordStart(ctx, s.launch.Dir, s.dir) // what the run changes is told against it
	started := time.Now()
	err = cmd.Start()
	// The child has its own copies now. The write end of stdout must close
	// here, or the reader would never see EOF.
	closeAll()
	if err != nil {
		stdout.Close()
		return outcome{status: state.Failed, err: fmt.Sprintf("start %s: %v", s.launch.Args[0], err), exit: 127}
	}
	pgid := cmd.Process.Pid // Setpgid: the harness leads its own group
	if err := writeGroup(s.dir, pgid); err != nil {
		fmt.Fprintln(os.Stderr, "record the harness's process group:", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	read := make(chan error, 1)
	go func() { read <- s.read(ctx, stdout, filepath.Join(out, stdoutFile)) }()

	var timeout <-chan time.Time
	if t := s.launch.timeout(); t > 0 {
		timer := time.NewTimer(t)
		defer timer.Stop()
		timeout = timer.C
	}
	reason := notStopped
	var waitErr error
wait:
	for {
		select {
		case waitErr = <-exited:
			break wait
		case <-timeout:
			reason = timedOut
			stop()
			timeout = nil
		case <-sigs:
			if reason == notStopped {
				reason = cancelled
				stop()
			}
		}
	}
	duration := time.Since(started)
	// Whatever the harness left running in its group went with it (proc).
	stdout.SetReadDeadline(time.Now().Add(drainWait))
	<-read

	recordChanges(ctx, s.launch.Dir, s.dir, started, filepath.Base(s.runs.Dir)+"/"+s.id)
	o := outcome{exit: exitCode(cmd.ProcessState, waitErr), duration: duration, result: s.parser.Result()}
	o.report = s.keepReport(filepath.Join(out, reportFile), o.result.Report)
	switch {
	case reason == cancelled:
		o.status, o.err = state.Cancelled, "cancelled"
	case reason == timedOut:
		o.status, o.err = state.Failed, fmt.Sprintf("timeout: stopped after %s", s.launch.timeout())
	case o.exit == 0 && o.result.Error == "" && o.report:
		o.status = state.Succeeded
	case o.exit == 0 && o.result.Error == "":
		o.status, o.err = state.Failed, "empty_output: the harness exited 0 without a report"
	default:
		o.status = state.Failed
		o.err = o.result.Error
		if o.err == "" {
			o.err = lastLine(filepath.Join(out, stderrFile))
		}
		if o.err == "" {
			o.err = fmt.Sprintf("the harness exited with status %d", o.exit)
		}
	}
	return o
}

// command prepares the harness process, stopped when ctx is done: its own
// process group (proc; see harnessAttr), the environment of a program nobody
// can answer (proc: no pager, no editor, no update notice, the C locale),
// stdin from the run's input, stdout through a pipe the supervisor reads,
// stderr straight to output/stderr.log. closeAll closes the files the child
// gets, once it has started.
func (s *supervision) command(ctx context.Context, out string) (cmd *proc.Cmd, stdout *os.File, closeAll func(), err error) {
	l := s.launch
	var files []*os.File
	closeAll = func() {
		for _, f := range files {
			f.Close()
		}
	}
	defer func() {
		if err != nil {
			closeAll()
		}
	}()
	cmd = proc.Command(ctx, l.Args[0], l.Args[1:]...)
	cmd.Dir = l.Dir
	cmd.Env = append(os.Environ(), l.Env...)
	cmd.SysProcAttr = harnessAttr()
	cmd.Grace = max(l.grace(), time.Nanosecond) // a kill_grace of 0 kills at once
	if l.Stdin != "" {
		in, err := os.Open(filepath.Join(s.dir, l.Stdin))
		if err != nil {
			return nil, nil, nil, err
		}
		files = append(files, in)
		cmd.Stdin = in
	}
	errLog, err := os.Create(filepath.Join(out, stderrFile))
	if err != nil {
		return nil, nil, nil, err
	}
	files = append(files, errLog)
	cmd.Stderr = errLog
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, err
	}
	files = append(files, w)
	cmd.Stdout = w
	return cmd, r, closeAll, nil
}

// read copies the harness's stdout to path and hands each line to the
// parser, recording the harness session id the moment it appears, so that
// `run continue` works even if the run is killed afterwards.
func (s *supervision) read(ctx context.Context, stdout *os.File, path string) error {
	defer stdout.Close()
	f, err := os.Create(path)
	if err != nil {
		io.Copy(io.Discard, stdout)
		return err
	}
	defer f.Close()
	// The whole stream goes to the file; lines too long to parse are only kept there.
	_, err = lines.Each(io.TeeReader(stdout, f), maxLine, func(line []byte) {
		if sid := s.parser.Feed(line); sid != "" && sid != s.recorded {
			if err := s.runs.Update(ctx, state.Run{ID: s.id, HarnessSessionID: sid}); err != nil {
				fmt.Fprintf(os.Stderr, "record harness session %s: %v\n", sid, err)
				return
			}
			s.recorded = sid
		}
	})
	return err
}

// keepReport makes output/report.md the run's report: a file the harness
// wrote there itself (codex -o) wins; else the final message of the stream.
func (s *supervision) keepReport(path, fromStream string) bool {
	if info, err := os.Stat(path); err == nil && info.Size() > 0 {
		return true
	}
	if strings.TrimSpace(fromStream) == "" {
		return false
	}
	return os.WriteFile(path, []byte(strings.TrimRight(fromStream, "\n")+"\n"), 0o644) == nil
}

// exitCode is the harness's exit status; 128+N when signal N killed it, as
// a shell reports it.
func exitCode(ps *os.ProcessState, err error) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// lastLine returns the last non-blank line of a file, cut to a sentence's length.
func lastLine(path string) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if len(last) > 500 {
		last = last[:500] + "…"
	}
	return last
}

// finalize appends the run's finalize event. It runs whatever happened to the
// context: the outcome must be recorded.
func finalize(runs state.Runs, id string, o outcome) error {
	r := state.Run{ID: id, Status: o.status, Error: o.err, FinishedAt: state.Timestamp(time.Now()),
		HarnessSessionID: o.result.SessionID}
	if o.exit >= 0 {
		r.ExitCode = &o.exit
	}
	if o.duration > 0 {
		secs := math.Round(o.duration.Seconds()*1000) / 1000
		r.DurationSecs = &secs
	}
	r.TotalCostUSD = o.result.CostUSD
	r.InputTokens, r.OutputTokens, r.CachedTokens = o.result.InputTokens, o.result.OutputTokens, o.result.CachedTokens
	return runs.Finalize(context.Background(), r)
}
