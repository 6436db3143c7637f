package runenv_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/duet-cli/duet/runenv"
)

// TestWriteConfig: a configuration write replaces the file all at once —
// a reader running alongside a writer only ever sees a whole old or a
// whole new configuration, never a mix or an empty file — and makes its
// directory; a command that declares no configuration cannot write one
// (C-025).
func TestWriteConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app", "config.json")
	env := runenv.Env{ConfigFile: path}
	a, b := bytes.Repeat([]byte("a"), 1<<20), bytes.Repeat([]byte("b"), 1<<19)
	if err := env.WriteConfig(a); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		for i := range 50 {
			data := a
			if i%2 == 0 {
				data = b
			}
			if err := env.WriteConfig(data); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for reading := true; reading; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			reading = false
		default:
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, a) && !bytes.Equal(got, b) {
			t.Fatalf("a reader saw a partial configuration of %d bytes", len(got))
		}
	}
	if err := (runenv.Env{}).WriteConfig(a); !errors.Is(err, runenv.ErrNoConfigFile) {
		t.Errorf("WriteConfig without a ConfigFile: %v", err)
	}
}
