package adapters

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/describe"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/flagname"
)

// skillReport is one file generate-skills wrote.
type skillReport struct {
	Path    string  `json:"path"`
	Type    string  `json:"type"`    // context or skill
	Command *string `json:"command"` // null for the context
	Format  string  `json:"format"`
}

// generateSkills answers `tool generate-skills`: it writes CONTEXT.md and a
// SKILL-<command>.md per command (or .json) to --output-dir, each replaced
// whole (written aside and renamed), and reports what it wrote; rewriting
// files that are current is a noop.
func (inv *invocation) generateSkills(context.Context) error {
	c := inv.call
	dir := c.last(flagname.OutputDir)
	if !c.has(flagname.OutputDir) {
		dir = "skills"
	}
	format := c.last(flagname.SkillFormat)
	if !c.has(flagname.SkillFormat) {
		format = "markdown"
	}
	m, err := describe.New(inv.root, inv.cfg.version, true)
	if err != nil {
		return brokenDeclaration(err)
	}
	files, err := describe.Skills(inv.root, m, format)
	if err != nil {
		return envelope.Validationf(errcode.InvalidFlagValue, "%v", err).WithField(flagname.SkillFormat, describe.SkillFormats...)
	}
	out := inv.out
	effect := envelope.Noop
	reports := make([]skillReport, 0, len(files))
	for _, f := range files {
		path := filepath.Join(dir, f.Name)
		r := skillReport{Path: path, Type: "skill", Format: f.Format}
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
		if err := writeFileAtomic(path, f.Content); err != nil {
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

// writeFileAtomic replaces path with content: written to a temporary file
// beside it, synced, and renamed, so a reader never sees half a file.
func writeFileAtomic(path string, content []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing to remove
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
