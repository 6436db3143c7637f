//go:build linux

package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/internal/e2eapp/app"
	"github.com/duet-cli/duet/schema"
	"github.com/duet-cli/duet/schema/validator"
)

// TestBinaryOutput shows REQ-O-001's binary results on `render --png`,
// whose result is a single binary value (envelope.Binary, image/png).
func TestBinaryOutput(t *testing.T) {
	t.Run("--output writes the raw bytes", func(t *testing.T) {
		// Criterion: `download --output report.xml --format json` writes the
		// raw bytes; data.bytes equals the file size and data.sha256 the
		// file's digest.
		sb := newSandbox(t)
		env := expect(t, "render --output out.png", sb.run(t, "render", "--png", "--output", "out.png", "--format", "json"), 0)
		file, err := os.ReadFile(sb.path("out.png"))
		if err != nil {
			t.Fatalf("no file: %v", err)
		}
		if !bytes.Equal(file, app.RenderPNG) {
			t.Errorf("out.png = %q, want the raw bytes %q", file, app.RenderPNG)
		}
		sum := sha256.Sum256(file)
		want(t, "render --output out.png", env, map[string]any{
			"data.path":         sb.path("out.png"),
			"data.bytes":        float64(len(file)),
			"data.sha256":       hex.EncodeToString(sum[:]),
			"data.content_type": "image/png",
		})
		if got := keys(env["data"].(map[string]any)); len(got) != 4 {
			t.Errorf("data keys = %v, want path, bytes, content_type, sha256", got)
		}
	})
	t.Run("--output - is refused", func(t *testing.T) {
		// Criterion: `download --output -` exits 2 and writes nothing to
		// stdout (but the envelope) or to any file.
		sb := newSandbox(t)
		before, _ := os.ReadDir(sb.dir)
		env := expect(t, "render --output -", sb.run(t, "render", "--png", "--output", "-"), 2)
		want(t, "render --output -", env, map[string]any{"error.code": "OUTPUT_IS_A_PATH", "data": nil})
		if after, _ := os.ReadDir(sb.dir); len(after) != len(before) || exists(sb.path("-")) {
			t.Errorf("the sandbox holds %v after, %v before", after, before)
		}
	})
	t.Run("without --output the payload is base64", func(t *testing.T) {
		// Criterion: `download` without --output returns the payload as
		// REQ-F-017 encodes it.
		sb := newSandbox(t)
		env := expect(t, "render", sb.run(t, "render", "--png"), 0)
		want(t, "render", env, map[string]any{
			"data.type":         "binary",
			"data.encoding":     "base64",
			"data.value":        base64.StdEncoding.EncodeToString(app.RenderPNG),
			"data.size_bytes":   float64(len(app.RenderPNG)),
			"data.content_type": "image/png",
		})
	})
	t.Run("a failed run leaves no file", func(t *testing.T) {
		sb := newSandbox(t)
		env := expect(t, "render --fail --output out.png", sb.run(t, "render", "--fail", "--output", "out.png"), 1)
		want(t, "render --fail --output out.png", env, map[string]any{"error.code": "RENDER_FAILED", "data": nil})
		if exists(sb.path("out.png")) {
			t.Error("a failed run left out.png")
		}
		if matches, _ := filepath.Glob(sb.path(".out.png.*")); len(matches) != 0 {
			t.Errorf("a failed run left %v", matches)
		}
	})
	t.Run("the manifest says output_file binary", func(t *testing.T) {
		// Criterion: output_file is "binary" when the result is binary,
		// "formatted" otherwise.
		commands, _ := newSandbox(t).manifest(t)["commands"].(map[string]any)
		want(t, "manifest", commands, map[string]any{"render.output_file": "binary", "repos.output_file": "formatted"})
	})
}

// TestF074NullAbsentEmpty: REQ-F-074 on `machines`, whose Go code leaves a
// machine's tags, labels and disks nil when it has none (as Go code does)
// and its owner a nil pointer when nobody owns it.
//
//   - [] and {} for empty collections, never null or absent: in the JSON
//     envelope and on every line of the jsonl stream, nested ones (a
//     disk's partitions) included.
//   - null, not "", for the unset owner; its key is present.
//   - The output schema (--schema) marks each field: required and never
//     null (the collections), nullable (owner), and the data validates
//     against it.
//   - Two calls under the same conditions give the same keys, and so do
//     the two machines, the one with everything and the one with nothing.
func TestF074NullAbsentEmpty(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	first := expect(t, "machines", sb.run(t, "machines", "--format", "json"), 0)
	second := expect(t, "machines again", sb.run(t, "machines", "--format", "json"), 0)
	items, _ := first["data"].([]any)
	if len(items) != 2 {
		t.Fatalf("machines: data %v, want two machines", first["data"])
	}
	want(t, "the machine with nothing", map[string]any{"m": items[1]}, map[string]any{
		"m.name": "db", "m.tags": []any{}, "m.labels": map[string]any{}, "m.disks": []any{}, "m.owner": nil,
	})
	if _, ok := items[1].(map[string]any)["owner"]; !ok {
		t.Errorf("the unowned machine has no owner key (want null): %v", items[1])
	}
	want(t, "the machine with everything", map[string]any{"m": items[0]}, map[string]any{
		"m.owner": "ops", "m.disks.1.partitions": []any{},
	})
	if diff := cmp.Diff(keyPaths(first["data"], ""), keyPaths(second["data"], "")); diff != "" {
		t.Errorf("two calls give different keys (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(keys(items[0].(map[string]any)), keys(items[1].(map[string]any))); diff != "" {
		t.Errorf("the two machines have different keys (-web +db):\n%s", diff)
	}

	// The stream says the same, line by line.
	lines, _ := sb.streamLines(t, nil, "machines", "--format", "jsonl")
	if len(lines) != 3 {
		t.Fatalf("machines --format jsonl: %d lines, want two items and the summary", len(lines))
	}
	for i, line := range lines[:2] {
		delete(line, "_seq")
		if diff := cmp.Diff(items[i], any(line)); diff != "" {
			t.Errorf("jsonl line %d differs from the envelope's item (-envelope +line):\n%s", i+1, diff)
		}
	}

	// The schema marks each field, and the data is what it says.
	out, _ := sb.schemaOf(t, "machines")["output_schema"].(map[string]any)
	item, _ := out["items"].(map[string]any)
	props, _ := item["properties"].(map[string]any)
	required, _ := item["required"].([]any)
	for field, nullable := range map[string]bool{"name": false, "tags": false, "labels": false, "disks": false, "owner": true} {
		if !slices.Contains(required, any(field)) {
			t.Errorf("output_schema does not mark %s required: %v", field, required)
		}
		typ := get(props, field+".type")
		list, _ := typ.([]any)
		if got := slices.Contains(list, any("null")); got != nullable {
			t.Errorf("output_schema types %s as %v: nullable %v, want %v", field, typ, got, nullable)
		}
	}
	c, err := validator.Compile(schema.Schema(out))
	if err != nil {
		t.Fatalf("compile the output schema: %v", err)
	}
	raw, _ := json.Marshal(first["data"])
	if err := c.Validate(raw); err != nil {
		t.Errorf("machines' data does not validate against its output schema: %v\n%s", err, raw)
	}
}

// keyPaths lists every object key in v by its path, arrays included.
func keyPaths(v any, at string) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for _, k := range keys(v) {
			out = append(out, at+"."+k)
			out = append(out, keyPaths(v[k], at+"."+k)...)
		}
	case []any:
		for i, e := range v {
			out = append(out, keyPaths(e, fmt.Sprintf("%s.%d", at, i))...)
		}
	}
	return out
}
