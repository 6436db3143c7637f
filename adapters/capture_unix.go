//go:build unix

package adapters

import (
	"errors"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// drainGrace is how long the capture waits, once the command has returned,
// for a child it started that still holds stdout open.
const drainGrace = 100 * time.Millisecond

// captureProcess points the process's file descriptor 1 at a pipe that the
// capture drains, and answers on a copy of the original descriptor.
func captureProcess(limit int) (*capture, error) {
	saved, err := unix.Dup(1)
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(saved) // the command's children inherit the pipe, not the real stdout
	r, w, err := os.Pipe()
	if err != nil {
		unix.Close(saved)
		return nil, err
	}
	if err := unix.Dup2(int(w.Fd()), 1); err != nil {
		unix.Close(saved)
		r.Close()
		w.Close()
		return nil, err
	}
	w.Close() // descriptor 1 is the pipe's write end now
	original := os.NewFile(uintptr(saved), "/dev/stdout")
	c := &capture{out: original, limit: limit}
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		io.Copy(c, r) // until every writer has closed the pipe, or the deadline
	}()
	c.end = func() {
		// Descriptor 1 now writes nowhere: whatever the command still
		// prints (a goroutine it left running) stays off the answer.
		if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
			unix.Dup2(int(null.Fd()), 1)
			null.Close()
		}
		if err := r.SetReadDeadline(time.Now().Add(drainGrace)); err != nil && !errors.Is(err, os.ErrNoDeadline) {
			r.Close()
		}
		<-drained
		r.Close()
	}
	c.restore = func() {
		unix.Dup2(saved, 1)
		original.Close()
	}
	return c, nil
}
