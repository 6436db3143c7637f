package adapters

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/flagname"
)

// changelog answers `tool changelog [--since V]`: the entries of
// WithChangelog, newest first, as data.entries.
func (inv *invocation) changelog(context.Context) error {
	since := inv.call.last(flagname.Since)
	if since != "" && !isVersion(since) {
		return envelope.Validationf("INVALID_VERSION", "--since %q is not a version such as 1.2.0", since).WithField(flagname.Since)
	}
	entries := []ChangelogEntry{}
	for _, e := range inv.cfg.discovery.changelog {
		if since == "" || compareVersions(e.Version, since) > 0 {
			e.Added, e.Removed, e.Changed = orEmpty(e.Added), orEmpty(e.Removed), orEmpty(e.Changed)
			entries = append(entries, e)
		}
	}
	slices.SortStableFunc(entries, func(a, b ChangelogEntry) int { return compareVersions(b.Version, a.Version) })
	inv.out.RenderText(func(w io.Writer) error {
		if len(entries) == 0 {
			_, err := fmt.Fprintln(w, "No changes recorded.")
			return err
		}
		for _, e := range entries {
			mark := ""
			if e.Breaking {
				mark = " (breaking)"
			}
			fmt.Fprintf(w, "%s  %s%s\n", e.Version, e.Date, mark)
			for _, change := range [...]struct {
				word  string
				items []string
			}{{"added", e.Added}, {"removed", e.Removed}, {"changed", e.Changed}} {
				for _, it := range change.items {
					fmt.Fprintf(w, "  %s %s\n", change.word, it)
				}
			}
		}
		return nil
	})
	return inv.out.Result(map[string]any{"entries": entries})
}

func orEmpty(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// isVersion reports whether s is a version: dot-separated numbers, with an
// optional leading v.
func isVersion(s string) bool {
	s = strings.TrimPrefix(s, "v")
	if s == "" {
		return false
	}
	for _, p := range strings.Split(versionCore(s), ".") {
		if _, err := strconv.Atoi(p); err != nil {
			return false
		}
	}
	return true
}

// versionCore is a version without its pre-release and build suffixes.
func versionCore(s string) string {
	s = strings.TrimPrefix(s, "v")
	if i := strings.IndexAny(s, "-+ "); i >= 0 {
		s = s[:i]
	}
	return s
}

// compareVersions compares two versions number by number: 1.10 is after
// 1.9, and 1.2 equals 1.2.0. A version that is not one sorts first.
func compareVersions(a, b string) int {
	pa, pb := strings.Split(versionCore(a), "."), strings.Split(versionCore(b), ".")
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
