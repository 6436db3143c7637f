//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/examples/meridian/internal/harnesstest"
)

// projectFiles is every file of the project, path to content: what a call
// changed.
func projectFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = string(raw)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestRecheckSpawnValidateOnly: O-009, C-006. run spawn and run continue
// plan the run in their Meta.Validate — space, agent profile, model,
// skills, --file references, the harness — so --validate-only refuses what
// the real call refuses, with the same exit code and error, every --file
// problem at once, and neither writes a thing nor calls a harness; a spawn
// the real call would start passes validation and starts nothing.
func TestRecheckSpawnValidateOnly(t *testing.T) {
	sb := newSandbox(t)
	if err := os.WriteFile(filepath.Join(sb.dir, "notes.md"), []byte("# notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused := []struct {
		name  string
		args  []string
		exit  int
		codes []string // error.code, then error.errors' codes
	}{
		{"a missing --file", []string{"run", "spawn", "-p", "hello", "-m", "sonnet", "--file", "nope.md"}, 2,
			[]string{"FILE_NOT_FOUND", "FILE_NOT_FOUND"}},
		{"every missing --file at once", []string{"run", "spawn", "-p", "hello", "-m", "sonnet", "-f", "nope.md", "-f", "notes.md", "-f", "gone.md"}, 2,
			[]string{"VALIDATION_FAILED", "FILE_NOT_FOUND", "FILE_NOT_FOUND"}},
		{"a missing skill", []string{"run", "spawn", "-p", "hello", "-m", "sonnet", "--skills", "nosuch"}, 5,
			[]string{"SKILL_NOT_FOUND"}},
		{"a missing skill of two", []string{"run", "spawn", "-p", "hello", "-m", "sonnet", "--skills", "nosuch,other"}, 5,
			[]string{"SKILL_NOT_FOUND"}},
		{"an empty prompt", []string{"run", "spawn", "-p", " ", "-m", "sonnet"}, 2,
			[]string{"EMPTY_PROMPT"}},
		{"an unknown model", []string{"run", "spawn", "-p", "hello", "-m", "no-such-model"}, 5,
			[]string{"MODEL_NOT_FOUND"}},
		{"a missing agent profile", []string{"run", "spawn", "-p", "hello", "-a", "nobody"}, 5,
			[]string{"AGENT_NOT_FOUND"}},
		{"continue in a missing space", []string{"run", "continue", "r1", "-p", "more", "--space", "s9"}, 5,
			[]string{"SPACE_NOT_FOUND"}},
	}
	for _, tt := range refused {
		before := projectFiles(t, sb.dir)
		var messages []string
		for _, only := range []bool{true, false} {
			args := tt.args
			if only {
				args = append(append([]string(nil), args...), "--validate-only")
			}
			e, r := sb.agent(t, sb.env, args...)
			if r.code != tt.exit || e.Error == nil || e.Error.Phase != "validation" {
				t.Errorf("%s: meridian %q: exit %d, error %+v; want exit %d in phase validation", tt.name, args, r.code, e.Error, tt.exit)
				continue
			}
			codes := []string{e.Error.Code}
			for _, p := range e.Error.Errors {
				codes = append(codes, p.Code)
			}
			if diff := cmp.Diff(tt.codes, codes); diff != "" {
				t.Errorf("%s: meridian %q: error codes (-want +got):\n%s", tt.name, args, diff)
			}
			if only && e.Meta["validation_only"] != true {
				t.Errorf("%s: --validate-only's refusal lacks meta.validation_only: %v", tt.name, e.Meta)
			}
			messages = append(messages, e.Error.Message)
		}
		if len(messages) == 2 && messages[0] != messages[1] {
			t.Errorf("%s: --validate-only said %q, the call %q", tt.name, messages[0], messages[1])
		}
		if diff := cmp.Diff(before, projectFiles(t, sb.dir)); diff != "" {
			t.Errorf("%s: the project changed (-before +after):\n%s", tt.name, diff)
		}
	}

	// A spawn the call would start passes, and starts nothing.
	before := projectFiles(t, sb.dir)
	e, r := sb.agent(t, sb.env, "run", "spawn", "-p", "hello", "-m", "sonnet", "-f", "notes.md", "--validate-only")
	if r.code != 0 || e.Meta["validation_only"] != true || string(e.Data) != "null" {
		t.Errorf("spawn --validate-only of good input: exit %d, meta %v, data %s, error %+v", r.code, e.Meta, e.Data, e.Error)
	}
	if diff := cmp.Diff(before, projectFiles(t, sb.dir)); diff != "" {
		t.Errorf("spawn --validate-only changed the project (-before +after):\n%s", diff)
	}
	if recs := harnesstest.Records(t, sb.record); len(recs) != 0 {
		t.Errorf("a harness was called %d times", len(recs))
	}
	for _, w := range e.Warnings {
		if strings.Contains(w.Code, "SPACE") {
			t.Errorf("--validate-only warned %s: %s", w.Code, w.Message)
		}
	}
}
