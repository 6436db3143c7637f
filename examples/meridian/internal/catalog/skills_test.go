package catalog_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/examples/meridian/internal/catalog"
)

const testingSkill = `---
name: testing
description: How we test
tags: [go, tdd]
allowed-tools: Read
---
Write the test first.
`

func skillDirs(t *testing.T) (catalog.Dirs, string, string) {
	t.Helper()
	root := tree(t, map[string]string{
		"p/skills/testing/SKILL.md":    testingSkill,
		"p/skills/review/SKILL.md":     "Review carefully.\n",
		"p/skills/shared/SKILL.md":     "---\ndescription: project's\n---\n",
		"p/skills/broken/SKILL.md":     "---\ndescription: x\ntags: {a: 1}\n---\n",
		"p/skills/mismatch/SKILL.md":   "---\nname: other\n---\n",
		"p/skills/empty-dir/notes.md":  "no SKILL.md here",
		"p/skills/.git/SKILL.md":       "hidden",
		"p/skills/bad name/SKILL.md":   "",
		"p/skills/lonely":              "a file, not a skill directory",
		"p/x/SKILL.md":                 "outside skills/",
		"u/skills/shared/SKILL.md":     "---\ndescription: user's\n---\n",
		"u/skills/broken/SKILL.md":     "---\ndescription: good, but shadowed\n---\n",
		"u/skills/empty-dir/SKILL.md":  "---\ndescription: user's, as the project's has no SKILL.md\n---\n",
		"u/skills/extra/SKILL.md":      "---\ntags: a, b\n---\nbody",
		"u/skills/extra/reference.txt": "supporting file",
	})
	p, u := filepath.Join(root, "p"), filepath.Join(root, "u")
	return catalog.Dirs{Project: p, User: u}, p, u
}

func TestSkills(t *testing.T) {
	dirs, p, u := skillDirs(t)
	ps, us := filepath.Join(p, "skills"), filepath.Join(u, "skills")
	skills, problems := dirs.Skills()
	want := []catalog.Skill{
		{Name: "empty-dir", Description: "user's, as the project's has no SKILL.md", Tags: []string{},
			Path: filepath.Join(us, "empty-dir/SKILL.md"), Content: "---\ndescription: user's, as the project's has no SKILL.md\n---\n", Scope: "user"},
		{Name: "extra", Tags: []string{"a", "b"}, Path: filepath.Join(us, "extra/SKILL.md"),
			Content: "---\ntags: a, b\n---\nbody", Body: "body", Scope: "user"},
		{Name: "review", Tags: []string{}, Path: filepath.Join(ps, "review/SKILL.md"),
			Content: "Review carefully.\n", Body: "Review carefully.\n", Scope: "project"},
		{Name: "shared", Description: "project's", Tags: []string{}, Path: filepath.Join(ps, "shared/SKILL.md"),
			Content: "---\ndescription: project's\n---\n", Scope: "project"},
		{Name: "testing", Description: "How we test", Tags: []string{"go", "tdd"}, Path: filepath.Join(ps, "testing/SKILL.md"),
			Content: testingSkill, Body: "Write the test first.\n", Scope: "project"},
	}
	if diff := cmp.Diff(want, skills); diff != "" {
		t.Errorf("Skills() (-want +got):\n%s", diff)
	}
	type problem struct{ Path, Scope, Err string }
	var got []problem
	for _, p := range problems {
		var fe *catalog.FileError
		if p.Kind != "skill" || !errors.As(p.Err, &fe) {
			t.Errorf("problem %+v: want kind skill and a *FileError", p)
		}
		got = append(got, problem{p.Path, p.Scope, p.Err.Error()})
	}
	bad, broken, mismatch := filepath.Join(ps, "bad name/SKILL.md"), filepath.Join(ps, "broken/SKILL.md"), filepath.Join(ps, "mismatch/SKILL.md")
	wantProblems := []problem{
		{bad, "project", bad + `: the directory name is not a valid skill name (it contains ' '; use letters, digits, '-', '_' and '.'); rename the directory`},
		{broken, "project", broken + ":3: tags: want a list of strings"},
		{mismatch, "project", mismatch + `:2: name: "other" does not match the skill's directory "mismatch", which is its name`},
	}
	if diff := cmp.Diff(wantProblems, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestSkill(t *testing.T) {
	dirs, p, u := skillDirs(t)
	ps, us := filepath.Join(p, "skills"), filepath.Join(u, "skills")
	available := []string{"empty-dir", "extra", "review", "shared", "testing"}
	tests := []struct {
		name string
		path string
		err  error // *FileError compared by type and path only
	}{
		{name: "testing", path: filepath.Join(ps, "testing/SKILL.md")},
		{name: "shared", path: filepath.Join(ps, "shared/SKILL.md")},
		{name: "empty-dir", path: filepath.Join(us, "empty-dir/SKILL.md")},
		{name: "extra", path: filepath.Join(us, "extra/SKILL.md")},
		{name: "broken", err: &catalog.FileError{Path: filepath.Join(ps, "broken/SKILL.md")}},
		{name: "mismatch", err: &catalog.FileError{Path: filepath.Join(ps, "mismatch/SKILL.md")}},
		{name: "other", err: &catalog.NotFoundError{Kind: "skill", Name: "other", Available: available}},
		{name: "lonely", err: &catalog.NotFoundError{Kind: "skill", Name: "lonely", Available: available}},
		{name: "testin", err: &catalog.NotFoundError{Kind: "skill", Name: "testin", Available: available, Suggestion: "testing"}},
		// skills/../x/SKILL.md exists: refused before any path is built.
		{name: "../x", err: &catalog.NameError{Kind: "skill", Name: "../x", Reason: "it contains a path separator"}},
		{name: "bad name", err: &catalog.NameError{Kind: "skill", Name: "bad name", Reason: `it contains ' '; use letters, digits, '-', '_' and '.'`}},
		{name: ".git", err: &catalog.NameError{Kind: "skill", Name: ".git", Reason: "it must start with a letter or a digit"}},
		{name: "/etc", err: &catalog.NameError{Kind: "skill", Name: "/etc", Reason: "it contains a path separator"}},
		{name: ".", err: &catalog.NameError{Kind: "skill", Name: ".", Reason: "it is a relative directory, not a name"}},
	}
	for _, tt := range tests {
		s, err := dirs.Skill(tt.name)
		if fe, ok := tt.err.(*catalog.FileError); ok {
			var got *catalog.FileError
			if !errors.As(err, &got) || got.Path != fe.Path {
				t.Errorf("Skill(%q) = %v, want a *FileError for %s", tt.name, err, fe.Path)
			}
			continue
		}
		if diff := cmp.Diff(tt.err, err); diff != "" {
			t.Errorf("Skill(%q) error (-want +got):\n%s", tt.name, diff)
		}
		if s.Path != tt.path {
			t.Errorf("Skill(%q).Path = %q, want %q", tt.name, s.Path, tt.path)
		}
	}
}

func TestSkillsMissingDirs(t *testing.T) {
	root := t.TempDir()
	dirs := catalog.Dirs{Project: filepath.Join(root, "none"), User: ""}
	if skills, problems := dirs.Skills(); len(skills) != 0 || len(problems) != 0 {
		t.Errorf("Skills() = %v, %v; want nothing", skills, problems)
	}
	var nf *catalog.NotFoundError
	if _, err := dirs.Skill("x"); !errors.As(err, &nf) || len(nf.Available) != 0 {
		t.Errorf("Skill(x) = %v, want a NotFoundError with nothing available", err)
	}
}
