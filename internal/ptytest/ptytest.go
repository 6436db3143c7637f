//go:build linux

// Package ptytest runs a program the way a person's shell does: with a
// pseudo-terminal as its stdin, stdout and stderr and as its controlling
// terminal, so that it sees a terminal and a test sees what the person would.
//
//	p := ptytest.Start(t, exec.Command(bin, "list"))
//	p.WaitFor(t, "[y/N]")
//	p.Write(t, "y\n")
//	screen, code := p.Wait(t)
package ptytest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// Session is a program running on a pseudo-terminal.
type Session struct {
	Cmd    *exec.Cmd
	master *os.File
	mu     sync.Mutex
	out    bytes.Buffer
	done   chan struct{} // closed when the terminal has nothing more to read
}

// Start starts cmd on a new 120x40 pseudo-terminal in a session of its own.
// The program is killed when the test ends, if it has not exited.
func Start(t testing.TB, cmd *exec.Cmd) *Session {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatalf("open a pty: %v", err)
	}
	if err := pty.Setsize(master, &pty.Winsize{Cols: 120, Rows: 40}); err != nil {
		t.Fatalf("size the pty: %v", err)
	}
	s := &Session{Cmd: cmd, master: master, done: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		master.Close()
		slave.Close()
		t.Fatal(err)
	}
	slave.Close() // the child holds it now; EOF (EIO) comes when it exits
	go func() {
		defer close(s.done)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			s.mu.Lock()
			s.out.Write(buf[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		master.Close()
	})
	return s
}

// Output returns everything the terminal has shown so far.
func (s *Session) Output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// WaitFor waits until the terminal shows text, failing the test after 20
// seconds or when the program ends without showing it.
func (s *Session) WaitFor(t testing.TB, text string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(s.Output(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q; it shows %q", text, s.Output())
		}
		select {
		case <-s.done:
			if !strings.Contains(s.Output(), text) {
				t.Fatalf("the program ended without showing %q; it showed %q", text, s.Output())
			}
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Write types text at the terminal.
func (s *Session) Write(t testing.TB, text string) {
	t.Helper()
	if _, err := s.master.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// Wait waits for the program to exit and returns everything the terminal
// showed and the exit code (-1 when a signal killed it).
func (s *Session) Wait(t testing.TB) (string, int) {
	t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- s.Cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(30 * time.Second):
		s.Cmd.Process.Kill()
		t.Fatalf("the program did not exit; the terminal shows %q", s.Output())
	}
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		t.Errorf("the terminal did not drain")
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return s.Output(), 0
	case errors.As(err, &ee):
		return s.Output(), ee.ExitCode()
	}
	t.Fatalf("wait: %v", err)
	return "", 0
}
