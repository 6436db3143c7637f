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
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*"+tempSuffix)
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

// tempSuffix ends the name of Write's temporary file: .<name>.<n>.tmp.
const tempSuffix = ".tmp"

// TempOf reports whether name, a file's base name, is that of a temporary
// file Write made for a file named target: what a process killed during
// the write leaves beside it.
func TempOf(name string) (target string, ok bool) {
	rest, ok := strings.CutSuffix(name, tempSuffix)
	if !ok || !strings.HasPrefix(rest, ".") {
		return "", false
	}
	i := strings.LastIndexByte(rest, '.')
	if i <= 1 {
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
