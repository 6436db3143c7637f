package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/feature/idempotency/internal/store"
	"github.com/duet-cli/duet/lock"
)

// TestBegin: a key is held from Begin to Commit, so a second call with it
// meanwhile waits and then answers LOCK_HELD; after Commit the record
// answers until it expires; Abort records nothing.
func TestBegin(t *testing.T) {
	ctx := context.Background()
	s := &store.Store{Dir: t.TempDir()}
	now := time.Now()
	p, rec, err := s.Begin(ctx, "k", time.Second, now)
	if err != nil || rec != nil || p == nil {
		t.Fatalf("first Begin: %v %v %v", p, rec, err)
	}
	_, _, err = s.Begin(ctx, "k", 10*time.Millisecond, now)
	if e := envelope.As(err); e == nil || e.Code != lock.Code {
		t.Errorf("Begin while held: %v, want LOCK_HELD", err)
	}
	want := store.Record{Fingerprint: "f", Command: "add", Created: now.UTC(), Expires: now.UTC().Add(store.TTL), Data: json.RawMessage(`{"id":"t1"}`)}
	if err := p.Commit(want); err != nil {
		t.Fatal(err)
	}
	_, rec, err = s.Begin(ctx, "k", time.Second, now)
	if err != nil || rec == nil {
		t.Fatalf("Begin after Commit: %v %v", rec, err)
	}
	want.Key = "k"
	if diff := cmp.Diff(want, *rec); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
	p, rec, err = s.Begin(ctx, "k", time.Second, now.Add(store.TTL+time.Second))
	if err != nil || rec != nil {
		t.Errorf("Begin after expiry: %v %v", rec, err)
	}
	p.Abort()
	p, _, err = s.Begin(ctx, "other", time.Second, now)
	if err != nil {
		t.Fatal(err)
	}
	p.Abort()
	if _, rec, _ := s.Begin(ctx, "other", time.Second, now); rec != nil {
		t.Error("Abort recorded an answer")
	}
}
