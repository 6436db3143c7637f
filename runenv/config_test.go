package runenv_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/lock"
	"github.com/duet-cli/duet/runenv"
)

// TestWriteConfig: a configuration write replaces the file all at once —
// a reader running alongside a writer only ever sees a whole old or a
// whole new configuration, never a mix or an empty file — and makes its
// directory; a command that declares no configuration cannot write one
// (C-025).
func TestWriteConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app", "config.json")
	env := runenv.Env{ConfigFile: path}
	a, b := bytes.Repeat([]byte("a"), 1<<20), bytes.Repeat([]byte("b"), 1<<19)
	if err := env.WriteConfig(a); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		for i := range 50 {
			data := a
			if i%2 == 0 {
				data = b
			}
			if err := env.WriteConfig(data); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for reading := true; reading; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			reading = false
		default:
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, a) && !bytes.Equal(got, b) {
			t.Fatalf("a reader saw a partial configuration of %d bytes", len(got))
		}
	}
	if err := (runenv.Env{}).WriteConfig(a); !errors.Is(err, runenv.ErrNoConfigFile) {
		t.Errorf("WriteConfig without a ConfigFile: %v", err)
	}
}

// TestUpdateConfig: updates of one configuration file made at once each
// see the file as the previous one left it, so none is lost (O-036); the
// first sees no file; a failed change writes nothing; a command that
// declares no configuration cannot update one; a writer that cannot get
// the lock before its context ends answers LOCK_HELD and writes nothing.
func TestUpdateConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app", "config.json")
	env := runenv.Env{ConfigFile: path}
	ctx := context.Background()
	set := func(key string) func([]byte) ([]byte, error) {
		return func(old []byte) ([]byte, error) {
			settings := map[string]string{}
			if old != nil {
				if err := json.Unmarshal(old, &settings); err != nil {
					return nil, err
				}
			}
			settings[key] = "v"
			return json.Marshal(settings)
		}
	}
	var sawNone bool
	err := env.UpdateConfig(ctx, func(old []byte) ([]byte, error) {
		sawNone = old == nil
		return set("first")(old)
	})
	if err != nil || !sawNone {
		t.Fatalf("first update: %v, saw no file %v", err, sawNone)
	}

	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := env.UpdateConfig(ctx, set(fmt.Sprintf("key%d", i))); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	read := func() map[string]string {
		t.Helper()
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var settings map[string]string
		if err := json.Unmarshal(raw, &settings); err != nil {
			t.Fatalf("%s is not JSON: %v", path, err)
		}
		return settings
	}
	settings := read()
	for i := range n {
		if _, ok := settings[fmt.Sprintf("key%d", i)]; !ok {
			t.Errorf("the update of key%d was lost: %v", i, settings)
		}
	}

	boom := errors.New("boom")
	err = env.UpdateConfig(ctx, func([]byte) ([]byte, error) { return []byte("garbage"), boom })
	if !errors.Is(err, boom) || len(read()) != n+1 {
		t.Errorf("a failed change: %v, and the file holds %v", err, read())
	}
	if err := (runenv.Env{}).UpdateConfig(ctx, set("x")); !errors.Is(err, runenv.ErrNoConfigFile) {
		t.Errorf("UpdateConfig without a ConfigFile: %v", err)
	}

	held, err := lock.Acquire(ctx, path+".lock", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	err = env.UpdateConfig(short, set("late"))
	var e *envelope.Error
	if !errors.As(err, &e) || e.Code != lock.Code {
		t.Errorf("an update while another holds the lock: %v; want %s", err, lock.Code)
	}
	if _, ok := read()["late"]; ok {
		t.Error("an update that never got the lock was written")
	}
}
