package configedit

import (
	"fmt"
	"strings"
)

// Diff shows the edit from old to new of the file at path as a unified
// diff, as `diff -u` names the files (patch -p0 applies it): one hunk, for
// the edits of this package change one run of lines, with up to three
// lines of context. It is empty when nothing changed.
func Diff(path string, old, new []byte) string {
	if string(old) == string(new) {
		return ""
	}
	a, b := lines(old), lines(new)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	const context = 3
	from, aTo, bTo := max(0, pre-context), len(a)-max(0, suf-context), len(b)-max(0, suf-context)
	var d strings.Builder
	fromName, toName := path, path
	if len(old) == 0 {
		fromName = "/dev/null"
	}
	if len(new) == 0 {
		toName = "/dev/null"
	}
	fmt.Fprintf(&d, "--- %s\n+++ %s\n@@ -%s +%s @@\n", fromName, toName, hunkRange(from, aTo-from), hunkRange(from, bTo-from))
	for i := from; i < pre; i++ {
		d.WriteString(" " + a[i])
	}
	for i := pre; i < len(a)-suf; i++ {
		d.WriteString("-" + a[i])
	}
	for i := pre; i < len(b)-suf; i++ {
		d.WriteString("+" + b[i])
	}
	for i := len(a) - suf; i < aTo; i++ {
		d.WriteString(" " + a[i])
	}
	return d.String()
}

// lines splits s into lines that each end in a newline; a last line
// without one is marked as diff marks it.
func lines(s []byte) []string {
	if len(s) == 0 {
		return nil
	}
	ls := strings.SplitAfter(string(s), "\n")
	if ls[len(ls)-1] == "" {
		return ls[:len(ls)-1]
	}
	ls[len(ls)-1] += "\n\\ No newline at end of file\n"
	return ls
}

// hunkRange writes a hunk's start line and length as diff does: lines
// count from 1, and an empty range names the line before it.
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
