//go:build unix

package adapters

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/duet-cli/duet/internal/jobstore"
)

// jobLockFD is where the detached process finds the job's lock.
const jobLockFD = 3

// spawnJob records the job and starts its detached process: in a session
// of its own (no terminal, no signal meant for the starting process), with
// stdout and stderr the job's files, stdin a pipe closed once the job is
// recorded with the process's id, and the job's lock — taken here, before
// the record says it runs — as its descriptor 3, so that the lock is held
// from now until the process and all it shares the lock with have exited.
func spawnJob(store *jobstore.Store, j *jobstore.Job, exe string, args, env []string) error {
	if err := os.MkdirAll(store.Dir, 0o700); err != nil {
		return err
	}
	lockf, err := os.OpenFile(store.LockPath(j.ID), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lockf.Close()
	if err := syscall.Flock(int(lockf.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return fmt.Errorf("lock the job: %w", err)
	}
	if err := store.Save(*j); err != nil {
		return err
	}
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	open := func(path string) *os.File {
		f, ferr := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
		if ferr != nil {
			err = errors.Join(err, ferr)
			return nil
		}
		files = append(files, f)
		return f
	}
	stdout, stderr := open(store.OutPath(j.ID)), open(store.ErrPath(j.ID))
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	files = append(files, r, w)
	//duetvet:allow rawexec -- a detached job of this very binary, meant to outlive the invocation
	cmd := exec.Command(exe, args...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = r, stdout, stderr
	cmd.ExtraFiles = []*os.File{lockf} // descriptor 3
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // reaps it, should this process outlive it
	now := time.Now().UTC()
	j.PID, j.Started = cmd.Process.Pid, &now
	if err := store.Save(*j); err != nil {
		cmd.Process.Kill()
		return err
	}
	return w.Close() // the job may start
}

// keepJobLock keeps the job's lock, inherited as descriptor 3, from the
// programs the job runs: it is this process's to hold, and the job ends
// when this process does.
func keepJobLock() { syscall.CloseOnExec(jobLockFD) }

// terminate sends SIGTERM to the job's process.
func terminate(pid int) error {
	if pid <= 0 {
		return errors.New("no process")
	}
	return syscall.Kill(pid, syscall.SIGTERM)
}
