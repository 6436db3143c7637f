package envelope

import (
	"sync"

	"github.com/duet-cli/duet/exitcode"
)

// Batch collects the outcome of each item of a command that works on many
// items, so that a caller can tell exactly which succeeded and retry only
// those that failed. Get one with [Output.Batch], report each item with OK
// or Fail, and end the command with `return b.Finish()`.
type Batch struct {
	out     *Output
	mu      sync.Mutex
	results []BatchResult
}

// BatchResult is one item's outcome, an element of data.results.
type BatchResult struct {
	ID     any    `json:"id"`
	OK     bool   `json:"ok"`
	Effect Effect `json:"effect,omitempty"`
	Data   any    `json:"data,omitempty"`
	Error  *Error `json:"error,omitempty"` // code, message, retryable and the rest, as in an envelope
}

// BatchSummary counts a batch's items.
type BatchSummary struct {
	Total     int `json:"total"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
}

// BatchData is the data of a batch command's answer.
type BatchData struct {
	Partial bool          `json:"partial"` // some items succeeded and some failed
	Summary BatchSummary  `json:"summary"`
	Results []BatchResult `json:"results"`
}

// Batch starts collecting the outcomes of a batch command's items.
func (o *Output) Batch() *Batch { return &Batch{out: o} }

// OK records an item that succeeded, what it did to it, and optionally
// what the item is now (nil for nothing).
func (b *Batch) OK(id any, effect Effect, data any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.results = append(b.results, BatchResult{ID: id, OK: true, Effect: effect, Data: data})
}

// Fail records an item that failed, with the error that an invocation of
// the command for that item alone would have answered.
func (b *Batch) Fail(id any, err error) {
	e := As(err)
	if e == nil {
		e = Errorf(exitcode.GeneralError, "GENERAL_ERROR", "failed")
	}
	e.Settle(exitcode.Defaults())
	b.mu.Lock()
	defer b.mu.Unlock()
	b.results = append(b.results, BatchResult{ID: id, Error: e})
}

// Finish records the batch as the command's result — data.summary and
// data.results, and the effect of the first item that changed something —
// and returns the invocation's error: nil when every item succeeded;
// PARTIAL_FAILURE (exit 3) when some did and some failed; when every item
// failed, BATCH_FAILED with the exit code the items share (GENERAL_ERROR
// when they differ). The data is kept beside an error.
func (b *Batch) Finish() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	d := BatchData{Summary: BatchSummary{Total: len(b.results)}, Results: b.results}
	if d.Results == nil {
		d.Results = []BatchResult{}
	}
	var effect Effect
	exit := exitcode.Success
	for _, r := range b.results {
		if r.OK {
			d.Summary.Succeeded++
			if effect == "" || effect == Noop {
				effect = r.Effect
			}
			continue
		}
		d.Summary.Failed++
		switch {
		case exit == exitcode.Success:
			exit = r.Error.Exit
		case exit != r.Error.Exit:
			exit = exitcode.GeneralError
		}
	}
	d.Partial = d.Summary.Failed > 0 && d.Summary.Succeeded > 0
	if effect != "" {
		b.out.Effect(effect)
	}
	b.out.Result(d)
	switch {
	case d.Summary.Failed == 0:
		return nil
	case d.Partial:
		return Errorf(exitcode.PartialFailure, "PARTIAL_FAILURE", "%d of %d items failed", d.Summary.Failed, d.Summary.Total).
			WithSuggestion("data.results says which items failed and why; retry only those").
			WithResult()
	}
	if exit == exitcode.Success {
		exit = exitcode.GeneralError
	}
	return Errorf(exit, "BATCH_FAILED", "all %d items failed", d.Summary.Total).
		WithSuggestion("data.results holds each item's error").
		WithResult()
}
