// Package argvfuzz turns a fuzzer's bytes into command lines made of a
// CLI's own words, so that a fuzz target that runs a built binary explores
// its commands and flags rather than noise: a mutated byte is another word.
package argvfuzz

import (
	"fmt"
	"strings"
)

// maxWords bounds a command line: longer ones add nothing but time.
const maxWords = 24

// Argv reads a command line from raw: each byte below 0xe0 is a word of
// words; a byte from 0xe0 takes the next (byte-0xe0) bytes as a word of
// its own, as they are (NUL, which no argv can hold, dropped).
func Argv(raw []byte, words []string) []string {
	var argv []string
	for i := 0; i < len(raw) && len(argv) < maxWords; i++ {
		b := raw[i]
		if b < 0xe0 {
			argv = append(argv, words[int(b)%len(words)])
			continue
		}
		n := min(int(b-0xe0), len(raw)-i-1)
		argv = append(argv, strings.ReplaceAll(string(raw[i+1:i+1+n]), "\x00", ""))
		i += n
	}
	return argv
}

// Seed is the bytes Argv reads as line's words (split at spaces), each a
// literal, for a fuzz target's seed corpus.
func Seed(line string) []byte {
	var raw []byte
	for _, w := range strings.Fields(line) {
		n := min(len(w), 0xff-0xe0)
		raw = append(raw, 0xe0+byte(n))
		raw = append(raw, w[:n]...)
	}
	return raw
}

// Panicked reports whether out shows a Go panic or a goroutine's stack.
func Panicked(out string) bool {
	return strings.Contains(out, "panic:") || strings.Contains(out, "goroutine ") && strings.Contains(out, "[running]")
}

// Fault is what breaks the rules every answer keeps, whatever the command
// line — an exit code of Duet's table (0–14), no panic or stack trace in
// any output — or "" when none does.
func Fault(code int, outs ...string) string {
	if code < 0 || code > 14 {
		return fmt.Sprintf("exit %d, outside the spec's table", code)
	}
	for _, out := range outs {
		if Panicked(out) {
			return "a panic or stack trace:\n" + out
		}
	}
	return ""
}
