//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// ---------------------------------------------------------------------------
// REQ-C-026 Commands declare conditional argument dependencies.

// TestC026ConditionalDependencies: REQ-C-026, every criterion, v1.16's
// included, on `quote` (app/parsing.go), which declares any_of(isin, figi,
// symbol), one_of(exact, fuzzy), layout=csv → separator, and --to
// prohibiting --print-only, and writes a line to its data directory when it
// runs.
//
//   - criterion 1: --layout csv without --separator exits 2 with a
//     structured error naming --separator; with it the call runs;
//   - criteria 2 and 4: --schema (and the manifest, valid against
//     ManifestResponse 3.21) lists the whole graph in the spec's shapes, so
//     that a call built from it alone passes at the first attempt;
//   - criterion 3: --to with --print-only exits 2 before any I/O;
//   - v1.10: an any_of group with no flag present and a one_of group with
//     two present exit 2 before any I/O, naming every flag of the group in
//     the message and in valid_values; a one_of with exactly one passes;
//   - v1.16: a boolean given as false is absent — --exact=false --fuzzy
//     passes, --exact=false alone exits 2 — whether false comes from the
//     command line or the environment (E2EAPP_FUZZY=false); a true from
//     the environment is present.
func TestC026ConditionalDependencies(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	quotes := sb.path("data", "e2eapp", "quotes")

	refused := []struct {
		name  string
		env   []string
		args  []string
		code  string
		names []string // every one named in the message
		valid []string // error.valid_values; nil: not checked
	}{
		{"csv without a separator", nil, []string{"--symbol", "AAPL", "--exact", "--layout", "csv"}, "MISSING_REQUIRED_FLAG", []string{"--layout csv", "--separator"}, nil},
		{"--to with --print-only", nil, []string{"--symbol", "AAPL", "--exact", "--to", "desk", "--print-only"}, "MUTUALLY_EXCLUSIVE_FLAGS", []string{"--to", "--print-only"}, nil},
		{"any_of with none", nil, []string{"--exact"}, "MISSING_REQUIRED_FLAG", []string{"--isin", "--figi", "--symbol"}, []string{"isin", "figi", "symbol"}},
		{"one_of with none", nil, []string{"--figi", "BBG000B9XRY4"}, "MISSING_REQUIRED_FLAG", []string{"--exact", "--fuzzy"}, []string{"exact", "fuzzy"}},
		{"one_of with two", nil, []string{"--isin", "US0378331005", "--exact", "--fuzzy"}, "MUTUALLY_EXCLUSIVE_FLAGS", []string{"--exact", "--fuzzy"}, []string{"exact", "fuzzy"}},
		{"--exact=false alone", nil, []string{"--symbol", "AAPL", "--exact=false"}, "MISSING_REQUIRED_FLAG", []string{"--exact", "--fuzzy"}, []string{"exact", "fuzzy"}},
		{"fuzzy false from the environment", []string{"E2EAPP_FUZZY=false"}, []string{"--symbol", "AAPL"}, "MISSING_REQUIRED_FLAG", []string{"--exact", "--fuzzy"}, []string{"exact", "fuzzy"}},
		{"exact, and fuzzy from the environment", []string{"E2EAPP_FUZZY=true"}, []string{"--symbol", "AAPL", "--exact"}, "MUTUALLY_EXCLUSIVE_FLAGS", []string{"--exact", "--fuzzy"}, []string{"exact", "fuzzy"}},
	}
	for _, tt := range refused {
		env := expect(t, tt.name, sb.runEnv(t, tt.env, append([]string{"quote"}, tt.args...)...), 2)
		want(t, tt.name, env, map[string]any{"error.code": tt.code, "error.phase": "validation", "data": nil})
		msg, _ := get(env, "error.message").(string)
		for _, name := range tt.names {
			if !strings.Contains(msg, name) {
				t.Errorf("%s: message %q does not name %s", tt.name, msg, name)
			}
		}
		if tt.valid != nil {
			var got []string
			for _, v := range asSlice(get(env, "error.valid_values")) {
				got = append(got, v.(string))
			}
			if diff := cmp.Diff(tt.valid, got); diff != "" {
				t.Errorf("%s: valid_values (-want +got):\n%s", tt.name, diff)
			}
		}
		if exists(quotes) {
			t.Fatalf("%s: refused, but the command wrote %s", tt.name, quotes)
		}
	}

	accepted := []struct {
		name string
		env  []string
		args []string
		data map[string]any
	}{
		{"csv with a separator", nil, []string{"--symbol", "AAPL", "--exact", "--layout", "csv", "--separator", ";"}, map[string]any{"data.layout": "csv", "data.separator": ";"}},
		{"one identifier, one mode", nil, []string{"--isin", "US0378331005", "--fuzzy"}, map[string]any{"data.isin": "US0378331005", "data.fuzzy": true}},
		{"--exact=false --fuzzy", nil, []string{"--symbol", "AAPL", "--exact=false", "--fuzzy"}, map[string]any{"data.exact": false, "data.fuzzy": true}},
		{"fuzzy from the environment", []string{"E2EAPP_FUZZY=true"}, []string{"--figi", "BBG000B9XRY4"}, map[string]any{"data.fuzzy": true}},
		{"--to alone", nil, []string{"--symbol", "AAPL", "--exact", "--to", "desk"}, map[string]any{"data.to": "desk", "data.print_only": false}},
	}
	for i, tt := range accepted {
		env := expect(t, tt.name, sb.runEnv(t, tt.env, append([]string{"quote"}, tt.args...)...), 0)
		want(t, tt.name, env, tt.data)
		if got := strings.Count(readFile(t, quotes), "\n"); got != i+1 {
			t.Errorf("%s: %d quotes recorded, want %d", tt.name, got, i+1)
		}
	}

	graph := []any{
		map[string]any{"any_of": []any{"isin", "figi", "symbol"}},
		map[string]any{"one_of": []any{"exact", "fuzzy"}},
		map[string]any{"if_flag": "layout", "if_value": "csv", "then_required": []any{"separator"}},
		map[string]any{"if_flag": "to", "prohibited": []any{"print-only"}},
	}
	doc := sb.schemaOf(t, "quote")
	if diff := cmp.Diff(graph, doc["requires"]); diff != "" {
		t.Errorf("quote --schema requires (-want +got):\n%s", diff)
	}
	m := sb.manifest(t)
	if diff := cmp.Diff(graph, get(m, "commands.quote.requires")); diff != "" {
		t.Errorf("manifest quote requires (-want +got):\n%s", diff)
	}
	_, manifestSchema := specSchemas(t)
	var asJSON any
	raw, _ := json.Marshal(m)
	json.Unmarshal(raw, &asJSON)
	if err := manifestSchema.Validate(asJSON); err != nil {
		t.Errorf("the manifest is not a valid ManifestResponse: %v", err)
	}

	// Criterion 4: a call built from --schema alone — the first flag of
	// every group, each flag a then_required names when its if_value is
	// chosen — passes at the first attempt.
	flags := flagNames(doc)
	args := []string{"quote", "--layout", "csv"}
	for _, r := range asSlice(doc["requires"]) {
		rule := r.(map[string]any)
		for _, key := range []string{"any_of", "one_of", "then_required"} {
			names := asSlice(rule[key])
			if len(names) == 0 || key == "then_required" && rule["if_value"] != "csv" {
				continue
			}
			name := names[0].(string)
			if !slices.Contains(flags, name) {
				t.Fatalf("requires names --%s, which --schema does not list", name)
			}
			if get(doc, "flags."+name+".type") == "boolean" {
				args = append(args, "--"+name)
			} else {
				args = append(args, "--"+name, "x")
			}
		}
	}
	expect(t, strings.Join(args, " "), sb.run(t, args...), 0)
}

