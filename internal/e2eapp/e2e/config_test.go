//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The commands of internal/e2eapp/app/config.go: locate (where the tool
// stands, the configuration it read and the region that gives), jot (a
// file written at a path relative to --cwd), wander (a command that calls
// os.Chdir), upstream (work retried within --retries), inventory (data at
// version 2, still given at 1) and ledger (version 3, still given at 2).
// e2eapp's configuration files are <project root>/.e2eapp.json — the
// project root being the nearest directory at or above the working
// directory holding one — then $XDG_CONFIG_HOME/e2eapp/config.json, each a
// JSON object whose "region" sets --region's value.

// userConfig is the sandbox's user configuration file.
func (sb *sandbox) userConfig() string { return sb.path("home", ".config", "e2eapp", "config.json") }

// write writes content to path, making its directory.
func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// project makes a project in the sandbox: dir/.e2eapp.json holding region,
// and dir/sub, which it returns with dir.
func (sb *sandbox) project(t *testing.T, name, region string) (root, sub string) {
	t.Helper()
	root = sb.path(name)
	write(t, filepath.Join(root, ".e2eapp.json"), `{"region":"`+region+`"}`)
	sub = filepath.Join(root, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	return root, sub
}

// mkdir makes a directory in the sandbox and returns its path.
func (sb *sandbox) mkdir(t *testing.T, elem ...string) string {
	t.Helper()
	p := sb.path(elem...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// strs are the strings of a decoded JSON array, nil for anything else.
func strs(v any) []string {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	out := []string{}
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// errorCodes are error.code and the codes of error.errors[].
func errorCodes(env map[string]any) []string {
	codes := []string{}
	if c, _ := get(env, "error.code").(string); c != "" {
		codes = append(codes, c)
	}
	list, _ := get(env, "error.errors").([]any)
	for _, e := range list {
		if c, _ := get(e, "code").(string); c != "" {
			codes = append(codes, c)
		}
	}
	return codes
}

// ---------------------------------------------------------------------------
// REQ-F-022 Schema version in every response.

var majorMinor = regexp.MustCompile(`^[0-9]+\.[0-9]+$`)

// TestF022SchemaVersionInEveryAnswer: REQ-F-022 criteria 1 to 3 (the
// version is MAJOR.MINOR since spec 1.8.0). Every answer — successes,
// failures at run time and in validation, an unknown command, --schema —
// has meta.schema_version, the command's data contract version: "2.0" for
// inventory, whose version 2 renamed v1's host_count to hosts.total (a
// breaking change, a new major), "3.0" for ledger, "1.0" for a command that
// declares none, and "1.0" again for inventory pinned to version 1. Two
// runs of the same command give the same version.
func TestF022SchemaVersionInEveryAnswer(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	tests := []struct {
		args []string
		exit int
		want string
	}{
		{[]string{"inventory"}, 0, "2.0"},
		{[]string{"inventory", "--fail"}, 12, "2.0"},
		{[]string{"inventory", "--no-such-flag"}, 2, "2.0"},
		{[]string{"inventory", "--schema-version", "1"}, 0, "1.0"},
		{[]string{"ledger"}, 0, "3.0"},
		{[]string{"locate"}, 0, "1.0"},
		{[]string{"no-such-command"}, 2, "1.0"},
		{[]string{"inventory", "--schema"}, 0, ""}, // --schema's own document's version, whatever it is
	}
	for _, tt := range tests {
		what := strings.Join(tt.args, " ")
		var first string
		for i := range 2 {
			env := expect(t, what, sb.run(t, tt.args...), tt.exit)
			got, _ := get(env, "meta.schema_version").(string)
			if !majorMinor.MatchString(got) || tt.want != "" && got != tt.want {
				t.Errorf("%s: meta.schema_version %q, want MAJOR.MINOR %q", what, got, tt.want)
			}
			if i == 1 && got != first {
				t.Errorf("%s: meta.schema_version %q, then %q on the same command", what, first, got)
			}
			first = got
		}
	}
	// The major moved because the shape broke: v1's field is gone from v2.
	v2 := expect(t, "inventory", sb.run(t, "inventory"), 0)
	v1 := expect(t, "inventory --schema-version 1", sb.run(t, "inventory", "--schema-version", "1"), 0)
	want(t, "inventory", v2, map[string]any{"data": map[string]any{"hosts": map[string]any{"total": 3.0, "healthy": 2.0}}})
	want(t, "inventory --schema-version 1", v1, map[string]any{"data": map[string]any{"host_count": 3.0}})
}

// ---------------------------------------------------------------------------
// REQ-F-024 Request ID and trace ID in every response.

// TestF024RequestAndTraceIDs: REQ-F-024 criteria 1 to 4. meta.request_id is
// set and different in each of six runs, failures included; with
// TOOL_TRACE_ID=abc123 every answer — success, run-time failure,
// validation failure — has meta.trace_id "abc123" (E2EAPP_TRACE_ID, the
// tool's own name, wins over it; with neither there is none); meta.command
// names the command run, a subcommand as a dot path (CHANGELOG 1.15.0);
// meta.timestamp is an RFC 3339 (ISO 8601) time in UTC.
func TestF024RequestAndTraceIDs(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	seen := map[string]bool{}
	for _, args := range [][]string{{"locate"}, {"locate"}, {"inventory", "--fail"}, {"locate", "--bogus"}, {"ledger"}, {"ledger"}} {
		r := sb.run(t, args...)
		env := expect(t, strings.Join(args, " "), r, r.code)
		id, _ := get(env, "meta.request_id").(string)
		if id == "" || seen[id] {
			t.Errorf("%s: meta.request_id %q is empty or was seen before (%v)", args, id, seen)
		}
		seen[id] = true
	}

	traces := []struct {
		env  []string
		want any
	}{
		{[]string{"TOOL_TRACE_ID=abc123"}, "abc123"},
		{[]string{"E2EAPP_TRACE_ID=own-7", "TOOL_TRACE_ID=abc123"}, "own-7"},
		{nil, nil},
	}
	for _, tt := range traces {
		for _, c := range []struct {
			args []string
			exit int
		}{{[]string{"locate"}, 0}, {[]string{"inventory", "--fail"}, 12}, {[]string{"locate", "--bogus"}, 2}} {
			env := expect(t, strings.Join(c.args, " "), sb.runEnv(t, tt.env, c.args...), c.exit)
			want(t, strings.Join(append(slices.Clone(tt.env), c.args...), " "), env, map[string]any{"meta.trace_id": tt.want})
		}
	}

	for _, c := range []struct {
		args    []string
		command string
	}{
		{[]string{"locate"}, "locate"},
		{[]string{"inventory", "--fail"}, "inventory"},
		{[]string{"profile", "list"}, "profile.list"},
		{[]string{"job", "list"}, "job.list"},
	} {
		r := sb.run(t, c.args...)
		env := expect(t, strings.Join(c.args, " "), r, r.code)
		want(t, strings.Join(c.args, " "), env, map[string]any{"meta.command": c.command})
		ts, _ := get(env, "meta.timestamp").(string)
		if at, err := time.Parse(time.RFC3339Nano, ts); err != nil || !strings.HasSuffix(ts, "Z") || at.IsZero() {
			t.Errorf("%s: meta.timestamp %q is not an ISO 8601 time in UTC: %v", c.args, ts, err)
		}
	}
}

// ---------------------------------------------------------------------------
// REQ-F-025 TOOL_TRACE_ID environment variable propagation.

// TestF025TraceReachesChildrenLogsAndAudit: REQ-F-025 criteria 1 to 3. A
// hook `check` starts (package proc) finds TOOL_TRACE_ID=abc123, and
// E2EAPP_TRACE_ID and TRACE_ID alike, when the caller set TOOL_TRACE_ID; a
// trace the caller named E2EAPP_TRACE_ID reaches it as TOOL_TRACE_ID too;
// the hook's own child inherits it. Every line --debug writes on stderr is
// JSON with trace_id "abc123", and --verbose's line for the program started
// ends with trace_id=abc123. With the audit log on (E2EAPP_AUDIT_LOG), each
// entry has the trace id of its run, and audit-log --trace-id finds it.
func TestF025TraceReachesChildrenLogsAndAudit(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	names := []string{"TOOL_TRACE_ID", "E2EAPP_TRACE_ID", "TRACE_ID"}
	for _, tt := range []struct {
		env  []string
		want string
	}{
		{[]string{"TOOL_TRACE_ID=abc123"}, "abc123"},
		{[]string{"E2EAPP_TRACE_ID=span-2"}, "span-2"},
	} {
		file := sb.path("trace-" + tt.want)
		hook := sb.envHook(t, file, names...)
		expect(t, "check", sb.runEnv(t, tt.env, "check", hook), 0)
		child, grandchild := seen(t, file)
		wantEnv := map[string]string{"TOOL_TRACE_ID": tt.want, "E2EAPP_TRACE_ID": tt.want, "TRACE_ID": tt.want}
		if diff := cmp.Diff(wantEnv, child); diff != "" {
			t.Errorf("%q: the child's trace variables (-want +got):\n%s", tt.env, diff)
		}
		if diff := cmp.Diff(wantEnv, grandchild); diff != "" {
			t.Errorf("%q: the grandchild's trace variables (-want +got):\n%s", tt.env, diff)
		}
	}
	file := sb.path("trace-none")
	hook := sb.envHook(t, file, names...)
	expect(t, "check", sb.run(t, "check", hook), 0)
	if child, _ := seen(t, file); child["TOOL_TRACE_ID"] != "unset" {
		t.Errorf("no trace given, yet the child has TOOL_TRACE_ID=%s", child["TOOL_TRACE_ID"])
	}

	trace := []string{"TOOL_TRACE_ID=abc123"}
	r := sb.runEnv(t, trace, "check", hook, "--debug")
	expect(t, "check --debug", r, 0)
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) < 3 {
		t.Errorf("--debug wrote %d lines on stderr, want the lifecycle's steps:\n%s", len(lines), r.stderr)
	}
	for _, l := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec["trace_id"] != "abc123" {
			t.Errorf("--debug: a line without trace_id abc123 (%v): %s", err, l)
		}
	}
	r = sb.runEnv(t, trace, "check", hook, "--verbose")
	expect(t, "check --verbose", r, 0)
	if want := "run [" + strconv.Quote(hook) + "] trace_id=abc123\n"; !strings.Contains(r.stderr, want) {
		t.Errorf("--verbose: stderr %q lacks %q", r.stderr, want)
	}

	audit := []string{"E2EAPP_AUDIT_LOG=" + sb.path("audit.jsonl")}
	expect(t, "locate", sb.runEnv(t, append(slices.Clone(audit), trace...), "locate"), 0)
	expect(t, "inventory --fail", sb.runEnv(t, append(slices.Clone(audit), "E2EAPP_TRACE_ID=t-9"), "inventory", "--fail"), 12)
	expect(t, "ledger", sb.runEnv(t, audit, "ledger"), 0)
	var entries [][2]any
	sc := bufio.NewScanner(strings.NewReader(readFile(t, sb.path("audit.jsonl"))))
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("the audit log is not JSON lines: %v: %s", err, sc.Bytes())
		}
		entries = append(entries, [2]any{e["command"], e["trace_id"]})
	}
	if diff := cmp.Diff([][2]any{{"locate", "abc123"}, {"inventory", "t-9"}, {"ledger", nil}}, entries); diff != "" {
		t.Errorf("the audit log's commands and trace ids (-want +got):\n%s", diff)
	}
	env := expect(t, "audit-log --trace-id abc123", sb.runEnv(t, audit, "audit-log", "--trace-id", "abc123"), 0)
	found, _ := get(env, "data.entries").([]any)
	if len(found) != 1 || get(found[0], "command") != "locate" || get(found[0], "trace_id") != "abc123" {
		t.Errorf("audit-log --trace-id abc123: %v", env["data"])
	}
}

