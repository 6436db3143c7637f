//go:build linux

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// ===========================================================================
// A run watched while it runs: `analyze --gate <fifo>` reads a line from
// the named pipe before its load step and before each batch, so the test
// moves it on only once it has seen what it waits for — no sleeps, and no
// timing the assertions depend on.

// liveBuf is a stream the test reads while the process writes it.
type liveBuf struct {
	mu   sync.Mutex
	b    bytes.Buffer
	more chan struct{} // signalled, without blocking, on each write
}

func newLiveBuf() *liveBuf { return &liveBuf{more: make(chan struct{}, 1)} }

func (l *liveBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.b.Write(p)
	l.mu.Unlock()
	select {
	case l.more <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (l *liveBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// liveRun is a run of the binary the test watches and moves on.
type liveRun struct {
	cmd            *exec.Cmd
	stdout, stderr *liveBuf
	gate           *os.File // the write end of the --gate pipe
	done           chan struct{}
	err            error
}

// startGated starts `analyze --gate <a fresh named pipe> args...`.
func (sb *sandbox) startGated(t *testing.T, name string, args ...string) *liveRun {
	t.Helper()
	fifo := sb.mkfifo(t, name)
	// Opened read-write, the pipe has a writer at once, so neither end
	// waits for the other to open it.
	gate, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := &liveRun{stdout: newLiveBuf(), stderr: newLiveBuf(), gate: gate, done: make(chan struct{})}
	r.cmd = sb.command(sb.dir, nil, append([]string{"analyze", "--gate", fifo}, args...)...)
	r.cmd.Stdout, r.cmd.Stderr = r.stdout, r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.err = r.cmd.Wait(); close(r.done) }()
	t.Cleanup(func() {
		gate.Close()
		r.cmd.Process.Kill()
		<-r.done
	})
	return r
}

// until waits, a minute at most, until ok holds of what the stream holds.
func (r *liveRun) until(t *testing.T, stream *liveBuf, what string, ok func(string) bool) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		if ok(stream.String()) {
			return
		}
		select {
		case <-stream.more:
		case <-r.done:
			if ok(stream.String()) {
				return
			}
			t.Fatalf("the run ended (%v) before %s\nstdout: %s\nstderr: %s", r.err, what, r.stdout, r.stderr)
		case <-deadline:
			t.Fatalf("no %s within a minute\nstdout: %s\nstderr: %s", what, r.stdout, r.stderr)
		}
	}
}

// release lets the command go on past one gate.
func (r *liveRun) release(t *testing.T) {
	t.Helper()
	if _, err := r.gate.WriteString("go\n"); err != nil {
		t.Fatal(err)
	}
}