// asSlice is v as a JSON array, or nil.
func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// ---------------------------------------------------------------------------
// REQ-C-027 Commands declare option placement.

// TestC027StrictPlacementForwards: REQ-C-027, every criterion, with v1.16's
// meaning of strict, on `runx` (app/parsing.go), which runs a program with
// the arguments that follow it and reports the argv the program printed
// (the sandbox's args.sh prints one argument a line: the real child's view).
//
//   - criterion 1: runx, which forwards to a subprocess, declares
//     option_placement strict (--schema and manifest);
//   - criteria 2 and 3: the manifest gives every command an
//     option_placement, "any" where none is declared;
//   - criterion 4: `runx --format plain ./args.sh --child-flag` reads
//     --format (the answer is plain text) and forwards --child-flag;
//     `runx --label l -- ./args.sh` takes ./args.sh as the first
//     positional;
//   - criterion 5: an option after the first positional — the command's
//     own --label, the global --format, an unknown one — reaches the child
//     verbatim, is not refused, and is not read by the tool (--label stays
//     empty, the answer stays JSON).
func TestC027StrictPlacementForwards(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	prog := sb.script(t, "args.sh", "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done\n")

	if got := sb.schemaOf(t, "runx")["option_placement"]; got != "strict" {
		t.Errorf("runx --schema: option_placement %v, want strict", got)
	}
	commands, _ := sb.manifest(t)["commands"].(map[string]any)
	for path, c := range commands {
		want := "any"
		if path == "runx" {
			want = "strict"
		}
		if got := get(c, "option_placement"); got != want && !(want == "any" && got == "strict") {
			t.Errorf("manifest: %s has option_placement %v, want %s", path, got, want)
		}
	}
	if got := get(commands, "quote.option_placement"); got != "any" {
		t.Errorf("manifest: quote (declares none) has option_placement %v, want any", got)
	}

	for _, tt := range []struct {
		args  []string
		label string
		child []any
	}{
		{[]string{"runx", prog, "--child-flag"}, "", []any{"--child-flag"}},
		{[]string{"runx", "--label", "l", prog, "--label", "m", "-x", "--format", "plain"}, "l", []any{"--label", "m", "-x", "--format", "plain"}},
		{[]string{"--label", "l", "runx", prog, "--quiet"}, "l", []any{"--quiet"}},
		{[]string{"runx", "--label", "l", "--", prog, "--child-flag"}, "l", []any{"--child-flag"}},
	} {
		what := strings.Join(tt.args, " ")
		env := expect(t, what, sb.run(t, tt.args...), 0)
		want(t, what, env, map[string]any{"data.program": prog, "data.label": tt.label, "data.child_argv": tt.child})
	}

	// Options before the first positional are the tool's: --format plain
	// is read, --child-flag after the program is the program's.
	r := sb.run(t, "runx", "--format", "plain", prog, "--child-flag")
	if r.code != 0 || strings.HasPrefix(strings.TrimSpace(r.stdout), "{") || !strings.Contains(r.stdout, "--child-flag") {
		t.Errorf("runx --format plain %s --child-flag: exit %d, stdout %q; want plain text naming --child-flag", prog, r.code, r.stdout)
	}
}

