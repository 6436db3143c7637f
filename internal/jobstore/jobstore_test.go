package jobstore_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/internal/jobstore"
	"github.com/duet-cli/duet/lock"
)

// TestCurrent: a job recorded running is running while its lock is held;
// once the lock is free it was lost (failed), or cancelled when its cancel
// was asked for; a job still starting is given StartGrace.
func TestCurrent(t *testing.T) {
	s := &jobstore.Store{Dir: t.TempDir()}
	now := time.Now().UTC()
	save := func(id string, pid int, created time.Time) {
		t.Helper()
		if err := s.Save(jobstore.Job{ID: id, Command: "export", Status: jobstore.Running, PID: pid, Created: created}); err != nil {
			t.Fatal(err)
		}
	}
	save("held", 42, now)
	save("lost", 42, now)
	save("cancelled", 42, now)
	save("starting", 0, now)
	save("never-started", 0, now.Add(-jobstore.StartGrace-time.Second))
	h, err := lock.Acquire(context.Background(), s.LockPath("held"), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	if err := s.MarkCancel("cancelled"); err != nil {
		t.Fatal(err)
	}
	got := map[string]jobstore.Status{}
	for _, id := range []string{"held", "lost", "cancelled", "starting", "never-started"} {
		j, err := s.Current(id, now)
		if err != nil {
			t.Fatal(err)
		}
		got[id] = j.Status
	}
	want := map[string]jobstore.Status{"held": jobstore.Running, "lost": jobstore.Failed, "cancelled": jobstore.Cancelled,
		"starting": jobstore.Running, "never-started": jobstore.Failed}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if _, err := s.Current("../etc", now); err == nil {
		t.Error("an invalid id was looked up")
	}
	if jobs, err := s.List(now); err != nil || len(jobs) != 5 {
		t.Errorf("List: %d jobs, %v", len(jobs), err)
	}
}

func TestValidID(t *testing.T) {
	ok := regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,80}$`) // what ValidID checks by hand
	for _, id := range []string{"", "a", "j-1", "-a", "A", "a_b", "a.b", "9", strings.Repeat("a", 81), strings.Repeat("a", 82), "a-", "ü"} {
		if got, want := jobstore.ValidID(id), ok.MatchString(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}

// TestKeyedID: the id of keyed work is the same for the same key, a valid
// job id, and names its command.
func TestKeyedID(t *testing.T) {
	a, b := jobstore.KeyedID("Data.Tally", "c7f139cad2fa6384"), jobstore.KeyedID("Data.Tally", "c7f139cad2fa6384")
	if a != b || a != "data-tally-c7f139cad2fa6384" || !jobstore.ValidID(a) {
		t.Errorf("KeyedID: %q and %q, want data-tally-c7f139cad2fa6384 twice", a, b)
	}
	if other := jobstore.KeyedID("data.tally", "1"); other == a {
		t.Errorf("two keys, one id %q", a)
	}
}