// finish releases the command past every gate it has left and waits, a
// minute at most, for it to end.
func (r *liveRun) finish(t *testing.T, gates int) result {
	t.Helper()
	for range gates {
		r.release(t)
	}
	select {
	case <-r.done:
	case <-time.After(time.Minute):
		r.cmd.Process.Kill()
		<-r.done
		t.Fatalf("the run did not end within a minute\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
	}
	return result{stdout: r.stdout.String(), stderr: r.stderr.String(), code: exitCode(r.err)}
}

// analyzeStages are the statuses analyze reports in turn, through
// Output.Step and Output.Progress, with the default two batches: a
// heartbeat says the latest.
var analyzeStages = []string{"load", "analyzing batch 1/2", "analyzing batch 2/2"}

// stageOf is the index of a heartbeat's status in analyzeStages: -1 for
// "running", which a beat says before any status was reported.
func stageOf(t *testing.T, status string) int {
	t.Helper()
	if status == "running" {
		return -1
	}
	i := slices.Index(analyzeStages, status)
	if i < 0 {
		t.Errorf("a heartbeat says %q, which analyze never reported", status)
	}
	return i
}

// textBeat is a plain heartbeat line: "[<elapsed>s] <status>".
var textBeat = regexp.MustCompile(`^\[([0-9]+(?:\.[0-9]+)?)s\] (.+)$`)

type plainBeat struct {
	secs   float64
	status string
}

// textBeats are the plain heartbeats among lines.
func textBeats(s string) []plainBeat {
	var out []plainBeat
	for line := range strings.Lines(s) {
		if m := textBeat.FindStringSubmatch(strings.TrimSuffix(line, "\n")); m != nil {
			secs, _ := strconv.ParseFloat(m[1], 64)
			out = append(out, plainBeat{secs, m[2]})
		}
	}
	return out
}

// jsonBeats are the lines of s that are JSON objects with a heartbeat
// member, decoded.
func jsonBeats(s string) []map[string]any {
	var out []map[string]any
	for line := range strings.Lines(s) {
		var v map[string]any
		if json.Unmarshal([]byte(line), &v) == nil {
			if _, ok := v["heartbeat"]; ok {
				out = append(out, v)
			}
		}
	}
	return out
}

func countText(s, status string) int {
	n := 0
	for _, b := range textBeats(s) {
		if b.status == status {
			n++
		}
	}
	return n
}

func countJSON(s, step string) int {
	n := 0
	for _, b := range jsonBeats(s) {
		if b["step"] == step {
			n++
		}
	}
	return n
}

// ---------------------------------------------------------------------------
// REQ-O-012 --heartbeat-interval Flag.

// TestO012HeartbeatInterval: REQ-O-012 criteria 1 to 4, scaled from
// seconds to fifths of one. `analyze` declares itself long-running
// (schema.Meta.LongRunning) and reports a step (load) then a progress
// message per batch through envelope.From(ctx). Run with
// --heartbeat-interval 0.2, it writes on stderr, while it waits at each
// gate, "[<elapsed>s] <status>" lines: at least two for each status, each
// the latest the command reported (statuses only move forward), the k-th
// no earlier than k intervals in (so one per interval, never more often),
// every line plain text and none of them JSON. Under --quiet, with JSON
// heartbeats (--heartbeat-ms) as the clock, none is written though the run
// lasts twenty intervals.
func TestO012HeartbeatInterval(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	if f := sb.schemaOf(t, "analyze")["flags"].(map[string]any)["heartbeat-interval"]; get(f, "type") != "number" || get(f, "default") != 0.0 {
		t.Errorf("analyze --schema: --heartbeat-interval is %v, want a number defaulting to 0 (never)", f)
	}

	t.Run("beats", func(t *testing.T) {
		t.Parallel()
		const interval = 0.2
		run := sb.startGated(t, "gate-text", "--heartbeat-interval", "0.2", "--heartbeat-ms", "0")
		for _, st := range analyzeStages {
			run.until(t, run.stderr, fmt.Sprintf("two heartbeats saying %q", st), func(s string) bool { return countText(s, st) >= 2 })
			run.release(t)
		}
		r := run.finish(t, 0)
		want(t, "analyze", expect(t, "analyze", r, 0), map[string]any{"data.batches": 2.0})
		beats, stage := 0, -1
		for line := range strings.Lines(r.stderr) {
			line = strings.TrimSuffix(line, "\n")
			var ev map[string]any
			if json.Unmarshal([]byte(line), &ev) == nil {
				if ev["type"] != "step" { // the step events an agent reads; no heartbeat is JSON
					t.Errorf("stderr line %q is JSON and not a step event", line)
				}
				continue
			}
			m := textBeat.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("stderr line %q is neither a step event nor a heartbeat", line)
				continue
			}
			beats++
			if s := stageOf(t, m[2]); s < stage {
				t.Errorf("heartbeat %q after one saying %q: not the latest status", line, analyzeStages[stage])
			} else {
				stage = s
			}
			// Elapsed is shown to a tenth of a second: the k-th beat
			// comes no sooner than k intervals in.
			if secs, _ := strconv.ParseFloat(m[1], 64); secs < float64(beats)*interval-0.05 {
				t.Errorf("heartbeat %d says %ss, sooner than %d intervals of %gs", beats, m[1], beats, interval)
			}
		}
		if beats < 2*len(analyzeStages) {
			t.Errorf("%d heartbeats, want at least %d", beats, 2*len(analyzeStages))
		}
	})

	t.Run("quiet", func(t *testing.T) {
		t.Parallel()
		run := sb.startGated(t, "gate-quiet", "--quiet", "--heartbeat-interval", "0.05", "--heartbeat-ms", "100")
		run.until(t, run.stderr, "a JSON heartbeat a second in", func(s string) bool {
			for _, b := range jsonBeats(s) {
				if ms, _ := b["elapsed_ms"].(float64); ms >= 1000 {
					return true
				}
			}
			return false
		})
		r := run.finish(t, len(analyzeStages))
		expect(t, "analyze --quiet", r, 0)
		if beats := textBeats(r.stderr); len(beats) > 0 {
			t.Errorf("--quiet: %d plain heartbeats on stderr:\n%s", len(beats), r.stderr)
		}
	})
}

// ---------------------------------------------------------------------------
// REQ-O-038 --heartbeat-ms Flag for Long-Running Commands.

// checkJSONBeats holds each heartbeat to the spec's shape —
// {"status":"running","heartbeat":true,"elapsed_ms":N,"step":...}, each a
// line of its own — with the latest status as its step (statuses only move
// forward) and the k-th beat no sooner than k intervals in. It returns the
// number of beats.
func checkJSONBeats(t *testing.T, where, stream string, intervalMS float64) int {
	t.Helper()
	n, stage := 0, -1
	for line := range strings.Lines(stream) {
		var v map[string]any
		if json.Unmarshal([]byte(line), &v) != nil {
			t.Errorf("%s: line %q is not a JSON object", where, line)
			continue
		}
		if _, ok := v["heartbeat"]; !ok {
			continue
		}
		n++
		if diff := cmp.Diff([]string{"elapsed_ms", "heartbeat", "status", "step"}, keys(v)); diff != "" {
			t.Errorf("%s: heartbeat %q members (-want +got):\n%s", where, line, diff)
		}
		if v["status"] != "running" || v["heartbeat"] != true {
			t.Errorf("%s: heartbeat %q: want status running and heartbeat true", where, line)
		}
		if ms, _ := v["elapsed_ms"].(float64); ms < float64(n)*intervalMS {
			t.Errorf("%s: heartbeat %d at %vms, sooner than %d intervals of %vms", where, n, v["elapsed_ms"], n, intervalMS)
		}
		step, _ := v["step"].(string)
		if s := stageOf(t, step); s < stage {
			t.Errorf("%s: heartbeat %q after one at %q: not the latest step", where, line, analyzeStages[stage])
		} else {
			stage = s
		}
	}
	return n
}