// ---------------------------------------------------------------------------
// REQ-F-027 CWD in response meta.

// TestF027CwdInMeta: REQ-F-027 criteria 1 to 3. Every answer — success,
// run-time and validation failures, manifest — has meta.cwd, absolute, the
// directory e2eapp was started in; started by a shell that cd'd through a
// symbolic link, meta.cwd is what that shell's pwd printed (the link, not
// its target). locate, which resolves the project root (the nearest
// directory with a .e2eapp.json), reports it as meta.project_root,
// absolute, from the project's subdirectory and under a relative --cwd;
// outside a project there is none.
func TestF027CwdInMeta(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	root, sub := sb.project(t, "proj", "eu")
	for _, c := range []struct {
		args []string
		exit int
	}{{[]string{"locate"}, 0}, {[]string{"inventory", "--fail"}, 12}, {[]string{"locate", "--bogus"}, 2}, {[]string{"manifest"}, 0}} {
		env := expect(t, strings.Join(c.args, " "), sb.runIn(t, sub, nil, c.args...), c.exit)
		want(t, strings.Join(c.args, " "), env, map[string]any{"meta.cwd": sub})
	}

	link := sb.path("link")
	if err := os.Symlink(sub, link); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(bounded(t), "sh", "-c", `cd "$1" && pwd && exec "$2" locate`, "sh", link, sb.bin)
	cmd.Env, cmd.Dir = sb.env, sb.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cd %s && pwd && e2eapp locate: %v\n%s%s", link, err, stdout.String(), stderr.String())
	}
	pwd, answer, _ := strings.Cut(stdout.String(), "\n")
	env := expect(t, "locate through a link", result{stdout: answer, stderr: stderr.String()}, 0)
	if pwd != link || get(env, "meta.cwd") != pwd {
		t.Errorf("the shell's pwd %q, meta.cwd %v; want both %s", pwd, get(env, "meta.cwd"), link)
	}

	for _, run := range []struct {
		what string
		r    result
	}{
		{"locate in proj/sub", sb.runIn(t, sub, nil, "locate")},
		{"locate --cwd proj/sub", sb.run(t, "locate", "--cwd", filepath.Join("proj", "sub"))},
	} {
		env := expect(t, run.what, run.r, 0)
		want(t, run.what, env, map[string]any{"meta.project_root": root, "meta.cwd": sub})
	}
	env = expect(t, "locate outside a project", sb.run(t, "locate"), 0)
	want(t, "locate outside a project", env, map[string]any{"meta.project_root": nil, "meta.cwd": sb.dir})
}

