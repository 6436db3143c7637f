package run

import (
	"strings"

	"github.com/duet-cli/duet/examples/meridian/internal/catalog"
)

// Reference is a file given with --file, read when the run is planned.
type Reference struct {
	Path    string // as the user gave it
	Content string
}

// Parts are what a run's prompt is composed of.
type Parts struct {
	Skills []catalog.Skill
	Agent  *catalog.Agent
	Files  []Reference
	Prompt string // the user's own words, last
}

// SkillSection is a skill as a prompt gives it: a heading with its name,
// then its body.
func SkillSection(s catalog.Skill) string {
	return "# Skill: " + s.Name + "\n\n" + strings.TrimSpace(s.Body)
}

// reportInstruction tells the agent what Meridian keeps of its work.
const reportInstruction = "# Report\n\nYour final message is the report of your work: what you did, what you found, what is left. Meridian captures it as the run's report."

// Compose builds the prompt a harness is given, sections separated by blank
// lines: each skill, the agent profile's body, each reference file, the
// report instruction, then the user's prompt. A continuation passes only
// files and prompt: the conversation already has the rest.
func Compose(p Parts) string {
	var sections []string
	for _, s := range p.Skills {
		sections = append(sections, SkillSection(s))
	}
	if p.Agent != nil && strings.TrimSpace(p.Agent.Body) != "" {
		sections = append(sections, "# Agent Profile\n\n"+strings.TrimSpace(p.Agent.Body))
	}
	for _, f := range p.Files {
		sections = append(sections, "# Reference: "+f.Path+"\n\n"+strings.TrimRight(f.Content, "\n"))
	}
	if len(sections) > 0 {
		sections = append(sections, reportInstruction)
	}
	sections = append(sections, strings.TrimSpace(p.Prompt))
	return strings.Join(sections, "\n\n") + "\n"
}