// TestO038HeartbeatMS: REQ-O-038 criteria 1 to 4, scaled from 10s to
// 100ms. --heartbeat-ms is listed with its default of 10000. In the json
// format, while `analyze` waits at each gate, it writes JSON heartbeats —
// at least two before the answer — on stderr, each a JSON object on a line
// of its own, with the latest step; stdout is the one envelope, which has
// no heartbeat member. In the jsonl format the heartbeats are lines of the
// stream on stdout, as the spec's wire format has them, and the last line
// is the answer — success or failure — with no heartbeat member. With
// --heartbeat-ms 0 there is no heartbeat in a run that outlasts the
// default interval (--heartbeat-interval's plain beats are its clock),
// and with no --heartbeat-ms an agent gets one at 10s.
func TestO038HeartbeatMS(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	if f := sb.schemaOf(t, "analyze")["flags"].(map[string]any)["heartbeat-ms"]; get(f, "type") != "integer" || get(f, "default") != 10000.0 {
		t.Errorf("analyze --schema: --heartbeat-ms is %v, want an integer defaulting to 10000", f)
	}

	t.Run("json", func(t *testing.T) {
		t.Parallel()
		run := sb.startGated(t, "gate-json", "--heartbeat-ms", "100")
		for _, st := range analyzeStages {
			run.until(t, run.stderr, fmt.Sprintf("a heartbeat at step %q", st), func(s string) bool { return countJSON(s, st) >= 1 })
			run.release(t)
		}
		r := run.finish(t, 0)
		env := expect(t, "analyze", r, 0) // stdout is the one envelope
		if _, ok := env["heartbeat"]; ok {
			t.Errorf("the answer has a heartbeat member: %s", r.stdout)
		}
		var beats strings.Builder
		for line := range strings.Lines(r.stderr) {
			if !strings.Contains(line, `"type":"step"`) {
				beats.WriteString(line)
			}
		}
		if n := checkJSONBeats(t, "stderr", beats.String(), 100); n < len(analyzeStages) {
			t.Errorf("%d heartbeats, want at least %d", n, len(analyzeStages))
		}
	})

	// The answer in jsonl: a success is its data as a record, then the
	// _summary line; a failure is the envelope.
	for _, tt := range []struct {
		name   string
		args   []string
		code   int
		answer []map[string]any // what each line after the heartbeats holds
	}{
		{"jsonl", nil, 0, []map[string]any{
			{"batches": 2.0},
			{"_summary": true, "total": 1.0, "meta.exit_code": 0.0},
		}},
		{"jsonl failure", []string{"--fail"}, 3, []map[string]any{
			{"ok": false, "data.failed_step": "analyze", "error.code": "BATCH_FAILED", "meta.exit_code": 3.0},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run := sb.startGated(t, "gate-"+strings.ReplaceAll(tt.name, " ", "-"), append([]string{"--format", "jsonl", "--heartbeat-ms", "100"}, tt.args...)...)
			for _, st := range analyzeStages {
				run.until(t, run.stdout, fmt.Sprintf("a heartbeat at step %q", st), func(s string) bool { return countJSON(s, st) >= 1 })
				run.release(t)
			}
			r := run.finish(t, 0)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tt.code, r.stdout, r.stderr)
			}
			lines := strings.SplitAfter(strings.TrimSuffix(r.stdout, "\n"), "\n")
			beats := max(len(lines)-len(tt.answer), 0)
			if n := checkJSONBeats(t, "stdout", strings.Join(lines[:beats], ""), 100); n < len(analyzeStages) || n != beats {
				t.Errorf("%d heartbeats among the %d lines before the answer, want every one and at least %d\n%s", n, beats, len(analyzeStages), r.stdout)
			}
			for i, line := range lines[beats:] {
				var v map[string]any
				if err := json.Unmarshal([]byte(line), &v); err != nil {
					t.Fatalf("answer line %q is not a JSON object: %v", line, err)
				}
				if _, ok := v["heartbeat"]; ok {
					t.Errorf("answer line %q has a heartbeat member", line)
				}
				want(t, "answer line "+strconv.Itoa(i+1), v, tt.answer[i])
			}
			if jsonBeats(r.stderr) != nil {
				t.Errorf("jsonl: heartbeats on stderr too:\n%s", r.stderr)
			}
		})
	}

	// Both runs outlast the 10s default, by --heartbeat-interval's clock.
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"zero", []string{"--heartbeat-ms", "0"}},
		{"default", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run := sb.startGated(t, "gate-"+tt.name, append([]string{"--heartbeat-interval", "0.5"}, tt.args...)...)
			run.until(t, run.stderr, "a plain heartbeat 10.5s in", func(s string) bool {
				beats := textBeats(s)
				return len(beats) > 0 && beats[len(beats)-1].secs >= 10.5
			})
			r := run.finish(t, len(analyzeStages))
			expect(t, "analyze", r, 0)
			n := len(jsonBeats(r.stdout + r.stderr))
			switch {
			case tt.args != nil && n > 0:
				t.Errorf("--heartbeat-ms 0: %d heartbeats\nstdout: %s\nstderr: %s", n, r.stdout, r.stderr)
			case tt.args == nil && n == 0:
				t.Errorf("no --heartbeat-ms: no heartbeat from an agent's run of over 10s\nstderr: %s", r.stderr)
			case tt.args == nil:
				checkJSONBeats(t, "stderr", joinBeats(r.stderr), 10000)
			}
		})
	}
}

