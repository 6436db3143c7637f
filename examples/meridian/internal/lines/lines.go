// Package lines splits a stream of JSON lines without ever failing on one:
// a line too long to hand on is counted and skipped, and a last line with no
// newline — a writer that died mid-line — is handed on like any other, for
// its reader to reject.
package lines

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
)

// Each calls fn with each non-empty line of r (without its line ending) that
// is at most max bytes long, and returns how many longer lines it skipped. The
// line passed to fn is only valid until fn returns. A read deadline that
// expires (os.ErrDeadlineExceeded) ends the stream like EOF.
func Each(r io.Reader, max int, fn func([]byte)) (skipped int, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	long := false
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case long:
		case len(line)+len(chunk) > max+2: // room for "\r\n"
			long, line = true, line[:0]
		case len(line) == 0 && !errors.Is(err, bufio.ErrBufferFull):
			line = chunk // whole in the buffer: no copy
		default:
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if long {
			skipped++
		} else if l := bytes.TrimRight(line, "\r\n"); len(l) > 0 {
			fn(l)
		}
		line, long = line[:0:0], false
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, os.ErrDeadlineExceeded) {
				return skipped, nil
			}
			return skipped, err
		}
	}
}
