package catalog_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/examples/meridian/internal/catalog"
)

// tree writes files (path relative to root: content) and returns root.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for path, content := range files {
		writeFile(t, filepath.Join(root, path), content)
	}
	return root
}

const coderMD = `---
description: Writes code
model: codex
skills:
  - testing
  - review
sandbox: workspace-write
harness: codex
color: blue
tools: [Read, Grep]
limits:
  turns: 3
---
You write code.
`

func agentDirs(t *testing.T) (catalog.Dirs, string, string) {
	t.Helper()
	root := tree(t, map[string]string{
		"project/.meridian/agents/coder.md":    coderMD,
		"project/.meridian/agents/rev.md":      "---\nname: reviewer\nskills: review, style\n---\nReview.\n",
		"project/.meridian/agents/broken.md":   "---\nname: broken\nmodel: a: b\n---\n",
		"project/.meridian/agents/shared.md":   "---\ndescription: project's\n---\n",
		"project/.meridian/agents/plain.md":    "Just a body.\n",
		"project/.meridian/agents/.hidden.md":  "---\nname: hidden\n---\n",
		"project/.meridian/agents/notes.txt":   "not a profile",
		"project/.meridian/agents/sub/deep.md": "not scanned",
		"project/.meridian/agents/bad name.md": "---\ndescription: file name with a space\n---\n",
		"project/.meridian/x.md":               "outside agents/",
		"user/.meridian/agents/shared.md":      "---\ndescription: user's\n---\n",
		"user/.meridian/agents/broken.md":      "---\ndescription: good, but shadowed by the project's broken one\n---\n",
		"user/.meridian/agents/helper.md":      "---\ndescription: user only\nsandbox: read-only\n---\nHelp.\n",
		"user/.meridian/agents/dup1.md":        "---\nname: twin\n---\none\n",
		"user/.meridian/agents/dup2.md":        "---\nname: twin\n---\ntwo\n",
	})
	project, user := filepath.Join(root, "project/.meridian"), filepath.Join(root, "user/.meridian")
	return catalog.Dirs{Project: project, User: user}, project, user
}

