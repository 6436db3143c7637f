package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Sandbox levels an agent profile may ask for.
const (
	SandboxReadOnly       = "read-only"
	SandboxWorkspaceWrite = "workspace-write"
	SandboxFullAccess     = "full-access"
)

// Agent is an agent profile: a markdown file in <dir>/agents whose YAML
// front matter says how a run is set up and whose body is the agent's
// instructions.
type Agent struct {
	// Name is the front matter's name, or else the file name without .md.
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Model is a model id or alias, resolved by [Models.Resolve]; "" when
	// the profile names none.
	Model string `json:"model,omitempty"`
	// Skills are the names of the skills the agent loads (never nil). They
	// are valid names ([CheckName]) but may not exist: [Dirs.Skill] says.
	Skills []string `json:"skills"`
	// Sandbox is "", [SandboxReadOnly], [SandboxWorkspaceWrite] or
	// [SandboxFullAccess].
	Sandbox string `json:"sandbox,omitempty"`
	// Harness is "" or the harness the profile requires.
	Harness string `json:"harness,omitempty"`
	// Extra holds the front matter's other keys, as YAML decodes them; nil
	// when there are none.
	Extra map[string]any `json:"extra,omitempty"`
	// Body is the markdown after the front matter.
	Body string `json:"body"`
	// Path is the profile's file.
	Path string `json:"path"`
	// Scope is [ScopeProject] or [ScopeUser].
	Scope string `json:"scope"`
}

// Agents returns the agent profiles of both scopes sorted by name, a
// project profile hiding a user profile of the same name, and the problems
// found on the way. A broken profile hides the other scope's profile of the
// same file name just as a good one would, so that what [Dirs.Agent]
// answers and what the listing shows agree.
func (d Dirs) Agents() ([]Agent, []Problem) {
	var agents []Agent
	var problems []Problem
	claimed := map[string]bool{}
	for _, sc := range d.scopes() {
		entries, ps, err := scanAgents(sc)
		problems = append(problems, ps...)
		if err != nil {
			problems = append(problems, Problem{Kind: "agent", Path: filepath.Join(sc.dir, "agents"), Scope: sc.name, Err: err})
		}
		for _, e := range entries {
			if claimed[e.name] {
				continue
			}
			claimed[e.name] = true
			if e.err == nil {
				agents = append(agents, e.agent)
			}
		}
	}
	slices.SortFunc(agents, func(a, b Agent) int { return strings.Compare(a.Name, b.Name) })
	return agents, problems
}

// Agent returns the agent profile called name, the project's before the
// user's. An invalid name is a [*NameError] (no file is opened); an unknown
// one is a [*NotFoundError]; a profile of that name whose front matter is
// broken is its [*FileError], never skipped in favour of the other scope's.
func (d Dirs) Agent(name string) (Agent, error) {
	if err := CheckName("agent", name); err != nil {
		return Agent{}, err
	}
	for _, sc := range d.scopes() {
		entries, _, err := scanAgents(sc)
		if err != nil {
			return Agent{}, err
		}
		for _, e := range entries {
			if e.name == name {
				return e.agent, e.err
			}
		}
	}
	agents, _ := d.Agents()
	names := make([]string, len(agents))
	for i, a := range agents {
		names[i] = a.Name
	}
	return Agent{}, notFound("agent", name, names)
}

// agentEntry is a profile file found in a scope: the agent, or, when the
// file is broken, the error and the name it goes by (its file name).
type agentEntry struct {
	name  string
	agent Agent
	err   error
}

// scanAgents reads every profile of a scope. Each name is claimed by the
// first file in file-name order that goes by it; a later file claiming the
// same name is a problem. err is a failure to read the directory itself.
func scanAgents(sc scope) (entries []agentEntry, problems []Problem, err error) {
	dir := filepath.Join(sc.dir, "agents")
	dirents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, fmt.Errorf("read agent profiles: %w", err)
	}
	claimedBy := map[string]string{}
	for _, de := range dirents {
		file := de.Name()
		if strings.HasPrefix(file, ".") || !strings.HasSuffix(file, ".md") {
			continue
		}
		path := filepath.Join(dir, file)
		// Stat, not the entry's type: a profile may be a symlink.
		if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
			continue
		}
		e := agentEntry{name: strings.TrimSuffix(file, ".md")}
		e.agent, e.err = readAgent(path, e.name, sc.name)
		if e.err == nil {
			e.name = e.agent.Name
		}
		if other, dup := claimedBy[e.name]; dup {
			problems = append(problems, Problem{Kind: "agent", Path: path, Scope: sc.name,
				Err: &FileError{Path: path, Msg: fmt.Sprintf("agent %q is already defined by %s", e.name, other)}})
			continue
		}
		claimedBy[e.name] = path
		if e.err != nil {
			problems = append(problems, Problem{Kind: "agent", Path: path, Scope: sc.name, Err: e.err})
		}
		entries = append(entries, e)
	}
	return entries, problems, nil
}

// readAgent reads the profile at path; stem is its file name without .md.
func readAgent(path, stem, scope string) (Agent, error) {
	content, err := os.ReadFile(path)
	if err != nil {
		return Agent{}, fmt.Errorf("read agent profile: %w", err)
	}
	doc, err := parseDocument(path, content)
	if err != nil {
		return Agent{}, err
	}
	a := Agent{Skills: []string{}, Body: doc.body, Path: path, Scope: scope}
	for _, f := range doc.fields {
		var err error
		switch f.key {
		case "name":
			a.Name, err = doc.str(f)
			if err == nil && a.Name != "" {
				if nameErr := CheckName("agent", a.Name); nameErr != nil {
					err = doc.errorf(f, "%s", nameErr)
				}
			}
		case "description":
			a.Description, err = doc.str(f)
		case "model":
			a.Model, err = doc.str(f)
		case "skills":
			var skills []string
			skills, err = doc.list(f)
			for _, s := range skills {
				if nameErr := CheckName("skill", s); nameErr != nil && err == nil {
					err = doc.errorf(f, "%s", nameErr)
				}
			}
			if err == nil && skills != nil {
				a.Skills = skills
			}
		case "sandbox":
			a.Sandbox, err = doc.str(f)
			switch a.Sandbox {
			case "", SandboxReadOnly, SandboxWorkspaceWrite, SandboxFullAccess:
			default:
				err = doc.errorf(f, "unknown sandbox %q: want %s, %s or %s",
					a.Sandbox, SandboxReadOnly, SandboxWorkspaceWrite, SandboxFullAccess)
			}
		case "harness":
			a.Harness, err = doc.str(f)
			if err == nil && a.Harness != "" && !isHarness(a.Harness) {
				err = doc.errorf(f, "unknown harness %q: want one of %s", a.Harness, harnessNames)
			}
		default:
			var v any
			if v, err = doc.value(f); err == nil {
				if a.Extra == nil {
					a.Extra = map[string]any{}
				}
				a.Extra[f.key] = v
			}
		}
		if err != nil {
			return Agent{}, err
		}
	}
	if a.Name == "" {
		if err := CheckName("agent", stem); err != nil {
			var ne *NameError
			errors.As(err, &ne)
			return Agent{}, &FileError{Path: path,
				Msg: fmt.Sprintf("the file name is not a valid agent name (%s); rename the file or set name in its front matter", ne.Reason)}
		}
		a.Name = stem
	}
	return a, nil
}
