//go:build linux

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestE2EHostileConfig: --config naming a FIFO with no writer, or
// /dev/zero, is refused at once for what it is — no open or read that
// blocks for good, no read that fills memory — and the command still
// answers (issue 34: it hung, or took 4 GB).
func TestE2EHostileConfig(t *testing.T) { onEach(t, testHostileConfig) }

func testHostileConfig(t *testing.T, bin string) {
	sb := newSandbox(t, bin)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, what := range map[string]string{fifo: "a named pipe", "/dev/zero": "a character device"} {
		r := sb.run(t, "list", "--config", path)
		env := expectEnvelope(t, "list --config "+path, r, 0)
		if got, _ := get(env, "warnings.0.code").(string); got != "PROFILES_UNREADABLE" || !strings.Contains(r.stdout, what) {
			t.Errorf("list --config %s: %s; want a PROFILES_UNREADABLE warning saying it is %s", path, r.stdout, what)
		}
	}
}

// TestE2EHostileStore: --file naming /dev/zero or a FIFO is refused at
// once, saying what it is, instead of read without end (issue 34: 1.7 GB).
func TestE2EHostileStore(t *testing.T) { onEach(t, testHostileStore) }

func testHostileStore(t *testing.T, bin string) {
	sb := newSandbox(t, bin)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/dev/zero", fifo} {
		r := sb.run(t, "list", "--file", path)
		expectEnvelope(t, "list --file "+path, r, 1)
		if !strings.Contains(r.stdout, "is not a regular file") {
			t.Errorf("list --file %s: %s; want it refused as no regular file", path, r.stdout)
		}
	}
}

// TestE2EHostileArchive: archive --to a device or a FIFO fails its archive
// step at once, naming what the path is, rather than reading the device
// without end past --timeout (issue 34: --to /dev/full answered after 46 s
// on a 30 s limit); the to-dos stay where they were.
func TestE2EHostileArchive(t *testing.T) { onEach(t, testHostileArchive) }

func testHostileArchive(t *testing.T, bin string) {
	sb := newSandbox(t, bin)
	sb.run(t, "add", "finished")
	sb.run(t, "done", "t1")
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/dev/full", fifo} {
		r := sb.run(t, "archive", "--to", path, "--timeout", "30s")
		env := expectEnvelope(t, "archive --to "+path, r, 3)
		if get(env, "error.code") != "ARCHIVE_UNWRITABLE" || !strings.Contains(r.stdout, "is not a regular file") {
			t.Errorf("archive --to %s: %s; want ARCHIVE_UNWRITABLE naming it no regular file", path, r.stdout)
		}
		if ms, _ := get(env, "meta.duration_ms").(float64); ms > 5000 {
			t.Errorf("archive --to %s answered after %v ms", path, ms)
		}
	}
	sb.expectIDs(t, "after the refused archives", "t1")
}

// TestE2EHostileInputFile: --input-file /dev/zero is refused in phase 1
// (exit 2, INVALID_INPUT_FILE), not read until memory runs out (issue 34:
// the kernel killed todo import).
func TestE2EHostileInputFile(t *testing.T) { onEach(t, testHostileInputFile) }

func testHostileInputFile(t *testing.T, bin string) {
	sb := newSandbox(t, bin)
	r := sb.run(t, "import", "--input-file", "/dev/zero")
	env := expectEnvelope(t, "import --input-file /dev/zero", r, 2)
	if get(env, "error.code") != "INVALID_INPUT_FILE" && get(env, "error.errors.0.code") != "INVALID_INPUT_FILE" {
		t.Errorf("import --input-file /dev/zero: %s; want INVALID_INPUT_FILE", r.stdout)
	}
}

// TestE2EWatchInterval: watch --interval 0s (or less) is refused in phase 1
// with exit 2, naming the flag, instead of a ticker's panic (issue 34).
func TestE2EWatchInterval(t *testing.T) { onEach(t, testWatchInterval) }

func testWatchInterval(t *testing.T, bin string) {
	sb := newSandbox(t, bin)
	for _, v := range []string{"0s", "-1s"} {
		r := sb.run(t, "watch", "--interval="+v, "--count", "1")
		env := expectEnvelope(t, "watch --interval "+v, r, 2)
		if get(env, "error.code") != "OUT_OF_RANGE" || get(env, "error.field") != "interval" || strings.Contains(r.stderr, "panic") {
			t.Errorf("watch --interval %s: %s %s; want OUT_OF_RANGE on interval", v, r.stdout, r.stderr)
		}
	}
}

