package state

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/duet-cli/duet/examples/meridian/internal/lines"
)

// SessionEvent is one line of sessions.jsonl: a chat (a harness process
// launched by meridian) starting, learning its harness session id, or
// stopping. Params are the harness flags it was started with, the defaults
// of a continuation.
type SessionEvent struct {
	V                int      `json:"v"`
	Event            string   `json:"event"` // start, update or stop
	SessionID        string   `json:"session_id"`
	Harness          string   `json:"harness,omitempty"`
	HarnessSessionID string   `json:"harness_session_id,omitempty"`
	Model            string   `json:"model,omitempty"`
	Agent            string   `json:"agent,omitempty"`
	Params           []string `json:"params,omitempty"`
	PID              int      `json:"pid,omitempty"` // meridian start: it takes SIGTERM to end the chat, and records the end
	// HarnessPID is the harness's process, which holds the chat's lock as
	// well: it is stopped itself when meridian start is gone.
	HarnessPID int    `json:"harness_pid,omitempty"`
	StartedAt  string `json:"started_at,omitempty"`
	StoppedAt  string `json:"stopped_at,omitempty"`
}

// Sessions is one space's chats.
type Sessions struct{ Dir string } // the space directory

func (ss Sessions) log() string  { return filepath.Join(ss.Dir, "sessions.jsonl") }
func (ss Sessions) lock() string { return filepath.Join(ss.Dir, "sessions.lock") }

// LockPath is sessions/<id>.lock, held by the chat's process for its life.
func (ss Sessions) LockPath(id string) string { return filepath.Join(ss.Dir, "sessions", id+".lock") }

// Start allocates the next chat id (c<N>, 1 + the chats started) and appends
// its start event under sessions.lock, then takes the chat's liveness lock,
// which the caller holds until the chat ends (release it with Hold.Release).
func (ss Sessions) Start(ctx context.Context, ev SessionEvent) (string, *Hold, error) {
	var id string
	err := withLock(ctx, ss.lock(), func() error {
		chats := map[string]bool{}
		err := eachLog(ss.log(), func(line []byte) {
			if bytes.Contains(line, startMarker) {
				var e SessionEvent
				if json.Unmarshal(line, &e) == nil && e.Event == "start" {
					chats[e.SessionID] = true
				}
			}
		})
		if err != nil {
			return err
		}
		id = "c" + strconv.Itoa(len(chats)+1)
		ev.V, ev.Event, ev.SessionID = 1, "start", id
		return appendLine(ss.log(), ev)
	})
	if err != nil {
		return "", nil, err
	}
	hold, err := Acquire(ss.LockPath(id))
	if err != nil {
		return "", nil, err
	}
	return id, hold, nil
}

// Resume takes the liveness lock of chat id, which is [ErrHeld] while the
// chat is running elsewhere, and appends a start event for it: the chat
// goes on in this process. The caller holds the lock until the chat ends.
func (ss Sessions) Resume(ctx context.Context, id string, ev SessionEvent) (*Hold, error) {
	hold, err := Acquire(ss.LockPath(id))
	if err != nil {
		return nil, err
	}
	ev.V, ev.Event, ev.SessionID = 1, "start", id
	if err := withLock(ctx, ss.lock(), func() error { return appendLine(ss.log(), ev) }); err != nil {
		hold.Release()
		return nil, err
	}
	return hold, nil
}

// Alive reports whether the chat's process still holds its liveness lock.
func (ss Sessions) Alive(id string) (bool, error) { return Alive(ss.LockPath(id)) }

// Append appends an update or stop event under sessions.lock.
func (ss Sessions) Append(ctx context.Context, ev SessionEvent) error {
	ev.V = 1
	return withLock(ctx, ss.lock(), func() error { return appendLine(ss.log(), ev) })
}

// Events reads sessions.jsonl, skipping lines that do not parse.
func (ss Sessions) Events() ([]SessionEvent, error) {
	var events []SessionEvent
	err := eachLog(ss.log(), func(line []byte) {
		var e SessionEvent
		if json.Unmarshal(line, &e) == nil && e.SessionID != "" {
			events = append(events, e)
		}
	})
	return events, err
}

func eachLog(path string, fn func([]byte)) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = lines.Each(f, maxLine, fn)
	return err
}
