package run

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/duet-cli/duet/examples/meridian/internal/space"
	"github.com/duet-cli/duet/examples/meridian/internal/state"
)

// MaxOutput is the most of a run's output one Output call returns.
const MaxOutput = 256 << 10

// Output is `run output`: a part of what a run's harness has printed so far
// (output/stdout.jsonl, its event stream as it came), from byte From to
// byte To, and whether the run goes on. Ask again from To for what came
// since: a person's page or an agent follows a run while it runs.
type Output struct {
	Run     string `json:"run"`
	From    int64  `json:"from"`
	To      int64  `json:"to"`
	Text    string `json:"text"`
	More    bool   `json:"more"`    // the file holds more past To already
	Running bool   `json:"running"` // the run has not ended: more may come
}

// OutputPath is the file Output reads: run id's output/stdout.jsonl.
func OutputPath(runs state.Runs, id string) string {
	return filepath.Join(runs.ArtifactDir(id), "output", stdoutFile)
}

// Output returns what run id of the space printed from byte from, at most
// max bytes of it, cut at the last whole line.
func (r *Runner) Output(ctx context.Context, spaceID, id string, from int64, max int) (Output, error) {
	if !runID.MatchString(id) {
		return Output{}, invalidRunID(id)
	}
	sp, err := space.Resolve(r.Project, spaceID)
	if err != nil {
		return Output{}, err
	}
	runs := r.runs(sp)
	run, ok, skipped, err := runs.Find(id)
	if err != nil {
		return Output{}, err
	}
	warnDamaged(ctx, sp.ID, skipped)
	if !ok {
		return Output{}, runNotFound(sp.ID, id)
	}
	out := Output{Run: id, From: from, To: from, Running: run.Status == state.Running}
	f, err := os.Open(OutputPath(runs, id))
	if errors.Is(err, fs.ErrNotExist) { // not started writing yet
		return out, nil
	}
	if err != nil {
		return Output{}, err
	}
	defer f.Close()
	buf := make([]byte, max+1)
	n, err := f.ReadAt(buf, from)
	if err != nil && !errors.Is(err, io.EOF) {
		return Output{}, err
	}
	out.More = n > max
	text := buf[:min(n, max)]
	// A line cut at max, or still being written, comes whole next time —
	// but a line longer than max comes in parts.
	if i := bytes.LastIndexByte(text, '\n'); i >= 0 && (out.More || out.Running) {
		text = text[:i+1]
	} else if !out.More && out.Running {
		text = nil
	}
	out.Text, out.To = string(text), from+int64(len(text))
	return out, nil
}

// Line is one line a run's harness printed, as `run follow` streams it:
// the byte it starts at, and its text without the newline.
type Line struct {
	At   int64  `json:"at"`
	Text string `json:"text"`
}

// followPoll is how often Follow looks for more of a running run's output.
const followPoll = 200 * time.Millisecond

// Follow calls emit with each whole line run id of the space printed from
// byte from on, as it comes, until the run has ended and every line is
// read, or ctx ends. It returns where it stopped.
func (r *Runner) Follow(ctx context.Context, spaceID, id string, from int64, emit func(Line) error) (int64, error) {
	for {
		o, err := r.Output(ctx, spaceID, id, from, MaxOutput)
		if err != nil {
			return from, err
		}
		at := o.From
		for text := range strings.Lines(o.Text) {
			if err := emit(Line{At: at, Text: strings.TrimRight(text, "\r\n")}); err != nil {
				return at, err
			}
			at += int64(len(text))
		}
		from = o.To
		switch {
		case o.More:
			continue
		case !o.Running:
			return from, nil
		}
		select {
		case <-ctx.Done():
			return from, ctx.Err()
		case <-time.After(followPoll):
		}
	}
}