// joinBeats are the JSON heartbeat lines of s.
func joinBeats(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		var v map[string]any
		if json.Unmarshal([]byte(line), &v) == nil && v["heartbeat"] != nil {
			b.WriteString(line)
		}
	}
	return b.String()
}

// ===========================================================================
// Traversal: `tree list <dir>` lists a tree, `tree delete <dir>` deletes
// it; both walk it with package walk and declare schema.Meta.Traverses.

// mkTree makes dirs and files (paths relative to root; a name ending in /
// is a directory) and symlinks (link → target, as written).
func mkTree(t *testing.T, root string, paths []string, links map[string]string) {
	t.Helper()
	for _, p := range paths {
		full := filepath.Join(root, p)
		var err error
		if strings.HasSuffix(p, "/") {
			err = os.MkdirAll(full, 0o755)
		} else if err = os.MkdirAll(filepath.Dir(full), 0o755); err == nil {
			err = os.WriteFile(full, []byte(p), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range links {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
}

// chain is n nested directories, d1/d2/.../dn/.
func chain(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = "d" + strconv.Itoa(i+1)
	}
	return strings.Join(parts, "/") + "/"
}

// snapshot lists what is under root, links as links.
func snapshot(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// realDir is a new directory in the sandbox, its path free of symlinks, as
// the paths the walk reports are.
func realDir(t *testing.T, sb *sandbox, name string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(sb.dir)
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(dir, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// listed is `tree list`'s data.
type listed struct {
	Entries []struct {
		Path  string `json:"path"`
		Depth int    `json:"depth"`
		Dir   bool   `json:"dir"`
		Link  bool   `json:"link"`
	} `json:"entries"`
	SymlinksSkipped int `json:"symlinks_skipped"`
	Revisited       int `json:"revisited"`
}

func listOf(t *testing.T, env map[string]any) listed {
	t.Helper()
	raw, _ := json.Marshal(env["data"])
	var l listed
	if err := json.Unmarshal(raw, &l); err != nil {
		t.Fatalf("tree list data: %v", err)
	}
	return l
}

func (l listed) paths() []string {
	var out []string
	for _, e := range l.Entries {
		out = append(out, e.Path)
	}
	return out
}

// loops are trees with a circular symlink, where the walk meets it first
// (path), and the directory it leads back to (target), relative to the
// tree's root.
var loops = []struct {
	name         string
	paths        []string
	links        map[string]string
	path, target string
}{
	{"to the parent", []string{"f", "b/g"}, map[string]string{"b/back": ".."}, "b/back", ""},
	{"to itself", []string{"f"}, map[string]string{"self": "."}, "self", ""},
	{"three levels up", []string{"b/c/h"}, map[string]string{"b/c/link_back": "../.."}, "b/c/link_back", ""},
	{"through two links", []string{"x/", "y/"}, map[string]string{"x/to_y": "../y", "y/to_x": "../x"}, "x/to_y/to_x", "x"},
	{"absolute", []string{"b/g"}, map[string]string{"b/abs": "<root>"}, "b/abs", ""},
}

// makeLoop makes loop i's tree under a new directory of the sandbox.
func makeLoop(t *testing.T, sb *sandbox, i int, name string) string {
	t.Helper()
	root := realDir(t, sb, name)
	links := map[string]string{}
	for l, target := range loops[i].links {
		links[l] = strings.ReplaceAll(target, "<root>", root)
	}
	mkTree(t, root, loops[i].paths, links)
	return root
}

// ---------------------------------------------------------------------------
// REQ-F-061 Symlink Loop Detection in Traversal Utilities.

// TestF061SymlinkLoop: REQ-F-061 criteria 1 to 4. A recursive delete (and
// a listing) of a tree holding a circular symlink — to its parent, to
// itself, three levels up, through two links, by an absolute path — exits
// 4 with SYMLINK_LOOP at once, error.path the link where the loop was met
// and error.loop_target the directory it leads back to, both absolute,
// with completed_count; nothing is deleted. --max-depth 10 walks a tree
// ten directories deep whole, and stops an eleventh with DEPTH_EXCEEDED
// having visited the eleven entries above it. A tree fifty directories
// deep (the default limit) with links that make no loop — to a sibling
// directory, to a file, out of the tree — is walked whole, through the
// links, a directory reached twice walked once, and deleted without
// touching what a link leads to outside it; fifty-one deep is stopped with
// DEPTH_EXCEEDED and max_depth 50.
func TestF061SymlinkLoop(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)

	for i, tt := range loops {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := makeLoop(t, sb, i, "loop-"+strconv.Itoa(i))
			before := snapshot(t, root)
			for _, args := range [][]string{{"tree", "delete", "--yes", root}, {"tree", "list", root}} {
				env := expect(t, strings.Join(args[:2], " "), sb.run(t, args...), 4)
				want(t, strings.Join(args[:2], " "), env, map[string]any{
					"error.code":        "SYMLINK_LOOP",
					"error.phase":       "execution",
					"error.path":        filepath.Join(root, tt.path),
					"error.loop_target": filepath.Join(root, tt.target),
				})
				if _, ok := get(env, "error.completed_count").(float64); !ok {
					t.Errorf("%s: error.completed_count %v, want a count", args[1], get(env, "error.completed_count"))
				}
			}
			if diff := cmp.Diff(before, snapshot(t, root)); diff != "" {
				t.Errorf("the tree changed (-before +after):\n%s", diff)
			}
		})
	}

	t.Run("--max-depth 10", func(t *testing.T) {
		t.Parallel()
		ten := realDir(t, sb, "ten")
		mkTree(t, ten, []string{chain(10), chain(9) + "f"}, nil)
		l := listOf(t, expect(t, "tree list --max-depth 10", sb.run(t, "tree", "list", "--max-depth", "10", ten), 0))
		if len(l.Entries) != 12 || l.Entries[10].Depth != 10 || l.Entries[10].Path != filepath.Join(ten, chain(10)) {
			t.Errorf("ten levels with --max-depth 10: %d entries %v, want 12, d10 at depth 10", len(l.Entries), l.paths())
		}
		eleven := realDir(t, sb, "eleven")
		mkTree(t, eleven, []string{chain(11)}, nil)
		env := expect(t, "tree list --max-depth 10", sb.run(t, "tree", "list", "--max-depth", "10", eleven), 4)
		want(t, "eleven levels", env, map[string]any{
			"error.code": "DEPTH_EXCEEDED", "error.max_depth": 10.0,
			"error.path": filepath.Join(eleven, chain(11)), "error.completed_count": 11.0,
		})
	})

	t.Run("no loop, full depth", func(t *testing.T) {
		t.Parallel()
		outside := realDir(t, sb, "outside")
		mkTree(t, outside, []string{"kept"}, nil)
		root := realDir(t, sb, "fifty")
		mkTree(t, root, []string{chain(50), chain(49) + "bottom", "shared/s", "file"}, map[string]string{
			"a-sibling": "shared", "file-link": "file", "out": outside,
		})
		l := listOf(t, expect(t, "tree list", sb.run(t, "tree", "list", root), 0))
		// In lexical order, a directory before its entries; shared, reached
		// through a-sibling first, is listed again but not walked twice.
		wantPaths := []string{root, filepath.Join(root, "a-sibling"), filepath.Join(root, "a-sibling", "s")}
		for i := range 49 {
			wantPaths = append(wantPaths, filepath.Join(root, chain(i+1)))
		}
		wantPaths = append(wantPaths, filepath.Join(root, chain(49), "bottom"), filepath.Join(root, chain(50)),
			filepath.Join(root, "file"), filepath.Join(root, "file-link"),
			filepath.Join(root, "out"), filepath.Join(root, "out", "kept"), filepath.Join(root, "shared"))
		if diff := cmp.Diff(wantPaths, l.paths()); diff != "" {
			t.Errorf("entries (-want +got):\n%s", diff)
		}
		for _, e := range l.Entries {
			if e.Path == filepath.Join(root, chain(50)) && e.Depth != 50 {
				t.Errorf("d50 at depth %d, want 50", e.Depth)
			}
		}
		if l.Revisited != 1 || l.SymlinksSkipped != 0 {
			t.Errorf("revisited %d, symlinks_skipped %d; want shared reached twice and no link skipped", l.Revisited, l.SymlinksSkipped)
		}

		env := expect(t, "tree delete", sb.run(t, "tree", "delete", "--yes", root), 0)
		if exists(root) || !exists(filepath.Join(outside, "kept")) {
			t.Errorf("after tree delete: %s exists %v, %s/kept exists %v", root, exists(root), outside, exists(filepath.Join(outside, "kept")))
		}
		want(t, "tree delete", env, map[string]any{"meta.effect": "deleted"})

		over := realDir(t, sb, "fifty-one")
		mkTree(t, over, []string{chain(51)}, nil)
		env = expect(t, "tree list", sb.run(t, "tree", "list", over), 4)
		want(t, "fifty-one levels", env, map[string]any{"error.code": "DEPTH_EXCEEDED", "error.max_depth": 50.0, "error.path": filepath.Join(over, chain(51))})
	})
}

// ---------------------------------------------------------------------------
// REQ-O-040 --no-follow-symlinks Flag for Traversal Commands.

// TestO040NoFollowSymlinks: REQ-O-040 criteria 1 to 4. `tree delete
// --no-follow-symlinks` deletes each loop tree of TestF061SymlinkLoop
// whole — its links as links, none followed, counted in
// data.symlinks_skipped — and a link out of the tree leaves its target
// alone; `tree list --no-follow-symlinks` lists each link as a link and
// nothing through it. Without the flag the same trees fail with
// SYMLINK_LOOP (REQ-F-061's inode tracking). --max-depth 3 on a tree four
// levels deep exits 4 DEPTH_EXCEEDED with max_depth, path and a hint
// naming --max-depth, deleting nothing; three levels deep are deleted.
// Both traversal commands' --schema list --no-follow-symlinks and
// --max-depth (default 50) and recursive_traversal; a command that does
// not walk has neither.
func TestO040NoFollowSymlinks(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)

	for i, tt := range loops {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := makeLoop(t, sb, i, "nofollow-"+strconv.Itoa(i))
			outside := realDir(t, sb, "outside-"+strconv.Itoa(i))
			mkTree(t, outside, []string{"kept"}, map[string]string{})
			if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
				t.Fatal(err)
			}
			links := len(tt.links) + 1

			expect(t, "tree delete, following", sb.run(t, "tree", "delete", "--yes", root), 4)

			l := listOf(t, expect(t, "tree list --no-follow-symlinks", sb.run(t, "tree", "list", "--no-follow-symlinks", root), 0))
			var linked []string
			for _, e := range l.Entries {
				if e.Link {
					if e.Dir {
						t.Errorf("%s: a link listed as a directory", e.Path)
					}
					linked = append(linked, e.Path)
				}
			}
			for _, e := range l.Entries {
				for _, link := range linked {
					if strings.HasPrefix(e.Path, link+"/") {
						t.Errorf("%s: listed through the link %s", e.Path, link)
					}
				}
			}
			if len(linked) != links || l.SymlinksSkipped != links {
				t.Errorf("links listed %q, symlinks_skipped %d; want %d", linked, l.SymlinksSkipped, links)
			}

			entries := len(snapshot(t, root))
			env := expect(t, "tree delete --no-follow-symlinks", sb.run(t, "tree", "delete", "--yes", "--no-follow-symlinks", root), 0)
			want(t, "tree delete --no-follow-symlinks", env, map[string]any{
				"data.deleted_count": float64(entries), "data.symlinks_skipped": float64(links), "meta.effect": "deleted",
			})
			if exists(root) || !exists(filepath.Join(outside, "kept")) {
				t.Errorf("after the delete: %s exists %v, %s/kept exists %v", root, exists(root), outside, exists(filepath.Join(outside, "kept")))
			}
		})
	}

	t.Run("--max-depth 3", func(t *testing.T) {
		t.Parallel()
		four := realDir(t, sb, "four")
		mkTree(t, four, []string{"1/2/3/4/"}, nil)
		env := expect(t, "tree delete --max-depth 3", sb.run(t, "tree", "delete", "--yes", "--max-depth", "3", four), 4)
		want(t, "four levels", env, map[string]any{
			"error.code": "DEPTH_EXCEEDED", "error.max_depth": 3.0, "error.path": filepath.Join(four, "1/2/3/4"),
		})
		if hint, _ := get(env, "error.hint").(string); !strings.Contains(hint, "--max-depth") {
			t.Errorf("error.hint %q does not name --max-depth", hint)
		}
		if !exists(filepath.Join(four, "1/2/3/4")) {
			t.Error("the tree too deep was deleted")
		}
		three := realDir(t, sb, "three")
		mkTree(t, three, []string{"1/2/3/"}, nil)
		want(t, "three levels", expect(t, "tree delete --max-depth 3", sb.run(t, "tree", "delete", "--yes", "--max-depth", "3", three), 0),
			map[string]any{"data.deleted_count": 4.0})
		if exists(three) {
			t.Error("the tree three levels deep is still there")
		}
		expect(t, "--max-depth 0", sb.run(t, "tree", "list", "--max-depth", "0", three), 2)
	})

	t.Run("--schema", func(t *testing.T) {
		t.Parallel()
		for _, cmd := range [][]string{{"tree", "list"}, {"tree", "delete"}} {
			doc := sb.schemaOf(t, cmd...)
			want(t, strings.Join(cmd, " ")+" --schema", doc, map[string]any{
				"flags.no-follow-symlinks.type": "boolean", "flags.no-follow-symlinks.default": false,
				"flags.max-depth.type": "integer", "flags.max-depth.default": 50.0,
				"recursive_traversal": true,
			})
		}
		if flags := flagNames(sb.schemaOf(t, "analyze")); slices.Contains(flags, "no-follow-symlinks") || slices.Contains(flags, "max-depth") {
			t.Errorf("analyze, which walks nothing, has the traversal flags: %v", flags)
		}
	})
}