// ---------------------------------------------------------------------------
// REQ-C-032 Protocol server commands declare their stdout protocol.

// TestC032ProtocolRegistrationAndFailure: REQ-C-032 criteria 2 and 3 (the
// registration checks) through e2eapp-misdeclared, each case e2eapp with a
// protocol server `serve` declared beside what cannot go with it: a name
// that is not kebab-case, a stdin payload, an output schema, a dry run,
// streaming, being always an MCP tool. The binary does not start (exit 1,
// nothing on stdout, serve and the rule named on stderr). Criterion 12:
// e2eapp's protocol servers, `mcp` (adapters/mcp) and `rpc`
// (app/parsing.go), have no --output, --dry-run, --idempotency-key or
// --confirm-destructive in --schema. Criterion 4: an invalid flag of either
// exits 2 with stdout empty and the envelope the last line of stderr:
// error.code ARG_ERROR, phase validation, the problem Duet names
// (UNKNOWN_FLAG) in errors[].
func TestC032ProtocolRegistrationAndFailure(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ misdeclare, says string }{
		{"protocol-not-kebab", `Meta.Protocol "MCP_stdio" is not a lowercase kebab-case name`},
		{"protocol-stdin", "cannot declare Meta.Stdin"},
		{"protocol-output-schema", "cannot declare Meta.Output"},
		{"protocol-dry-run", "cannot declare --dry-run"},
		{"protocol-streaming", "cannot declare Meta.Streaming"},
		{"protocol-tool", "cannot declare Meta.Tool ToolAlways"},
	} {
		sb := sandboxFor(t, misdeclared)
		r := sb.runEnv(t, []string{"E2EAPP_MISDECLARE=" + tt.misdeclare}, "status")
		if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, `command "serve"`) || !strings.Contains(r.stderr, tt.says) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want a refusal naming serve and saying %q", tt.misdeclare, r.code, r.stdout, r.stderr, tt.says)
		}
	}

	sb := newSandbox(t)
	for _, server := range []string{"mcp", "rpc"} {
		flags := flagNames(sb.schemaOf(t, server))
		for _, f := range []string{"output", "dry-run", "idempotency-key", "confirm-destructive"} {
			if slices.Contains(flags, f) {
				t.Errorf("%s --schema has --%s", server, f)
			}
		}
		what := server + " --bogus"
		env := lastLineEnvelope(t, what, sb.run(t, "--format", "json", server, "--bogus"), 2)
		want(t, what, env, map[string]any{"error.code": "ARG_ERROR", "error.phase": "validation", "error.field": "bogus",
			"error.errors.0.code": "UNKNOWN_FLAG", "error.errors.0.field": "bogus"})
	}
}

