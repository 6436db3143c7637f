package run_test

import (
	"testing"

	"github.com/duet-cli/duet/examples/meridian/internal/catalog"
	"github.com/duet-cli/duet/examples/meridian/internal/run"
	"github.com/duet-cli/duet/internal/golden"
)

func TestCompose(t *testing.T) {
	agent := &catalog.Agent{Name: "reviewer", Body: "\nYou review code. Name the file and line.\n\n"}
	skills := []catalog.Skill{{Name: "go", Body: "Keep packages small.\n"}, {Name: "sql", Body: "Use CTEs."}}
	files := []run.Reference{{Path: "notes.txt", Content: "the notes\n\n"}}
	tests := []struct {
		name  string
		parts run.Parts
	}{
		{"prompt-only", run.Parts{Prompt: "  Say hello \n"}},
		{"everything", run.Parts{Skills: skills, Agent: agent, Files: files, Prompt: "Review src/auth."}},
		{"continuation", run.Parts{Files: files, Prompt: "Now add tests."}},
		{"empty-profile", run.Parts{Agent: &catalog.Agent{Name: "bare"}, Prompt: "Go."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			golden.Assert(t, "compose/"+tc.name+".md", []byte(run.Compose(tc.parts)))
		})
	}
}
