package conformance

import (
	"io"
	"regexp"
)

// terminalQuery is a question a program asks its terminal, expecting the
// answer on its input: device attributes (primary and secondary), the
// cursor position, the terminal's status, its name and version, whether a
// mode is set, the keyboard protocol, the colours of text and background.
// A terminal that never answers leaves such a program waiting (gh waits
// ten seconds).
var terminalQuery = regexp.MustCompile(`\x1b\[(?:0?c|>0?c|6n|5n|>0?q|\?(\d+)\$p|\?u)|\x1b\](1[01]);\?(?:\x07|\x1b\\)`)

// terminal is what a pty's output goes through: it is shown (kept as the
// run's stdout), and the queries in it are answered as a terminal emulator
// would, by typing the answer.
type terminal struct {
	shown    io.Writer
	keyboard io.Writer
	tail     []byte // the end of what was shown, where a query may have begun
}

// maxQuery is longer than any query terminalQuery reads.
const maxQuery = 16

func (t *terminal) Write(b []byte) (int, error) {
	n, err := t.shown.Write(b)
	buf := append(t.tail, b...)
	end := 0
	for _, m := range terminalQuery.FindAllSubmatchIndex(buf, -1) {
		if m[1] <= len(t.tail) {
			continue // answered with the write before
		}
		_, _ = t.keyboard.Write(answer(buf, m))
		end = m[1]
	}
	t.tail = append(t.tail[:0], buf[max(end, len(buf)-maxQuery):]...)
	return n, err
}

// answer is the reply of an xterm-like terminal to the query at m in buf
// (terminalQuery's submatch indices).
func answer(buf []byte, m []int) []byte {
	switch q := string(buf[m[0]:m[1]]); {
	case q == "\x1b[c" || q == "\x1b[0c":
		return []byte("\x1b[?1;2c") // a VT100 with advanced video
	case q == "\x1b[>c" || q == "\x1b[>0c":
		return []byte("\x1b[>0;10;1c")
	case q == "\x1b[6n":
		return []byte("\x1b[1;1R")
	case q == "\x1b[5n":
		return []byte("\x1b[0n") // ready, no malfunction
	case q == "\x1b[>q" || q == "\x1b[>0q":
		return []byte("\x1bP>|duet-check\x1b\\")
	case q == "\x1b[?u":
		return []byte("\x1b[?0u") // no keyboard enhancement
	case m[2] >= 0: // DECRQM: the mode is not recognised
		return []byte("\x1b[?" + string(buf[m[2]:m[3]]) + ";0$y")
	default: // OSC 10 or 11: white text on black
		colour := "rgb:ffff/ffff/ffff"
		if string(buf[m[4]:m[5]]) == "11" {
			colour = "rgb:0000/0000/0000"
		}
		return []byte("\x1b]" + string(buf[m[4]:m[5]]) + ";" + colour + "\x1b\\")
	}
}
