//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestE2EEveryMutationReportsEffect: REQ-C-003: every command `todo
// manifest` marks mutating or destructive — todo's own and Duet's built-ins
// alike — run successfully as an agent answers meta.effect, and the right
// one: created, updated or deleted when it changed something, noop when it
// found things as they should be (the acceptance criteria's "already at
// desired state"), would_<effect> under --dry-run. The async export answers
// a job at once; its effect is the job's, which `todo job status <id>
// --wait` (the descriptor's status_command) and `todo job wait <id>` report.
// A command the manifest adds without a case here fails the test.
func TestE2EEveryMutationReportsEffect(t *testing.T) { onEach(t, testEveryMutationReportsEffect) }

func testEveryMutationReportsEffect(t *testing.T, bin string) {
	t.Parallel()
	sb := longSandbox(t, bin)
	two := filepath.Join(sb.dir, "two.jsonl")
	empty := filepath.Join(sb.dir, "empty.jsonl")
	for path, body := range map[string]string{two: "{\"title\": \"c\"}\n{\"title\": \"d\"}\n", empty: ""} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	archive, skills := filepath.Join(sb.dir, "archive.json"), filepath.Join(sb.dir, "skills")

	var job string // the export job the steps after it act on
	var release func()
	// The steps share one sandbox and run in order. {job} in args is the
	// job the last export started.
	steps := []effectStep{
		{"add", "add", []string{"add", "a"}, "created", nil, ""},         // t1
		{"add another", "add", []string{"add", "b"}, "created", nil, ""}, // t2
		{"done", "done", []string{"done", "t1"}, "updated", nil, ""},
		{"done again", "done", []string{"done", "t1"}, "noop", nil, ""},
		{"tag", "tag", []string{"tag", "urgent", "t1", "t2"}, "updated", nil, ""},
		{"tag again", "tag", []string{"tag", "urgent", "t1", "t2"}, "noop", nil, ""},
		{"import", "import", []string{"import", "--input-file", two}, "created", nil, ""}, // t3, t4
		{"import nothing", "import", []string{"import", "--input-file", empty}, "noop", nil, ""},
		{"archive", "archive", []string{"archive", "--to", archive}, "updated", nil, ""}, // t1, done, goes
		{"archive again", "archive", []string{"archive", "--to", archive}, "noop", nil, ""},
		{"remove --dry-run", "remove", []string{"remove", "t2", "--dry-run"}, "would_delete", nil, ""},
		{"remove", "remove", []string{"remove", "t2", "--yes"}, "deleted", nil, ""},
		{"remove a missing one", "remove", []string{"remove", "t2", "--yes"}, "noop", nil, ""},
		{"purge with none done", "purge", []string{"purge", "--yes"}, "noop", nil, ""},
		{"purge --all --dry-run", "purge", []string{"purge", "--all", "--dry-run"}, "would_delete", nil, ""},
		{"purge --all", "purge", []string{"purge", "--all", "--yes"}, "deleted", nil, ""},
		{"profile save", "profile.save", []string{"profile", "save", "p", "--status", "all"}, "created", nil, ""},
		{"profile save anew", "profile.save", []string{"profile", "save", "p", "--status", "done"}, "updated", nil, ""},
		{"profile use", "profile.use", []string{"profile", "use", "p"}, "updated", nil, ""},
		{"profile use of the default", "profile.use", []string{"profile", "use", "p"}, "noop", nil, ""},
		{"profile delete --dry-run", "profile.delete", []string{"profile", "delete", "p", "--dry-run"}, "would_delete", nil, ""},
		{"profile delete", "profile.delete", []string{"profile", "delete", "p", "--yes"}, "deleted", nil, ""},
		{"generate-skills --dry-run", "generate-skills", []string{"generate-skills", "--output-dir", skills, "--dry-run"}, "would_create", nil, ""},
		{"generate-skills", "generate-skills", []string{"generate-skills", "--output-dir", skills}, "created", nil, ""},
		{"generate-skills again", "generate-skills", []string{"generate-skills", "--output-dir", skills}, "noop", nil, ""},
		// The first export waits for the to-do file's lock, held here, so
		// that it can be cancelled while it runs.
		{"export to cancel", "export", []string{"export"}, "", func() { release = holdLock(t, sb) }, ""},
		{"job cancel", "job.cancel", []string{"job", "cancel", "{job}"}, "updated", nil, ""},
		{"job cancel of an ended job", "job.cancel", []string{"job", "cancel", "{job}"}, "noop", func() { release() }, ""},
		{"export", "export", []string{"export"}, "", nil, ""},
		// The status of an ended job may give the job's effect as its own
		// or in its view of the job, by the job's result.
		{"export's job: job status --wait", "export", []string{"job", "status", "{job}", "--wait"}, "created", nil, "data.effect"},
		{"export's job: job wait", "export", []string{"job", "wait", "{job}"}, "created", nil, ""},
		{"cleanup --dry-run", "cleanup", []string{"cleanup", "--dry-run"}, "would_delete", nil, ""},
		{"cleanup", "cleanup", []string{"cleanup", "--yes"}, "deleted", nil, ""},
		{"cleanup of nothing", "cleanup", []string{"cleanup", "--yes"}, "noop", nil, ""},
		// exec, as mutating as what it runs, reports what its lines did:
		// here none (stdin is empty).
		{"exec of nothing", "exec", []string{"exec"}, "noop", nil, ""},
	}

	effects := []string{"created", "updated", "deleted", "noop"}
	wouldEffects := []string{"would_create", "would_update", "would_delete", "would_noop"} // under --dry-run
	for _, st := range steps {
		if st.before != nil {
			st.before()
		}
		args := slices.Clone(st.args)
		for i, a := range args {
			args[i] = strings.ReplaceAll(a, "{job}", job)
		}
		env := expectEnvelope(t, st.name, sb.run(t, args...), 0)
		for _, w := range asList(env["warnings"]) {
			if get(w, "code") == "EFFECT_UNREPORTED" {
				t.Errorf("%s: todo %q warns EFFECT_UNREPORTED", st.name, args)
			}
		}
		got, _ := get(env, "meta.effect").(string)
		if st.alsoAt != "" && got == "" {
			got, _ = get(env, st.alsoAt).(string)
		}
		switch {
		case st.effect == "": // the export: the job it started
			if job, _ = get(env, "data.job_id").(string); job == "" {
				t.Fatalf("%s: no job in %v", st.name, env["data"])
			}
		case got != st.effect:
			t.Errorf("%s: todo %s: meta.effect %q, want %q", st.name, strings.Join(args, " "), got, st.effect)
		}
		allowed := effects
		if get(env, "meta.dry_run") == true {
			allowed = wouldEffects
		}
		if got != "" && !slices.Contains(allowed, got) {
			t.Errorf("%s: meta.effect %q (meta.dry_run %v) is none of %v", st.name, got, get(env, "meta.dry_run"), allowed)
		}
	}

	// Every mutating or destructive command of the manifest has a step.
	manifest := expectEnvelope(t, "manifest", sb.run(t, "manifest"), 0)
	commands, _ := get(manifest, "data.commands").(map[string]any)
	var mutating, untested []string
	for _, name := range keys(commands) {
		switch get(commands[name], "danger_level") {
		case "mutating", "destructive":
			mutating = append(mutating, name)
			if !slices.ContainsFunc(steps, func(s effectStep) bool { return s.command == name && s.effect != "" }) {
				untested = append(untested, name)
			}
		}
	}
	if len(mutating) < 10 {
		t.Fatalf("premise: the manifest marks only %v mutating or destructive", mutating)
	}
	if len(untested) > 0 {
		t.Errorf("mutating or destructive commands no step runs: %v", untested)
	}
}

// effectStep is one step of TestE2EEveryMutationReportsEffect.
type effectStep struct {
	name    string
	command string // the manifest's name of the command whose effect it shows
	args    []string
	effect  string // "" for an export, whose answer is a job
	before  func() // run first
	alsoAt  string // where else than meta.effect the effect may be
}

func asList(v any) []any {
	list, _ := v.([]any)
	return list
}
