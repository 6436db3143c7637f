// Package idempotency is the feature that gives every non-streaming
// mutating or destructive command --idempotency-key (the CLI Agent Spec's
// REQ-C-007): a call repeated with the key it was first given is not run
// again, and answers the first call's data with effect noop and
// meta.idempotency_hit. Records are kept in the tool's state directory for
// 24 hours; status lists them and cleanup --scope cache removes them.
//
// An app opts in by passing the feature when it is wrapped:
//
//	urfave.Main(app, adapters.WithFeatures(idempotency.New()))
package idempotency

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"time"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/feature/idempotency/internal/store"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/lock"
	"github.com/duet-cli/duet/schema"
)

// New returns the feature.
func New() adapters.Feature { return feature{} }

type feature struct{}

var (
	_ adapters.Flagger     = feature{}
	_ adapters.Checker     = feature{}
	_ adapters.Hook        = feature{}
	_ adapters.StateKeeper = feature{}
)

func (feature) Name() string { return "idempotency" }

// pendingKey is where Begin leaves End the key it holds.
type pendingKey struct{}

// pending is a key held, and the fingerprint of the call holding it.
type pending struct {
	held        *store.Pending
	fingerprint string
}

// Flags gives the key to every non-streaming mutating or destructive
// command, Duet's own built-ins (profile save, cleanup, job cancel ...)
// included; a stream has no one result to replay, nor a protocol server
// (REQ-C-007, REQ-C-032).
func (feature) Flags(c *schema.Command) []schema.Flag {
	writes := c.Meta.Danger == schema.Mutating || c.Meta.Danger == schema.Destructive
	if !c.Runnable || !writes || c.Streams() || c.Meta.Protocol != "" {
		return nil
	}
	return []schema.Flag{{Name: flagname.IdempotencyKey, Type: schema.String, Pattern: `^[A-Za-z0-9._:-]{1,200}$`,
		Usage: "the caller's key for this call: repeated with the same key within 24h, the call is not run again and answers the first call's data with effect noop; without a key, a repeated call runs again"}}
}

// Check refuses a stream or a protocol server that declares the key
// itself.
func (feature) Check(c *schema.Command) error {
	if (c.Streams() || c.Meta.Protocol != "") && c.Flag(flagname.IdempotencyKey) != nil { // REQ-C-007, REQ-C-032
		return errors.New("a streaming or protocol command cannot take --idempotency-key: a replay answers one stored result, and a stream or a protocol has none")
	}
	return nil
}

// Begin looks up the call's key. A record of a completed call with the key
// answers at once — its data, effect noop, meta.idempotency_hit — without
// running the command; a record of another call (other input) is a
// conflict. Otherwise the call holds the key until End, so that the same
// key given twice at once runs once: the second waits, then replays, or
// answers LOCK_HELD.
func (feature) Begin(ctx context.Context, inv *adapters.Invocation) (bool, error) {
	key, ok := inv.Flag(flagname.IdempotencyKey)
	if !ok || key == "" {
		return false, nil
	}
	dir, err := inv.StateDir()
	if err != nil {
		return false, err
	}
	s := &store.Store{Dir: filepath.Join(dir, "idempotency")}
	fp := inv.Fingerprint()
	p, rec, err := s.Begin(ctx, key, lock.DefaultWait, time.Now())
	switch {
	case err != nil:
		return false, err
	case rec == nil:
		inv.Set(pendingKey{}, pending{p, fp})
		return false, nil
	case rec.Fingerprint != fp:
		return false, envelope.Errorf(exitcode.Conflict, "IDEMPOTENCY_KEY_REUSED",
			"idempotency key %q was used for another call (%s with other input), at %s; nothing was run", key, rec.Command, rec.Created.Format(time.RFC3339)).
			WithPhase(envelope.Validation).
			WithField(flagname.IdempotencyKey).
			WithSuggestion("use a new key for a new call; repeat a key only to repeat the same call")
	}
	out := inv.Output()
	out.Result(rec.Data)
	out.Effect(envelope.Noop)
	inv.Meta().IdempotencyHit = true
	return true, nil
}

// End records the answer of a call that succeeded under its key. A call
// that failed is not recorded: repeating it runs it again.
func (feature) End(inv *adapters.Invocation, fail *envelope.Error) {
	p, ok := inv.Get(pendingKey{}).(pending)
	if !ok {
		return
	}
	inv.Set(pendingKey{}, nil)
	if fail != nil {
		p.held.Abort()
		return
	}
	out := inv.Output()
	data := json.RawMessage("null")
	if raw, ok, err := out.RecordedJSON(); ok && err == nil {
		data = raw
	}
	now := time.Now().UTC()
	err := p.held.Commit(store.Record{
		Fingerprint: p.fingerprint,
		Command:     inv.Command().DotPath(),
		Created:     now,
		Expires:     now.Add(store.TTL),
		Effect:      string(out.Effected()),
		Data:        data,
	})
	if err != nil {
		out.Warn("IDEMPOTENCY_NOT_RECORDED", "the answer could not be recorded under its idempotency key: "+err.Error(),
			"a repeat with this key will run the command again")
	}
}

// State is the store, when a command of the tool takes the key.
func (feature) State(root *schema.Command, dir string) []adapters.State {
	keyed := false
	root.Walk(func(c *schema.Command) {
		keyed = keyed || c.Runnable && c.Flag(flagname.IdempotencyKey) != nil
	})
	if !keyed {
		return nil
	}
	dir = filepath.Join(dir, "idempotency")
	s := &store.Store{Dir: dir}
	return []adapters.State{{
		Name:   "the idempotency store",
		File:   adapters.StateFile{Path: dir, Purpose: "answers recorded under --idempotency-key, replayed for 24h", Summary: summary},
		Effect: adapters.SideEffect{Path: dir, Kind: "directory", Purpose: "the idempotency store: a record and a lock per key (cleanup --scope cache)"},
		Scope:  "cache",
		Expired: func(minAge time.Duration, now time.Time) ([]adapters.Removable, error) {
			entries, err := s.List(now)
			if err != nil {
				return nil, err
			}
			var out []adapters.Removable
			for _, e := range entries {
				if !e.Busy && e.Age >= minAge {
					out = append(out, adapters.Removable{Paths: e.Paths, Bytes: e.Bytes})
				}
			}
			return out, nil
		},
	}}
}

// summary is what status says of the store: how many keys it holds, how
// many of them expired and how many a running call holds — never the keys
// or the answers.
func summary(dir string) (any, error) {
	entries, err := (&store.Store{Dir: dir}).List(time.Now())
	if err != nil {
		return nil, err
	}
	expired, busy := 0, 0
	for _, e := range entries {
		if e.Expired {
			expired++
		}
		if e.Busy {
			busy++
		}
	}
	return map[string]int{"keys": len(entries), "expired": expired, "in_use": busy}, nil
}