// mcpInitialize is a client's first request, then its notification that
// it is ready.
const mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`

// TestE2EMCPMalformedLines: the stdio MCP server answers each line it
// cannot take — garbage, a truncated request, nesting deeper than JSON
// decoders go, JSON that is no JSON-RPC message — with a JSON-RPC error,
// and goes on serving: the calls after them are answered (issue 34: one
// such line ended the server, and every later request went unanswered).
func TestE2EMCPMalformedLines(t *testing.T) { onEach(t, testMCPMalformedLines) }

func testMCPMalformedLines(t *testing.T, bin string) {
	sb := newSandbox(t, bin)
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	in := strings.Join([]string{
		"garbage",
		`{"jsonrpc":"2.0","id":9,"method":"tools/list"`,
		deep,
		`{}`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
		mcpInitialize,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"title":"still served"}}}`,
	}, "\n") + "\n"
	cmd := exec.Command(bin, "mcp")
	cmd.Env, cmd.Stdin = sb.env, strings.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("todo mcp: %v\n%s", err, out)
	}
	var codes []any
	answered := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON-RPC on stdout: %q", line)
		}
		if e, ok := m["error"].(map[string]any); ok {
			codes = append(codes, e["code"])
		} else {
			answered[fmt.Sprint(m["id"])] = true
		}
	}
	want := []any{-32700.0, -32700.0, -32700.0, -32600.0, -32600.0}
	if diff := cmp.Diff(want, codes); diff != "" || !answered["1"] || !answered["2"] {
		t.Errorf("errors (-want +got):\n%s\nanswered %v; want initialize (1) and the call (2) answered\n%s", diff, answered, out)
	}
	sb.expectIDs(t, "after the call", "t1")
}

// TestE2ESecretsByShape: secrets are redacted by what they look like, not
// only by the name they come under: --debug's environment keeps a URL's
// user and host but not its password, and no token of a known shape; the
// audit log keeps neither a URL's password in an argument, nor the value
// of an unknown flag whose name looks secret, nor a secret field of a
// refused --raw-payload (issue 34: each printed in clear).
func TestE2ESecretsByShape(t *testing.T) { onEach(t, testSecretsByShape) }

