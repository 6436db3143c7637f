//go:build linux

package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// playbook writes a wrapped program into the sandbox: a line on its stdout,
// one on its stderr, and a last line it never ends, as a log cut short
// does.
func playbook(t *testing.T, sb *sandbox) string {
	t.Helper()
	return sb.script(t, "playbook", "echo 'PLAY [web]'\necho 'TASK [deploy] warning' >&2\nprintf 'RECAP ok=2'\n")
}

// playbookLog is what playbook's log reads as lines on stderr.
const playbookLog = "PLAY [web]\nTASK [deploy] warning\nRECAP ok=2\n"

// stderrRecords are the JSON lines of an agent's stderr, and its other
// lines.
func stderrRecords(t *testing.T, stderr string) (records []map[string]any, text []string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(l), &rec) == nil {
			records = append(records, rec)
		} else if l != "" {
			text = append(text, l)
		}
	}
	return records, text
}

// kinds names the records of an agent's stderr: "progress" for a progress
// event, the level of a log line.
func kinds(records []map[string]any) []string {
	var out []string
	for _, r := range records {
		if r["type"] == "progress" {
			out = append(out, "progress")
		} else if l, ok := r["level"].(string); ok {
			out = append(out, l)
		}
	}
	return out
}

// ---------------------------------------------------------------------------
// REQ-F-038 Verbosity auto-quiet in non-TTY context.

// TestF038AutoQuietAndChildLog: REQ-F-038, every criterion, v1.16's child
// log included. `logs provision` (declared stderr: "child_log") and `logs
// build` (not declared) each report progress, log at info, debug and (with
// --report-error) error level, and run a playbook whose output goes to
// envelope.Output.ChildLog. On a pipe, and with CI=true:
//
//   - criteria 1 and 2: no progress and no info line on stderr;
//   - criterion 3: an error-level line is written all the same;
//   - criterion 4: --verbose brings progress and info (and debug) back;
//   - criterion 5: provision's stderr is the playbook's log, line by line
//     (the unfinished last line ended), and stdout one envelope — also
//     with --verbose and --debug;
//   - criterion 6: --quiet makes it zero bytes;
//   - criterion 7: build writes none of the playbook's output, with or
//     without --verbose, while a person at a terminal sees it;
//   - criterion 8: a passthrough command (and a protocol server) that
//     declares a child log is refused when the app is wrapped;
//   - the manifest gives provision stderr: "child_log", and build none.
func TestF038AutoQuietAndChildLog(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	play := playbook(t, sb)
	tests := []struct {
		name     string
		env      []string
		args     []string
		kinds    []string // of the JSON lines on stderr, in order
		childLog bool     // stderr's other lines are the playbook's log; else there are none
	}{
		{"provision on a pipe", nil, []string{"logs", "provision", play}, nil, true},
		{"provision in CI", []string{"CI=true"}, []string{"logs", "provision", play}, nil, true},
		{"provision, an error logged", nil, []string{"logs", "provision", "--report-error", play}, []string{"ERROR"}, true},
		{"provision --verbose", nil, []string{"logs", "provision", "--verbose", play}, []string{"progress", "INFO", "DEBUG", "progress"}, true},
		{"provision --verbose in CI", []string{"CI=true"}, []string{"--verbose", "logs", "provision", play}, []string{"progress", "INFO", "DEBUG", "progress"}, true},
		{"build on a pipe", nil, []string{"logs", "build", play}, nil, false},
		{"build in CI", []string{"CI=true"}, []string{"logs", "build", play}, nil, false},
		{"build, an error logged", nil, []string{"logs", "build", "--report-error", play}, []string{"ERROR"}, false},
		{"build --verbose", nil, []string{"logs", "build", "--verbose", play}, []string{"progress", "INFO", "DEBUG", "progress"}, false},
	}
	for _, tt := range tests {
		r := sb.runEnv(t, tt.env, tt.args...)
		env := expect(t, tt.name, r, 0)
		want(t, tt.name, env, map[string]any{"data.program": play})
		records, text := stderrRecords(t, r.stderr)
		if diff := cmp.Diff(tt.kinds, kinds(records)); diff != "" {
			t.Errorf("%s: the JSON lines on stderr (-want +got):\n%s\nstderr:\n%s", tt.name, diff, r.stderr)
		}
		var log []string
		for _, l := range text {
			if !strings.HasPrefix(l, "run [") { // --verbose names the program started
				log = append(log, l)
			}
		}
		var wantLog []string
		if tt.childLog {
			wantLog = strings.Split(strings.TrimSuffix(playbookLog, "\n"), "\n")
		}
		if diff := cmp.Diff(wantLog, log); diff != "" {
			t.Errorf("%s: the playbook's log on stderr (-want +got):\n%s\nstderr:\n%s", tt.name, diff, r.stderr)
		}
	}

	t.Run("provision's stderr is the log alone", func(t *testing.T) {
		r := sb.run(t, "logs", "provision", play)
		expect(t, "provision", r, 0)
		if r.stderr != playbookLog {
			t.Errorf("stderr %q, want the playbook's log %q, line by line", r.stderr, playbookLog)
		}
	})
	t.Run("--debug leaves it streaming", func(t *testing.T) {
		r := sb.run(t, "--debug", "logs", "provision", play)
		expect(t, "provision --debug", r, 0)
		_, text := stderrRecords(t, r.stderr)
		if !slices.Contains(text, "PLAY [web]") || !slices.Contains(text, "RECAP ok=2") {
			t.Errorf("--debug: stderr lacks the playbook's log:\n%s", r.stderr)
		}
	})
	t.Run("--quiet silences it", func(t *testing.T) {
		for _, args := range [][]string{
			{"--quiet", "logs", "provision", play},
			{"--quiet", "logs", "provision", "--report-error", play},
			{"logs", "build", "--quiet", "--report-error", play},
		} {
			r := sb.runEnv(t, []string{"CI=true"}, args...)
			expect(t, strings.Join(args, " "), r, 0)
			if r.stderr != "" {
				t.Errorf("%v: %d bytes on stderr, want none: %q", args, len(r.stderr), r.stderr)
			}
		}
	})
	t.Run("a person sees an undeclared program's output", func(t *testing.T) {
		p := sb.pty(t, nil, "logs", "build", play)
		p.WaitFor(t, "TASK [deploy] warning")
		if screen, code := p.Wait(t); code != 0 || !strings.Contains(screen, "RECAP ok=2") {
			t.Errorf("build at a terminal: exit %d, screen %q", code, screen)
		}
	})
	t.Run("the manifest says so", func(t *testing.T) {
		commands, _ := sb.manifest(t)["commands"].(map[string]any)
		if got := get(commands["logs.provision"], "stderr"); got != "child_log" {
			t.Errorf("manifest: logs.provision's stderr is %v, want child_log", got)
		}
		if c, _ := commands["logs.build"].(map[string]any); c == nil {
			t.Errorf("manifest: no logs.build")
		} else if _, ok := c["stderr"]; ok {
			t.Errorf("manifest: logs.build has stderr %v, want none", c["stderr"])
		}
		if got := sb.schemaOf(t, "logs", "provision")["stderr"]; got != "child_log" {
			t.Errorf("logs provision --schema: stderr is %v, want child_log", got)
		}
	})
	t.Run("refused where stdout is not the envelope's", func(t *testing.T) {
		for misdeclare, says := range map[string]string{
			"child-log-passthrough": `command "ingest": Meta.ChildLog: a passthrough command cannot stream a child log on stderr`,
			"child-log-protocol":    `command "serve": Meta.ChildLog: a protocol server (Meta.Protocol "mcp") cannot stream a child log on stderr`,
		} {
			r := sandboxFor(t, misdeclared).runEnv(t, []string{"E2EAPP_MISDECLARE=" + misdeclare}, "status")
			if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, says) {
				t.Errorf("%s: exit %d, stdout %q, stderr %q; want it not to start, saying %q", misdeclare, r.code, r.stdout, r.stderr, says)
			}
		}
	})
}