// ---------------------------------------------------------------------------
// REQ-F-028 Config source tracking in response meta.

// TestF028ConfigSources: REQ-F-028 criteria 1 to 4. With no configuration
// file, meta.config_sources is [] (present, empty). With the project's and
// the user's files, every answer (a failure too) lists both, absolute,
// the project's first, from a subdirectory and under a relative --cwd.
// meta.effective_config_hash is the same on every run while the files
// stay as they are, changes when either file's content does, and comes
// back when the content does.
func TestF028ConfigSources(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	env := expect(t, "locate with no configuration", sb.run(t, "locate"), 0)
	if diff := cmp.Diff([]any{}, get(env, "meta.config_sources")); diff != "" {
		t.Errorf("no configuration: meta.config_sources (-want +got):\n%s", diff)
	}

	root, sub := sb.project(t, "proj", "eu")
	projectFile, userFile := filepath.Join(root, ".e2eapp.json"), sb.userConfig()
	write(t, userFile, `{"region":"us"}`)
	sources := []any{projectFile, userFile}
	for _, run := range []struct {
		what string
		r    result
		exit int
	}{
		{"locate in proj/sub", sb.runIn(t, sub, nil, "locate"), 0},
		{"locate --cwd proj/sub", sb.run(t, "locate", "--cwd", filepath.Join("proj", "sub")), 0},
		{"inventory --fail in proj/sub", sb.runIn(t, sub, nil, "inventory", "--fail"), 12},
	} {
		env := expect(t, run.what, run.r, run.exit)
		want(t, run.what, env, map[string]any{"meta.config_sources": sources})
	}
	env = expect(t, "locate in proj/sub", sb.runIn(t, sub, nil, "locate"), 0)
	want(t, "locate in proj/sub", env, map[string]any{"data.region": "eu", "data.files_read": sources})

	hash := func() string {
		t.Helper()
		env := expect(t, "locate", sb.runIn(t, sub, nil, "locate"), 0)
		h, _ := get(env, "meta.effective_config_hash").(string)
		if h == "" {
			t.Fatalf("no meta.effective_config_hash: %v", env["meta"])
		}
		return h
	}
	h0 := hash()
	if h := hash(); h != h0 {
		t.Errorf("the hash moved with nothing changed: %s, then %s", h0, h)
	}
	write(t, userFile, `{"region":"ap"}`)
	h1 := hash()
	write(t, projectFile, `{"region":"sa"}`)
	h2 := hash()
	if h1 == h0 || h2 == h1 || h2 == h0 {
		t.Errorf("hashes %s, then %s (user file changed), then %s (project file changed): want each different", h0, h1, h2)
	}
	write(t, userFile, `{"region":"us"}`)
	write(t, projectFile, `{"region":"eu"}`)
	if h := hash(); h != h0 {
		t.Errorf("the files hold what they held at first, yet the hash is %s, not %s", h, h0)
	}
}

