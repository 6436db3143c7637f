package space

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/examples/meridian/internal/project"
	"github.com/duet-cli/duet/examples/meridian/internal/state"
)

// Summary is one space in `space list`.
type Summary struct {
	ID         string  `json:"id"`
	Name       *string `json:"name"`
	Status     string  `json:"status"`
	StartedAt  string  `json:"started_at"`
	FinishedAt *string `json:"finished_at"`
}

// List returns every readable space, newest first. Spaces whose space.json
// is missing or corrupt are reported as warnings and left out.
func List(ctx context.Context, p project.Project) ([]Summary, error) {
	spaces, problems, err := p.State.Spaces()
	if err != nil {
		return nil, fmt.Errorf("list spaces: %w", err)
	}
	warnCorrupt(ctx, problems)
	out := make([]Summary, len(spaces))
	for i, sp := range spaces {
		out[len(spaces)-1-i] = summary(sp)
	}
	return out, nil
}

func summary(sp state.Space) Summary {
	return Summary{ID: sp.ID, Name: sp.Name, Status: sp.Status, StartedAt: sp.StartedAt, FinishedAt: sp.FinishedAt}
}

func warnCorrupt(ctx context.Context, problems []error) {
	for _, p := range problems {
		envelope.From(ctx).Warn("SPACE_CORRUPT", p.Error(), "inspect the file; 'meridian doctor' lists every space in this state")
	}
}

// Detail is `space show`: the space, where its files are, its runs by status
// and its chats.
type Detail struct {
	Summary
	Dir   envelope.Path  `json:"dir"` // absolute, wherever the command ran
	FS    envelope.Path  `json:"fs"`
	Runs  map[string]int `json:"runs"` // by status
	Chats []Chat         `json:"chats"`
}

// Chat is one harness session meridian launched in the space.
type Chat struct {
	ID               string   `json:"id"`
	Harness          string   `json:"harness,omitempty"`
	Model            string   `json:"model,omitempty"`
	HarnessSessionID string   `json:"harness_session_id,omitempty"`
	Agent            string   `json:"agent,omitempty"`
	Params           []string `json:"params,omitempty"` // its latest start's harness settings, as meridian flags
	StartedAt        string   `json:"started_at,omitempty"`
	StoppedAt        string   `json:"stopped_at,omitempty"`
	PID              int      `json:"-"` // the process of its latest start
	HarnessPID       int      `json:"-"` // its harness's process
	Alive            bool     `json:"alive"`
	Continue         string   `json:"continue"` // the command that continues it, ready to paste
}

// Show returns the space with id.
func Show(p project.Project, id string, useCache bool) (d Detail, cached bool, err error) {
	sp, err := Get(p, id)
	if err != nil {
		return Detail{}, false, err
	}
	dir := p.State.SpaceDir(id)
	d = Detail{Summary: summary(sp), Dir: envelope.Path(dir), FS: envelope.Path(filepath.Join(dir, "fs")), Runs: map[string]int{}}
	// The runs by status, from the tally `run stats` keeps (state.Runs.Tally):
	// a space of 100,000 runs is not folded again for each look at it.
	groups, _, cached, err := state.Runs{Dir: dir}.Tally(useCache)
	if err != nil {
		return Detail{}, false, err
	}
	for _, g := range groups {
		d.Runs[g.Status] += g.Runs
	}
	if d.Chats, err = Chats(dir); err != nil {
		return Detail{}, false, err
	}
	return d, cached, nil
}

// Chats folds sessions.jsonl of the space in dir into its chats, in order,
// each with its liveness.
func Chats(dir string) ([]Chat, error) {
	ss := state.Sessions{Dir: dir}
	events, err := ss.Events()
	if err != nil {
		return nil, err
	}
	var chats []Chat
	index := map[string]int{}
	for _, ev := range events {
		i, ok := index[ev.SessionID]
		if !ok {
			if ev.Event != "start" {
				continue
			}
			i = len(chats)
			index[ev.SessionID] = i
			chats = append(chats, Chat{ID: ev.SessionID,
				Continue: fmt.Sprintf("meridian start --space %s --continue %s", filepath.Base(dir), ev.SessionID)})
		}
		c := &chats[i]
		if ev.Event == "start" { // a chat continued later starts again, with the settings it says
			c.StoppedAt, c.PID, c.HarnessPID, c.Params = "", ev.PID, 0, ev.Params
			c.Agent = cmp.Or(ev.Agent, c.Agent)
		}
		c.HarnessPID = cmp.Or(ev.HarnessPID, c.HarnessPID)
		c.Harness = cmp.Or(ev.Harness, c.Harness)
		c.Model = cmp.Or(ev.Model, c.Model)
		c.HarnessSessionID = cmp.Or(ev.HarnessSessionID, c.HarnessSessionID)
		c.StartedAt = cmp.Or(ev.StartedAt, c.StartedAt)
		c.StoppedAt = cmp.Or(ev.StoppedAt, c.StoppedAt)
	}
	for i := range chats {
		if chats[i].Alive, err = ss.Alive(chats[i].ID); err != nil {
			return nil, err
		}
	}
	return chats, nil
}

// Closed is what `space close` did.
type Closed struct {
	Summary
	Stopped    []string `json:"stopped_chats"`       // chats that were running, stopped
	StaleLocks []string `json:"stale_locks_removed"` // chats whose process was gone
	LiveChats  []string `json:"live_chats"`          // chats still running: they would not stop
}

