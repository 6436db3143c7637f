//go:build unix

package walk

import (
	"io/fs"
	"syscall"
)

// idOf returns the device and inode of what fi describes.
func idOf(fi fs.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, true //nolint:unconvert // the field types differ by platform
}
