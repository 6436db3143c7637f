package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// SkillFileName is the file that makes a directory of <dir>/skills a skill.
const SkillFileName = "SKILL.md"

// Skill is a skill: <dir>/skills/<name>/SKILL.md, markdown with optional
// YAML front matter.
//
// The skill's name is its directory's name. Front matter may repeat it in
// name (as the Agent Skills format asks) but not contradict it: a name that
// differs is a [*FileError], not a rename. So a skill is found by one
// path built from a validated name, and a directory listing always shows
// skills by the names they are asked for with.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Tags is never nil.
	Tags []string `json:"tags"`
	// Path is the SKILL.md file.
	Path string `json:"path"`
	// Content is the whole file, front matter included.
	Content string `json:"content"`
	// Body is the markdown after the front matter.
	Body string `json:"body"`
	// Scope is [ScopeProject] or [ScopeUser].
	Scope string `json:"scope"`
}

// Skills returns the skills of both scopes sorted by name, a project skill
// hiding a user skill of the same name, and the problems found on the way.
// A directory without SKILL.md is not a skill and is passed over; a broken
// SKILL.md is a problem and hides the other scope's skill of that name, as
// it does for [Dirs.Skill].
func (d Dirs) Skills() ([]Skill, []Problem) {
	var skills []Skill
	var problems []Problem
	claimed := map[string]bool{}
	for _, sc := range d.scopes() {
		dir := filepath.Join(sc.dir, "skills")
		dirents, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			problems = append(problems, Problem{Kind: "skill", Path: dir, Scope: sc.name,
				Err: fmt.Errorf("read skills: %w", err)})
			continue
		}
		for _, de := range dirents {
			name := de.Name()
			if strings.HasPrefix(name, ".") || claimed[name] {
				continue
			}
			// Stat, not the entry's type: a skill may be a symlink.
			if info, err := os.Stat(filepath.Join(dir, name)); err != nil || !info.IsDir() {
				continue
			}
			path := filepath.Join(dir, name, SkillFileName)
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				continue
			}
			claimed[name] = true
			if err := CheckName("skill", name); err != nil {
				var ne *NameError
				errors.As(err, &ne)
				problems = append(problems, Problem{Kind: "skill", Path: path, Scope: sc.name,
					Err: &FileError{Path: path, Msg: fmt.Sprintf("the directory name is not a valid skill name (%s); rename the directory", ne.Reason)}})
				continue
			}
			s, err := readSkill(path, name, sc.name)
			if err != nil {
				problems = append(problems, Problem{Kind: "skill", Path: path, Scope: sc.name, Err: err})
				continue
			}
			skills = append(skills, s)
		}
	}
	slices.SortFunc(skills, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	return skills, problems
}

// Skill returns the skill called name, the project's before the user's. An
// invalid name is a [*NameError] (no file is opened); an unknown one is a
// [*NotFoundError]; a skill of that name whose front matter is broken is its
// [*FileError], never skipped in favour of the other scope's.
func (d Dirs) Skill(name string) (Skill, error) {
	if err := CheckName("skill", name); err != nil {
		return Skill{}, err
	}
	for _, sc := range d.scopes() {
		// name is valid, so this path stays inside sc.dir/skills.
		path := filepath.Join(sc.dir, "skills", name, SkillFileName)
		s, err := readSkill(path, name, sc.name)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			continue
		}
		return s, err
	}
	skills, _ := d.Skills()
	names := make([]string, len(skills))
	for i, s := range skills {
		names[i] = s.Name
	}
	return Skill{}, notFound("skill", name, names)
}

// readSkill reads the SKILL.md at path of the skill called name.
func readSkill(path, name, scope string) (Skill, error) {
	content, err := os.ReadFile(path)
	if err != nil {
		return Skill{}, fmt.Errorf("read skill: %w", err)
	}
	doc, err := parseDocument(path, content)
	if err != nil {
		return Skill{}, err
	}
	s := Skill{Name: name, Tags: []string{}, Path: path, Content: string(content), Body: doc.body, Scope: scope}
	for _, f := range doc.fields {
		var err error
		switch f.key {
		case "name":
			var declared string
			if declared, err = doc.str(f); err == nil && declared != "" && declared != name {
				err = doc.errorf(f, "%q does not match the skill's directory %q, which is its name", declared, name)
			}
		case "description":
			s.Description, err = doc.str(f)
		case "tags":
			var tags []string
			if tags, err = doc.list(f); err == nil && tags != nil {
				s.Tags = tags
			}
		}
		// Other keys (e.g. Claude Code's allowed-tools) are for the harness,
		// which gets them with the whole file in Content.
		if err != nil {
			return Skill{}, err
		}
	}
	return s, nil
}
