package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/feature/idempotency"
	"github.com/duet-cli/duet/internal/jobstore"
	"github.com/duet-cli/duet/lock"
	"github.com/duet-cli/duet/schema"
)

// workHarness is what the long-work test app's handlers report back.
type workHarness struct {
	mu       sync.Mutex
	calls    map[string]int
	undone   []string
	cleaned  int
	tempDir  string
	tempFile string
	started  chan struct{}
	once     sync.Once
	beats    chan struct{} // closed once stderr holds two heartbeats
}

func newWorkHarness() *workHarness {
	return &workHarness{calls: map[string]int{}, started: make(chan struct{}), beats: make(chan struct{})}
}

func (h *workHarness) record(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls[name]++
}

func (h *workHarness) called(name string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls[name]
}

// workApp is a test app of long work: steps, idempotent creates, cleanup,
// locks and temp files, heartbeats.
func workApp(h *workHarness) *cli.Command {
	steps := &cli.Command{Name: "steps", Usage: "Run three steps",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "fail", Usage: "the step that fails"},
			&cli.BoolFlag{Name: "bad-undo", Usage: "undo fails"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			out := envelope.From(ctx)
			var err error
			for _, s := range []string{"one", "two", "three"} {
				err = out.Step(ctx, s, func(context.Context) error {
					h.record(s)
					out.Undo(func(context.Context) error {
						h.mu.Lock()
						h.undone = append(h.undone, s)
						h.mu.Unlock()
						if cmd.Bool("bad-undo") {
							return errors.New("undo " + s + " failed")
						}
						return nil
					})
					if cmd.String("fail") == s {
						return envelope.Errorf(exitcode.GeneralError, "STEP_BROKE", "step %s broke", s)
					}
					out.Effect(envelope.Updated)
					return nil
				})
			}
			if err != nil {
				return err
			}
			return out.Result(map[string]int{"ran": h.called("one") + h.called("two") + h.called("three")})
		}}
	urfave.Annotate(steps, schema.Meta{Danger: schema.Mutating, Steps: []string{"one", "two", "three"}, Rollback: true})

	create := &cli.Command{Name: "create", Usage: "Create a thing",
		Flags: []cli.Flag{&cli.StringFlag{Name: "name", Usage: "its name"}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			h.record("create")
			out := envelope.From(ctx)
			out.Effect(envelope.Created)
			return out.Result(map[string]any{"name": cmd.String("name"), "serial": h.called("create")})
		}}
	urfave.Annotate(create, schema.Meta{Danger: schema.Mutating})

	hold := &cli.Command{Name: "hold", Usage: "Hold a lock and a temp file",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "lock", Usage: "the lock file"},
			&cli.BoolFlag{Name: "block", Usage: "wait until cancelled"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			out := envelope.From(ctx)
			if _, err := lock.Acquire(ctx, cmd.String("lock"), 0); err != nil {
				return err
			}
			out.OnCleanup(func(context.Context) error {
				h.mu.Lock()
				defer h.mu.Unlock()
				h.cleaned++
				return nil
			})
			f, err := out.TempFile("scratch-*")
			if err != nil {
				return err
			}
			f.Close()
			h.mu.Lock()
			h.tempFile, h.tempDir = f.Name(), filepath.Dir(f.Name())
			h.mu.Unlock()
			h.once.Do(func() { close(h.started) })
			if cmd.Bool("block") {
				<-ctx.Done()
				return ctx.Err()
			}
			return out.Result(map[string]string{"file": f.Name()})
		}}
	urfave.Annotate(hold, schema.Meta{Danger: schema.Safe})

	long := &cli.Command{Name: "long", Usage: "Run until two heartbeats were sent",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "quick", Usage: "return at once"}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			out := envelope.From(ctx)
			out.Progress("halfway", 1, 2)
			if !cmd.Bool("quick") {
				select {
				case <-h.beats:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return out.Result(map[string]bool{"finished": true})
		}}
	urfave.Annotate(long, schema.Meta{Danger: schema.Safe, LongRunning: true})

	later := &cli.Command{Name: "later", Usage: "Work detached",
		Action: func(ctx context.Context, _ *cli.Command) error { return envelope.From(ctx).Result("done") }}
	urfave.Annotate(later, schema.Meta{Danger: schema.Safe, Async: true})

	return &cli.Command{Name: "work", Usage: "a long-work test app", Commands: []*cli.Command{steps, create, hold, long, later}}
}

