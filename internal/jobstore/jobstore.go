// Package jobstore keeps the records of a tool's async jobs: one JSON file
// per job, written atomically, beside the job's lock — held by the process
// doing the job for as long as it runs, so that a reader can tell a running
// job from one whose process died — and the files its output goes to.
package jobstore

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/duet-cli/duet/internal/atomicfile"
	"github.com/duet-cli/duet/lock"
)

// Status is a job's state.
type Status string

// The states of a job.
const (
	Running   Status = "running"
	Complete  Status = "complete"
	Failed    Status = "failed"
	Cancelled Status = "cancelled"
)

// Terminal reports whether the job has ended.
func (s Status) Terminal() bool { return s != Running }

// StartGrace is how long a job may take to start before, with no process
// holding its lock, it is taken for lost.
const StartGrace = 30 * time.Second

// ErrNotFound is returned for a job id the store does not hold.
var ErrNotFound = errors.New("no such job")

// Job is a job's record.
type Job struct {
	ID        string     `json:"job_id"`
	Command   string     `json:"command"` // the command's dot path
	Status    Status     `json:"status"`
	PID       int        `json:"pid,omitempty"` // the process doing the job, once it started
	TimeoutMS int64      `json:"timeout_ms"`
	PollMS    int64      `json:"poll_interval_ms"`
	Created   time.Time  `json:"created"`
	Started   *time.Time `json:"started,omitempty"`
	Finished  *time.Time `json:"finished,omitempty"`
	ExitCode  *int       `json:"exit_code,omitempty"`
	Lost      bool       `json:"lost,omitempty"` // its process ended without recording how
	// Key names the call that started the job, for a command whose work
	// detaches when the call's budget runs out: the same call attaches
	// to the job while it runs (REQ-F-081).
	Key string `json:"key,omitempty"`
}

// Store is a directory of job records.
type Store struct {
	Dir string
}

// ValidID reports whether id can name a job: ^[a-z0-9][a-z0-9-]{0,80}$,
// checked by hand because compiling that pattern would cost every start of
// every wrapped app (package-level state is built before main).
func ValidID(id string) bool {
	if id == "" || len(id) > 81 || id[0] == '-' {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// NewID returns a new job id for the command at dot path command:
// "<command>-<8 hex digits>".
func NewID(command string) string {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], rand.Uint32()) // math/rand/v2: seeded by the runtime, and no crypto to start
	return idPrefix(command) + "-" + hex.EncodeToString(b[:])
}

// idPrefix is the part of a job id that names its command: the dot path
// in lowercase letters, digits and dashes, at most 40 of them.
func idPrefix(command string) string {
	prefix := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return '-'
	}, command)
	if len(prefix) > 40 {
		prefix = prefix[:40]
	}
	return strings.Trim(prefix, "-")
}

// KeyedID returns the id of the work of command (a dot path) that key names:
// "<command>-<key>", the same for every call with that key, where NewID's
// is new each time. key is made of lowercase letters and digits.
func KeyedID(command, key string) string { return idPrefix(command) + "-" + key }

// Path returns the record of job id.
func (s *Store) Path(id string) string { return filepath.Join(s.Dir, id+".json") }

// LockPath returns the lock the job's process holds while it runs.
func (s *Store) LockPath(id string) string { return filepath.Join(s.Dir, id+".lock") }

// OutPath returns the file the job's answer (its envelope) goes to.
func (s *Store) OutPath(id string) string { return filepath.Join(s.Dir, id+".out") }

// ErrPath returns the file the job's diagnostics go to.
func (s *Store) ErrPath(id string) string { return filepath.Join(s.Dir, id+".err") }

// CancelPath returns the marker of a cancel asked for: a process that the
// cancel's signal killed before it could record its end was cancelled, not
// lost. It is a file of its own so that it never races the job's record.
func (s *Store) CancelPath(id string) string { return filepath.Join(s.Dir, id+".cancel") }

// MarkCancel records that the job's cancel was asked for.
func (s *Store) MarkCancel(id string) error {
	if !ValidID(id) {
		return fmt.Errorf("%s: %w", id, ErrNotFound)
	}
	return atomicfile.Write(s.CancelPath(id), nil, 0o600)
}

// Save writes j's record atomically, mode 0600, making the directory
// (mode 0700) if need be.
func (s *Store) Save(j Job) error {
	if !ValidID(j.ID) {
		return fmt.Errorf("job id %q is not valid", j.ID)
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("jobs: %w", err)
	}
	raw, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(s.Path(j.ID), append(raw, '\n'), 0o600)
}

// Load reads job id's record as written.
func (s *Store) Load(id string) (Job, error) {
	if !ValidID(id) {
		return Job{}, fmt.Errorf("%s: %w", id, ErrNotFound)
	}
	raw, err := os.ReadFile(s.Path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return Job{}, fmt.Errorf("%s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Job{}, err
	}
	var j Job
	if err := json.Unmarshal(raw, &j); err != nil {
		return Job{}, fmt.Errorf("job %s: unreadable record: %w", id, err)
	}
	return j, nil
}

// Current reads job id's record and judges it: a job recorded as running
// whose lock nobody holds has lost its process — when the process had
// started, or when it should have by now — and is reported failed and
// Lost.
func (s *Store) Current(id string, now time.Time) (Job, error) {
	j, err := s.Load(id)
	if err != nil || j.Status.Terminal() || !lock.Free(s.LockPath(id)) {
		return j, err
	}
	if j2, err := s.Load(id); err == nil && j2.Status.Terminal() {
		return j2, nil // it ended between the two looks
	}
	if j.PID != 0 || now.Sub(j.Created) > StartGrace {
		j.Status, j.Lost = Failed, true
		if _, err := os.Stat(s.CancelPath(id)); err == nil {
			j.Status = Cancelled // killed by its cancel before it could say so
		}
	}
	return j, nil
}

// List returns every job's current record, the newest first.
func (s *Store) List(now time.Time) ([]Job, error) {
	des, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var jobs []Job
	for _, de := range des {
		id, ok := strings.CutSuffix(de.Name(), ".json")
		if !ok || !ValidID(id) {
			continue
		}
		if j, err := s.Current(id, now); err == nil {
			jobs = append(jobs, j)
		}
	}
	slices.SortFunc(jobs, func(a, b Job) int { return b.Created.Compare(a.Created) })
	return jobs, nil
}

// Files returns the paths of job id's files that exist: record, lock,
// output, diagnostics and cancel marker.
func (s *Store) Files(id string) []string {
	var out []string
	for _, p := range []string{s.Path(id), s.LockPath(id), s.OutPath(id), s.ErrPath(id), s.CancelPath(id)} {
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}