// ===========================================================================
// REQ-O-029 tool changelog Built-In Command.

// changelogEntry is one entry of `changelog`.
type changelogEntry struct {
	Version  string   `json:"version"`
	Date     string   `json:"date"`
	Breaking bool     `json:"breaking"`
	Added    []string `json:"added"`
	Removed  []string `json:"removed"`
	Changed  []string `json:"changed"`
}

// TestO029Changelog: REQ-O-029 criteria 1 to 4. `e2eapp changelog
// --format json` answers data.entries, a JSON array — the spec's own
// schema and wire format put the array there, in the envelope, where
// criterion 1 speaks of a bare array — of the entries e2eapp declares
// (changelog.New, in no order), newest first by version number
// (0.10.0 after 0.9.0), each with exactly version, date, breaking, added,
// removed and changed, the lists empty rather than absent, 1.0.0 and 2.0.0
// flagged breaking. --since V keeps the versions after V; --since the
// newest keeps none; a --since that is no version exits 2.
func TestO029Changelog(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	v200 := changelogEntry{"2.0.0", "2026-04-01", true, []string{"data.deployed_url"}, []string{"data.url"}, []string{}}
	v110 := changelogEntry{"1.1.0", "2026-01-20", false, []string{"command analyze", "command tree.list", "command tree.delete"}, []string{}, []string{}}
	v100 := changelogEntry{"1.0.0", "2025-09-15", true, []string{}, []string{"flag --dir"}, []string{"data.files: from a string to an array"}}
	v0100 := changelogEntry{"0.10.0", "2025-07-30", false, []string{"command backup", "data.sha256"}, []string{}, []string{}}
	v090 := changelogEntry{"0.9.0", "2025-06-02", false, []string{"command status", "command sync"}, []string{}, []string{}}
	for _, tt := range []struct {
		since []string
		want  []changelogEntry
	}{
		{nil, []changelogEntry{v200, v110, v100, v0100, v090}},
		{[]string{"--since", "1.0.0"}, []changelogEntry{v200, v110}},
		{[]string{"--since", "0.9.0"}, []changelogEntry{v200, v110, v100, v0100}},
		{[]string{"--since", "1.0"}, []changelogEntry{v200, v110}},
		{[]string{"--since", "2.0.0"}, []changelogEntry{}},
	} {
		args := append([]string{"changelog", "--format", "json"}, tt.since...)
		what := strings.Join(args, " ")
		env := expect(t, what, sb.run(t, args...), 0)
		list, ok := get(env, "data.entries").([]any)
		if !ok {
			t.Errorf("%s: data.entries is %v, not a JSON array", what, get(env, "data.entries"))
			continue
		}
		for _, e := range list {
			m, _ := e.(map[string]any)
			if diff := cmp.Diff([]string{"added", "breaking", "changed", "date", "removed", "version"}, keys(m)); diff != "" {
				t.Errorf("%s: an entry's members (-want +got):\n%s", what, diff)
			}
		}
		raw, _ := json.Marshal(list)
		var got []changelogEntry
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: entries (-want +got):\n%s", what, diff)
		}
	}
	env := expect(t, "changelog --since soon", sb.run(t, "changelog", "--since", "soon"), 2)
	want(t, "changelog --since soon", env, map[string]any{"error.code": "INVALID_VERSION", "error.field": "since"})
}

