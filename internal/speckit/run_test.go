package speckit_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/duet-cli/duet/internal/speckit"
	"github.com/google/go-cmp/cmp"
)

// fakeTool writes a shell script that answers the kit's probes like a
// conforming CLI: an envelope on stdout, help on stderr, exit 2 for "bad",
// and manifest's file as the data of "manifest".
func fakeTool(t *testing.T, manifest string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake tool is a shell script")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `#!/bin/sh
case "$1" in
--help) echo "usage: fake [command]" >&2 ;;
bad) echo '{"ok": false, "data": null, "error": {"code": "ARG_ERROR", "message": "unknown command bad"}, "warnings": [], "meta": {"exit_code": 2, "duration_ms": 0}}'; exit 2 ;;
manifest) printf '{"ok": true, "data": %s, "error": null, "warnings": [], "meta": {"exit_code": 0, "duration_ms": 0}}\n' "$(cat "$(dirname "$0")/manifest.json")" ;;
*) echo '{"ok": true, "data": {"items": []}, "error": null, "warnings": [], "meta": {"exit_code": 0, "duration_ms": 0}}' ;;
esac
`
	path := filepath.Join(dir, "fake")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRun runs the vendored kit end to end on a fake tool, so Python
// loading Duet's schema, the profile and the result all meet once. It
// skips without a Python that can run the kit.
func TestRun(t *testing.T) {
	const manifest3 = `{"schema_version": "3.21", "framework_version": "1.0.0", "etag": "sha256:0",
		"flags": {"format": {"type": "enum", "required": false, "enum_values": ["json", "plain"], "description": "Output representation"}},
		"commands": {"list": {"description": "List things", "danger_level": "safe", "required_scopes": [], "flags": {},
			"exit_codes": {"0": {"name": "SUCCESS", "description": "Listed", "retryable": false, "side_effects": "none"}}}}}`
	const manifest1 = `{"schema_version": "1.0", "framework_version": "1.0.0", "etag": "sha256:0",
		"commands": {"list": {"description": "List things", "danger_level": "safe", "flags": {}, "exit_codes": {}}}}`
	tests := []struct {
		name     string
		manifest string
		want     speckit.Status
		detail   string
	}{
		{"ManifestResponse 3.21", manifest3, speckit.Pass, ""},
		{"a pre-3.0 manifest", manifest1, speckit.Fail, "schema_version: '1.0' does not match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := speckit.Run(t, speckit.Profile{
				Tool:           "fake",
				Command:        []string{fakeTool(t, tt.manifest)},
				TimeoutSeconds: 10,
				Manifest:       []string{"manifest"},
				Probes: []speckit.Probe{
					{Name: "list", Argv: []string{"list"}, Kind: speckit.Read},
					{Name: "bad", Argv: []string{"bad"}, Kind: speckit.Invalid},
				},
			})
			manifest, _ := res.Check("manifest_valid")
			if manifest.Status != tt.want {
				t.Fatalf("manifest_valid %s, want %s; failures:\n%s", manifest.Status, tt.want, res.Failures())
			}
			if tt.detail != "" && !strings.Contains(res.Failures(), tt.detail) {
				t.Errorf("Failures() does not say %q:\n%s", tt.detail, res.Failures())
			}
			// no destructive, argument_order or stream probe: those checks skip
			wantLevels := map[string]string{"level_1": "incomplete", "level_2": "incomplete", "level_3": "incomplete"}
			if tt.want == speckit.Fail {
				wantLevels["level_3"] = "fail"
			}
			if diff := cmp.Diff(wantLevels, res.Levels); diff != "" {
				t.Errorf("levels (-want +got):\n%s\n%s", diff, res.Failures())
			}
		})
	}
}
