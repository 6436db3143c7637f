//go:build unix

package e2e

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
