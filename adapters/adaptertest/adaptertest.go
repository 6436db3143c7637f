// Package adaptertest runs a wrapped app in-process the way an agent would —
// stdout a pipe, stdin empty, a controlled environment — and checks what it
// answered against the contract and against the command's declared output
// schema. It is to Duet apps what net/http/httptest is to handlers.
//
//	app, _ := urfave.Wrap(newApp())
//	res := adaptertest.Run(t, app, []string{"list", "--status", "all"})
//	res.AssertOK(t)
//	res.AssertOutputSchema(t)
//
// TestFramework is to adapters what slogtest is to slog handlers: the one
// suite every adapter passes. An adapter's test builds the suite's app in
// its framework, and the suite checks parsing, each audience's answer,
// errors, help, describe and signals:
//
//	func TestFramework(t *testing.T) { adaptertest.TestFramework(t, build) }
package adaptertest

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/jsontest"
	"github.com/duet-cli/duet/schema"
	"github.com/duet-cli/duet/schema/validator"
)

// Result is what one invocation produced.
type Result struct {
	Code     int
	Stdout   []byte
	Stderr   []byte
	Envelope envelope.Envelope // decoded from Stdout when it holds one envelope
	tree     *schema.Command
}

// Run runs one invocation of fw with args in agent mode: no terminal, empty
// stdin, an environment holding only env (KEY=value). It fails the test when
// stdout is not exactly one envelope with the five keys, whose meta opens
// with the exit code the process ended with.
func Run(t testing.TB, fw adapters.Framework, args []string, env ...string) *Result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := adapters.Run(context.Background(), fw, args,
		adapters.WithStdio(strings.NewReader(""), &stdout, &stderr),
		adapters.WithEnv(env),
		adapters.WithTerminal(adapters.Piped),
		adapters.WithSpecStrict(), // a pipe is an agent
		adapters.WithRequestID(func() string { return "test" }))
	r := &Result{Code: code, Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), tree: fw.Tree()}
	r.decode(t)
	return r
}

func (r *Result) decode(t testing.TB) {
	t.Helper()
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(jsontest.One(t, r.Stdout), &keys); err != nil {
		t.Fatalf("stdout is not one JSON envelope: %v\nstdout: %s\nstderr: %s", err, r.Stdout, r.Stderr)
	}
	for _, k := range []string{"ok", "data", "error", "warnings", "meta"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("envelope has no %q key: %s", k, r.Stdout)
		}
	}
	if len(keys) != 5 {
		t.Errorf("envelope has %d top-level keys, want exactly 5: %s", len(keys), r.Stdout)
	}
	if err := json.Unmarshal(r.Stdout, &r.Envelope); err != nil {
		t.Fatalf("decode envelope: %v", err)
	}
	if r.Envelope.OK != (r.Code == 0) {
		t.Errorf("ok is %v but the exit code is %d", r.Envelope.OK, r.Code)
	}
	if first := firstKey(keys["meta"]); first != "exit_code" || r.Envelope.Meta.ExitCode != r.Code {
		t.Errorf("meta opens with %q, exit_code %d, but the exit code is %d; want exit_code first, the same: %s", first, r.Envelope.Meta.ExitCode, r.Code, r.Stdout)
	}
	r.checkEffect(t)
}

// firstKey is the first key of the JSON object obj, or "" when it is not an
// object or has none.
func firstKey(obj json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	if tok, err := dec.Token(); err == nil {
		if key, ok := tok.(string); ok {
			return key
		}
	}
	return ""
}

// AssertOK fails the test unless the invocation succeeded.
func (r *Result) AssertOK(t testing.TB) {
	t.Helper()
	if r.Code != 0 {
		t.Fatalf("exit %d, want 0: %s", r.Code, r.Stdout)
	}
}

// AssertError fails the test unless the invocation failed with exit code and
// error code.
func (r *Result) AssertError(t testing.TB, exit int, code string) {
	t.Helper()
	if r.Code != exit || r.Envelope.Error == nil || r.Envelope.Error.Code != code {
		t.Fatalf("got exit %d, want %d with error.code %s: %s", r.Code, exit, code, r.Stdout)
	}
}

// AssertDeclarations builds every output schema fw's commands declare and
// compiles it with jsonschema/v6 — work Wrap leaves out of start-up: a
// schema.Of is built on first use, and Wrap checks hand-written schemas only
// structurally. It fails the test for each that does not build or compile.
func AssertDeclarations(t testing.TB, fw adapters.Framework) {
	t.Helper()
	fw.Tree().Walk(func(c *schema.Command) {
		if c.Meta.Output == nil {
			return
		}
		if _, err := validator.Compile(c.Meta.Output); err != nil {
			t.Errorf("%q: output schema: %v", c.DotPath(), err)
		}
	})
}

// AssertOutputSchema fails the test when data does not match the output
// schema the command declared, listing every violation. A command that
// declared none fails too: there is nothing to hold its output to.
func (r *Result) AssertOutputSchema(t testing.TB) {
	t.Helper()
	cmd := r.tree.Find(r.Envelope.Meta.Command)
	if cmd == nil {
		t.Fatalf("meta.command %q is not in the tree", r.Envelope.Meta.Command)
	}
	if cmd.Meta.Output == nil {
		t.Fatalf("%q declares no output schema", cmd.DotPath())
	}
	declared, err := cmd.OutputSchema() // with what the framework adds to it
	if err != nil {
		t.Fatalf("%q: %v", cmd.DotPath(), err)
	}
	compiled, err := validator.Compile(declared)
	if err != nil {
		t.Fatalf("%q: %v", cmd.DotPath(), err)
	}
	if err := compiled.Validate(r.Envelope.Data); err != nil {
		t.Errorf("%q: data does not match its declared output schema: %v", cmd.DotPath(), err)
	}
}

// Undeclared returns the dot paths of fw's commands still to port: the
// runnable commands of the app that declare nothing to Duet (see the
// adapter's Annotate) or no danger level. An app adopting Duet starts with
// every command here; a test can hold the list to what is left to port, or
// to nothing:
//
//	if left := adaptertest.Undeclared(app); len(left) > 0 {
//		t.Errorf("commands not yet declared: %v", left)
//	}
func Undeclared(fw adapters.Framework) []string {
	var left []string
	fw.Tree().Walk(func(c *schema.Command) {
		if c.Runnable && !c.Builtin && !c.Passthrough && (!c.Declared || c.Danger() == schema.Unknown) {
			left = append(left, c.DotPath())
		}
	})
	return left
}
