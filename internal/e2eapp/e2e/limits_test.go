//go:build linux

package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ---------------------------------------------------------------------------
// REQ-F-011 Default timeout per command.

// TestF011DefaultTimeout: REQ-F-011 criteria 1 to 3. `stall` sleeps without
// looking at its context and `wait-ready` is blocked in the open(2) of a
// named pipe nobody writes to; both declare a per-command default of 1s
// (schema.Meta.Timeout). Given nothing, each ends — exit 10, TIMEOUT, one
// envelope — within that default + 5s; --timeout overrides it. Every
// answer records the limit it ran under in meta.timeout_ms: the
// command's, the caller's, or the framework's default of 30s for a command
// that declares none.
//
// The framework's 30s default itself is enforced by the same path (a
// command's default, schema.DefaultTimeout when it declares none); waiting
// it out is left out to keep the package fast.
func TestF011DefaultTimeout(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	fifo := sb.mkfifo(t, "ready")
	for _, tt := range []struct {
		name    string
		args    []string
		limitMS float64
	}{
		{"asleep, its default", []string{"stall"}, 1000},
		{"blocked on I/O, its default", []string{"wait-ready", "--pipe", fifo}, 1000},
		{"asleep, --timeout", []string{"stall", "--timeout", "500ms"}, 500},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := sb.run(t, tt.args...)
			env := expect(t, tt.name, r, 10)
			want(t, tt.name, env, map[string]any{"error.code": "TIMEOUT", "meta.timeout_ms": tt.limitMS, "data": nil})
			if limit := time.Duration(tt.limitMS)*time.Millisecond + 5*time.Second; r.took > limit {
				t.Errorf("it ended after %v, more than the limit + 5s (%v)", r.took, limit)
			}
		})
	}
	t.Run("meta.timeout_ms", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct {
			args []string
			want float64
		}{
			{[]string{"status"}, 30000},
			{[]string{"status", "--timeout", "3s"}, 3000},
			{[]string{"lookup", "nope"}, 30000}, // a failure records it too
		} {
			env := sb.run(t, tt.args...)
			if got := get(expect(t, strings.Join(tt.args, " "), env, env.code), "meta.timeout_ms"); got != tt.want {
				t.Errorf("%v: meta.timeout_ms %v, want %v", tt.args, got, tt.want)
			}
		}
	})
}

// ---------------------------------------------------------------------------
// REQ-C-012 Commands with network I/O support --timeout.

// slowServer answers /slow never (it records how long the client stayed)
// and /late after 2.5s.
func slowServer(t *testing.T) (*httptest.Server, <-chan time.Duration) {
	t.Helper()
	stayed := make(chan time.Duration, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		var answerAfter <-chan time.Time // never, for /slow
		if r.URL.Path == "/late" {
			answerAfter = time.After(2500 * time.Millisecond)
		}
		select {
		case <-r.Context().Done():
			stayed <- time.Since(start)
		case <-answerAfter:
			io.WriteString(w, "late but fine")
		case <-time.After(30 * time.Second):
		}
	}))
	t.Cleanup(srv.Close)
	return srv, stayed
}

// TestC012NetworkTimeout: REQ-C-012 criteria 1, 2 and 4. `sync` declares
// network I/O (and a 2s default): its --schema has --timeout and
// --connect-timeout. Its request goes through nethttp: given --timeout 1s
// against a server that never answers, the server sees the client leave
// after about 1s — before the lifecycle's 2s grace would have killed the
// process — and sync answers TIMEOUT. Against one that answers after
// 2.5s, sync times out by default, and --timeout 0, the explicit choice,
// lets it wait: exit 0, with no meta.timeout_ms.
func TestC012NetworkTimeout(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	flags := flagNames(sb.schemaOf(t, "sync"))
	if !slices.Contains(flags, "timeout") || !slices.Contains(flags, "connect-timeout") || sb.schemaOf(t, "sync")["has_network_io"] != true {
		t.Errorf("sync --schema: flags %v, has_network_io %v", flags, sb.schemaOf(t, "sync")["has_network_io"])
	}
	srv, stayed := slowServer(t)

	t.Run("--timeout reaches the request", func(t *testing.T) {
		t.Parallel()
		r := sb.run(t, "sync", "--url", srv.URL+"/slow", "--timeout", "1s")
		want(t, "sync --timeout 1s", expect(t, "sync --timeout 1s", r, 10), map[string]any{"error.code": "TIMEOUT", "meta.timeout_ms": 1000.0})
		select {
		case d := <-stayed:
			if d < 900*time.Millisecond || d > 2500*time.Millisecond {
				t.Errorf("the client left after %v, want about 1s", d)
			}
		case <-time.After(10 * time.Second):
			t.Error("the server never saw the client leave")
		}
	})
	t.Run("the default, then --timeout 0", func(t *testing.T) {
		t.Parallel()
		r := sb.run(t, "sync", "--url", srv.URL+"/late")
		want(t, "sync", expect(t, "sync", r, 10), map[string]any{"error.code": "TIMEOUT", "meta.timeout_ms": 2000.0})
		r = sb.run(t, "sync", "--url", srv.URL+"/late", "--timeout", "0")
		want(t, "sync --timeout 0", expect(t, "sync --timeout 0", r, 0), map[string]any{"data.body": "late but fine", "meta.timeout_ms": nil})
	})
}