// ===========================================================================
// REQ-O-034 tool generate-skills Built-In Command.

// frontMatterKey is a front matter line as OpenClaw's loader reads one:
// a key and its value on one line.
var frontMatterKey = regexp.MustCompile(`^[a-z_][a-z0-9_-]*: \S`)

// skillName is a skill name as OpenClaw and Claude Code take one.
var skillName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// loadSkill loads a SKILL file as an OpenClaw-compatible loader does: YAML
// front matter between --- lines, every key on one line, name (lower-case
// words joined by hyphens, at most 64 characters) and description (at most
// 1024) required, then a Markdown body. It returns the front matter and
// the body.
func loadSkill(t *testing.T, path string) (map[string]any, string) {
	t.Helper()
	raw := readFile(t, path)
	rest, ok := strings.CutPrefix(raw, "---\n")
	if !ok {
		t.Fatalf("%s: no front matter", path)
	}
	head, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		t.Fatalf("%s: front matter not closed", path)
	}
	for _, line := range strings.Split(head, "\n") {
		if !frontMatterKey.MatchString(line) {
			t.Errorf("%s: front matter line %q is not a key on one line", path, line)
		}
	}
	var fm map[string]any
	if err := yaml.Unmarshal([]byte(head), &fm); err != nil {
		t.Fatalf("%s: front matter is not YAML: %v", path, err)
	}
	name, _ := fm["name"].(string)
	if !skillName.MatchString(name) || len(name) > 64 {
		t.Errorf("%s: name %q is not a skill name", path, name)
	}
	if desc, _ := fm["description"].(string); desc == "" || len(desc) > 1024 {
		t.Errorf("%s: description %q", path, desc)
	}
	return fm, body
}

