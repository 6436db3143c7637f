// Package safefile reads a file a user named — a configuration file, a
// profiles file — as a file and nothing else: a FIFO, a device or a socket
// in its place is refused at once instead of blocking the open or the read
// for good (a FIFO with no writer) or filling memory (/dev/zero), and a
// file larger than the caller allows is refused before it is read whole.
package safefile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// NotRegularError is the error for a path that names no regular file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is not a regular file but %s", e.Path, kind(e.Mode))
}

// TooLargeError is the error for a file larger than the caller allows.
type TooLargeError struct {
	Path string
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %d bytes", e.Path, e.Max)
}

// ReadFile reads the regular file at path, at most max bytes. It opens
// without blocking (O_NONBLOCK), so a FIFO cannot hold the open, and checks
// what it opened, so a path swapped after a check cannot either. A missing
// file is fs.ErrNotExist, as os.ReadFile reports it.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	if fi.Size() > max {
		return nil, &TooLargeError{Path: path, Max: max}
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max { // it grew since Stat
		return nil, &TooLargeError{Path: path, Max: max}
	}
	return data, nil
}

// Check reports, without reading it, what keeps path from being read by
// ReadFile: not there, not a regular file, or larger than max.
func Check(path string, max int64) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return &NotRegularError{Path: path, Mode: fi.Mode()}
	case fi.Size() > max:
		return &TooLargeError{Path: path, Max: max}
	}
	return nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}