// TestC012StaticAnalysis: REQ-C-012 criterion 3. duetvet, Duet's analyzers
// as a built binary, reports a network call with no time limit
// (http.Get, an http.Client without Timeout) in a module of its own, and
// passes the same call made with the command's context.
func TestC012StaticAnalysis(t *testing.T) {
	t.Parallel()
	module := func(body string) string {
		return "package main\n\nimport (\n\t\"context\"\n\t\"net/http\"\n\t\"time\"\n)\n\nvar _ = time.Second\n\n" + body
	}

	flagged := module("func main() {\n\tresp, err := http.Get(\"https://example.com\")\n\tif err == nil {\n\t\tresp.Body.Close()\n\t}\n\tc := &http.Client{}\n\t_ = c\n\t_ = context.Background\n}\n")
	out, err := vetModule(t, flagged)
	if err == nil || !strings.Contains(out, "http.Get uses http.DefaultClient, which has no timeout") || !strings.Contains(out, "an http.Client without a Timeout") {
		t.Errorf("duetvet on http.Get and http.Client{}: %v\n%s", err, out)
	}
	clean := module("func main() {\n\tctx, cancel := context.WithTimeout(context.Background(), time.Second)\n\tdefer cancel()\n\treq, _ := http.NewRequestWithContext(ctx, \"GET\", \"https://example.com\", nil)\n\tc := &http.Client{Timeout: time.Second}\n\tif resp, err := c.Do(req); err == nil {\n\t\tresp.Body.Close()\n\t}\n}\n")
	if out, err := vetModule(t, clean); err != nil {
		t.Errorf("duetvet on a call with a time limit: %v\n%s", err, out)
	}
}

// ---------------------------------------------------------------------------
// REQ-C-022 Async commands declare a job descriptor schema.

// descriptorFields are the job descriptor's required fields.
var descriptorFields = []string{"job_id", "status", "terminal", "status_command", "cancel_command", "poll_interval_ms", "timeout_ms"}

// startBackup starts a backup job and returns its descriptor, cancelling
// the job when the test ends.
func (sb *sandbox) startBackup(t *testing.T, args ...string) map[string]any {
	t.Helper()
	env := expect(t, "backup", sb.run(t, append([]string{"backup"}, args...)...), 0)
	d, _ := env["data"].(map[string]any)
	id, _ := d["job_id"].(string)
	if id == "" {
		t.Fatalf("backup answered no job: %v", env["data"])
	}
	t.Cleanup(func() { sb.run(t, "job", "cancel", id) })
	return d
}

// runLine runs a command line the tool gave (status_command,
// continue_command) as it is.
func (sb *sandbox) runLine(t *testing.T, line string, extra ...string) result {
	t.Helper()
	words := strings.Fields(line)
	if len(words) == 0 || words[0] != "e2eapp" {
		t.Fatalf("%q is not an e2eapp command line", line)
	}
	return sb.run(t, append(words[1:], extra...)...)
}