// ---------------------------------------------------------------------------
// REQ-O-008 --quiet / --verbose / --debug verbosity flags.

// TestO008VerbosityFlags: REQ-O-008, every criterion, on a pipe (an agent):
//
//   - criterion 1: --quiet writes zero bytes on stderr, with a warning
//     (a deprecated command's) and an error-level log line to write, and
//     a declared child log (v1.16: --quiet silences it too);
//   - criterion 2: --verbose writes progress on stderr, and the JSON
//     answer on stdout;
//   - criterion 3: --debug traces the configuration resolved and every
//     HTTP request, with its method, URL and status;
//   - criterion 4: --verbose with CI=true brings the progress back;
//   - the levels exclude each other: --quiet --verbose is refused.
func TestO008VerbosityFlags(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	play := playbook(t, sb)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"deploy-42"}`))
	}))
	t.Cleanup(srv.Close)
	token := []string{"API_TOKEN=t0k"}

	for _, args := range [][]string{
		{"--quiet", "logs", "provision", "--report-error", play},
		{"--quiet", "api", "status", "--url", srv.URL, "--api-token-from-env", "API_TOKEN"}, // deprecated: a warning
	} {
		r := sb.runEnv(t, token, args...)
		env := expect(t, strings.Join(args, " "), r, 0)
		if r.stderr != "" {
			t.Errorf("%v: %d bytes on stderr, want none: %q", args, len(r.stderr), r.stderr)
		}
		if args[1] == "api" && len(warningCodes(env)) == 0 {
			t.Errorf("%v: no warning in the envelope, so --quiet had none to hold back", args)
		}
	}

	for _, env := range [][]string{nil, {"CI=true"}} {
		r := sb.runEnv(t, env, "--verbose", "logs", "build", play)
		expect(t, "--verbose", r, 0)
		records, _ := stderrRecords(t, r.stderr)
		var progress []string
		for _, rec := range records {
			if rec["type"] == "progress" {
				m, _ := rec["message"].(string)
				progress = append(progress, m)
			}
		}
		if diff := cmp.Diff([]string{"starting " + play, "finished " + play}, progress); diff != "" {
			t.Errorf("%q --verbose: progress on stderr (-want +got):\n%s", env, diff)
		}
	}

	r := sb.runEnv(t, token, "--debug", "api", "get", "--url", srv.URL+"/deploys/42", "--api-token-from-env", "API_TOKEN")
	env := expect(t, "api get --debug", r, 0)
	want(t, "api get --debug", env, map[string]any{"data.id": "deploy-42"})
	url := srv.URL + "/deploys/42"
	records, _ := stderrRecords(t, r.stderr)
	var traced []string
	for _, rec := range records {
		switch {
		case rec["msg"] == "configuration":
			traced = append(traced, "configuration")
		case rec["msg"] == "http request" && rec["method"] == "GET" && rec["url"] == url:
			traced = append(traced, "GET "+url)
		case rec["msg"] == "http response" && rec["status"] == 200.0 && rec["url"] == url:
			traced = append(traced, "200 "+url)
		}
	}
	if diff := cmp.Diff([]string{"configuration", "GET " + url, "200 " + url}, traced); diff != "" {
		t.Errorf("--debug: the trace on stderr (-want +got):\n%s\n%s", diff, r.stderr)
	}

	r = sb.run(t, "--quiet", "--verbose", "logs", "build", play)
	env = expect(t, "--quiet --verbose", r, 2)
	want(t, "--quiet --verbose", env, map[string]any{"error.code": "MUTUALLY_EXCLUSIVE_FLAGS"})
}

// ---------------------------------------------------------------------------
// REQ-F-042 Log rotation in framework logger.

// TestF042LogFilesBounded: REQ-F-042, every criterion, on e2eapp-logbounds
// (e2eapp whose audit log — Duet's only log file; its logger writes to
// stderr — is on, bounded by the app at 2 KiB, 2 rotated files, a day):
//
//   - criterion 1: the log past 2 KiB is rotated (audit.jsonl.1) and a new
//     audit.jsonl started;
//   - criterion 2: no more than 2 rotated files are ever kept;
//   - criterion 3: a rotated file older than a day is gone after the next
//     invocation;
//   - criterion 4: forty invocations, --debug ones among them, leave at
//     most 3 files of at most 2 KiB each, and no other file anywhere in the
//     sandbox: the logger writes none.
func TestF042LogFilesBounded(t *testing.T) {
	t.Parallel()
	sb := sandboxFor(t, logbounds.bin(t))
	dir := sb.path("home", ".local", "state", "e2eapp") // the audit log's default place
	logs := func() []string {
		names, _ := filepath.Glob(filepath.Join(dir, "audit.jsonl*"))
		return slices.DeleteFunc(names, func(n string) bool { return strings.HasSuffix(n, ".lock") }) // empty, for rotating under a lock
	}
	rotated := filepath.Join(dir, "audit.jsonl.1")
	for i := 0; !exists(rotated); i++ {
		if i == 40 {
			t.Fatalf("40 invocations and no rotation: %v", logs())
		}
		expect(t, "status", sb.run(t, "status"), 0)
	}
	if !exists(filepath.Join(dir, "audit.jsonl")) {
		t.Errorf("after the rotation no new audit.jsonl was started: %v", logs())
	}

	old := time.Now().Add(-48 * time.Hour)
	for i := 0; !exists(filepath.Join(dir, "audit.jsonl.2")); i++ {
		if i == 40 {
			t.Fatalf("40 more invocations and no second rotation: %v", logs())
		}
		expect(t, "status", sb.run(t, "status"), 0)
	}
	if err := os.Chtimes(filepath.Join(dir, "audit.jsonl.2"), old, old); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, rotated)
	expect(t, "status", sb.run(t, "status"), 0) // a line: no rotation, just after one
	if readFile(t, rotated) != before {
		t.Fatalf("the invocation rotated the log, so it cannot show pruning by age")
	}
	if exists(filepath.Join(dir, "audit.jsonl.2")) {
		t.Errorf("audit.jsonl.2, two days old, outlived an invocation")
	}

	for i := range 40 {
		args := []string{"status"}
		if i%4 == 0 {
			args = []string{"--debug", "status"}
		}
		expect(t, "status", sb.run(t, args...), 0)
		names := logs()
		if len(names) > 3 {
			t.Fatalf("invocation %d: %d log files, want at most 3: %v", i, len(names), names)
		}
		for _, n := range names {
			if fi, err := os.Stat(n); err == nil && fi.Size() > 2<<10 {
				t.Errorf("invocation %d: %s holds %d bytes, past 2 KiB", i, n, fi.Size())
			}
		}
	}
	var others []string
	filepath.WalkDir(sb.dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Dir(p) != dir {
			others = append(others, p)
		}
		return nil
	})
	if len(others) > 0 {
		t.Errorf("files besides the audit log: %v", others)
	}
}

// logbounds is e2eapp with its log files bounded small.
var logbounds = &onDemand{pkg: "github.com/duet-cli/duet/internal/e2eapp/cmd/e2eapp-logbounds"}