// textBeat is a plain heartbeat: the elapsed time, and the latest progress
// message once there is one ("running" before it).
var textBeat = regexp.MustCompile(`^\[[0-9.]+s\] (running|halfway)\n$`)

// beatWriter is stderr: it closes beats once it has seen two heartbeats.
type beatWriter struct {
	mu    sync.Mutex
	b     bytes.Buffer
	n     int
	beats chan struct{}
	match string
}

func (w *beatWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n += strings.Count(string(p), w.match)
	if w.n >= 2 && w.beats != nil {
		close(w.beats)
		w.beats = nil
	}
	return w.b.Write(p)
}

func (w *beatWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// workRun runs the long-work app once, with its state and temp files under
// dir.
func workRun(t *testing.T, h *workHarness, dir string, extra []urfave.Option, args ...string) result {
	t.Helper()
	var stdout bytes.Buffer
	// Beats may come before the command's first progress message, with no
	// step: only those that carry it count towards ending the command.
	stderr := &beatWriter{beats: h.beats, match: `"step":"halfway"`}
	if slices.Contains(args, "--heartbeat-interval") {
		stderr.match = "s] halfway"
	}
	opts := append([]urfave.Option{
		adapters.WithSpecStrict(), adapters.WithFeatures(idempotency.New()),
		adapters.WithStdio(strings.NewReader(""), &stdout, stderr),
		adapters.WithEnv([]string{"TMPDIR=" + filepath.Join(dir, "tmp"), "WORK_STATE_DIR=" + filepath.Join(dir, "state")}),
		adapters.WithTerminal(adapters.Piped),
		adapters.WithRequestID(func() string { return "req-work" }),
	}, extra...)
	code := urfave.Run(context.Background(), workApp(h), args, opts...)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

type stepReport struct {
	Partial        bool     `json:"partial"`
	CompletedSteps []string `json:"completed_steps"`
	FailedStep     *string  `json:"failed_step"`
	SkippedSteps   []string `json:"skipped_steps"`
	ResumeFrom     string   `json:"resume_from"`
	RollbackStatus string   `json:"rollback_status"`
	RollbackError  string   `json:"rollback_error"`
}

func stepsOf(t *testing.T, w wire) stepReport {
	t.Helper()
	raw, _ := json.Marshal(w.Meta["steps"])
	var r stepReport
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("meta.steps: %v: %s", err, raw)
	}
	return r
}

func str(s string) *string { return &s }

// TestSteps: a multi-step command reports the steps completed, failed and
// skipped; a failure after a completed step is a PARTIAL_FAILURE (exit 3)
// whose data says where to resume; --resume-from skips the steps before
// it; --rollback-on-failure undoes the steps, and says how that went.
func TestSteps(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		exit     int
		code     string
		report   stepReport
		ran      []string
		undone   []string
		dataIsSR bool
	}{
		{name: "all", args: nil, exit: 0, ran: []string{"one", "two", "three"},
			report: stepReport{CompletedSteps: []string{"one", "two", "three"}, SkippedSteps: []string{}}},
		{name: "first fails", args: []string{"--fail", "one"}, exit: 1, code: "STEP_BROKE", ran: []string{"one"}, dataIsSR: true,
			report: stepReport{CompletedSteps: []string{}, FailedStep: str("one"), SkippedSteps: []string{"two", "three"}, ResumeFrom: "one", RollbackStatus: "not_attempted"}},
		{name: "partial", args: []string{"--fail", "two"}, exit: 3, code: "STEP_BROKE", ran: []string{"one", "two"}, dataIsSR: true,
			report: stepReport{Partial: true, CompletedSteps: []string{"one"}, FailedStep: str("two"), SkippedSteps: []string{"three"}, ResumeFrom: "two", RollbackStatus: "not_attempted"}},
		{name: "resume", args: []string{"--resume-from", "three"}, exit: 0, ran: []string{"three"},
			report: stepReport{CompletedSteps: []string{"three"}, SkippedSteps: []string{"one", "two"}}},
		{name: "rollback", args: []string{"--fail", "three", "--rollback-on-failure"}, exit: 3, code: "STEP_BROKE", ran: []string{"one", "two", "three"},
			undone: []string{"three", "two", "one"}, dataIsSR: true,
			report: stepReport{Partial: true, CompletedSteps: []string{"one", "two"}, FailedStep: str("three"), SkippedSteps: []string{}, ResumeFrom: "three", RollbackStatus: "completed"}},
		{name: "rollback fails", args: []string{"--fail", "two", "--rollback-on-failure", "--bad-undo"}, exit: 3, code: "STEP_BROKE", ran: []string{"one", "two"},
			undone: []string{"two", "one"}, dataIsSR: true,
			report: stepReport{Partial: true, CompletedSteps: []string{"one"}, FailedStep: str("two"), SkippedSteps: []string{"three"}, ResumeFrom: "two", RollbackStatus: "failed",
				RollbackError: "undo two failed\nundo one failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newWorkHarness()
			r := workRun(t, h, t.TempDir(), nil, append([]string{"steps"}, tt.args...)...)
			var w wire
			if tt.exit == 0 {
				w = wantOK(t, r)
			} else {
				w = wantError(t, r, tt.exit, tt.code)
			}
			if diff := cmp.Diff(tt.report, stepsOf(t, w)); diff != "" {
				t.Errorf("meta.steps (-want +got):\n%s", diff)
			}
			if tt.dataIsSR {
				var d stepReport
				if err := json.Unmarshal(w.Data, &d); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.report, d); diff != "" {
					t.Errorf("data (-want +got):\n%s", diff)
				}
				if tt.report.Partial && !strings.Contains(w.Error.Suggestion, "--resume-from "+tt.report.ResumeFrom) {
					t.Errorf("suggestion %q does not say where to resume", w.Error.Suggestion)
				}
			}
			// The effect is the resumed run's own: its steps changed things.
			if tt.exit == 0 && w.Meta["effect"] != "updated" {
				t.Errorf("effect = %v, want updated", w.Meta["effect"])
			}
			var ran []string
			for _, s := range []string{"one", "two", "three"} {
				if h.called(s) > 0 {
					ran = append(ran, s)
				}
			}
			if diff := cmp.Diff(tt.ran, ran); diff != "" {
				t.Errorf("steps run (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.undone, h.undone); diff != "" {
				t.Errorf("steps undone (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStepsOnTimeoutAndSignal: a step cut short by a timeout or SIGTERM is
// reported as the failed step, with the completed ones.
func TestStepsOnTimeoutAndSignal(t *testing.T) {
	h := newWorkHarness()
	block := make(chan struct{})
	app := &cli.Command{Name: "work", Commands: []*cli.Command{{Name: "slow", Usage: "Two steps, the second slow",
		Action: func(ctx context.Context, _ *cli.Command) error {
			out := envelope.From(ctx)
			if err := out.Step(ctx, "fast", func(context.Context) error { return nil }); err != nil {
				return err
			}
			return out.Step(ctx, "slow", func(ctx context.Context) error {
				h.once.Do(func() { close(h.started) })
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-block:
					return nil
				}
			})
		}}}}
	urfave.Annotate(app.Commands[0], schema.Meta{Danger: schema.Mutating, Steps: []string{"fast", "slow"}})
	defer close(block)
	for _, tt := range []struct {
		name string
		args []string
		sig  bool
		exit int
	}{
		{"timeout", []string{"slow", "--timeout", "20ms"}, false, 10},
		{"sigterm", []string{"slow"}, true, 143},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h.started = make(chan struct{})
			h.once = sync.Once{}
			var stdout, stderr syncBuffer
			sigs := make(chan os.Signal, 1)
			done := make(chan int, 1)
			go func() {
				done <- urfave.Run(context.Background(), app, tt.args, adapters.WithSpecStrict(),
					adapters.WithStdio(strings.NewReader(""), &stdout, &stderr), adapters.WithEnv(nil),
					adapters.WithTerminal(adapters.Piped), adapters.WithSignals(sigs), adapters.WithGrace(time.Minute))
			}()
			if tt.sig {
				<-h.started
				sigs <- sigterm
			}
			r := result{code: <-done, stdout: stdout.String(), stderr: stderr.String()}
			w := envelopeOf(t, r)
			if r.code != tt.exit {
				t.Errorf("exit = %d, want %d: %s", r.code, tt.exit, r.stdout)
			}
			want := stepReport{Partial: true, CompletedSteps: []string{"fast"}, FailedStep: str("slow"), SkippedSteps: []string{}, ResumeFrom: "slow"}
			if diff := cmp.Diff(want, stepsOf(t, w)); diff != "" {
				t.Errorf("meta.steps (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStepsValidation(t *testing.T) {
	for _, args := range [][]string{
		{"steps", "--resume-from", "four"},
		{"create", "--idempotency-key", "has space"},
		{"long", "--heartbeat-ms", "-1"},
		{"long", "--heartbeat-interval", "-2"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			h := newWorkHarness()
			r := workRun(t, h, t.TempDir(), nil, args...)
			w := envelopeOf(t, r)
			if r.code != 2 || w.Error == nil || w.Error.Phase != envelope.Validation {
				t.Errorf("exit %d error %+v, want a validation error (exit 2)", r.code, w.Error)
			}
			if h.called("one")+h.called("create") != 0 {
				t.Error("the command ran")
			}
		})
	}
}

// TestStepsInSchema: --schema lists a multi-step command's steps.
func TestStepsInSchema(t *testing.T) {
	r := workRun(t, newWorkHarness(), t.TempDir(), nil, "steps", "--schema")
	w := wantOK(t, r)
	var doc struct {
		Steps             []string `json:"steps"`
		Resumable         bool     `json:"resumable"`
		RollbackAvailable bool     `json:"rollback_available"`
	}
	if err := json.Unmarshal(w.Data, &doc); err != nil {
		t.Fatal(err)
	}
	want := struct {
		Steps             []string `json:"steps"`
		Resumable         bool     `json:"resumable"`
		RollbackAvailable bool     `json:"rollback_available"`
	}{[]string{"one", "two", "three"}, true, true}
	if diff := cmp.Diff(want, doc); diff != "" {
		t.Errorf("--schema (-want +got):\n%s", diff)
	}
}

// TestCleanupOnEveryEnd: a lock, a cleanup hook and the session temp
// directory are released when the command returns, times out, and is
// cancelled by SIGTERM; a second command then gets the lock at once.
func TestCleanupOnEveryEnd(t *testing.T) {
	for _, end := range []string{"return", "timeout", "sigterm", "sigint"} {
		t.Run(end, func(t *testing.T) {
			h := newWorkHarness()
			dir := t.TempDir()
			lockPath := filepath.Join(dir, "the.lock")
			args := []string{"hold", "--lock", lockPath}
			sigs := make(chan os.Signal, 1)
			extra := []urfave.Option{adapters.WithSignals(sigs), adapters.WithGrace(time.Minute)}
			switch end {
			case "timeout":
				args = append(args, "--block", "--timeout", "30ms")
			case "sigterm", "sigint":
				args = append(args, "--block")
			}
			done := make(chan result, 1)
			go func() { done <- workRun(t, h, dir, extra, args...) }()
			<-h.started
			switch end {
			case "sigterm":
				sigs <- sigterm
			case "sigint":
				sigs <- os.Interrupt
			}
			r := <-done
			w := envelopeOf(t, r)
			switch end {
			case "return":
				wantOK(t, r)
			case "timeout":
				wantError(t, r, 10, "TIMEOUT")
			case "sigterm":
				wantError(t, r, 143, "CANCELLED")
			case "sigint":
				wantError(t, r, 130, "CANCELLED")
			}
			if h.cleaned != 1 {
				t.Errorf("cleanup hook ran %d times, want 1", h.cleaned)
			}
			if _, err := os.Stat(h.tempDir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("session temp dir %s: %v, want removed", h.tempDir, err)
			}
			if got := w.Meta["session_tmp_dir"]; got != h.tempDir {
				t.Errorf("meta.session_tmp_dir = %v, want %s", got, h.tempDir)
			}
			if !lock.Free(lockPath) {
				t.Error("the lock is still held")
			}
		})
	}
}

// TestHeartbeats: --heartbeat-ms writes JSON heartbeats, each an object of
// its own, distinct from the answer; 0 writes none; --heartbeat-interval
// writes plain text with the elapsed time and the latest progress message.
func TestHeartbeats(t *testing.T) {
	t.Run("json", func(t *testing.T) {
		h := newWorkHarness()
		r := workRun(t, h, t.TempDir(), nil, "long", "--heartbeat-ms", "1")
		w := wantOK(t, r)
		if _, ok := w.Meta["heartbeat"]; ok {
			t.Error("the answer has a heartbeat member")
		}
		n := 0
		for line := range strings.Lines(r.stderr) {
			if strings.HasPrefix(line, `{"type":"progress"`) {
				continue
			}
			var hb struct {
				Status    string `json:"status"`
				Heartbeat bool   `json:"heartbeat"`
				ElapsedMS *int64 `json:"elapsed_ms"`
				Step      string `json:"step"`
			}
			if err := json.Unmarshal([]byte(line), &hb); err != nil {
				t.Fatalf("heartbeat %q: %v", line, err)
			}
			if !hb.Heartbeat || hb.Status != "running" || hb.ElapsedMS == nil || hb.Step != "halfway" && hb.Step != "" {
				t.Errorf("heartbeat %q", line)
			}
			if hb.Step == "halfway" {
				n++
			}
		}
		if n < 2 {
			t.Errorf("%d heartbeats, want at least 2", n)
		}
	})
	t.Run("zero", func(t *testing.T) {
		r := workRun(t, newWorkHarness(), t.TempDir(), nil, "long", "--quick", "--heartbeat-ms", "0")
		wantOK(t, r)
		if strings.Contains(r.stdout+r.stderr, "heartbeat") {
			t.Errorf("heartbeats with --heartbeat-ms 0:\n%s%s", r.stdout, r.stderr)
		}
	})
	t.Run("text", func(t *testing.T) {
		h := newWorkHarness()
		r := workRun(t, h, t.TempDir(), nil, "long", "--heartbeat-ms", "0", "--heartbeat-interval", "0.001")
		wantOK(t, r)
		n := 0
		for line := range strings.Lines(r.stderr) {
			if strings.HasPrefix(line, `{"type":"progress"`) {
				continue
			}
			if !textBeat.MatchString(line) {
				t.Errorf("heartbeat %q, want [<elapsed>s] halfway", line)
			}
			if strings.HasSuffix(line, "s] halfway\n") {
				n++
			}
		}
		if n < 2 {
			t.Errorf("%d heartbeats, want at least 2", n)
		}
	})
}

// jobFixture saves jobs of the work app's "later" command in dir's job
// store, and holds the lock of every running job whose process is this one,
// until the test ends: a running job, as `job status` and `job wait` see it.
// A running job of another process (pid 1) has a free lock: lost.
func jobFixture(t *testing.T, dir string, jobs []jobstore.Job) *jobstore.Store {
	t.Helper()
	store := &jobstore.Store{Dir: filepath.Join(dir, "state", "jobs")}
	for _, j := range jobs {
		j.Command, j.Created, j.PollMS = "later", time.Now().UTC(), 500
		if err := store.Save(j); err != nil {
			t.Fatal(err)
		}
		if j.Status == jobstore.Running && j.PID == os.Getpid() {
			held, err := lock.Acquire(context.Background(), store.LockPath(j.ID), 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { held.Release() })
		}
	}
	return store
}

// TestJobStatusExitCodes: `job status` exits 0 for a complete job, 14
// (INCOMPLETE, REQ-C-022 as v1.15 has it) for one running, 4 for one failed (or lost: its process ended without
// recording an answer) or cancelled, 5 for no such job.
func TestJobStatusExitCodes(t *testing.T) {
	dir := t.TempDir()
	now := time.Now().UTC()
	code := 0
	store := jobFixture(t, dir, []jobstore.Job{
		{ID: "later-complete", Status: jobstore.Complete, Finished: &now, ExitCode: &code},
		{ID: "later-failed", Status: jobstore.Failed, Finished: &now},
		{ID: "later-cancelled", Status: jobstore.Cancelled, Finished: &now},
		{ID: "later-running", Status: jobstore.Running, PID: os.Getpid()},
		{ID: "later-lost", Status: jobstore.Running, PID: 1},
	})
	if err := os.WriteFile(store.OutPath("later-complete"), []byte(`{"ok":true,"data":"done","error":null}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		id     string
		exit   int
		code   string
		status string
	}{
		{"later-complete", 0, "", "complete"},
		{"later-running", 14, "INCOMPLETE", "running"},
		{"later-failed", 4, "JOB_FAILED", "failed"},
		{"later-lost", 4, "JOB_FAILED", "failed"},
		{"later-cancelled", 4, "JOB_CANCELLED", "cancelled"},
		{"later-none", 5, "JOB_NOT_FOUND", ""},
	} {
		t.Run(tt.id, func(t *testing.T) {
			r := workRun(t, newWorkHarness(), dir, nil, "job", "status", tt.id)
			var w wire
			if tt.exit == 0 {
				w = wantOK(t, r)
			} else {
				w = wantError(t, r, tt.exit, tt.code)
			}
			var d struct {
				Status   string `json:"status"`
				Terminal bool   `json:"terminal"`
				Result   any    `json:"result"`
			}
			json.Unmarshal(w.Data, &d)
			if d.Status != tt.status || d.Terminal != (tt.status != "running" && tt.status != "") {
				t.Errorf("data %s", w.Data)
			}
			if tt.exit == 0 && d.Result != "done" {
				t.Errorf("result = %v, want the job's data", d.Result)
			}
		})
	}
}

// TestPruneOnNextRun: what an ended run left in the tool's temp root — a
// kept file older than its time, the session of a process gone — is
// removed when the tool next runs; what is young stays.
func TestPruneOnNextRun(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "tmp", "work-"+strconv.Itoa(os.Getuid()))
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(root, "kept-req_1-abc")
	young := filepath.Join(root, "kept-req_2-def")
	gone := filepath.Join(root, "session-"+strconv.Itoa(1<<22+1)+"-req_3-ghi")
	for _, d := range []string{old, young, gone} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	then := time.Now().Add(-envelope.KeptFor - time.Minute)
	os.Chtimes(old, then, then)
	wantOK(t, workRun(t, newWorkHarness(), dir, nil, "create", "--name", "a"))
	for d, want := range map[string]bool{old: false, young: true, gone: false} {
		_, err := os.Stat(d)
		if exists := err == nil; exists != want {
			t.Errorf("%s: exists %v, want %v", d, exists, want)
		}
	}
}

// TestWrapRejectsBrokenWorkDeclarations: long-work declarations that cannot
// hold fail Wrap, naming the command.
func TestWrapRejectsBrokenWorkDeclarations(t *testing.T) {
	for _, tt := range []struct {
		name string
		meta schema.Meta
		want string
	}{
		{"empty step", schema.Meta{Danger: schema.Mutating, Steps: []string{"a", ""}}, "Meta.Steps[1] is empty"},
		{"step twice", schema.Meta{Danger: schema.Mutating, Steps: []string{"a", "a"}}, `names "a" twice`},
		{"rollback without steps", schema.Meta{Danger: schema.Mutating, Rollback: true}, "Meta.Rollback is declared without Meta.Steps"},
		{"async list", schema.Meta{Danger: schema.Safe, Async: true, List: true}, "an async command runs detached"},
		{"async interactive", schema.Meta{Danger: schema.Safe, Async: true, Interactive: true}, "an async command runs detached"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			broken := &cli.Command{Name: "broken", Action: func(context.Context, *cli.Command) error { return nil }}
			urfave.Annotate(broken, tt.meta)
			_, err := urfave.Wrap(&cli.Command{Name: "app", Commands: []*cli.Command{broken}})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), `"broken"`) {
				t.Errorf("Wrap = %v, want an error naming broken with %q", err, tt.want)
			}
		})
	}
}