// TestC022AsyncJob: REQ-C-022 criteria 1 to 3. `backup` is async: its
// --schema says so and gives the job descriptor's schema, requiring the
// seven fields; it answers at once with a descriptor holding them, whose
// status_command, run as it is, follows the job: exit 0 once complete,
// 14 (INCOMPLETE, not 3) while it runs, 4 when it failed, 5 for no such
// job.
func TestC022AsyncJob(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	doc := sb.schemaOf(t, "backup")
	required, _ := get(doc, "job_descriptor_schema.required").([]any)
	for _, f := range descriptorFields {
		if !slices.Contains(required, any(f)) {
			t.Errorf("the job descriptor schema does not require %s: %v", f, required)
		}
	}
	if doc["async"] != true {
		t.Errorf("backup --schema: async %v", doc["async"])
	}
	src := sb.path("src")
	os.MkdirAll(src, 0o755)
	os.WriteFile(filepath.Join(src, "a.txt"), []byte("hello"), 0o644)

	d := sb.startBackup(t, "--source", src)
	for _, f := range descriptorFields {
		if _, ok := d[f]; !ok {
			t.Errorf("the descriptor lacks %s: %v", f, d)
		}
	}
	id := d["job_id"].(string)
	want(t, "descriptor", map[string]any{"d": d}, map[string]any{"d.status_command": "e2eapp job status " + id, "d.cancel_command": "e2eapp job cancel " + id, "d.timeout_ms": 600000.0})
	done := expect(t, "job status --wait", sb.runLine(t, d["status_command"].(string), "--wait"), 0)
	want(t, "complete", done, map[string]any{"data.status": "complete", "data.terminal": true, "data.result.files": 1.0})

	slow := sb.path("slow")
	os.MkdirAll(slow, 0o755)
	sb.mkfifo(t, filepath.Join("slow", "pipe")) // the job reads it: nobody writes
	running := sb.startBackup(t, "--source", slow)
	want(t, "running", expect(t, "job status", sb.runLine(t, running["status_command"].(string)), 14), map[string]any{"data.status": "running", "data.terminal": false})

	failed := sb.startBackup(t, "--source", sb.path("missing"))
	want(t, "failed", expect(t, "job status --wait", sb.runLine(t, failed["status_command"].(string), "--wait"), 4),
		map[string]any{"error.code": "JOB_FAILED", "data.status": "failed", "data.error.code": "SOURCE_NOT_FOUND"})

	want(t, "no such job", expect(t, "job status", sb.run(t, "job", "status", "backup-00000000"), 5), map[string]any{"error.code": "JOB_NOT_FOUND"})
}

// TestC022RunningJobIsIncomplete: REQ-C-022 criterion 3 as v1.15 words it:
// exit 14 for a running job comes "with the response of REQ-F-082" —
// error.code INCOMPLETE, data.state running, data.job_id,
// data.continue_command (`e2eapp job wait <id>`) and data.cancel_command.
// `job wait` answers so; `job status` exits 14 with JOB_RUNNING and the
// job's view instead (adapters/jobs.go answerJob).
func TestC022RunningJobIsIncomplete(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	slow := sb.path("slow")
	os.MkdirAll(slow, 0o755)
	sb.mkfifo(t, filepath.Join("slow", "pipe"))
	d := sb.startBackup(t, "--source", slow)
	id := d["job_id"].(string)
	wait := expect(t, "job wait", sb.run(t, "job", "wait", id, "--budget", "200ms"), 14)
	want(t, "job wait", wait, map[string]any{"error.code": "INCOMPLETE", "data.state": "running", "data.job_id": id,
		"data.continue_command": "e2eapp job wait " + id, "data.cancel_command": "e2eapp job cancel " + id})

	env := expect(t, "job status", sb.runLine(t, d["status_command"].(string)), 14)
	if get(env, "error.code") == "JOB_RUNNING" && get(env, "data.state") == nil {
		gap(t, "job status of a running job exits 14 with error.code JOB_RUNNING and no data.state/continue_command; REQ-F-082 wants INCOMPLETE and its data (adapters/jobs.go answerJob)")
	}
	want(t, "job status", env, map[string]any{"error.code": "INCOMPLETE", "data.state": "running", "data.continue_command": "e2eapp job wait " + id})
}

// TestC022TimedOutJob: REQ-C-022 as v1.15 has it (§49's table): `job status`
// of a job that timed out exits 10 (TIMEOUT). The job runs out of its
// --timeout 1s; `job wait` answers its TIMEOUT (10), and `job status` says
// 4, JOB_FAILED (adapters/jobs.go finishJob/answerJob: any exit but 0 and
// a signal is "failed").
func TestC022TimedOutJob(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	slow := sb.path("slow")
	os.MkdirAll(slow, 0o755)
	sb.mkfifo(t, filepath.Join("slow", "pipe"))
	d := sb.startBackup(t, "--source", slow, "--timeout", "1s")
	want(t, "descriptor", map[string]any{"d": d}, map[string]any{"d.timeout_ms": 1000.0})
	r := sb.runLine(t, d["status_command"].(string), "--wait")
	env := expect(t, "job status --wait", r, r.code) // the exit code is judged below
	want(t, "the job's own answer", env, map[string]any{"data.exit_code": 10.0, "data.error.code": "TIMEOUT", "data.terminal": true})
	want(t, "job wait", expect(t, "job wait", sb.run(t, "job", "wait", d["job_id"].(string)), 10), map[string]any{"error.code": "TIMEOUT"})
	if get(env, "meta.exit_code") == 4.0 && get(env, "error.code") == "JOB_FAILED" {
		gap(t, "job status of a timed-out job exits 4 (JOB_FAILED); v1.15 wants 10 (adapters/jobs.go answerJob)")
	}
	if get(env, "meta.exit_code") != 10.0 {
		t.Errorf("job status of a timed-out job: exit %v, want 10", get(env, "meta.exit_code"))
	}
}

