// Package space is what Meridian's commands do with spaces: find the one a
// command works in (from --space or MERIDIAN_SPACE_ID), create one for a run
// that has none, list, show and close them. Failures are structured errors
// with the spec's codes and a next action.
package space

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/examples/meridian/internal/project"
	"github.com/duet-cli/duet/examples/meridian/internal/state"
	"github.com/duet-cli/duet/exitcode"
)

// EnvID is the environment variable that names the current space.
const EnvID = "MERIDIAN_SPACE_ID"

// Codes a command declares for the space it works in.
var Codes = exitcode.Table{
	exitcode.NotFound:     {Description: "The space does not exist."},
	exitcode.Precondition: {Description: "No space is set (MERIDIAN_SPACE_ID), or its space.json is corrupt."},
}

// Resolve returns the space a command works in. id is the value of --space or
// MERIDIAN_SPACE_ID; without one, the command has no context.
func Resolve(p project.Project, id string) (state.Space, error) {
	if id == "" {
		return state.Space{}, envelope.Errorf(exitcode.Precondition, "SPACE_REQUIRED", "No %s set", EnvID).
			WithSuggestion("run 'meridian run spawn' to auto-create a space, or pass --space").
			WithFix("name a space with --space or "+EnvID, "")
	}
	return Get(p, id)
}

// Get reads the space with id.
func Get(p project.Project, id string) (state.Space, error) {
	if err := state.ValidSpaceID(id); err != nil {
		return state.Space{}, envelope.Validationf("INVALID_SPACE_ID", "%v", err).WithField("space")
	}
	sp, err := p.State.Space(id)
	return sp, explain(id, err)
}

// explain turns a state error about space id into one an agent can act on.
func explain(id string, err error) error {
	var corrupt *state.CorruptError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, state.ErrNoSpace):
		return envelope.Errorf(exitcode.NotFound, "SPACE_NOT_FOUND", "Space %s does not exist", id).
			WithSuggestion("run 'meridian space list' to see the spaces").
			WithFix("name an existing space", "")
	case errors.As(err, &corrupt):
		return envelope.Errorf(exitcode.Precondition, "SPACE_CORRUPT", "Space %s cannot be read: %w", id, err).
			WithSuggestion(fmt.Sprintf("inspect %s; 'meridian doctor' reports every space in this state (it never rewrites one)", corrupt.Path)).
			WithFix("repair or remove the space's space.json", "")
	}
	return fmt.Errorf("space %s: %w", id, err)
}

// ForRun returns the space a run goes to: sp, the one the run names (as
// Resolve or Get read it), or else, when sp is nil, a new one created with
// a SPACE_AUTO_CREATED warning — only `run spawn` creates a space. A closed
// space is reopened, with a warning, for the run is work going on in it.
// The caller plans the run first, so a run refused for its input leaves no
// space behind.
func ForRun(ctx context.Context, p project.Project, sp *state.Space, now time.Time) (state.Space, error) {
	out := envelope.From(ctx)
	if sp == nil {
		sp, err := p.State.CreateSpace(ctx, "", now)
		if err != nil {
			return state.Space{}, fmt.Errorf("create a space: %w", err)
		}
		out.Warn("SPACE_AUTO_CREATED", fmt.Sprintf("No %s set. Created space %s", EnvID, sp.ID),
			fmt.Sprintf("set %s=%s for subsequent commands", EnvID, sp.ID))
		return sp, nil
	}
	if sp.Status == state.Active {
		return *sp, nil
	}
	id := sp.ID
	reopened, err := p.State.UpdateSpace(ctx, id, func(sp *state.Space) error {
		sp.Status, sp.FinishedAt = state.Active, nil
		return nil
	})
	if err != nil {
		return state.Space{}, explain(id, err)
	}
	out.Warn("SPACE_REOPENED", fmt.Sprintf("Space %s was closed; reopened it for this run", id),
		"close it again with 'meridian space close "+id+"' when the work is done")
	return reopened, nil
}
