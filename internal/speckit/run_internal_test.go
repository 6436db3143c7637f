package speckit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunRefusesInvalidProfile: the kit's exit 2 comes back as its own
// reason, which Run turns into a test failure.
func TestRunRefusesInvalidProfile(t *testing.T) {
	python := interpreter(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "kit")
	if err := extractKit(root); err != nil {
		t.Fatal(err)
	}
	profile := filepath.Join(dir, "profile.json")
	// a destructive probe must name its dry-run flag
	doc := `{"schema_version": "1.0", "tool": "sh", "command": ["/bin/sh"], "timeout_seconds": 5,
		"probes": [{"name": "rm", "argv": ["-c", "true"], "kind": "destructive"}]}`
	if err := os.WriteFile(profile, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := run(context.Background(), python, root, profile)
	var refused *KitError
	if !errors.As(err, &refused) || refused.Code != "INVALID_PROFILE" || !strings.Contains(refused.Message, "dry_run_flag") {
		t.Fatalf("run = %v, want the kit's INVALID_PROFILE about dry_run_flag", err)
	}
}