// lastLineEnvelope checks a protocol server's answer that is no session:
// exit code, stdout empty, and the last line of stderr one envelope with
// that exit code; it returns the envelope.
func lastLineEnvelope(t *testing.T, what string, r result, code int) map[string]any {
	t.Helper()
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	var env map[string]any
	if r.code != code || r.stdout != "" || json.Unmarshal([]byte(lines[len(lines)-1]), &env) != nil || get(env, "meta.exit_code") != float64(code) {
		t.Fatalf("%s: exit %d, stdout %q, stderr %q; want exit %d, stdout empty and an envelope on the last line of stderr", what, r.code, r.stdout, r.stderr, code)
	}
	if get(env, "ok") != false {
		t.Errorf("%s: the envelope is no failure's: %v", what, env)
	}
	return env
}

// TestC032ProtocolServing: REQ-C-032's criteria on a running server, on
// both of e2eapp's: `mcp` (an extension, adapters/mcp, protocol mcp) and
// `rpc` (an app command, app/parsing.go, JSON-RPC a line, declaring a
// one-second timeout and exit 5 for a missing --greeting-file), run as an
// agent runs them (CLAUDECODE=1, pipes).
//
//   - criterion 1: the manifest gives both stdout "protocol" and their
//     protocol's name, and no other command either field;
//   - criterion 5: a failure preparing to serve — rpc's greeting file
//     missing, mcp --http on an address in use — exits with a declared
//     code (5, 2), stdout empty, the envelope the last line of stderr; in
//     text the plain error, no JSON;
//   - criterion 6: --help at a terminal prints help and exits 0; with stdin a
//     pipe holding a request (an agent's call) it serves nothing and
//     answers as Duet answers any command's --help for an agent (the help
//     on stderr, the stub envelope on stdout); --schema answers on stdout;
//   - criteria 7 and 8: every stdout line is a protocol message, the first
//     the answer to the first request; an unknown method and a line that
//     is no JSON are answered with the protocol's error, and the next
//     request is answered;
//   - criterion 9: stdin closed, the server exits 0, no envelope on stderr;
//   - criterion 10: SIGTERM while serving exits 143, the last line of
//     stderr the CANCELLED envelope;
//   - criterion 11: rpc idle past its declared one-second timeout still
//     answers;
//   - criterion 13: a command that is no protocol server answers a bad
//     flag with the envelope on stdout, as before.
func TestC032ProtocolServing(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	agent := []string{"CLAUDECODE=1"}

	commands, _ := sb.manifest(t)["commands"].(map[string]any)
	for path, c := range commands {
		wantProtocol := map[string]any{"mcp": "mcp-stdio", "rpc": "json-rpc-lines"}[path]
		wantStdout := any(nil)
		if wantProtocol != nil {
			wantStdout = "protocol"
		}
		if get(c, "stdout") != wantStdout || get(c, "protocol") != wantProtocol {
			t.Errorf("manifest: %s has stdout %v, protocol %v; want %v, %v", path, get(c, "stdout"), get(c, "protocol"), wantStdout, wantProtocol)
		}
	}

	// Criterion 5.
	inUse, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer inUse.Close()
	for _, tt := range []struct {
		server  []string
		code    int
		error   string
		problem string // errors[0].code: a refused flag is ARG_ERROR, the problem named inside
	}{
		{[]string{"rpc", "--greeting-file", sb.path("missing")}, 5, "GREETING_NOT_FOUND", ""},
		{[]string{"mcp", "--http", inUse.Addr().String()}, 2, "ARG_ERROR", "INVALID_FLAG_VALUE"},
	} {
		what := strings.Join(tt.server, " ")
		env := lastLineEnvelope(t, what, sb.runEnv(t, agent, tt.server...), tt.code)
		want(t, what, env, map[string]any{"error.code": tt.error, "data": nil})
		if tt.problem != "" {
			want(t, what, env, map[string]any{"error.errors.0.code": tt.problem})
		}
		if get(sb.schemaOf(t, tt.server[0]), "exit_codes."+strconv.Itoa(tt.code)) == nil {
			t.Errorf("%s: exit %d is not among %s's declared exit codes", what, tt.code, tt.server[0])
		}
		r := sb.runEnv(t, agent, append([]string{"--format", "text"}, tt.server...)...)
		if r.code != tt.code || r.stdout != "" || !strings.Contains(r.stderr, tt.error) || strings.Contains(r.stderr, `"ok"`) {
			t.Errorf("%s in text: exit %d, stdout %q, stderr %q; want exit %d and the plain error on stderr alone", what, r.code, r.stdout, r.stderr, tt.code)
		}
	}

	// Criterion 6: --help at a terminal prints the help (stdout and stderr
	// are one screen there: a person's help is on stdout); with
	// stdin a pipe holding a request (an agent's call) it answers as it
	// does for any command — the help on stderr, the stub envelope on
	// stdout — and serves nothing; --schema answers on stdout.
	for _, server := range []string{"mcp", "rpc"} {
		if screen, code := sb.pty(t, nil, server, "--help").Wait(t); code != 0 || !strings.Contains(screen, "USAGE") || strings.Contains(screen, `"ok"`) {
			t.Errorf("%s --help at a terminal: exit %d, screen %q; want the help, exit 0", server, code, screen)
		}
		cmd := sb.command(sb.dir, agent, server, "--help")
		cmd.Stdin = strings.NewReader(mcpInitialize + "\n" + `{"jsonrpc":"2.0","id":1,"method":"greet"}` + "\n")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		r := wait(t, cmd, &stdout, &stderr)
		env := expect(t, server+" --help, stdin a request", r, 0)
		want(t, server+" --help, stdin a request", env, map[string]any{"meta.help": true})
		if strings.Contains(r.stdout, "jsonrpc") || !strings.Contains(r.stderr, "USAGE") {
			t.Errorf("%s --help, stdin a request: stdout %q, stderr %q; want the help on stderr and nothing served", server, r.stdout, r.stderr)
		}
		if doc := sb.schemaOf(t, server); get(doc, "protocol") == nil {
			t.Errorf("%s --schema: no protocol in %v", server, doc)
		}
	}

	// Criteria 7 to 10 on mcp: the MCP handshake, an unknown method, then
	// stdin closed, or SIGTERM.
	for _, end := range []string{"stdin closed", "SIGTERM"} {
		s := startServer(t, sb, agent, "mcp")
		s.send(mcpInitialize)
		first := s.receive()
		if get(first, "id") != 1.0 || get(first, "result.serverInfo.name") != "e2eapp" {
			t.Errorf("mcp: the first stdout line is %v, not the answer to initialize", first)
		}
		s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		s.send(`{"jsonrpc":"2.0","id":2,"method":"no/such"}`)
		if got := s.receive(); get(got, "id") != 2.0 || get(got, "error.code") != -32601.0 {
			t.Errorf("mcp: an unknown method is answered %v, want a JSON-RPC error", got)
		}
		s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
		if got := s.receive(); get(got, "id") != 3.0 || len(asSlice(get(got, "result.tools"))) == 0 {
			t.Errorf("mcp: tools/list after the error is answered %v", got)
		}
		s.end(t, end)
	}

	// Criteria 7 to 11 on rpc: what the app's own action writes to the
	// process's stdout reaches the client at once, idle past the declared
	// timeout it still answers.
	for _, end := range []string{"stdin closed", "SIGTERM"} {
		s := startServer(t, sb, agent, "rpc")
		s.send(`{"jsonrpc":"2.0","id":1,"method":"greet"}`)
		if got := s.receive(); get(got, "id") != 1.0 || get(got, "result") != "hello" {
			t.Errorf("rpc: the first stdout line is %v, not the answer to greet", got)
		}
		s.send(`{"jsonrpc":"2.0", oops`)
		if got := s.receive(); get(got, "error.code") != -32700.0 {
			t.Errorf("rpc: a line that is no JSON is answered %v, want a parse error", got)
		}
		time.Sleep(1500 * time.Millisecond) // idle past rpc's declared timeout of 1s
		s.send(`{"jsonrpc":"2.0","id":2,"method":"echo","params":["still here"]}`)
		if got := s.receive(); get(got, "id") != 2.0 || get(got, "result") == nil {
			t.Errorf("rpc: after idling past its timeout, echo is answered %v", got)
		}
		s.end(t, end)
	}

	// Criterion 13: a command without stdout "protocol" answers as before.
	expect(t, "quote --bogus", sb.runEnv(t, agent, "quote", "--bogus"), 2)
}

