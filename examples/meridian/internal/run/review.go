package run

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
)

// ReviewRequest is what `run review` asks for: Agent Mesh's review
// pipeline — one harness implements, the change it made is taken from git,
// another reviews it.
type ReviewRequest struct {
	Space       string // as SpawnRequest's
	Prompt      string // the task the implementer is given
	Model       string // the implementer's model ("" as spawn picks one)
	ReviewModel string // the reviewer's ("" the implementer's)
	Timeout     time.Duration
}

// Reviewed is the pipeline's answer: both runs, as Agent Mesh normalizes
// them, and the review. Stage says how far it got: implement, diff,
// review, or done.
type Reviewed struct {
	Stage     string    `json:"stage"`
	Implement *StageRun `json:"implement"`
	Review    *StageRun `json:"review,omitempty"`
	Verdict   string    `json:"verdict,omitempty"` // approve or request_changes
	Issues    []Issue   `json:"issues"`
	Summary   string    `json:"summary,omitempty"`
	Changes   *Changes  `json:"changes,omitempty"` // the implementer's, as reviewed
	Space     string    `json:"space"`
}

// StageRun is one run of the pipeline.
type StageRun struct {
	ID     string      `json:"id"`
	Status string      `json:"status"`
	Model  string      `json:"model"`
	Result *Normalized `json:"result,omitempty"`
}

// Issue is one problem the reviewer found.
type Issue struct {
	Severity string `json:"severity"` // high, medium or low
	File     string `json:"file"`
	Line     int    `json:"line,omitempty"`
	Message  string `json:"message"`
}

// maxReviewedDiff is the most of a diff put in the reviewer's prompt.
const maxReviewedDiff = 256 << 10

// Review runs the pipeline: the implementer's run, waited for; the change
// it made, from git; the reviewer's run, read-only, given the task and the
// diff, and asked for its review as one JSON object; the review parsed.
// A stage that fails ends it with an error saying which, and the answer
// holds what came before (Reviewed.Stage).
func (r *Runner) Review(ctx context.Context, req ReviewRequest) (Reviewed, error) {
	rv := Reviewed{Stage: "implement", Issues: []Issue{}}
	impl, err := r.Spawn(ctx, SpawnRequest{Space: req.Space, Prompt: req.Prompt, Model: req.Model, Timeout: req.Timeout, Wait: true})
	if impl.ID == "" {
		return rv, err // refused before it ran
	}
	rv.Space, rv.Implement = impl.Space, stageRun(impl)
	if err != nil {
		return rv, stageError(rv, "IMPLEMENT_FAILED", fmt.Sprintf("the implementer's run %s did not succeed", impl.ID), err)
	}

	rv.Stage = "diff"
	rv.Changes = impl.Changes
	dir := filepath.Join(string(impl.Dir), outputDir, diffFile)
	diff, err := os.ReadFile(dir)
	switch {
	case impl.Changes == nil || impl.Changes.Note != "":
		note := "no change was recorded"
		if impl.Changes != nil {
			note = impl.Changes.Note
		}
		return rv, stageError(rv, "NO_DIFF", "the implementer's change cannot be taken: "+note, nil)
	case err != nil:
		return rv, stageError(rv, "NO_DIFF", "the implementer's diff cannot be read", err)
	case len(impl.Changes.Files) == 0:
		return rv, stageError(rv, "NO_CHANGES", fmt.Sprintf("the implementer's run %s changed nothing to review", impl.ID), nil)
	}

	rv.Stage = "review"
	model := req.ReviewModel
	if model == "" {
		model = impl.Model
	}
	rev, err := r.Spawn(ctx, SpawnRequest{Space: impl.Space, Prompt: reviewPrompt(req.Prompt, impl.Changes, diff), Model: model,
		Sandbox: "read-only", Timeout: req.Timeout, Wait: true})
	if rev.ID == "" {
		return rv, stageError(rv, "REVIEW_FAILED", "the reviewer's run could not start", err)
	}
	rv.Review = stageRun(rev)
	if err != nil {
		return rv, stageError(rv, "REVIEW_FAILED", fmt.Sprintf("the reviewer's run %s did not succeed", rev.ID), err)
	}
	answer, ok := parseReview(rev.Report)
	if !ok {
		return rv, stageError(rv, "REVIEW_NOT_STRUCTURED", fmt.Sprintf("the reviewer's report (run %s) holds no review object", rev.ID), nil)
	}
	rv.Stage, rv.Verdict, rv.Issues, rv.Summary = "done", answer.Verdict, answer.Issues, answer.Summary
	return rv, nil
}

