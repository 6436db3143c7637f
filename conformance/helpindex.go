package conformance

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
)

// helpIndex runs a target's --help for command paths, once each, as the
// artifact checks read it: the help a path names, the command a path of
// words names, and all the help read.
type helpIndex struct {
	ctx  context.Context
	t    Target
	help map[string]string // space-joined path -> its help; "" when --help failed
	err  error             // the first run that could not start
}

func newHelpIndex(ctx context.Context, t Target) *helpIndex {
	return &helpIndex{ctx: ctx, t: t, help: map[string]string{}}
}

// of returns path's --help (stdout and stderr), "" when it exits non-zero.
func (h *helpIndex) of(path []string) string {
	key := strings.Join(path, " ")
	if s, ok := h.help[key]; ok {
		return s
	}
	inv := invocationSpec{Path: h.t.Path, Args: append(append(slices.Clone(h.t.Args), path...), "--help")}
	if len(h.t.Env) > 0 {
		inv.Env = append(os.Environ(), h.t.Env...)
	}
	out := runInvocation(h.ctx, inv)
	if out.Err != nil && h.err == nil {
		h.err = fmt.Errorf("conformance: run %s --help: %w", h.t.Path, out.Err)
	}
	s := string(out.Stdout) + "\n" + string(out.Stderr)
	if out.Exit != 0 {
		s = ""
	}
	h.help[key] = s
	return s
}

// resolve finds the command a path of words names: the longest prefix the
// help of its parent lists; the words after it are arguments.
func (h *helpIndex) resolve(path []string) []string {
	var found []string
	for i, w := range path {
		if !helpLists(h.of(path[:i]), w) {
			break
		}
		found = path[:i+1]
	}
	return found
}

// corpus is every help read so far, in one string.
func (h *helpIndex) corpus() string {
	var all strings.Builder
	for _, s := range h.help {
		all.WriteString(s)
	}
	return all.String()
}

// commandPath is the words of a command line after tool that may name a
// command; nil when the line does not run tool.
func commandPath(line, tool string) []string {
	words := strings.Fields(line)
	if len(words) < 2 || words[0] != tool {
		return nil
	}
	var path []string
	for _, w := range words[1:] {
		if !commandWord.MatchString(w) {
			break
		}
		path = append(path, w)
	}
	return path
}