// ---------------------------------------------------------------------------
// REQ-C-001 Command declares exit codes.

// exitCodeEntry compiles the spec's ExitCodeEntry 1.1 and ManifestResponse
// 3.21 schemas (the copies conformance/schemas holds).
func specSchemas(t *testing.T) (entry, manifest *jsonschema.Schema) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "conformance", "schemas", "manifest-response.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	delete(doc.(map[string]any), "$id")
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{})
	const url = "https://cli-agent-spec.invalid/schemas/manifest-response.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	if entry, err = c.Compile(url + "#/definitions/ExitCodeEntry"); err != nil {
		t.Fatal(err)
	}
	if manifest, err = c.Compile(url); err != nil {
		t.Fatal(err)
	}
	return entry, manifest
}

// TestC001ExitCodesInEverySchema: REQ-C-001 criterion 4, and criterion 1 as
// Duet settles it (every command gets the standard table, which
// Meta.ExitCodes extends, so none lacks one). The --schema of every command
// the manifest lists (the root's own entry is in the manifest: its
// --schema describes the whole tree) has exit_codes keyed by decimal code strings, "0"
// among them, each entry valid against ExitCodeEntry 1.1; the manifest is
// valid against ManifestResponse 3.21.
func TestC001ExitCodesInEverySchema(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	entry, manifestSchema := specSchemas(t)
	m := sb.manifest(t)
	var asJSON any
	raw, _ := json.Marshal(m)
	json.Unmarshal(raw, &asJSON)
	if err := manifestSchema.Validate(asJSON); err != nil {
		t.Errorf("the manifest is not a valid ManifestResponse: %v", err)
	}
	commands, _ := m["commands"].(map[string]any)
	if len(commands) < 30 {
		t.Fatalf("the manifest lists %d commands", len(commands))
	}
	for path, c := range commands {
		// The root's --schema describes the whole tree, and a passthrough
		// command hands --schema to its tool: their entries are the
		// manifest's.
		doc, _ := c.(map[string]any)
		if path != "e2eapp" && doc["arguments"] != "passthrough" {
			doc = sb.schemaOf(t, strings.Split(path, ".")...)
		}
		codes, ok := doc["exit_codes"].(map[string]any)
		if !ok || codes["0"] == nil {
			t.Errorf("%s --schema: exit_codes %v, want a table with 0", path, doc["exit_codes"])
			continue
		}
		for code, e := range codes {
			if n, err := strconv.Atoi(code); err != nil || strconv.Itoa(n) != code {
				t.Errorf("%s: exit code key %q is not a decimal code", path, code)
			}
			if err := entry.Validate(e); err != nil {
				t.Errorf("%s: exit_codes[%s] is not an ExitCodeEntry: %v", path, code, err)
			}
		}
	}
}

// TestC001ErrorCodes: REQ-C-001's v1.13 criterion (ExitCodeEntry 1.1). lookup
// declares, per exit, the error.code values it answers with; each answer
// under a declared list carries a code the list names, and --schema shows
// the lists. Its exit 0 declares an empty list (no error.code): --schema
// should show "error_codes": [], and Duet leaves it out (exitcode.Table's
// encoding drops an empty list, exitcode/table.go AppendJSON and the
// Entry's omitempty).
func TestC001ErrorCodes(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	codes, _ := sb.schemaOf(t, "lookup")["exit_codes"].(map[string]any)
	for _, tt := range []struct {
		key  string
		exit int
	}{{"no-such-key", 5}, {"legacy-endpoint", 80}} {
		env := expect(t, "lookup "+tt.key, sb.run(t, "lookup", tt.key), tt.exit)
		listed, _ := get(codes, strconv.Itoa(tt.exit)+".error_codes").([]any)
		if code := get(env, "error.code"); len(listed) == 0 || !slices.Contains(listed, code) {
			t.Errorf("lookup %s: exit %d with error.code %v, not among the declared %v", tt.key, tt.exit, code, listed)
		}
	}
	expect(t, "lookup region", sb.run(t, "lookup", "region"), 0)
	if list, ok := get(codes, "0.error_codes").([]any); !ok {
		gap(t, `lookup declares ExitCodes[0].ErrorCodes = []string{} (no error.code) and --schema leaves error_codes out (exitcode/table.go AppendJSON: len(ErrorCodes) > 0); ExitCodeEntry 1.1 gives "[]" that meaning`)
	} else if len(list) != 0 {
		t.Errorf("exit 0 error_codes %v, want []", list)
	}
}

