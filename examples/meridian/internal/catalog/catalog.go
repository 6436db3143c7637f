// Package catalog says what a Meridian run can use: models (built in, plus
// .meridian/models.toml), agent profiles (.meridian/agents/*.md and
// ~/.meridian/agents/*.md) and skills (.meridian/skills/<name>/SKILL.md and
// ~/.meridian/skills/<name>/SKILL.md).
//
// Everything is read from disk on every call: there is no index to go stale,
// and at dozens of files a scan is instant.
//
// Errors are typed so that a command can map them to exit codes:
//   - [*NameError]: a name given by the user is not a valid name (it could
//     escape its directory, or is empty); a usage error.
//   - [*NotFoundError]: a valid name that names nothing; it carries what is
//     available and, when one is close, a did-you-mean suggestion.
//   - [*FileError]: a file whose content cannot be used (models.toml, or an
//     agent profile's or a skill's front matter); the user has to fix it.
//
// Any other error is I/O trouble, wrapped with %w.
package catalog

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/duet-cli/duet/examples/meridian/internal/fileerror"
	"github.com/duet-cli/duet/internal/suggest"
)

// Scopes of agent profiles and skills. On a name clash the project's wins.
const (
	ScopeProject = "project"
	ScopeUser    = "user"
)

// SourceBuiltin is the [Model.Source] of a model that comes with Meridian.
const SourceBuiltin = "built-in"

// Dirs are the two .meridian directories agent profiles and skills are read
// from. Either may be "" (not searched) or missing on disk (nothing there).
type Dirs struct {
	// Project is the project's .meridian directory.
	Project string
	// User is the user's ~/.meridian directory (see [UserDir]).
	User string
}

// scopes returns the directories to search, project first. A user directory
// that is the project directory (Meridian run from $HOME) is searched once.
func (d Dirs) scopes() []scope {
	var out []scope
	if d.Project != "" {
		out = append(out, scope{ScopeProject, d.Project})
	}
	if d.User != "" && (d.Project == "" || filepath.Clean(d.User) != filepath.Clean(d.Project)) {
		out = append(out, scope{ScopeUser, d.User})
	}
	return out
}

type scope struct{ name, dir string }

// NameError is a name given by the user that is not a valid name of its
// kind. It is a usage error: the caller should exit 2.
type NameError struct {
	// Kind is "agent", "skill" or "model".
	Kind string
	// Name is the name as given.
	Name string
	// Reason says what is wrong with it.
	Reason string
}

func (e *NameError) Error() string {
	return fmt.Sprintf("invalid %s name %q: %s", e.Kind, e.Name, e.Reason)
}

// NotFoundError is a valid name that names nothing of its kind.
type NotFoundError struct {
	// Kind is "agent", "skill" or "model".
	Kind string
	// Name is the name looked up.
	Name string
	// Available lists what the name could have been: agent or skill names
	// sorted, or model ids and aliases in catalog order.
	Available []string
	// Suggestion is the available name closest to Name, or "" when none is
	// close enough to be a likely typo.
	Suggestion string
}

func (e *NotFoundError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown %s %q", e.Kind, e.Name)
	if e.Suggestion != "" {
		fmt.Fprintf(&b, "; did you mean %q?", e.Suggestion)
	}
	if len(e.Available) == 0 {
		fmt.Fprintf(&b, " (there are no %ss)", e.Kind)
	} else {
		fmt.Fprintf(&b, " (available: %s)", strings.Join(e.Available, ", "))
	}
	return b.String()
}

func notFound(kind, name string, available []string) *NotFoundError {
	return &NotFoundError{Kind: kind, Name: name, Available: available, Suggestion: closestName(name, available)}
}

// FileError is a catalog file whose content cannot be used: models.toml
// that is not valid TOML or holds an unknown key or a bad value, or an agent
// profile or skill whose front matter is broken.
type FileError = fileerror.Error

// Problem is a file in a search directory that could not be used: a broken
// profile or skill, a file whose name is not a valid name, a duplicate name
// or an unreadable directory. Listings report problems instead of skipping
// them silently, so that a user can see why an agent is missing.
type Problem struct {
	// Kind is "agent" or "skill".
	Kind string
	// Path is the file or directory at fault.
	Path string
	// Scope is [ScopeProject] or [ScopeUser].
	Scope string
	// Err says what is wrong; often a [*FileError].
	Err error
}

// MarshalJSON writes the problem with its error as a string.
func (p Problem) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Kind  string `json:"kind"`
		Path  string `json:"path"`
		Scope string `json:"scope"`
		Error string `json:"error"`
	}{p.Kind, p.Path, p.Scope, p.Err.Error()})
}

// maxNameLen bounds names so that a file name built from one stays well
// under any file system's limit.
const maxNameLen = 128

// CheckName returns a [*NameError] unless name is a valid agent or skill
// name: one path element made of letters, digits, '-', '_' and '.',
// starting with a letter or a digit, at most 128 bytes. So a valid name can
// be joined to a directory without escaping it ("../x", "a/b", "/etc",
// ".", ".." are all invalid), does not name a hidden file, and cannot be
// mistaken for a flag. kind ("agent", "skill") is used in the message.
func CheckName(kind, name string) error {
	bad := func(reason string) error { return &NameError{Kind: kind, Name: name, Reason: reason} }
	switch {
	case name == "":
		return bad("it is empty")
	case strings.IndexByte(name, 0) >= 0:
		return bad("it contains a NUL byte")
	case name == "." || name == "..":
		return bad("it is a relative directory, not a name")
	case strings.ContainsAny(name, `/\`):
		return bad("it contains a path separator")
	case !utf8.ValidString(name):
		return bad("it is not valid UTF-8")
	case len(name) > maxNameLen:
		return bad(fmt.Sprintf("it is longer than %d bytes", maxNameLen))
	}
	for i, r := range name {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			continue
		}
		if i == 0 {
			return bad("it must start with a letter or a digit")
		}
		if r != '-' && r != '_' && r != '.' {
			return bad(fmt.Sprintf("it contains %q; use letters, digits, '-', '_' and '.'", r))
		}
	}
	return nil
}

// closestName returns the candidate closest to name by edit distance (ignoring
// case), if it is close enough to be a typo: at most a third of the name's
// length, and at least one edit allowed. Ties go to the earlier candidate.
func closestName(name string, candidates []string) string {
	limit := max(1, utf8.RuneCountInString(name)/3)
	best, bestDist := "", limit+1
	for _, c := range candidates {
		if d := suggest.Distance(strings.ToLower(name), strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}