// TestO034GenerateSkills: REQ-O-034 criteria 1 to 4. `generate-skills
// --output-dir` writes CONTEXT.md and one SKILL-e2eapp-<command>.md per
// command an agent can run — every runnable command of e2eapp's manifest
// but Duet's own, the interactive shell of the bare invocation (refused
// for an agent) and those for a person only — and nothing else, and
// reports each in data.skills. Every skill loads as an OpenClaw-compatible
// loader loads one (see loadSkill), its front matter naming the command
// and carrying its description and version and, as args, the JSON Schema
// of its input, whose properties are the flags its --schema lists, and
// its body holding at least three invocations of the command, among them
// every example of its --schema and its --schema call. Run again, it is a
// noop and changes no file. --skill-format json writes the same skills as
// JSON.
func TestO034GenerateSkills(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	dir := sb.path("skills")
	r := sb.run(t, "generate-skills", "--output-dir", dir)
	env := expect(t, "generate-skills", r, 0)
	want(t, "generate-skills", env, map[string]any{"meta.effect": "created", "data.skills.0.type": "context", "data.skills.0.path": filepath.Join(dir, "CONTEXT.md")})

	// The commands an agent can run, from the manifest and --schema.
	docs := map[string]map[string]any{}
	var wantCmds []string
	for name, c := range sb.manifest(t)["commands"].(map[string]any) {
		switch {
		case get(c, "builtin") == true, get(c, "requires_person") == true, delegates(c):
		case name == "e2eapp":
			// The bare invocation is an interactive shell: an agent's run
			// is refused.
			bare := expect(t, "e2eapp", sb.run(t), 4)
			if get(bare, "error.code") != "REPL_MODE_PROHIBITED" {
				t.Errorf("bare e2eapp: %v, want REPL_MODE_PROHIBITED", get(bare, "error.code"))
			}
		default:
			if doc := sb.schemaOf(t, strings.Split(name, ".")...); doc["runnable"] == true {
				wantCmds = append(wantCmds, name)
				docs[name] = doc
			}
		}
	}
	slices.Sort(wantCmds)
	var gotCmds, wantFiles []string
	for _, s := range get(env, "data.skills").([]any) {
		if cmd, ok := get(s, "command").(string); ok {
			gotCmds = append(gotCmds, cmd)
			want(t, "skill "+cmd, s.(map[string]any), map[string]any{
				"type": "skill", "format": "markdown", "path": filepath.Join(dir, "SKILL-e2eapp-"+strings.ReplaceAll(cmd, ".", "-")+".md"),
			})
		}
		wantFiles = append(wantFiles, get(s, "path").(string))
	}
	if diff := cmp.Diff(wantCmds, gotCmds); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	slices.Sort(wantFiles)
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("files in --output-dir (-data.skills +written):\n%s", diff)
	}
	if ctx := readFile(t, filepath.Join(dir, "CONTEXT.md")); !strings.Contains(ctx, "`e2eapp tree list`") || !strings.Contains(ctx, "## Guidance") {
		t.Errorf("CONTEXT.md does not list the commands and the guidance:\n%s", ctx)
	}

	for _, cmd := range wantCmds {
		words := strings.Fields("e2eapp " + strings.ReplaceAll(cmd, ".", " "))
		line := strings.Join(words, " ")
		path := filepath.Join(dir, "SKILL-"+strings.Join(words, "-")+".md")
		fm, body := loadSkill(t, path)
		doc := docs[cmd]
		want(t, path, fm, map[string]any{
			"name": strings.Join(words, "-"), "command": line, "description": doc["description"], "version": "1.0.0", "args.type": "object",
		})
		props, _ := get(fm, "args.properties").(map[string]any)
		for _, f := range flagNames(doc) {
			if props[f] == nil {
				t.Errorf("%s: args has no property for --%s", path, f)
			}
		}
		var examples []string
		for l := range strings.Lines(body) {
			if ex, ok := strings.CutPrefix(strings.TrimSpace(l), "`"+line); ok && strings.HasSuffix(ex, "`") {
				examples = append(examples, line+strings.TrimSuffix(ex, "`"))
			}
		}
		wantEx := []string{line + " --schema"}
		declared, _ := doc["examples"].([]any)
		for _, ex := range declared {
			c, _ := get(ex, "command").(string)
			if !strings.HasPrefix(c, "e2eapp ") {
				c = "e2eapp " + c
			}
			wantEx = append(wantEx, c)
		}
		for _, ex := range wantEx {
			if !slices.Contains(examples, ex) {
				t.Errorf("%s: no example %q among %q", path, ex, examples)
			}
		}
		if len(examples) < 3 {
			t.Errorf("%s: %d examples %q, want at least three", path, len(examples), examples)
		}
	}

	before := readFile(t, filepath.Join(dir, "SKILL-e2eapp-tree-list.md"))
	want(t, "generate-skills again", expect(t, "generate-skills again", sb.run(t, "generate-skills", "--output-dir", dir), 0),
		map[string]any{"meta.effect": "noop"})
	if after := readFile(t, filepath.Join(dir, "SKILL-e2eapp-tree-list.md")); after != before {
		t.Error("the second run changed SKILL-e2eapp-tree-list.md")
	}

	jsonDir := sb.path("skills-json")
	expect(t, "generate-skills --skill-format json", sb.run(t, "generate-skills", "--output-dir", jsonDir, "--skill-format", "json"), 0)
	var skill map[string]any
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(jsonDir, "SKILL-e2eapp-tree-list.json"))), &skill); err != nil {
		t.Fatalf("SKILL-e2eapp-tree-list.json: %v", err)
	}
	want(t, "SKILL-e2eapp-tree-list.json", skill, map[string]any{"name": "e2eapp-tree-list", "command": "e2eapp tree list", "args.type": "object"})
}
