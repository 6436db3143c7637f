//go:build linux

package e2e

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestE2ETimeoutFixRequired: REQ-C-014 (v1.14): a command whose run length
// depends on its input — watch, safe, with no retryable TIMEOUT entry — that
// runs out of --timeout answers exit 10, TIMEOUT, retryable false (the
// identical rerun times out again), and fix_required naming a larger
// --timeout: twice the one that ran out.
func TestE2ETimeoutFixRequired(t *testing.T) { onEach(t, testTimeoutFixRequired) }

func testTimeoutFixRequired(t *testing.T, bin string) {
	t.Parallel()
	tests := []struct {
		timeout string
		ms      float64
		fix     string
	}{
		{"1500ms", 1500, "Reissue with a larger --timeout, such as --timeout 3s"},
		{"300ms", 300, "Reissue with a larger --timeout, such as --timeout 600ms"},
	}
	for _, tt := range tests {
		t.Run(tt.timeout, func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t, bin)
			r := sb.run(t, "watch", "--timeout", tt.timeout) // watch runs until stopped
			env := expectEnvelope(t, "watch --timeout "+tt.timeout, r, 10)
			want := map[string]any{
				"error.code":         "TIMEOUT",
				"error.retryable":    false,
				"error.fix_required": tt.fix,
				"meta.timeout_ms":    tt.ms,
				"data":               nil,
			}
			if diff := cmp.Diff(want, pick(env, want)); diff != "" {
				t.Errorf("watch --timeout %s (-want +got):\n%s", tt.timeout, diff)
			}
			if e, _ := env["error"].(map[string]any); e["retry_after_ms"] != nil {
				t.Errorf("a TIMEOUT that is not retryable has retry_after_ms %v", e["retry_after_ms"])
			}
		})
	}
}