// mcpInitialize is an MCP client's first request.
const mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`

// server is a protocol server running under a test, its stdin and stdout
// on pipes: every stdout line must be a JSON-RPC 2.0 message.
type server struct {
	t      *testing.T
	name   string
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan string
	stderr bytes.Buffer
}

func startServer(t *testing.T, sb *sandbox, env []string, args ...string) *server {
	t.Helper()
	s := &server{t: t, name: strings.Join(args, " "), cmd: sb.command(sb.dir, env, args...), lines: make(chan string)}
	var err error
	if s.in, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.cmd.Stderr = &s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cmd.Process.Kill() })
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
	}()
	return s
}

func (s *server) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("%s: writing a request: %v", s.name, err)
	}
}

// receive returns the next stdout line, which must be a JSON-RPC message.
func (s *server) receive() map[string]any {
	s.t.Helper()
	select {
	case line, ok := <-s.lines:
		var msg map[string]any
		if !ok || json.Unmarshal([]byte(line), &msg) != nil || msg["jsonrpc"] != "2.0" {
			s.t.Fatalf("%s: stdout line %q (open: %v) is no protocol message\nstderr: %s", s.name, line, ok, s.stderr.String())
		}
		return msg
	case <-time.After(time.Minute): // a bound on a hang
		s.t.Fatalf("%s: no answer within a minute", s.name)
	}
	return nil
}

// end ends the session by closing stdin or with SIGTERM, and checks how the
// server exits: 0 and no envelope, or 143 and the CANCELLED envelope the
// last line of stderr; stdout has nothing more.
func (s *server) end(t *testing.T, how string) {
	t.Helper()
	if how == "SIGTERM" {
		s.cmd.Process.Signal(syscall.SIGTERM)
	} else {
		s.in.Close()
	}
	for line := range s.lines {
		t.Errorf("%s, %s: stdout has more: %q", s.name, how, line)
	}
	r := func() result {
		done := make(chan error, 1)
		go func() { done <- s.cmd.Wait() }()
		select {
		case err := <-done:
			return result{stderr: s.stderr.String(), code: exitCode(err)}
		case <-time.After(time.Minute):
			t.Fatalf("%s, %s: still running after a minute", s.name, how)
		}
		return result{}
	}()
	if how == "SIGTERM" {
		env := lastLineEnvelope(t, s.name+" ended by SIGTERM", r, 143)
		want(t, s.name+" ended by SIGTERM", env, map[string]any{"error.code": "CANCELLED"})
		return
	}
	if r.code != 0 || strings.Contains(r.stderr, `"ok"`) {
		t.Errorf("%s, stdin closed: exit %d, stderr %q; want 0 and no envelope", s.name, r.code, r.stderr)
	}
}
