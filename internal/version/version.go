// Package version reads and orders the version numbers tools print:
// dot-separated numbers, with an optional leading v and a pre-release or
// build suffix that ordering ignores.
package version

import (
	"strconv"
	"strings"
)

// Valid reports whether s is a version: dot-separated numbers, with an
// optional leading v.
func Valid(s string) bool {
	s = strings.TrimPrefix(s, "v")
	if s == "" {
		return false
	}
	for _, p := range strings.Split(core(s), ".") {
		if _, err := strconv.Atoi(p); err != nil {
			return false
		}
	}
	return true
}

// core is a version without its pre-release and build suffixes.
func core(s string) string {
	s = strings.TrimPrefix(s, "v")
	if i := strings.IndexAny(s, "-+ "); i >= 0 {
		s = s[:i]
	}
	return s
}

// Compare compares two versions number by number: 1.10 is after 1.9, and
// 1.2 equals 1.2.0. A version that is not one sorts first.
func Compare(a, b string) int {
	pa, pb := strings.Split(core(a), "."), strings.Split(core(b), ".")
	for i := range max(len(pa), len(pb)) {
		x, y := 0, 0
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}
