// Package atomicfile replaces a file's content all at once: a reader sees the
// old content or the new, never a mix, and a crash leaves one or the other.
package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Write replaces path with data and gives it mode perm: data goes to a
// temporary file in the same directory, which is synced and renamed over
// path; the directory is then synced so the rename survives a crash (best
// effort where directories cannot be synced).
func Write(path string, data []byte, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPattern(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // once renamed, there is nothing to remove
	if err := write(tmp, data, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// tempPattern is os.CreateTemp's pattern for Write's temporary file for
// path: .<name>.<digits>.tmp, beside it.
func tempPattern(path string) string { return "." + filepath.Base(path) + ".*" + tempSuffix }

const tempSuffix = ".tmp"

// TempOf reports whether name, a file's base name, is that of a temporary
// file Write made for a file named target: what a process killed during
// the write leaves beside it. The part before .tmp is os.CreateTemp's
// digits, so a .draft.md.tmp of someone else's is none.
func TempOf(name string) (target string, ok bool) {
	rest, ok := strings.CutSuffix(name, tempSuffix)
	if !ok || !strings.HasPrefix(rest, ".") {
		return "", false
	}
	i := strings.LastIndexByte(rest, '.')
	if i <= 1 || i == len(rest)-1 || strings.Trim(rest[i+1:], "0123456789") != "" {
		return "", false
	}
	return rest[1:i], true
}

func write(f *os.File, data []byte, perm fs.FileMode) error {
	err := f.Chmod(perm)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