// ---------------------------------------------------------------------------
// REQ-F-040 Absolute path output enforcement.

// TestF040PathsAreAbsolute: REQ-F-040 criteria 1 to 3. locate gives back
// --path as a path: "./src/index.ts" comes out as <project>/src/index.ts
// under --cwd <project>, the same whichever directory e2eapp was started
// in; without --cwd it is resolved against the directory it was started
// in, a different one each time; an absolute path stays as it is. jot's
// relative file comes back absolute against --cwd too.
func TestF040PathsAreAbsolute(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	project, a, b := sb.mkdir(t, "project"), sb.mkdir(t, "a"), sb.mkdir(t, "b", "deeper")
	for _, dir := range []string{a, b, sb.dir} {
		env := expect(t, "locate --cwd project", sb.runIn(t, dir, nil, "locate", "--path", "./src/index.ts", "--cwd", project), 0)
		want(t, "locate --cwd "+project+" started in "+dir, env, map[string]any{"data.path": filepath.Join(project, "src", "index.ts")})
		env = expect(t, "locate", sb.runIn(t, dir, nil, "locate", "--path", "./src/index.ts"), 0)
		want(t, "locate started in "+dir, env, map[string]any{"data.path": filepath.Join(dir, "src", "index.ts")})
	}
	env := expect(t, "locate --path /etc/hosts", sb.runIn(t, a, nil, "locate", "--path", "/etc/../etc/hosts", "--cwd", project), 0)
	want(t, "an absolute --path", env, map[string]any{"data.path": "/etc/hosts"})
	env = expect(t, "jot", sb.runIn(t, a, nil, "jot", "notes/../todo.txt", "--text", "x", "--cwd", project), 0)
	want(t, "jot --cwd project", env, map[string]any{"data.file": filepath.Join(project, "todo.txt")})
}

// ---------------------------------------------------------------------------
// REQ-F-041 Process CWD immutability.

