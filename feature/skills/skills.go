// Package skills is the feature that adds `tool generate-skills` (the CLI
// Agent Spec's REQ-O-034): skill files for agents, made from the commands'
// declarations — CONTEXT.md, what every command shares, and one
// SKILL-<command>.md (or .json) per command — written to --output-dir,
// each replaced whole. Rewriting files that are current is a noop, and
// --dry-run reports what would be written.
//
//	urfave.Main(app, adapters.WithFeatures(skills.New()))
package skills

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/atomicfile"
	"github.com/duet-cli/duet/internal/describe"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// New returns the feature.
func New() adapters.Feature { return feature{} }

type feature struct{}

var _ adapters.Commander = feature{}

func (feature) Name() string { return "skills" }

// Commands is generate-skills.
func (feature) Commands() []adapters.Command {
	return []adapters.Command{{
		Node: &schema.Command{
			Name: "generate-skills", Usage: "Write agent skill files for every command: CONTEXT.md and one SKILL-<command>.md each",
			Runnable: true, NoArgs: true,
			Flags: []schema.Flag{
				{Name: flagname.OutputDir, Type: schema.String, Default: "skills", Usage: "the directory to write the files to"},
				{Name: flagname.SkillFormat, Type: schema.String, Enum: []string{"markdown", "json"}, Default: "markdown", Usage: "the files' format"},
			},
			Meta: schema.Meta{Danger: schema.Mutating, DryRun: true, NoArgs: true,
				Examples: []schema.Example{{Description: "skills for Claude Code", Command: "generate-skills --output-dir .claude/skills"}}},
		},
		Run: generate,
	}}
}

// report is one file generate-skills wrote.
type report struct {
	Path    string  `json:"path"`
	Type    string  `json:"type"`    // context or skill
	Command *string `json:"command"` // null for the context
	Format  string  `json:"format"`
}

// generate answers generate-skills, and reports what it wrote.
func generate(_ context.Context, inv *adapters.Invocation) error {
	dir, given := inv.Flag(flagname.OutputDir)
	if !given {
		dir = "skills"
	}
	format, given := inv.Flag(flagname.SkillFormat)
	if !given {
		format = "markdown"
	}
	root := inv.Root()
	m, err := describe.New(root, inv.Version(), true)
	if err != nil {
		return describe.DeclarationError(err)
	}
	files, err := describe.Skills(root, m, format)
	if err != nil {
		return envelope.Validationf(errcode.InvalidFlagValue, "%v", err).WithField(flagname.SkillFormat, describe.SkillFormats...)
	}
	out := inv.Output()
	effect := envelope.Noop
	reports := make([]report, 0, len(files))
	for _, f := range files {
		path := filepath.Join(dir, f.Name)
		r := report{Path: path, Type: "skill", Format: f.Format}
		if f.Command == "" {
			r.Type = "context"
		} else {
			cmd := f.Command
			r.Command = &cmd
		}
		reports = append(reports, r)
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, f.Content) {
			continue
		} else if err == nil {
			effect = envelope.Updated
		} else if effect == envelope.Noop {
			effect = envelope.Created
		}
		if out.DryRun() {
			continue
		}
		if err := write(path, f.Content); err != nil {
			return envelope.Errorf(exitcode.PermissionDenied, "SKILLS_NOT_WRITTEN", "%v", err).
				WithPhase(envelope.Execution).
				WithFix("make "+dir+" writable, or pass another --output-dir", "")
		}
	}
	out.Effect(effect)
	out.RenderText(func(w io.Writer) error {
		for _, r := range reports {
			if _, err := fmt.Fprintln(w, r.Path); err != nil {
				return err
			}
		}
		return nil
	})
	return out.Result(map[string]any{"skills": reports})
}

// write replaces path with content whole, its directory made first.
func write(path string, content []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, content, 0o644)
}
