package envelope

import (
	"bytes"
	"io"
)

// ChildLog returns where the command sends a wrapped program's output — its
// log, as ansible-playbook or terraform apply print it — to be set as the
// program's Stdout and Stderr (the same writer for both keeps their lines
// in order):
//
//	cmd := proc.Command(ctx, "ansible-playbook", "site.yml")
//	log := out.ChildLog()
//	defer log.Close()
//	cmd.Stdout, cmd.Stderr = log, log
//
// A command that declares schema.Meta.ChildLog streams it to stderr as
// plain text, line by line, whoever reads and whatever --format says:
// auto-quiet, --verbose and --debug leave it on, --quiet silences it
// (REQ-F-038, REQ-O-008). A command that does not declare it shows it only
// to a person watching stderr, and never to an agent or where nobody
// watches, so that its stderr carries Duet's own diagnostics only. Either
// way, stdout holds only the answer.
//
// Each complete line is written at once, progress cleared before it and
// secrets redacted; escape sequences are removed where stderr is not a
// terminal. Close writes an unfinished last line; the lifecycle does so for
// a log still open when the command returns. Writes never fail, so a
// program is never stopped by a log nobody reads. Safe for concurrent use.
func (o *Output) ChildLog() io.WriteCloser {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := &childLog{o: o, shown: o.childLogShown()}
	o.childLogs = append(o.childLogs, l)
	return l
}

// childLogShown reports whether a wrapped program's log reaches stderr.
func (o *Output) childLogShown() bool {
	switch {
	case o.s.Quiet:
		return false
	case o.s.ChildLog:
		return true
	}
	return !o.s.Hush && !o.s.Mode.Agent
}

// childLog is one program's log on its way to stderr: whole lines only, so
// that a progress line or a log record is never written into the middle of
// one.
type childLog struct {
	o       *Output
	shown   bool
	partial []byte // the unfinished line, under o.mu
}

func (l *childLog) Write(p []byte) (int, error) {
	if !l.shown {
		return len(p), nil
	}
	l.o.mu.Lock()
	defer l.o.mu.Unlock()
	data := p
	if len(l.partial) > 0 {
		l.partial = append(l.partial, p...)
		data = l.partial
	}
	end := bytes.LastIndexByte(data, '\n')
	if end < 0 {
		if len(l.partial) == 0 {
			l.partial = append(l.partial, p...)
		}
		return len(p), nil
	}
	l.writeLocked(data[:end+1])
	l.partial = append(l.partial[:0], data[end+1:]...)
	return len(p), nil
}

// Close writes the unfinished last line, ended with a newline.
func (l *childLog) Close() error {
	l.o.mu.Lock()
	defer l.o.mu.Unlock()
	l.flushLocked()
	return nil
}

func (l *childLog) flushLocked() {
	if len(l.partial) > 0 {
		l.writeLocked(append(l.partial, '\n'))
		l.partial = l.partial[:0]
	}
}

// writeLocked writes whole lines to stderr. An error is dropped: a closed
// stderr must not fail the program whose log it is.
func (l *childLog) writeLocked(lines []byte) {
	o := l.o
	o.progress.clearLocked()
	text := o.redact(string(lines))
	if !o.s.Mode.ErrTerminal {
		text = stripEscapes(text)
	}
	io.WriteString(o.s.Stderr, text)
}

// flushChildLogsLocked writes what the command's child logs still hold,
// before the answer.
func (o *Output) flushChildLogsLocked() {
	for _, l := range o.childLogs {
		if l.shown {
			l.flushLocked()
		}
	}
}