// TestF041ProcessDirectoryKept: REQ-F-041 criteria 1 to 3. Under --cwd the
// process's own directory, seen by the command and again when its answer
// is encoded (after the command returned), is the one e2eapp was started
// in. wander, which calls os.Chdir, answers with the directory back as it
// was by the time its answer is encoded, and a CWD_CHANGED warning;
// its relative Path still resolves against the starting directory.
// duetvet, Duet's analyzers as a built binary, reports os.Chdir in a
// module of its own and passes the same module without it. jot writes
// into --cwd's directory, nothing into the process's.
func TestF041ProcessDirectoryKept(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	start, other := sb.mkdir(t, "start"), sb.mkdir(t, "other")

	env := expect(t, "locate --cwd other", sb.runIn(t, start, nil, "locate", "--cwd", other), 0)
	want(t, "locate --cwd other", env, map[string]any{"data.process_dir": start, "data.dir_after": start, "meta.cwd": other})

	env = expect(t, "wander --to other", sb.runIn(t, start, nil, "wander", "--to", other), 0)
	want(t, "wander", env, map[string]any{"data.dir_during": other, "data.dir_after": start, "data.path": filepath.Join(start, "here.txt")})
	if got := warningCodes(env); !slices.Equal(got, []string{"CWD_CHANGED"}) {
		t.Errorf("wander: warnings %v, want CWD_CHANGED", got)
	}

	module := func(body string) string {
		return "package main\n\nimport (\n\t\"os\"\n\t\"path/filepath\"\n)\n\nfunc main() {\n" + body + "}\n"
	}
	out, err := vetModule(t, module("\tif err := os.Chdir(\"/tmp\"); err == nil {\n\t\tos.WriteFile(filepath.Join(\"notes\", \"a.txt\"), nil, 0o644)\n\t}\n"))
	if err == nil || !strings.Contains(out, "main.go:9:") || !strings.Contains(out, "os.Chdir changes the working directory of the whole process") {
		t.Errorf("duetvet on os.Chdir: %v\n%s", err, out)
	}
	if out, err := vetModule(t, module("\tos.WriteFile(filepath.Join(\"/tmp\", \"notes\", \"a.txt\"), nil, 0o644)\n")); err != nil {
		t.Errorf("duetvet on absolute paths: %v\n%s", err, out)
	}

	env = expect(t, "jot --cwd other", sb.runIn(t, start, nil, "jot", "notes/a.txt", "--text", "hello", "--cwd", other), 0)
	if got := readFile(t, filepath.Join(other, "notes", "a.txt")); got != "hello\n" || exists(filepath.Join(start, "notes")) {
		t.Errorf("jot --cwd other: other/notes/a.txt holds %q; start/notes exists: %v", got, exists(filepath.Join(start, "notes")))
	}
	want(t, "jot --cwd other", env, map[string]any{"data.file": filepath.Join(other, "notes", "a.txt")})
}

// ---------------------------------------------------------------------------
// REQ-F-078 Retry count in response meta.

// attemptTimes reads upstream's --attempts file: the time of each call.
func attemptTimes(t *testing.T, path string) []time.Time {
	t.Helper()
	var times []time.Time
	for line := range strings.Lines(readFile(t, path)) {
		_, ns, _ := strings.Cut(strings.TrimSpace(line), " ")
		n, err := strconv.ParseInt(ns, 10, 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", path, line, err)
		}
		times = append(times, time.Unix(0, n))
	}
	return times
}

// TestF078Retries: REQ-F-078 criteria 1 to 5. upstream retries itself
// (3 times by default): two refusals then an answer give meta.retries 2 and
// three calls; a first call that succeeds gives no meta.retries at all.
// --retries 0 fails at the first refusal, one call made, the error as it
// was (retryable, no meta.retries). --retries 2 --retry-delay 500ms makes
// three calls at least 500ms apart (a lower bound: a slow machine only
// widens it), then exits 12 with retryable false and meta.retries 2.
// --schema lists both flags; a --retry-delay that is no duration is
// refused.
func TestF078Retries(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	run := func(name string, exit int, args ...string) (map[string]any, []time.Time) {
		t.Helper()
		file := sb.path(name + ".attempts")
		env := expect(t, name, sb.run(t, append([]string{"upstream", "--attempts", file}, args...)...), exit)
		return env, attemptTimes(t, file)
	}
	env, calls := run("twice refused", 0, "--fail", "2")
	want(t, "upstream --fail 2", env, map[string]any{"meta.retries": 2.0, "data.calls": 3.0})
	if len(calls) != 3 {
		t.Errorf("upstream --fail 2: %d calls recorded, want 3", len(calls))
	}
	env, calls = run("answered at once", 0)
	if _, has := env["meta"].(map[string]any)["retries"]; has || len(calls) != 1 {
		t.Errorf("upstream: meta.retries present (%v) with no retry; %d calls", get(env, "meta.retries"), len(calls))
	}
	env, calls = run("no retries", 12, "--fail", "1", "--retries", "0")
	want(t, "upstream --retries 0", env, map[string]any{"error.code": "UPSTREAM_DOWN", "error.retryable": true, "meta.retries": nil})
	if len(calls) != 1 {
		t.Errorf("upstream --retries 0: %d calls, want 1", len(calls))
	}
	env, calls = run("exhausted", 12, "--fail", "9", "--retries", "2", "--retry-delay", "500ms")
	want(t, "upstream --retries 2 exhausted", env, map[string]any{"error.code": "UPSTREAM_DOWN", "error.retryable": false, "meta.retries": 2.0})
	if len(calls) != 3 {
		t.Fatalf("upstream --retries 2: %d calls, want 3", len(calls))
	}
	for i := 1; i < len(calls); i++ {
		if gap := calls[i].Sub(calls[i-1]); gap < 500*time.Millisecond {
			t.Errorf("upstream --retry-delay 500ms: calls %d and %d %v apart", i, i+1, gap)
		}
	}
	if flags := flagNames(sb.schemaOf(t, "upstream")); !slices.Contains(flags, "retries") || !slices.Contains(flags, "retry-delay") {
		t.Errorf("upstream --schema: flags %v lack retries and retry-delay", flags)
	}
	expect(t, "upstream --retry-delay soon", sb.run(t, "upstream", "--retry-delay", "soon"), 2)
}

