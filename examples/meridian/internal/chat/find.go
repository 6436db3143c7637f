package chat

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/examples/meridian/internal/project"
	"github.com/duet-cli/duet/examples/meridian/internal/space"
	"github.com/duet-cli/duet/examples/meridian/internal/state"
	"github.com/duet-cli/duet/exitcode"
)

// found is the chat a continuation names, in its space.
type found struct {
	space state.Space
	chat  space.Chat
}

// find resolves --continue's target: a chat alias or a harness session id,
// searched in spaceID, or in every space when it is ""; with no target, the
// last chat of spaceID, or of the last active space.
func find(p project.Project, spaceID, target string) (found, error) {
	var scope []state.Space
	switch {
	case spaceID != "":
		sp, err := space.Get(p, spaceID)
		if err != nil {
			return found{}, err
		}
		scope = []state.Space{sp}
	case target == "":
		sp, err := lastActive(p)
		if err != nil {
			return found{}, err
		}
		if sp == nil {
			return found{}, envelope.Errorf(exitcode.NotFound, "NO_ACTIVE_SPACE", "No active space has a chat to continue").
				WithSuggestion("run 'meridian start' to begin one, or name a chat: 'meridian start --continue c1 --space <id>'")
		}
		scope = []state.Space{*sp}
	default:
		spaces, _, err := p.State.Spaces()
		if err != nil {
			return found{}, err
		}
		scope = spaces
	}
	var matches []found
	for _, sp := range scope {
		chats, err := space.Chats(p.State.SpaceDir(sp.ID))
		if err != nil {
			return found{}, err
		}
		if target == "" {
			if len(chats) > 0 {
				matches = append(matches, found{sp, lastStarted(chats)})
			}
			continue
		}
		for _, c := range chats {
			if c.ID == target || !chatAlias(target) && c.HarnessSessionID == target {
				matches = append(matches, found{sp, c})
			}
		}
	}
	switch {
	case len(matches) == 1:
		return matches[0], nil
	case len(matches) > 1:
		var where []string
		for _, m := range matches {
			where = append(where, m.space.ID)
		}
		return found{}, envelope.Validationf("AMBIGUOUS_SESSION", "Chat %s exists in multiple spaces (%s)", target, strings.Join(where, ", ")).
			WithSuggestion(fmt.Sprintf("use --space to disambiguate: 'meridian start --space %s --continue %s'", where[0], target)).
			WithField("continue")
	case target == "":
		return found{}, envelope.Errorf(exitcode.NotFound, "NO_CHAT", "Space %s has no chat to continue", scope[0].ID).
			WithSuggestion(fmt.Sprintf("start one with 'meridian start --space %s'", scope[0].ID))
	}
	in := "any space"
	if spaceID != "" {
		in = "space " + spaceID
	}
	return found{}, envelope.Errorf(exitcode.NotFound, "CHAT_NOT_FOUND", "No chat or harness session %s in %s", target, in).
		WithSuggestion("run 'meridian space show <space-id>' to see a space's chats")
}

// lastStarted is the chat started (or continued) last; within a second,
// the one started later.
func lastStarted(chats []space.Chat) space.Chat {
	last := chats[0]
	for _, c := range chats[1:] {
		if c.StartedAt >= last.StartedAt {
			last = c
		}
	}
	return last
}

// lastActive is the active space worked in last — whose space.json,
// sessions.jsonl or runs.jsonl changed last — or nil when none is active.
func lastActive(p project.Project) (*state.Space, error) {
	spaces, _, err := p.State.Spaces()
	if err != nil {
		return nil, fmt.Errorf("read the spaces: %w", err)
	}
	var best *state.Space
	var bestAt time.Time
	for i, sp := range spaces {
		if sp.Status != state.Active {
			continue
		}
		at := activity(p.State.SpaceDir(sp.ID))
		if best == nil || !at.Before(bestAt) { // a tie goes to the newer space
			best, bestAt = &spaces[i], at
		}
	}
	return best, nil
}

func activity(dir string) time.Time {
	var last time.Time
	for _, name := range []string{"space.json", "sessions.jsonl", "runs.jsonl"} {
		if info, err := os.Stat(filepath.Join(dir, name)); err == nil && info.ModTime().After(last) {
			last = info.ModTime()
		}
	}
	return last
}
