// Package toontest holds TOON output to the reference implementation,
// @toon-format/toon on Node.js: tests decode what they wrote with it, as
// an agent's TOON library would. Tests skip, saying why, where Node.js or
// the package is missing; .ci/run installs the package and sets
// DUET_TOON_NODE_PREFIX.
package toontest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Node returns the node program and the directory whose node_modules holds
// @toon-format/toon ($DUET_TOON_NODE_PREFIX), with the reference's version;
// it skips the test when either is missing.
func Node(t testing.TB) (node, prefix, version string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH; the TOON reference implementation needs Node.js 20+")
	}
	prefix = os.Getenv("DUET_TOON_NODE_PREFIX")
	if prefix == "" {
		t.Skip("DUET_TOON_NODE_PREFIX is not set: run `npm install --prefix DIR @toon-format/toon` and point it at DIR (.ci/run does)")
	}
	pkg, err := os.ReadFile(filepath.Join(prefix, "node_modules", "@toon-format", "toon", "package.json"))
	if err != nil {
		t.Skipf("no TOON reference implementation in %s: %v", prefix, err)
	}
	var meta struct{ Version string }
	if err := json.Unmarshal(pkg, &meta); err != nil {
		t.Fatalf("%s: %v", prefix, err)
	}
	return node, prefix, meta.Version
}

// Run runs script, an ES module that may import '@toon-format/toon', in one
// node process with in as JSON on stdin, and decodes its stdout into out.
func Run(t testing.TB, script string, in, out any) {
	t.Helper()
	node, prefix, _ := Node(t)
	stdin, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	// --input-type=module with -e resolves the import from the directory.
	//duetvet:allow rawexec -- a test helper running the reference implementation
	cmd := exec.CommandContext(t.Context(), node, "--input-type=module", "-e", script)
	cmd.Dir = prefix
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("node output: %v\n%.500s", err, stdout)
	}
}

const decodeScript = `
import { decode } from '@toon-format/toon'
const chunks = []
for await (const chunk of process.stdin) chunks.push(chunk)
const docs = JSON.parse(Buffer.concat(chunks).toString('utf8'))
process.stdout.write(JSON.stringify(docs.map(d => {
  try { return { value: decode(d) } } catch (e) { return { error: String(e) } }
})))
`

// Decode decodes each TOON document with the reference decoder (strict
// mode) and returns its JSON; a document it rejects fails the test.
func Decode(t testing.TB, docs ...string) []json.RawMessage {
	t.Helper()
	var results []struct {
		Value json.RawMessage `json:"value"`
		Error string          `json:"error"`
	}
	Run(t, decodeScript, docs, &results)
	out := make([]json.RawMessage, len(docs))
	for i, r := range results {
		if r.Error != "" {
			t.Fatalf("the reference decoder rejects document %d: %s\n%s", i, r.Error, docs[i])
		}
		out[i] = r.Value
	}
	return out
}