// ---------------------------------------------------------------------------
// REQ-O-014 --schema-version compatibility flag.

// TestO014SchemaVersionPin: REQ-O-014 criteria 1 to 4. inventory is at
// version 2 of its data: --schema-version 1 answers in version 1's shape
// ({"host_count": 3}, meta.schema_version "1.0") with a SCHEMA_DEPRECATED
// warning; --schema-version 2 in version 2's, with none. Below the minimum
// (0 for inventory, 1 for ledger, at 3 with 2 its minimum) or above the
// current is exit 2, SCHEMA_VERSION_UNSUPPORTED, naming the versions there
// are, and the command does not run. --schema gives the current and
// minimum versions.
func TestO014SchemaVersionPin(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	for _, tt := range []struct {
		version  string
		data     any
		meta     string
		warnings []string
	}{
		{"1", map[string]any{"host_count": 3.0}, "1.0", []string{"SCHEMA_DEPRECATED"}},
		{"2", map[string]any{"hosts": map[string]any{"total": 3.0, "healthy": 2.0}}, "2.0", nil},
	} {
		what := "inventory --schema-version " + tt.version
		env := expect(t, what, sb.run(t, "inventory", "--schema-version", tt.version), 0)
		want(t, what, env, map[string]any{"data": tt.data, "meta.schema_version": tt.meta})
		if got := warningCodes(env); !slices.Equal(got, tt.warnings) {
			t.Errorf("%s: warnings %v, want %v", what, got, tt.warnings)
		}
	}
	env := expect(t, "ledger --schema-version 2", sb.run(t, "ledger", "--schema-version", "2"), 0)
	want(t, "ledger --schema-version 2", env, map[string]any{"data": map[string]any{"balance": "12.50 EUR"}, "meta.schema_version": "2.0"})

	for _, tt := range []struct {
		command, version string
		valid            []any
	}{
		{"inventory", "0", []any{"1", "2"}},
		{"inventory", "3", []any{"1", "2"}},
		{"ledger", "1", []any{"2", "3"}},
	} {
		what := tt.command + " --schema-version " + tt.version
		env := expect(t, what, sb.run(t, tt.command, "--schema-version", tt.version), 2)
		if !slices.Contains(errorCodes(env), "SCHEMA_VERSION_UNSUPPORTED") {
			t.Errorf("%s: error codes %v, want SCHEMA_VERSION_UNSUPPORTED", what, errorCodes(env))
			continue
		}
		valid := get(env, "error.valid_values")
		if valid == nil {
			valid = get(env, "error.errors.0.valid_values")
		}
		if diff := cmp.Diff(tt.valid, valid); diff != "" || get(env, "error.phase") != "validation" || env["data"] != nil {
			t.Errorf("%s: phase %v, data %v, valid_values (-want +got):\n%s", what, get(env, "error.phase"), env["data"], diff)
		}
	}

	for _, tt := range []struct{ command, current, min string }{{"inventory", "2.0", "1.0"}, {"ledger", "3.0", "2.0"}} {
		doc := sb.schemaOf(t, tt.command)
		if doc["schema_version"] != tt.current || doc["min_schema_version"] != tt.min {
			t.Errorf("%s --schema: schema_version %v, min_schema_version %v; want %s and %s", tt.command, doc["schema_version"], doc["min_schema_version"], tt.current, tt.min)
		}
	}
}

// ---------------------------------------------------------------------------
// REQ-O-016 --no-config flag.

