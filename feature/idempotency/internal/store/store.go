// Package store keeps the answers of a tool's completed calls by
// idempotency key, so that a call repeated with the same key is answered
// from the record instead of being run again. One record per key, written
// atomically; the key's lock is held from the lookup until the answer is
// recorded, so two calls with one key never both run.
package store

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/duet-cli/duet/internal/atomicfile"
	"github.com/duet-cli/duet/lock"
)

// TTL is how long an answer is kept for replay.
const TTL = 24 * time.Hour

// Record is the answer of one completed call.
type Record struct {
	Key         string          `json:"key"`
	Fingerprint string          `json:"fingerprint"` // of the call's input: the same key with another input is a conflict
	Command     string          `json:"command"`
	Created     time.Time       `json:"created"`
	Expires     time.Time       `json:"expires"`
	Effect      string          `json:"effect,omitempty"`
	Data        json.RawMessage `json:"data"`
}

// Store is a directory of records.
type Store struct {
	Dir string
}

// Pending is a call with a key no record holds yet: it holds the key's lock
// until [Pending.Commit] or [Pending.Abort].
type Pending struct {
	store *Store
	key   string
	held  *lock.Held
}

// name is the file name stem of key: a hash, so any key is a safe name.
func name(key string) string {
	h := fnv.New128a() // a name, not a secret: no crypto to start in every app
	h.Write([]byte(key))
	return hex.EncodeToString(h.Sum(nil))
}

// Path returns the record file of key.
func (s *Store) Path(key string) string { return filepath.Join(s.Dir, name(key)+".json") }

func (s *Store) lockPath(key string) string { return filepath.Join(s.Dir, name(key)+".lock") }

// Begin looks key up. When an unexpired record holds it, Begin returns the
// record; otherwise it returns a Pending that holds the key's lock, which it
// waits for at most wait (see lock.Acquire: a call with the same key still
// running is LOCK_HELD).
func (s *Store) Begin(ctx context.Context, key string, wait time.Duration, now time.Time) (*Pending, *Record, error) {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("idempotency records: %w", err)
	}
	held, err := lock.Acquire(ctx, s.lockPath(key), wait)
	if err != nil {
		return nil, nil, err
	}
	rec, err := s.Load(key)
	switch {
	case err == nil && now.Before(rec.Expires):
		held.Release()
		return nil, &rec, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		held.Release()
		return nil, nil, err
	}
	return &Pending{store: s, key: key, held: held}, nil, nil
}

// Load reads the record of key, expired or not.
func (s *Store) Load(key string) (Record, error) {
	raw, err := os.ReadFile(s.Path(key))
	if err != nil {
		return Record{}, err
	}
	var rec Record
	if err := json.Unmarshal(raw, &rec); err != nil || rec.Key != key {
		return Record{}, fmt.Errorf("idempotency record %s is unreadable; remove it", s.Path(key))
	}
	return rec, nil
}

// Commit records the call's answer under its key and releases the key.
func (p *Pending) Commit(rec Record) error {
	defer p.Abort()
	rec.Key = p.key
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return atomicfile.Write(p.store.Path(p.key), append(raw, '\n'), 0o600)
}

// Abort releases the key without recording an answer. It may be called
// more than once.
func (p *Pending) Abort() error { return p.held.Release() }

// Entry is one record file (with its lock) in the store, for cleanup.
type Entry struct {
	Paths   []string
	Bytes   int64
	Age     time.Duration
	Expired bool
	Busy    bool // a call with its key is running
}

// List returns the store's records.
func (s *Store) List(now time.Time) ([]Entry, error) {
	des, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, de := range des {
		stem, ok := strings.CutSuffix(de.Name(), ".lock")
		if !ok {
			continue // each key has a lock; a record may not exist yet
		}
		e := Entry{Busy: !lock.Free(filepath.Join(s.Dir, de.Name()))}
		for _, p := range []string{filepath.Join(s.Dir, stem+".json"), filepath.Join(s.Dir, de.Name())} {
			info, err := os.Lstat(p)
			if err != nil {
				continue
			}
			e.Paths = append(e.Paths, p)
			e.Bytes += info.Size()
			if len(e.Paths) == 1 { // the record's age, else the lock's
				e.Age = now.Sub(info.ModTime())
			}
		}
		e.Expired = true
		if raw, err := os.ReadFile(filepath.Join(s.Dir, stem+".json")); err == nil {
			var rec Record
			if json.Unmarshal(raw, &rec) == nil && now.Before(rec.Expires) {
				e.Expired = false
			}
		}
		out = append(out, e)
	}
	return out, nil
}