func stageRun(d Detail) *StageRun {
	return &StageRun{ID: d.ID, Status: d.Status, Model: d.Model, Result: d.Result}
}

// stageError is the failure of a stage; the answer holds what came before.
func stageError(rv Reviewed, code, msg string, cause error) error {
	if cause != nil {
		msg += ": " + envelope.As(cause).Message
	}
	return envelope.Errorf(exitcode.GeneralError, code, "stage %s: %s", rv.Stage, msg).
		WithSuggestion(fmt.Sprintf("the answer holds the runs so far; meridian run show <id> --space %s gives each", rv.Space)).
		WithResult()
}

// reviewPrompt asks for the review of a change as one JSON object.
func reviewPrompt(task string, ch *Changes, diff []byte) string {
	var b strings.Builder
	b.WriteString("Review a change another agent made for this task:\n\n")
	b.WriteString(task)
	b.WriteString("\n\nThe files it changed:\n")
	for _, f := range ch.Files {
		fmt.Fprintf(&b, "- %s %s\n", f.Status, f.Path)
	}
	if len(diff) > maxReviewedDiff {
		diff = append(diff[:maxReviewedDiff:maxReviewedDiff], "\n[the diff goes on; read the files themselves]\n"...)
	}
	b.WriteString("\nThe diff:\n\n```diff\n")
	b.Write(bytes.TrimRight(diff, "\n"))
	b.WriteString("\n```\n\n")
	b.WriteString(ReviewInstruction)
	return b.String()
}

// ReviewInstruction ends a reviewer's prompt: the shape of the answer.
const ReviewInstruction = `Do not change any file. Answer with one JSON object and nothing else:
{"verdict": "approve" or "request_changes", "summary": "one sentence", "issues": [{"severity": "high" or "medium" or "low", "file": "path", "line": 1, "message": "what is wrong and what to do"}]}`

type reviewAnswer struct {
	Verdict string  `json:"verdict"`
	Summary string  `json:"summary"`
	Issues  []Issue `json:"issues"`
}

// parseReview finds the review object in a report: the whole report, a
// fenced block, or the outermost braces, whichever parses.
func parseReview(report string) (reviewAnswer, bool) {
	candidates := []string{strings.TrimSpace(report)}
	if i := strings.Index(report, "```"); i >= 0 {
		rest := report[i+3:]
		rest = rest[strings.IndexByte(rest, '\n')+1:]
		if j := strings.Index(rest, "```"); j >= 0 {
			candidates = append(candidates, rest[:j])
		}
	}
	if i, j := strings.IndexByte(report, '{'), strings.LastIndexByte(report, '}'); i >= 0 && j > i {
		candidates = append(candidates, report[i:j+1])
	}
	for _, c := range candidates {
		var a reviewAnswer
		if json.Unmarshal([]byte(c), &a) != nil || !slices.Contains([]string{"approve", "request_changes"}, a.Verdict) {
			continue
		}
		if a.Issues == nil {
			a.Issues = []Issue{}
		}
		for i := range a.Issues {
			if !slices.Contains([]string{"high", "medium", "low"}, a.Issues[i].Severity) {
				a.Issues[i].Severity = "medium" // said otherwise: neither the worst nor dismissed
			}
		}
		return a, true
	}
	return reviewAnswer{}, false
}
