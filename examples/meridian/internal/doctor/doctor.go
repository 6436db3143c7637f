// Package doctor checks and repairs the health of a project's spaces — the
// four jobs of the Meridian spec — and says which harnesses are installed:
//
//  1. chats whose process is gone get their stop event and lose their lock file;
//  2. running runs whose supervisor is gone get a synthetic finalize (orphan_run);
//  3. a space's stale status is reconciled with what goes on in it: a space
//     marked closed in which a chat lives or a run runs is active again. A
//     space with nothing running is not closed: spaces outlive their chats
//     (start resumes the last active one), and closing is a person's call;
//  4. a space directory that an older meridian, killed while it created the
//     space, left without its space.json and with nothing else in it is
//     removed (torn_space); a space whose space.json is missing or corrupt
//     and that holds anything more is reported and skipped, never recreated;
//  5. the temporary files of atomic writes a killed meridian left in the
//     state directory are removed once they are a minute old (stale_temp_file).
//
// Every repair is recorded in the report; nothing is repaired twice, for each
// repair removes the condition that called for it.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/examples/meridian/internal/config"
	"github.com/duet-cli/duet/examples/meridian/internal/harness"
	"github.com/duet-cli/duet/examples/meridian/internal/project"
	"github.com/duet-cli/duet/examples/meridian/internal/run"
	"github.com/duet-cli/duet/examples/meridian/internal/space"
	"github.com/duet-cli/duet/examples/meridian/internal/state"
)

// Report is what doctor found and did.
type Report struct {
	OK            bool      `json:"ok"` // no problem is left that needs a person
	Root          string    `json:"root"`
	SpacesChecked int       `json:"spaces_checked"`
	RunsChecked   int       `json:"runs_checked"`
	Repaired      []Repair  `json:"repaired"`
	Problems      []Problem `json:"problems"`
	Skipped       []string  `json:"skipped"` // jobs not run, and why
	Harnesses     []Harness `json:"harnesses"`
}

// Repair is one thing doctor fixed.
type Repair struct {
	Kind   string `json:"kind"` // stale_session_lock, orphan_run, stale_space_status, torn_space, stale_temp_file
	Space  string `json:"space"`
	ID     string `json:"id,omitempty"` // the chat or run
	Detail string `json:"detail"`
}

// Problem is one thing doctor cannot fix.
type Problem struct {
	Kind    string `json:"kind"` // corrupt_space, harness_not_installed
	Space   string `json:"space,omitempty"`
	Message string `json:"message"`
}

// Harness is whether one harness can be launched.
type Harness struct {
	Name      string `json:"name"`
	Command   string `json:"command"`
	Path      string `json:"path,omitempty"`
	Installed bool   `json:"installed"`
	Install   string `json:"install"`
}

// Options are how doctor runs.
type Options struct {
	Now  time.Time
	Path string // the PATH harnesses are looked up on
}

// Run checks every space of the project and repairs what it can.
func Run(ctx context.Context, p project.Project, cfg *config.Loaded, o Options) (Report, error) {
	rep := Report{Root: p.Root, Repaired: []Repair{}, Problems: []Problem{}, Skipped: []string{}}
	spaces, corrupt, err := p.State.Spaces()
	if err != nil {
		return rep, fmt.Errorf("read spaces: %w", err)
	}
	for _, c := range corrupt {
		var ce *state.CorruptError
		if errors.As(c, &ce) {
			id := filepath.Base(filepath.Dir(ce.Path))
			if removed, err := p.State.RemoveTorn(ctx, id); err == nil && removed {
				rep.Repaired = append(rep.Repaired, Repair{Kind: "torn_space", Space: id,
					Detail: "a space directory without space.json and with nothing in it, left by a creation that was killed: removed"})
				continue
			}
		}
		rep.Problems = append(rep.Problems, Problem{Kind: "corrupt_space", Message: c.Error() + "; the space is skipped"})
	}
	for _, sp := range spaces {
		if err := check(ctx, p, sp, o, &rep); err != nil {
			return rep, fmt.Errorf("space %s: %w", sp.ID, err)
		}
	}
	for _, path := range p.State.StaleTemp(o.Now, time.Minute) {
		if os.Remove(path) == nil {
			rel, _ := filepath.Rel(p.Root, path)
			rep.Repaired = append(rep.Repaired, Repair{Kind: "stale_temp_file", ID: rel,
				Detail: "the temporary file of a write that a killed meridian never finished: removed"})
		}
	}
	rep.Harnesses = harnesses(cfg, o.Path)
	for _, h := range rep.Harnesses {
		if !h.Installed && h.Name == cfg.Harness.Default {
			rep.Problems = append(rep.Problems, Problem{Kind: "harness_not_installed",
				Message: fmt.Sprintf("the default harness %s is not installed (%q is not on PATH); install it with '%s'", h.Name, h.Command, h.Install)})
		}
	}
	rep.OK = len(rep.Problems) == 0
	out := envelope.From(ctx)
	for _, pr := range rep.Problems {
		out.Warn(strings.ToUpper(pr.Kind), pr.Message, nextStep(pr.Kind))
	}
	out.Effect(envelope.Noop)
	if len(rep.Repaired) > 0 {
		out.Effect(envelope.Updated)
	}
	return rep, nil
}