// TestO016NoConfig: REQ-O-016 criteria 1 to 4. With a project file, a user
// file and a default saved profile all setting the region, --no-config
// reads none: the region is the built-in default, locate read no file, and
// meta.config_sources is []; with both files broken (not JSON), which fails
// locate without the flag, --no-config still succeeds. E2EAPP_REGION still
// applies under --no-config. Every command's --help lists --no-config.
func TestO016NoConfig(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	_, sub := sb.project(t, "proj", "eu")
	write(t, sb.userConfig(), `{"region":"us"}`)
	expect(t, "profile save", sb.run(t, "profile", "save", "staging", "--region", "eu-staging"), 0)
	expect(t, "profile use", sb.run(t, "profile", "use", "staging"), 0)

	env := expect(t, "locate", sb.runIn(t, sub, nil, "locate"), 0)
	want(t, "locate", env, map[string]any{"data.region": "eu-staging"}) // the profile, then the files: they are read
	if n := len(strs(get(env, "meta.config_sources"))); n != 3 {
		t.Errorf("locate: meta.config_sources %v, want the profiles' file and both configuration files", get(env, "meta.config_sources"))
	}
	env = expect(t, "locate --no-config", sb.runIn(t, sub, nil, "locate", "--no-config"), 0)
	want(t, "locate --no-config", env, map[string]any{"data.region": "local", "data.region_from": "default", "data.files_read": []any{}, "meta.config_sources": []any{}, "meta.profile": nil})
	env = expect(t, "E2EAPP_REGION=ca locate --no-config", sb.runIn(t, sub, []string{"E2EAPP_REGION=ca"}, "locate", "--no-config"), 0)
	want(t, "E2EAPP_REGION=ca locate --no-config", env, map[string]any{"data.region": "ca", "data.files_read": []any{}, "meta.config_sources": []any{}})

	write(t, filepath.Join(sb.path("proj"), ".e2eapp.json"), `{not json`)
	write(t, sb.userConfig(), `region = "us"`)
	env = expect(t, "locate with broken files", sb.runIn(t, sub, nil, "locate"), 1)
	want(t, "locate with broken files", env, map[string]any{"error.code": "CONFIG_INVALID"})
	env = expect(t, "locate --no-config with broken files", sb.runIn(t, sub, nil, "locate", "--no-config"), 0)
	want(t, "locate --no-config with broken files", env, map[string]any{"data.region": "local", "meta.config_sources": []any{}})

	commands, _ := sb.manifest(t)["commands"].(map[string]any)
	if len(commands) < 20 {
		t.Fatalf("the manifest lists %d commands", len(commands))
	}
	for name, c := range commands {
		args := append(strings.Split(name, "."), "--help")
		if name == "e2eapp" { // the root
			args = []string{"--help"}
		}
		if delegates(c) {
			continue // its --help is its tool's, and it takes no option of Duet's
		}
		r := sb.run(t, args...)
		if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "--no-config") {
			t.Errorf("%s: exit %d, --no-config not listed:\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
	}
}

// ---------------------------------------------------------------------------
// REQ-O-017 --cwd flag.

// TestO017Cwd: REQ-O-017 criteria 1 to 4. Under --cwd <other>, every
// relative path resolves there: a Path in data, Output.Abs, the project
// file looked for, a relative --config, a relative --output (the answer's
// file), jot's file. meta.cwd is --cwd's directory, absolute even when
// --cwd is relative. A --cwd that does not exist, or is a file, is exit 2
// INVALID_CWD in validation, and jot writes nothing. The process's own
// directory stays the one e2eapp started in.
func TestO017Cwd(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	start := sb.mkdir(t, "start")
	other, _ := sb.project(t, "other", "from-project")
	write(t, filepath.Join(other, "alt.json"), `{"region":"from-alt"}`)

	env := expect(t, "locate --cwd other", sb.runIn(t, start, nil, "locate", "--cwd", other), 0)
	want(t, "locate --cwd other", env, map[string]any{
		"meta.cwd": other, "data.cwd": other, "data.path": filepath.Join(other, "src", "index.ts"), "data.abs": filepath.Join(other, "notes", "todo.txt"),
		"data.region": "from-project", "meta.project_root": other, "data.process_dir": start,
	})
	env = expect(t, "locate --cwd ../other", sb.runIn(t, start, nil, "locate", "--cwd", "../other", "--config", "alt.json"), 0)
	want(t, "locate --cwd ../other --config alt.json", env, map[string]any{
		"meta.cwd": other, "data.region": "from-alt", "meta.config_sources": []any{filepath.Join(other, "alt.json")},
	})
	r := sb.runIn(t, start, nil, "locate", "--cwd", other, "--output", "answer.json")
	expect(t, "locate --cwd other --output answer.json", r, 0)
	if !exists(filepath.Join(other, "answer.json")) || exists(filepath.Join(start, "answer.json")) {
		t.Errorf("--output answer.json under --cwd other: in other %v, in start %v", exists(filepath.Join(other, "answer.json")), exists(filepath.Join(start, "answer.json")))
	}
	expect(t, "jot --cwd other", sb.runIn(t, start, nil, "jot", "note.txt", "--text", "hi", "--cwd", other), 0)
	if !exists(filepath.Join(other, "note.txt")) || exists(filepath.Join(start, "note.txt")) {
		t.Errorf("jot note.txt --cwd other wrote in other: %v, in start: %v", exists(filepath.Join(other, "note.txt")), exists(filepath.Join(start, "note.txt")))
	}

	for _, bad := range []string{sb.path("missing"), "missing", filepath.Join(other, "alt.json")} {
		env := expect(t, "jot --cwd "+bad, sb.runIn(t, start, nil, "jot", "bad.txt", "--text", "x", "--cwd", bad), 2)
		want(t, "jot --cwd "+bad, env, map[string]any{"error.code": "INVALID_CWD", "error.phase": "validation", "meta.effect": nil})
	}
	for _, p := range []string{sb.path("missing"), filepath.Join(start, "missing"), filepath.Join(start, "bad.txt"), sb.path("bad.txt")} {
		if exists(p) {
			t.Errorf("a refused --cwd left %s", p)
		}
	}
}

// ---------------------------------------------------------------------------
// REQ-O-024 --context / --config override flag.

// TestO024ConfigAndContext: REQ-O-024 criteria 1 to 4. --config
// isolated.json reads that file and no other — not the project's, not the
// user's, not the default saved profile — and meta.config_sources is
// [isolated.json]. --context staging (and prod) uses that saved profile —
// the context — and says so in meta.context; an unknown one is exit 2
// PROFILE_NOT_FOUND. Twelve invocations run at once with two different
// --config files each see their own file's region and sources.
func TestO024ConfigAndContext(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	_, sub := sb.project(t, "proj", "from-project")
	write(t, sb.userConfig(), `{"region":"from-user"}`)
	isolated := sb.path("isolated.json")
	write(t, isolated, `{"region":"from-isolated"}`)
	expect(t, "profile save staging", sb.run(t, "profile", "save", "staging", "--region", "eu-staging"), 0)
	expect(t, "profile save prod", sb.run(t, "profile", "save", "prod", "--region", "us-prod"), 0)

	check := func(what string, env map[string]any) {
		t.Helper()
		want(t, what, env, map[string]any{
			"data.region": "from-isolated", "data.files_read": []any{isolated}, "meta.config_sources": []any{isolated}, "meta.profile": nil,
		})
	}
	check("locate --config isolated.json", expect(t, "locate --config", sb.runIn(t, sub, nil, "locate", "--config", isolated), 0))
	expect(t, "profile use staging", sb.run(t, "profile", "use", "staging"), 0)
	env := expect(t, "locate with a default profile", sb.runIn(t, sub, nil, "locate"), 0)
	want(t, "locate with a default profile", env, map[string]any{"data.region": "eu-staging"})
	check("locate --config isolated.json with a default profile", expect(t, "locate --config", sb.runIn(t, sub, nil, "locate", "--config", isolated), 0))
	check("E2EAPP_PROFILE=prod locate --config isolated.json", expect(t, "locate --config", sb.runIn(t, sub, []string{"E2EAPP_PROFILE=prod"}, "locate", "--config", isolated), 0))

	for name, region := range map[string]string{"staging": "eu-staging", "prod": "us-prod"} {
		env := expect(t, "locate --context "+name, sb.runIn(t, sub, nil, "locate", "--context", name), 0)
		want(t, "locate --context "+name, env, map[string]any{"data.region": region, "meta.context": name})
	}
	env = expect(t, "locate --context nope", sb.run(t, "locate", "--context", "nope"), 2)
	if !slices.Contains(errorCodes(env), "PROFILE_NOT_FOUND") {
		t.Errorf("locate --context nope: error codes %v", errorCodes(env))
	}

	files := map[string]string{sb.path("a.json"): "region-a", sb.path("b.json"): "region-b"}
	for f, region := range files {
		write(t, f, `{"region":"`+region+`"}`)
	}
	type answer struct {
		file   string
		stdout string
		err    error
	}
	answers := make(chan answer, 12)
	for i := range 12 {
		f := sb.path("a.json")
		if i%2 == 1 {
			f = sb.path("b.json")
		}
		go func() {
			cmd := exec.CommandContext(bounded(t), sb.bin, "locate", "--config", f)
			cmd.Env, cmd.Dir = sb.env, sub
			out, err := cmd.Output()
			answers <- answer{f, string(out), err}
		}()
	}
	for range 12 {
		a := <-answers
		env := expect(t, "locate --config "+a.file, result{stdout: a.stdout, code: exitCode(a.err)}, 0)
		want(t, "locate --config "+a.file+" (run at once with others)", env, map[string]any{"data.region": files[a.file], "meta.config_sources": []any{a.file}})
	}
}

// ---------------------------------------------------------------------------
// REQ-O-025 --warnings-as-errors flag.

// TestO025WarningsAsErrors: REQ-O-025 criteria 1 to 4. locate warns
// CONFIG_UNKNOWN_KEY for a key its configuration does not know, and wander
// CWD_CHANGED. Without a warning, --warnings-as-errors exits 0. With one,
// it exits 1, the warning kept in warnings; without the flag the same run
// exits 0 with the warning.
func TestO025WarningsAsErrors(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	env := expect(t, "locate --warnings-as-errors", sb.run(t, "locate", "--warnings-as-errors"), 0)
	if got := warningCodes(env); len(got) != 0 {
		t.Errorf("locate: warnings %v, want none", got)
	}
	write(t, sb.userConfig(), `{"region":"eu","colour":"never"}`)
	for _, tt := range []struct {
		args    []string
		warning string
	}{
		{[]string{"locate"}, "CONFIG_UNKNOWN_KEY"},
		{[]string{"wander", "--to", sb.mkdir(t, "elsewhere")}, "CWD_CHANGED"},
	} {
		what := strings.Join(tt.args, " ")
		env := expect(t, what, sb.run(t, tt.args...), 0)
		if got := warningCodes(env); !slices.Equal(got, []string{tt.warning}) {
			t.Errorf("%s: warnings %v, want %s", what, got, tt.warning)
		}
		env = expect(t, what+" --warnings-as-errors", sb.run(t, append(tt.args, "--warnings-as-errors")...), 1)
		if got := warningCodes(env); !slices.Equal(got, []string{tt.warning}) {
			t.Errorf("%s --warnings-as-errors: warnings %v, want %s kept", what, got, tt.warning)
		}
	}
}