// TestC001UndeclaredExitCode: REQ-C-001 criterion 5. A command that fails
// with a code its table does not declare (e2eapp-misdeclared's migrate,
// 81) exits 1 instead, with an UNDECLARED_EXIT_CODE warning naming 81.
func TestC001UndeclaredExitCode(t *testing.T) {
	t.Parallel()
	sb := sandboxFor(t, misdeclared)
	env := expect(t, "migrate", sb.runEnv(t, []string{"E2EAPP_MISDECLARE=undeclared-exit"}, "migrate"), 1)
	want(t, "migrate", env, map[string]any{"error.code": "MIGRATION_DRIFT", "warnings.0.code": "UNDECLARED_EXIT_CODE"})
	if msg, _ := get(env, "warnings.0.message").(string); !strings.Contains(msg, "exit code 81") {
		t.Errorf("the warning %q does not name 81", msg)
	}
}

// TestC001UndeclaredErrorCode: REQ-C-001's v1.13 criterion, the framework's
// half (exit-code-entry.md's assertion "when the entry declares
// error_codes, the envelope's error.code is one of them"). A command whose
// exit 5 lists TABLE_NOT_FOUND and that answers PLAN_NOT_FOUND under it
// keeps its exit and its code — what the agent branches on — and an
// UNDECLARED_ERROR_CODE warning names both, and the list, for the author.
func TestC001UndeclaredErrorCode(t *testing.T) {
	t.Parallel()
	sb := sandboxFor(t, misdeclared)
	env := expect(t, "migrate", sb.runEnv(t, []string{"E2EAPP_MISDECLARE=undeclared-error-code"}, "migrate"), 5)
	want(t, "migrate", env, map[string]any{"error.code": "PLAN_NOT_FOUND", "warnings.0.code": "UNDECLARED_ERROR_CODE"})
	msg, _ := get(env, "warnings.0.message").(string)
	for _, s := range []string{"PLAN_NOT_FOUND", "exit 5", "TABLE_NOT_FOUND"} {
		if !strings.Contains(msg, s) {
			t.Errorf("the warning %q does not name %s", msg, s)
		}
	}
	// A listed code is answered without the warning (lookup, TestC001ErrorCodes).
	if w := get(expect(t, "lookup", newSandbox(t).run(t, "lookup", "no-such-key"), 5), "warnings"); len(w.([]any)) != 0 {
		t.Errorf("lookup answered a listed code with warnings %v", w)
	}
}

// TestC014RateLimited: REQ-C-014 criteria 1 and 2. `quota` reads a real
// HTTP service (a loopback server in the test) that answers 429: with a
// Retry-After of 7 seconds the RATE_LIMITED error (exit 11) is retryable
// and says to wait 7000 ms; with none, Duet fills the wait (30 s) — never
// a rate limit without retry_after_ms > 0. A service that answers 200
// gives the quota.
func TestC014RateLimited(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/limited-7s":
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
		case "/limited":
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			io.WriteString(w, "42\n")
		}
	}))
	t.Cleanup(srv.Close)
	sb := newSandbox(t)
	for _, tt := range []struct {
		path  string
		after float64
	}{{"/limited-7s", 7000}, {"/limited", 30000}} {
		env := expect(t, "quota "+tt.path, sb.run(t, "quota", "--url", srv.URL+tt.path), 11)
		want(t, "quota "+tt.path, env, map[string]any{"error.code": "RATE_LIMITED", "error.retryable": true, "error.retry_after_ms": tt.after, "data": nil})
	}
	want(t, "quota", expect(t, "quota", sb.run(t, "quota", "--url", srv.URL+"/"), 0), map[string]any{"data.remaining": "42"})
}
