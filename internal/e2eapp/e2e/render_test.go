//go:build linux

package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/duet-cli/duet/internal/e2eapp/app"
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