// stopWait is how long close waits for a running chat to end after SIGTERM:
// its meridian passes the signal to the harness, waits for it (killing it
// after the configured grace) and records the end.
const stopWait = 10 * time.Second

// Close marks the space closed and ends its chats: a running chat is sent
// SIGTERM and waited for; a chat whose process is gone gets its stop event
// and loses its lock file.
func Close(ctx context.Context, p project.Project, id string, now time.Time) (Closed, error) {
	sp, err := Get(p, id)
	if err != nil {
		return Closed{}, err
	}
	out := envelope.From(ctx)
	if out.DryRun() {
		return closePreview(out, p, sp)
	}
	effect := envelope.Noop
	sp, err = p.State.UpdateSpace(ctx, id, func(sp *state.Space) error {
		if sp.Status != state.Closed {
			effect = envelope.Updated
			sp.Status = state.Closed
			ts := state.Timestamp(now)
			sp.FinishedAt = &ts
		}
		return nil
	})
	if err != nil {
		return Closed{}, explain(id, err)
	}
	out.Effect(effect)
	res := Closed{Summary: summary(sp), Stopped: []string{}, StaleLocks: []string{}, LiveChats: []string{}}
	dir := p.State.SpaceDir(id)
	chats, err := Chats(dir)
	if err != nil {
		return res, err
	}
	if res.Stopped, err = stopRunning(ctx, dir, chats); err != nil {
		return res, err
	}
	cleaned, live, err := Sweep(ctx, dir, now)
	if err != nil {
		return res, err
	}
	res.LiveChats = append(res.LiveChats, live...)
	for _, id := range cleaned {
		if !slices.Contains(res.Stopped, id) {
			res.StaleLocks = append(res.StaleLocks, id)
		}
	}
	if len(res.LiveChats) > 0 {
		out.Warn("LIVE_CHATS", fmt.Sprintf("Space %s still has running chats after SIGTERM: %v", id, res.LiveChats),
			"end them in their terminals; 'meridian doctor' cleans up after them")
	}
	return res, nil
}

// closePreview answers a dry run of Close: the space as it would be, and
// the chats that would be stopped, changing nothing.
func closePreview(out *envelope.Output, p project.Project, sp state.Space) (Closed, error) {
	out.Effect(envelope.Noop)
	if sp.Status != state.Closed {
		out.Effect(envelope.Updated)
	}
	chats, err := Chats(p.State.SpaceDir(sp.ID))
	if err != nil {
		return Closed{}, err
	}
	running := []string{}
	for _, c := range chats {
		if c.Alive {
			running = append(running, c.ID)
		}
	}
	out.WouldAffect(map[string]any{"space": sp.ID, "status": string(sp.Status), "chats_to_stop": running, "reversible": false})
	sp.Status = state.Closed
	return Closed{Summary: summary(sp), Stopped: []string{}, StaleLocks: []string{}, LiveChats: []string{}}, nil
}

// stopRunning sends SIGTERM to the process of every running chat and waits,
// up to stopWait in all, for each to let go of its lock. Only a chat whose
// lock is held is signalled: its pid is then that of a live meridian, not a
// reused number.
func stopRunning(ctx context.Context, dir string, chats []Chat) ([]string, error) {
	ss := state.Sessions{Dir: dir}
	var running []Chat
	for _, c := range chats {
		if !c.Alive {
			continue
		}
		// meridian start ends its harness and records the end; when it is
		// gone, the harness, which holds the chat's lock too, is stopped
		// itself, and the end is recorded here (Sweep).
		if c.PID > 0 && syscall.Kill(c.PID, syscall.SIGTERM) == nil ||
			c.HarnessPID > 0 && syscall.Kill(c.HarnessPID, syscall.SIGTERM) == nil {
			running = append(running, c)
		}
	}
	wait, cancel := context.WithTimeout(ctx, stopWait)
	defer cancel()
	stopped := []string{}
	for _, c := range running {
		if err := state.AwaitRelease(wait, ss.LockPath(c.ID)); err == nil {
			stopped = append(stopped, c.ID)
		} else if ctx.Err() != nil {
			return stopped, ctx.Err()
		}
	}
	return stopped, nil
}

// Sweep records the end of the space's chats whose process is gone
// (StopDead) and says which chats it cleaned up after and which are still
// running.
func Sweep(ctx context.Context, dir string, now time.Time) (cleaned, live []string, err error) {
	chats, err := Chats(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range chats {
		if c.Alive {
			live = append(live, c.ID)
			continue
		}
		stopped, err := StopDead(ctx, dir, c, now)
		if err != nil {
			return cleaned, live, err
		}
		if stopped {
			cleaned = append(cleaned, c.ID)
		}
	}
	return cleaned, live, nil
}

// StopDead records the end of a chat whose process is gone: a stop event if
// it has none, and its lock file removed. It reports whether there was
// anything to clean.
func StopDead(ctx context.Context, dir string, c Chat, now time.Time) (bool, error) {
	ss := state.Sessions{Dir: dir}
	lock := ss.LockPath(c.ID)
	cleaned := false
	if c.StoppedAt == "" {
		if err := ss.Append(ctx, state.SessionEvent{Event: "stop", SessionID: c.ID, StoppedAt: state.Timestamp(now)}); err != nil {
			return false, err
		}
		cleaned = true
	}
	switch err := os.Remove(lock); {
	case err == nil:
		cleaned = true
	case !errors.Is(err, fs.ErrNotExist):
		return cleaned, err
	}
	return cleaned, nil
}
