//go:build unix

package safefile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/duet-cli/duet/internal/safefile"
)

// TestReadFile: a regular file is read; anything else a user may name in
// its place is refused at once — a FIFO with no writer does not block the
// open, /dev/zero does not fill memory — and a file over the limit is
// refused before it is read.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small, big, fifo := filepath.Join(dir, "small"), filepath.Join(dir, "big"), filepath.Join(dir, "fifo")
	if err := os.WriteFile(small, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, make([]byte, 2048), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	var notRegular *safefile.NotRegularError
	var tooLarge *safefile.TooLargeError
	for _, tt := range []struct {
		path string
		want func(error) bool
	}{
		{small, func(err error) bool { return err == nil }},
		{big, func(err error) bool { return errors.As(err, &tooLarge) }},
		{fifo, func(err error) bool { return errors.As(err, &notRegular) }},
		{"/dev/zero", func(err error) bool { return errors.As(err, &notRegular) }},
		{dir, func(err error) bool { return errors.As(err, &notRegular) }},
		{filepath.Join(dir, "missing"), func(err error) bool { return errors.Is(err, fs.ErrNotExist) }},
	} {
		data, err := safefile.ReadFile(tt.path, 1024)
		if !tt.want(err) {
			t.Errorf("ReadFile(%s): %q, %v", tt.path, data, err)
		}
		if check := safefile.Check(tt.path, 1024); (check == nil) != (err == nil) {
			t.Errorf("Check(%s) = %v, but ReadFile's error is %v", tt.path, check, err)
		}
	}
}
