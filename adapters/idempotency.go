package adapters

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"hash/fnv"
	"path/filepath"
	"slices"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/internal/idempotency"
	"github.com/duet-cli/duet/lock"
	"github.com/duet-cli/duet/schema"
)

// idempotent looks up the call's --idempotency-key. A record of a completed
// call with the key answers at once — its data, effect noop,
// meta.idempotency_hit — without running the command; a record of another
// call (other input) is a conflict. Otherwise the call holds the key until
// its answer is recorded (see record), so that the same key given twice at
// once runs once: the second waits, then replays, or answers LOCK_HELD.
func (inv *invocation) idempotent(ctx context.Context) (code int, done bool) {
	key, ok := inv.call.opt(flagname.IdempotencyKey)
	if !ok || key == "" {
		return 0, false
	}
	store, err := inv.idempotencyStore()
	if err != nil {
		return inv.finish(err), true
	}
	fp := inv.fingerprint()
	p, rec, berr := store.Begin(ctx, key, lock.DefaultWait, time.Now())
	switch {
	case berr != nil:
		return inv.finish(envelope.As(berr)), true
	case rec == nil:
		inv.work.idem = p
		return 0, false
	case rec.Fingerprint != fp:
		e := envelope.Errorf(exitcode.Conflict, "IDEMPOTENCY_KEY_REUSED",
			"idempotency key %q was used for another call (%s with other input), at %s; nothing was run", key, rec.Command, rec.Created.Format(time.RFC3339)).
			WithPhase(envelope.Validation).
			WithField(flagname.IdempotencyKey).
			WithSuggestion("use a new key for a new call; repeat a key only to repeat the same call")
		return inv.finish(e), true
	}
	inv.out.Result(rec.Data)
	inv.out.Effect(envelope.Noop)
	inv.meta.IdempotencyHit = true
	return inv.finish(nil), true
}

func (inv *invocation) idempotencyStore() (*idempotency.Store, *envelope.Error) {
	dir, err := inv.stateDir()
	if err != nil {
		return nil, noStateDir(inv.root.Name, err)
	}
	return &idempotency.Store{Dir: filepath.Join(dir, "idempotency")}, nil
}

// record keeps the answer of a call that succeeded under its key. A call
// that failed is not recorded: repeating it runs it again.
func (inv *invocation) record(p *idempotency.Pending) {
	data := json.RawMessage("null")
	if raw, ok, err := inv.out.RecordedJSON(); ok && err == nil {
		data = raw
	}
	now := time.Now().UTC()
	err := p.Commit(idempotency.Record{
		Fingerprint: inv.fingerprint(),
		Command:     inv.call.node.DotPath(),
		Created:     now,
		Expires:     now.Add(idempotency.TTL),
		Effect:      string(inv.out.Effected()),
		Data:        data,
	})
	if err != nil {
		inv.out.Warn("IDEMPOTENCY_NOT_RECORDED", "the answer could not be recorded under its idempotency key: "+err.Error(),
			"a repeat with this key will run the command again")
	}
}

// fingerprint identifies the call's input: the command, its arguments, and
// the values of its own flags, from the command line, the environment or a
// profile. Duet's flags (--output, --timeout, --yes ...) shape the answer,
// not the call, and are left out — but a built-in command's own flags
// (cleanup's --scope, the flags profile save saves) are its input.
func (inv *invocation) fingerprint() string {
	c := inv.call
	flags := map[string][]string{}
	own := builtinInputs(c.node)
	for f := range c.node.Accepted() {
		if (!f.Builtin || own[f.Name]) && c.has(f.Name) {
			flags[f.Name] = c.values[f.Name]
		}
	}
	for _, p := range inv.presets(c.node) {
		if _, set := flags[p.name]; !set {
			flags[p.name] = []string{p.value}
		}
	}
	raw, _ := json.Marshal(struct {
		Command string              `json:"command"`
		Args    []string            `json:"args"`
		Flags   map[string][]string `json:"flags"`
	}{c.node.DotPath(), slices.Concat(c.args, inv.deleg.forwarded), flags})
	h := fnv.New128a() // tells one call's input from another's; not a secret
	h.Write(raw)
	return hex.EncodeToString(h.Sum(nil))
}

// builtinInputs are the names of a built-in command's own flags, its input:
// those of its own that are not the flags Duet gives every command of its
// kind (commandFlags, discoveryCommandFlags). nil for an app's command,
// whose input flags are those not marked Builtin.
func builtinInputs(node *schema.Command) map[string]bool {
	if !node.Builtin {
		return nil
	}
	given := map[string]bool{}
	for _, f := range commandFlags(nil, node) {
		given[f.Name] = true
	}
	for _, f := range discoveryCommandFlags(node) {
		given[f.Name] = true
	}
	own := map[string]bool{}
	for _, f := range node.Flags {
		if !f.Persistent && !given[f.Name] {
			own[f.Name] = true
		}
	}
	return own
}
