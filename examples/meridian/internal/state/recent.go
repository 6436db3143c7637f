package state

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Recent reads the log from its end for the runs that match keep, newest
// first, and stops once it has found want of them: the first page of a
// list is read from the last events of the log, not from all of it. A run
// is whole once its start event is read, for its other events follow it.
// complete says the whole log was read, so runs are all the matches; else
// more may precede them. skipped counts the lines that did not parse among
// those read.
func (rs Runs) Recent(want int, keep func(*Run) bool) (runs []*Run, complete bool, skipped int, err error) {
	seen := map[string]*Run{} // runs whose start is yet to be read
	done := map[string]bool{}
	complete, skipped, err = rs.backwards(func(ev *Event) bool {
		if done[ev.ID] {
			// Before its start: a second start event, which Meridian never
			// writes (ids are allocated under the log's lock), or damage.
			return true
		}
		r := seen[ev.ID]
		if r == nil {
			r = &Run{}
			seen[ev.ID] = r
		}
		foldUnder(r, ev.Run)
		if ev.Event != "start" {
			return true
		}
		r.ID = ev.ID
		delete(seen, ev.ID)
		done[ev.ID] = true
		if keep(r) {
			runs = append(runs, r)
		}
		return len(runs) < want
	})
	if err != nil {
		return nil, false, 0, fmt.Errorf("read %s: %w", rs.LogPath(), err)
	}
	return runs, complete, skipped, nil
}

// Find reads the log from its end for the run with id, and stops at its
// start event: a recent run is found in its last events. ok is false when
// the log has no such run.
func (rs Runs) Find(id string) (run *Run, ok bool, skipped int, err error) {
	r := &Run{}
	events := 0
	_, skipped, err = rs.backwards(func(ev *Event) bool {
		if ev.ID != id {
			return true
		}
		events++
		foldUnder(r, ev.Run)
		if ev.Event == "start" {
			r.ID, ok = id, true
			return false
		}
		return true
	})
	if err != nil {
		return nil, false, 0, fmt.Errorf("read %s: %w", rs.LogPath(), err)
	}
	return r, ok, skipped, nil
}

// foldUnder folds an earlier event under what later ones said: the log is
// read backwards, and the last value of each field wins. That is the event
// with r folded over it.
func foldUnder(r *Run, ev Run) {
	fold(&ev, *r)
	*r = ev
}

// chunk is how much of the log is read at a time, from the end.
const chunk = 256 << 10

// backwards calls fn with the log's events from the last to the first
// until fn returns false; complete says it reached the first. A last line
// without its newline (a torn append) and lines that do not parse are
// skipped and counted; a line longer than maxLine is too.
func (rs Runs) backwards(fn func(*Event) bool) (complete bool, skipped int, err error) {
	f, err := os.Open(rs.LogPath())
	if errors.Is(err, fs.ErrNotExist) {
		return true, 0, nil
	}
	if err != nil {
		return false, 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return false, 0, err
	}
	d := decoder{intern: map[string]string{}}
	var ev Event
	line := func(b []byte) bool {
		if len(b) == 0 {
			return true
		}
		if len(b) > maxLine || !d.decode(b, &ev) || ev.ID == "" {
			skipped++
			return true
		}
		return fn(&ev)
	}
	end := info.Size()
	var tail []byte // the start of a line whose end a later chunk held
	first := true
	for end > 0 {
		start := max(0, end-chunk)
		buf := make([]byte, end-start, end-start+int64(len(tail)))
		if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
			return false, skipped, err
		}
		buf = append(buf, tail...)
		if first {
			first = false
			if n := len(buf); n > 0 && buf[n-1] != '\n' { // torn: no newline yet
				i := bytes.LastIndexByte(buf, '\n')
				skipped++
				buf = buf[:i+1]
			}
		}
		buf = bytes.TrimSuffix(buf, []byte("\n"))
		for {
			i := bytes.LastIndexByte(buf, '\n')
			if i < 0 {
				break
			}
			if !line(buf[i+1:]) {
				return false, skipped, nil
			}
			buf = buf[:i]
		}
		tail = buf // a line that may begin before this chunk
		end = start
		if len(tail) > maxLine {
			skipped++
			tail = nil // its beginning is skipped too: see the first line of the next chunk
		}
	}
	if !line(tail) {
		return false, skipped, nil
	}
	return true, skipped, nil
}
