//go:build unix

package adapters

import (
	"io"

	"golang.org/x/sys/unix"
)

// ttyColumns is the width of the terminal w writes to, 0 when w is not one.
func ttyColumns(w io.Writer) int {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok {
		return 0
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
