package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// record is one call, as written under $FAKE_HARNESS_RECORD; the
// harnesstest package reads the same fields.
type record struct {
	Harness  string            `json:"harness"`
	Argv     []string          `json:"argv"`
	Stdin    string            `json:"stdin"`
	Cwd      string            `json:"cwd"`
	Env      map[string]string `json:"env"`
	PID      int               `json:"pid"`
	PGID     int               `json:"pgid"`
	ChildPID int               `json:"child_pid,omitempty"`
	Mode     string            `json:"mode,omitempty"`
	Time     string            `json:"time"`
}

// recorder writes this process's record, once, when recording is on.
type recorder struct {
	dir   string
	rec   record
	stdin string
	done  bool
	warn  func(error)
}

func newRecorder(h host, name string) *recorder {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "MERIDIAN_") {
			env[k] = v
		}
	}
	pgid, _ := syscall.Getpgid(0)
	return &recorder{
		dir: h.getenv("FAKE_HARNESS_RECORD"),
		rec: record{
			Harness: name, Argv: h.args, Cwd: h.cwd, Env: env,
			PID: os.Getpid(), PGID: pgid, Time: time.Now().UTC().Format(time.RFC3339Nano),
		},
		warn: func(err error) { fmt.Fprintf(h.stderr, "fakeharness: record: %v\n", err) },
	}
}

// write saves the record atomically: a reader never sees half of one.
func (r *recorder) write(mode string, childPID int) {
	if r.dir == "" || r.done {
		return
	}
	r.done = true
	r.rec.Stdin, r.rec.Mode, r.rec.ChildPID = r.stdin, mode, childPID
	name := fmt.Sprintf("%d-%s-%d.json", time.Now().UnixNano(), r.rec.Harness, r.rec.PID)
	//duetvet:allow untracked -- a test double's record, renamed into place at once
	tmp, err := os.CreateTemp(r.dir, ".tmp-*")
	if err != nil {
		r.warn(err)
		return
	}
	_, err = tmp.Write(append(marshal(r.rec), '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(r.dir, name))
	}
	if err != nil {
		os.Remove(tmp.Name())
		r.warn(err)
	}
}