func testSecretsByShape(t *testing.T, bin string) {
	sb := newSandbox(t, bin)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	secrets := map[string]string{
		"DATABASE_URL": "postgres://app:hunter2pw@db:5432/x",
		"HTTPS_PROXY":  "http://proxyuser:pr0xypass@proxy:3128",
		"GH_PAT":       "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"OPENAI_CONF":  "sk-proj-abcdefghijklmnop1234",
		"AWS_ID":       "AKIAIOSFODNN7EXAMPLE",
	}
	var env []string
	for k, v := range secrets {
		env = append(env, k+"="+v)
	}
	r := sb.runEnv(t, env, "list", "--debug")
	for _, clear := range []string{"hunter2pw", "pr0xypass", "ghp_abcdefghijklmnop", "sk-proj-abcdefghijklmnop1234", "AKIAIOSFODNN7EXAMPLE"} {
		if strings.Contains(r.stderr, clear) {
			t.Errorf("--debug prints %q in clear:\n%s", clear, r.stderr)
		}
	}
	if !strings.Contains(r.stderr, "postgres://app:[REDACTED]@db:5432/x") {
		t.Errorf("--debug: want DATABASE_URL's user and host kept, its password redacted:\n%s", r.stderr)
	}
	logged := []string{"TODO_AUDIT_LOG=" + audit}
	sb.runEnv(t, logged, "add", "see https://bob:pa55w0rd@host/x", "--token", "s3cr3tvalue")
	sb.runEnv(t, logged, "add", "see https://bob:pa55w0rd@host/x")
	// A --raw-payload refused beside a flag it conflicts with.
	sb.runEnv(t, logged, "add", "--raw-payload", `{"title":"x","api_token":"payl0adsecret"}`, "--priority", "high")
	data, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	for _, clear := range []string{"pa55w0rd", "s3cr3tvalue", "payl0adsecret"} {
		if strings.Contains(string(data), clear) {
			t.Errorf("the audit log keeps %q in clear:\n%s", clear, data)
		}
	}
	if !strings.Contains(string(data), "https://bob:[REDACTED]@host/x") {
		t.Errorf("the audit log: want the argument's URL with its password redacted:\n%s", data)
	}
	// A .env read as input: each line it cannot take comes back in
	// corrected_input, with the values of secret names and of random keys
	// masked, the names kept.
	dotenv := filepath.Join(sb.dir, ".env")
	lines := "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz012345\nAPI_KEY=hunter2hunter2\nSESSION=Zx9qK2mVb7TfLp4sNw8RhYc3JdGa6EuQ\n"
	if err := os.WriteFile(dotenv, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	r = sb.runEnv(t, nil, "import", "--input-file", dotenv)
	for _, clear := range []string{"ghp_abcdefghijklmnop", "hunter2hunter2", "Zx9qK2mVb7TfLp4sNw8RhYc3JdGa6EuQ"} {
		if strings.Contains(r.stdout, clear) {
			t.Errorf("import of a .env echoes %q in clear:\n%s", clear, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, `API_KEY=[REDACTED]`) {
		t.Errorf("import of a .env: want each line's name kept, its value masked:\n%s", r.stdout)
	}
}

// TestE2EMCPStopsMidCall: SIGTERM ends the stdio MCP server while a call
// with no time limit runs — exit 143, the call's process gone with it — as
// it ends a server with nothing to do (issue 34: only SIGKILL ended it, and
// the tool's child ran on).
func TestE2EMCPStopsMidCall(t *testing.T) { onEach(t, testMCPStopsMidCall) }

func testMCPStopsMidCall(t *testing.T, bin string) {
	sb := newSandbox(t, bin)
	cmd := exec.Command(bin, "mcp")
	cmd.Env = sb.env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	io.WriteString(stdin, mcpInitialize+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"watch","arguments":{"timeout":"0","interval":"1s"}}}`+"\n")
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() { // initialize's answer: the server reads its input
		t.Fatal("no answer to initialize")
	}
	var child int
	for deadline := time.Now().Add(20 * time.Second); child == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		child = childOf(t, cmd.Process.Pid)
	}
	if child == 0 {
		t.Fatal("the call started no process")
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan int, 1)
	go func() { io.Copy(io.Discard, stdout); done <- exitCode(cmd.Wait()) }()
	select {
	case code := <-done:
		if code != 143 {
			t.Errorf("todo mcp after SIGTERM mid-call: exit %d, want 143", code)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("todo mcp ran on after SIGTERM with a call under way")
	}
	for deadline := time.Now().Add(10 * time.Second); syscall.Kill(child, 0) == nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("the call's process %d outlived the server", child)
		}
	}
}

// childOf is a child process of pid, or 0 when it has none yet: Go starts
// a child from any of its threads, so /proc/PID/stat's parent field is
// read for every process.
func childOf(t *testing.T, pid int) int {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		raw, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces, not ")".
		_, rest, ok := strings.Cut(string(raw), ") ")
		var state string
		var ppid, child int
		if _, err := fmt.Sscan(rest, &state, &ppid); !ok || err != nil || ppid != pid {
			continue
		}
		if _, err := fmt.Sscan(e.Name(), &child); err == nil {
			return child
		}
	}
	return 0
}

// TestE2EMCPFilesStayInProject: a tool reads and writes the files of the
// project its server was started in and no others — a store, an archive or
// an input file named outside it, directly, by "..", or through a link
// inside that points out, is refused before the command runs, and nothing
// is read or written there (issue 34: `add {"file": …}` created files
// anywhere; `import {"input-file": …}` echoed a .env back).
func TestE2EMCPFilesStayInProject(t *testing.T) { onEach(t, testMCPFilesStayInProject) }

func testMCPFilesStayInProject(t *testing.T, bin string) {
	sb := newSandbox(t, bin)
	project, elsewhere := filepath.Join(sb.dir, "project"), filepath.Join(sb.dir, "elsewhere")
	for _, d := range []string{project, elsewhere} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(elsewhere, ".env"), []byte("API_KEY=hunter2-not-a-todo\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(project, "link")); err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		tool, args string
		refused    bool
	}{
		{"add", `{"title":"x","file":"` + filepath.Join(elsewhere, "todo.json") + `"}`, true},
		{"add", `{"title":"x","file":"../elsewhere/todo.json"}`, true},
		{"add", `{"title":"x","file":"link/todo.json"}`, true},
		{"add", `{"title":"x","file":"link/../../elsewhere/todo.json"}`, true},
		{"import", `{"input-file":"../elsewhere/.env","file":"store.json"}`, true},
		{"archive", `{"to":"` + filepath.Join(elsewhere, "archive.json") + `","file":"store.json"}`, true},
		{"add", `{"title":"in the project","file":"store.json"}`, false},
	}
	in := mcpInitialize + "\n"
	for i, c := range calls {
		in += fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`+"\n", i+10, c.tool, c.args)
	}
	cmd := exec.Command(bin, "mcp")
	cmd.Env, cmd.Dir, cmd.Stdin = sb.env, project, strings.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("todo mcp: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "hunter2") {
		t.Errorf("a file outside the project was read back:\n%s", out)
	}
	results := map[int]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.ID >= 10 {
			results[m.ID-10] = string(m.Result)
		}
	}
	for i, c := range calls {
		got := results[i]
		if refused := strings.Contains(got, `"isError":true`) && strings.Contains(got, "PATH_OUTSIDE_PROJECT"); refused != c.refused {
			t.Errorf("%s %s: refused %v, want %v: %s", c.tool, c.args, refused, c.refused, got)
		}
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 1 {
		t.Errorf("files were written outside the project: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(project, "store.json")); err != nil {
		t.Errorf("the store in the project was not written: %v", err)
	}
}