func TestAgents(t *testing.T) {
	dirs, project, user := agentDirs(t)
	pa, ua := filepath.Join(project, "agents"), filepath.Join(user, "agents")
	agents, problems := dirs.Agents()

	want := []catalog.Agent{
		{Name: "coder", Description: "Writes code", Model: "codex", Skills: []string{"testing", "review"},
			Sandbox: "workspace-write", Harness: "codex",
			Extra: map[string]any{"color": "blue", "tools": []any{"Read", "Grep"}, "limits": map[string]any{"turns": 3}},
			Body:  "You write code.\n", Path: filepath.Join(pa, "coder.md"), Scope: "project"},
		{Name: "helper", Description: "user only", Skills: []string{}, Sandbox: "read-only", Body: "Help.\n",
			Path: filepath.Join(ua, "helper.md"), Scope: "user"},
		{Name: "plain", Skills: []string{}, Body: "Just a body.\n", Path: filepath.Join(pa, "plain.md"), Scope: "project"},
		{Name: "reviewer", Skills: []string{"review", "style"}, Body: "Review.\n", Path: filepath.Join(pa, "rev.md"), Scope: "project"},
		{Name: "shared", Description: "project's", Skills: []string{}, Body: "", Path: filepath.Join(pa, "shared.md"), Scope: "project"},
		{Name: "twin", Skills: []string{}, Body: "one\n", Path: filepath.Join(ua, "dup1.md"), Scope: "user"},
	}
	if diff := cmp.Diff(want, agents); diff != "" {
		t.Errorf("Agents() (-want +got):\n%s", diff)
	}

	type problem struct{ Path, Scope, Err string }
	var got []problem
	for _, p := range problems {
		if p.Kind != "agent" {
			t.Errorf("problem kind %q", p.Kind)
		}
		var fe *catalog.FileError
		if !errors.As(p.Err, &fe) {
			t.Errorf("problem %s: %v is not a *FileError", p.Path, p.Err)
		}
		got = append(got, problem{p.Path, p.Scope, p.Err.Error()})
	}
	wantProblems := []problem{
		{filepath.Join(pa, "bad name.md"), "project", filepath.Join(pa, "bad name.md") +
			`: the file name is not a valid agent name (it contains ' '; use letters, digits, '-', '_' and '.'); rename the file or set name in its front matter`},
		{filepath.Join(pa, "broken.md"), "project", filepath.Join(pa, "broken.md") + ":3: front matter: mapping values are not allowed in this context"},
		{filepath.Join(ua, "dup2.md"), "user", filepath.Join(ua, "dup2.md") + `: agent "twin" is already defined by ` + filepath.Join(ua, "dup1.md")},
	}
	if diff := cmp.Diff(wantProblems, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestAgent(t *testing.T) {
	dirs, project, user := agentDirs(t)
	pa, ua := filepath.Join(project, "agents"), filepath.Join(user, "agents")
	available := []string{"coder", "helper", "plain", "reviewer", "shared", "twin"}
	tests := []struct {
		name string
		path string // of the agent found
		err  error  // compared with cmp, except for *FileError (type and path only)
	}{
		{name: "coder", path: filepath.Join(pa, "coder.md")},
		{name: "reviewer", path: filepath.Join(pa, "rev.md")},
		{name: "shared", path: filepath.Join(pa, "shared.md")},
		{name: "helper", path: filepath.Join(ua, "helper.md")},
		{name: "twin", path: filepath.Join(ua, "dup1.md")},
		// The project's broken profile is reported, not replaced by the user's.
		{name: "broken", err: &catalog.FileError{Path: filepath.Join(pa, "broken.md")}},
		// Found by its front matter name, not its file name.
		{name: "rev", err: &catalog.NotFoundError{Kind: "agent", Name: "rev", Available: available}},
		{name: "dup2", err: &catalog.NotFoundError{Kind: "agent", Name: "dup2", Available: available}},
		{name: "reviwer", err: &catalog.NotFoundError{Kind: "agent", Name: "reviwer", Available: available, Suggestion: "reviewer"}},
		{name: "Coder", err: &catalog.NotFoundError{Kind: "agent", Name: "Coder", Available: available, Suggestion: "coder"}},
		{name: "hidden", err: &catalog.NotFoundError{Kind: "agent", Name: "hidden", Available: available}},
		// agents/../x.md exists: the name must be refused before any path is built.
		{name: "../x", err: &catalog.NameError{Kind: "agent", Name: "../x", Reason: "it contains a path separator"}},
		{name: "sub/deep", err: &catalog.NameError{Kind: "agent", Name: "sub/deep", Reason: "it contains a path separator"}},
		{name: filepath.Join(pa, "coder"), err: &catalog.NameError{Kind: "agent", Name: filepath.Join(pa, "coder"), Reason: "it contains a path separator"}},
		{name: "", err: &catalog.NameError{Kind: "agent", Name: "", Reason: "it is empty"}},
		{name: "..", err: &catalog.NameError{Kind: "agent", Name: "..", Reason: "it is a relative directory, not a name"}},
		{name: "coder\x00", err: &catalog.NameError{Kind: "agent", Name: "coder\x00", Reason: "it contains a NUL byte"}},
	}
	for _, tt := range tests {
		a, err := dirs.Agent(tt.name)
		if fe, ok := tt.err.(*catalog.FileError); ok {
			var got *catalog.FileError
			if !errors.As(err, &got) || got.Path != fe.Path {
				t.Errorf("Agent(%q) = %v, want a *FileError for %s", tt.name, err, fe.Path)
			}
			continue
		}
		if diff := cmp.Diff(tt.err, err); diff != "" {
			t.Errorf("Agent(%q) error (-want +got):\n%s", tt.name, diff)
		}
		if a.Path != tt.path {
			t.Errorf("Agent(%q).Path = %q, want %q", tt.name, a.Path, tt.path)
		}
	}
}

func TestAgentScopes(t *testing.T) {
	root := tree(t, map[string]string{
		"p/agents/a.md": "---\ndescription: project\n---\n",
		"u/agents/a.md": "---\ndescription: user\n---\n",
		"u/agents/b.md": "",
	})
	p, u := filepath.Join(root, "p"), filepath.Join(root, "u")
	tests := []struct {
		name  string
		dirs  catalog.Dirs
		names []string
		a     string // scope of agent "a", "" = not found
	}{
		{"both", catalog.Dirs{Project: p, User: u}, []string{"a", "b"}, "project"},
		{"user only", catalog.Dirs{User: u}, []string{"a", "b"}, "user"},
		{"project only", catalog.Dirs{Project: p}, []string{"a"}, "project"},
		{"neither", catalog.Dirs{}, nil, ""},
		{"missing dirs", catalog.Dirs{Project: filepath.Join(root, "nope"), User: filepath.Join(root, "nope2")}, nil, ""},
		// Meridian run from $HOME: one directory, listed once, as the project's.
		{"same dir", catalog.Dirs{Project: u, User: u + "/"}, []string{"a", "b"}, "project"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agents, problems := tt.dirs.Agents()
			var names []string
			for _, a := range agents {
				names = append(names, a.Name)
			}
			if diff := cmp.Diff(tt.names, names); diff != "" || len(problems) != 0 {
				t.Errorf("Agents() names (-want +got):\n%s\nproblems: %v", diff, problems)
			}
			a, err := tt.dirs.Agent("a")
			var nf *catalog.NotFoundError
			if tt.a == "" && !errors.As(err, &nf) || tt.a != "" && (err != nil || a.Scope != tt.a) {
				t.Errorf("Agent(a) = %q, %v; want scope %q", a.Scope, err, tt.a)
			}
		})
	}
}

func TestAgentsDirUnreadable(t *testing.T) {
	// agents is a file: the directory cannot be read.
	root := tree(t, map[string]string{"p/agents": "not a directory", "u/agents/a.md": ""})
	dirs := catalog.Dirs{Project: filepath.Join(root, "p"), User: filepath.Join(root, "u")}
	agents, problems := dirs.Agents()
	if len(agents) != 1 || len(problems) != 1 || problems[0].Path != filepath.Join(root, "p/agents") {
		t.Errorf("Agents() = %v, %v; want agent a and a problem with p/agents", agents, problems)
	}
	// Whether the project shadows "a" cannot be known: that is an error.
	if _, err := dirs.Agent("a"); err == nil {
		t.Error("Agent(a) with an unreadable project agents dir succeeded")
	}
}

func TestAgentFrontMatter(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    catalog.Agent // Path, Scope filled in; compared when err is ""
		line    int
		key     string
		err     string // substring of FileError.Msg
	}{
		{name: "no front matter", content: "# Title\n---\n",
			want: catalog.Agent{Name: "a", Skills: []string{}, Body: "# Title\n---\n"}},
		{name: "empty front matter", content: "---\n---\nbody\n",
			want: catalog.Agent{Name: "a", Skills: []string{}, Body: "body\n"}},
		{name: "null front matter", content: "---\n~\n---\n",
			want: catalog.Agent{Name: "a", Skills: []string{}, Body: ""}},
		{name: "CRLF and BOM", content: "\ufeff---\r\nname: b\r\nmodel: opus\r\n---\r\nbody\r\n",
			want: catalog.Agent{Name: "b", Model: "opus", Skills: []string{}, Body: "body\r\n"}},
		{name: "scalars read as written", content: "---\ndescription: 2024\nmodel: ~\nskills:\n---\n",
			want: catalog.Agent{Name: "a", Description: "2024", Skills: []string{}}},
		{name: "full-access", content: "---\nsandbox: full-access\nharness: gemini\n---\n",
			want: catalog.Agent{Name: "a", Skills: []string{}, Sandbox: "full-access", Harness: "gemini"}},
		{name: "unclosed", content: "---\nname: a\n", line: 1, err: "never closed"},
		{name: "yaml syntax", content: "---\nname: a\n\tmodel: x\n---\n", line: 3, err: "front matter: found a tab character"},
		{name: "not a mapping", content: "---\n- a\n- b\n---\n", line: 2, err: "must be a mapping"},
		{name: "duplicate key", content: "---\nmodel: a\nmodel: b\n---\n", line: 3, key: "model", err: "defined twice"},
		{name: "bad sandbox", content: "---\nname: a\nsandbox: danger\n---\n", line: 3, key: "sandbox",
			err: `unknown sandbox "danger": want read-only, workspace-write or full-access`},
		{name: "upstream's space-write", content: "---\nsandbox: space-write\n---\n", line: 2, key: "sandbox", err: "unknown sandbox"},
		{name: "bad harness", content: "---\nharness: cursor\n---\n", line: 2, key: "harness", err: `unknown harness "cursor"`},
		{name: "name escapes", content: "---\nname: ../../etc/passwd\n---\n", line: 2, key: "name", err: "path separator"},
		{name: "skill name escapes", content: "---\nskills: [ok, ../x]\n---\n", line: 2, key: "skills", err: `invalid skill name "../x"`},
		{name: "skills a mapping", content: "---\nskills: {a: 1}\n---\n", line: 2, key: "skills", err: "want a list of strings"},
		{name: "skills nested list", content: "---\nskills: [[a]]\n---\n", line: 2, key: "skills", err: "want a list of strings"},
		{name: "description a list", content: "---\n\ndescription: [a]\n---\n", line: 3, key: "description", err: "want a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tree(t, map[string]string{"agents/a.md": tt.content})
			path := filepath.Join(root, "agents/a.md")
			dirs := catalog.Dirs{Project: root}
			got, err := dirs.Agent(tt.want.Name)
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				tt.want.Path, tt.want.Scope = path, "project"
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Agent (-want +got):\n%s", diff)
				}
				return
			}
			got, err = dirs.Agent("a")
			var fe *catalog.FileError
			if !errors.As(err, &fe) {
				t.Fatalf("Agent(a) = %+v, %v; want a *FileError", got, err)
			}
			if fe.Path != path || fe.Line != tt.line || fe.Key != tt.key || !strings.Contains(fe.Msg, tt.err) {
				t.Errorf("FileError = %+v; want line %d, key %q, msg containing %q", fe, tt.line, tt.key, tt.err)
			}
			// The listing reports the same problem.
			if _, problems := dirs.Agents(); len(problems) != 1 || problems[0].Err.Error() != err.Error() {
				t.Errorf("Agents() problems = %v, want the same error", problems)
			}
		})
	}
}

func TestAgentSymlink(t *testing.T) {
	root := tree(t, map[string]string{"shared/team.md": "---\ndescription: linked\n---\n", "p/agents/keep": ""})
	link := filepath.Join(root, "p/agents/team.md")
	if err := os.Symlink(filepath.Join(root, "shared/team.md"), link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "nowhere.md"), filepath.Join(root, "p/agents/dangling.md")); err != nil {
		t.Fatal(err)
	}
	dirs := catalog.Dirs{Project: filepath.Join(root, "p")}
	a, err := dirs.Agent("team")
	if err != nil || a.Description != "linked" || a.Path != link {
		t.Errorf("Agent(team) = %+v, %v", a, err)
	}
	if _, err := dirs.Agent("dangling"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Agent(dangling) = %v, want the read error", err)
	}
}