func check(ctx context.Context, p project.Project, sp state.Space, o Options, rep *Report) error {
	rep.SpacesChecked++
	dir := p.State.SpaceDir(sp.ID)
	cleaned, live, err := space.Sweep(ctx, dir, o.Now) // job 1
	if err != nil {
		return err
	}
	for _, id := range cleaned {
		rep.Repaired = append(rep.Repaired, Repair{Kind: "stale_session_lock", Space: sp.ID, ID: id,
			Detail: "the chat's process is gone: recorded its stop and removed its lock"})
	}
	runs := state.Runs{Dir: dir}
	all, _, err := runs.List()
	if err != nil {
		return err
	}
	rep.RunsChecked += len(all)
	running := 0
	for _, r := range all { // job 2
		if r.Status != state.Running {
			continue
		}
		exit := 1
		done, err := runs.FinalizeOrphan(ctx, state.Run{ID: r.ID, Status: state.Failed, ExitCode: &exit,
			Error: "orphan_run: the run's supervisor ended without recording how the run ended", FinishedAt: state.Timestamp(o.Now)})
		if err != nil {
			return err
		}
		if !done {
			running++
			continue
		}
		detail := "finalized as failed (orphan_run)"
		switch n, err := run.Reap(runs.ArtifactDir(r.ID)); {
		case err != nil:
			detail += "; could not look for processes it left: " + err.Error()
		case n > 0:
			detail += fmt.Sprintf("; stopped %d process(es) its harness left running", n)
		}
		rep.Repaired = append(rep.Repaired, Repair{Kind: "orphan_run", Space: sp.ID, ID: r.ID, Detail: detail})
	}
	// job 3: closed, yet something lives in it
	if sp.Status != state.Closed || len(live) == 0 && running == 0 {
		return nil
	}
	if _, err := p.State.UpdateSpace(ctx, sp.ID, func(s *state.Space) error {
		s.Status, s.FinishedAt = state.Active, nil
		return nil
	}); err != nil {
		return err
	}
	rep.Repaired = append(rep.Repaired, Repair{Kind: "stale_space_status", Space: sp.ID,
		Detail: fmt.Sprintf("marked active: it was closed, yet %d chat(s) live and %d run(s) run in it", len(live), running)})
	return nil
}

func harnesses(cfg *config.Loaded, path string) []Harness {
	var out []Harness
	for _, h := range harness.All() {
		cmd, _ := cfg.Harness.Command(h.Name())
		st := Harness{Name: h.Name(), Command: cmd, Install: h.Install()}
		if exe, err := harness.Find(cmd, path); err == nil {
			st.Path, st.Installed = exe, true
		}
		out = append(out, st)
	}
	return out
}

func nextStep(kind string) string {
	if kind == "harness_not_installed" {
		return "install it, or set [harness] default in .meridian/config.toml to one that is installed"
	}
	return "inspect the file and repair or remove the space by hand; doctor never rewrites it"
}
