package speckit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Status is a check's outcome.
type Status string

// The outcomes of a check.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip" // the profile declares nothing the check could run on
)

// Result is the kit's ConformanceResult: the data of the ResponseEnvelope
// it prints.
type Result struct {
	SchemaVersion string `json:"schema_version"`
	Tool          string `json:"tool"`
	// Levels maps level_1, level_2 and level_3 to pass, fail, or
	// incomplete (a check of that level or below was skipped).
	Levels  map[string]string `json:"levels"`
	Summary Summary           `json:"summary"`
	Checks  []Check           `json:"checks"`
	// Stdout is the kit's output as printed, the envelope around the rest.
	Stdout []byte `json:"-"`
}

// Summary counts the checks by outcome.
type Summary struct {
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
}

// Check is one of the kit's checks, such as json_envelope or manifest_valid.
type Check struct {
	ID            string    `json:"id"`
	Title         string    `json:"title"`
	Status        Status    `json:"status"`
	Level         int       `json:"level"`
	FailureModes  []string  `json:"failure_modes"` // §N of the spec's failure modes
	Requirements  []string  `json:"requirements"`  // REQ-F-001 …
	RunsChecked   int       `json:"runs_checked"`
	Failures      []Failure `json:"failures"`
	SkippedReason string    `json:"skipped_reason,omitempty"`
}

// Failure is the evidence of one failed run: enough to reproduce it.
type Failure struct {
	Probe      string   `json:"probe"`
	Argv       []string `json:"argv"`
	Stdin      string   `json:"stdin"`     // closed (/dev/null) or open (a silent pipe)
	ExitCode   *int     `json:"exit_code"` // nil when the run timed out
	TimedOut   bool     `json:"timed_out"`
	DurationMS int      `json:"duration_ms"`
	Detail     string   `json:"detail"`
}

// KitError is the kit's refusal to run: its envelope's error, with no
// result, as for an invalid profile (exit 2, INVALID_PROFILE).
type KitError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *KitError) Error() string {
	return fmt.Sprintf("the conformance kit refused to run: %s: %s", e.Code, e.Message)
}

// Parse reads what the kit prints: one ResponseEnvelope whose data is a
// ConformanceResult. An envelope without data, such as the kit's answer to
// an invalid profile, is a *KitError.
func Parse(stdout []byte) (Result, error) {
	var envelope struct {
		Data  *Result   `json:"data"`
		Error *KitError `json:"error"`
	}
	if err := json.Unmarshal(stdout, &envelope); err != nil {
		return Result{}, fmt.Errorf("the conformance kit's output is not its JSON envelope: %w; output:\n%s", err, tail(stdout))
	}
	if envelope.Data == nil {
		if envelope.Error != nil {
			return Result{}, envelope.Error
		}
		return Result{}, fmt.Errorf("the conformance kit's envelope has neither data nor error; output:\n%s", tail(stdout))
	}
	res := *envelope.Data
	if len(res.Levels) == 0 || len(res.Checks) == 0 {
		return Result{}, errors.New("the conformance kit's result has no levels or no checks")
	}
	res.Stdout = bytes.Clone(stdout)
	return res, nil
}

// Check returns the check with the given id.
func (r Result) Check(id string) (Check, bool) {
	for _, c := range r.Checks {
		if c.ID == id {
			return c, true
		}
	}
	return Check{}, false
}

// Failed returns the failed checks, in the kit's order.
func (r Result) Failed() []Check {
	var failed []Check
	for _, c := range r.Checks {
		if c.Status == Fail {
			failed = append(failed, c)
		}
	}
	return failed
}

// Failures describes every failed check for a test's error message, one
// line a check and an indented line a failed run with its argv, ready to
// paste into a shell; "" when no check failed.
func (r Result) Failures() string {
	var b strings.Builder
	for _, c := range r.Failed() {
		fmt.Fprintf(&b, "%s (level %d; %s): %s\n", c.ID, c.Level, strings.Join(c.Requirements, ", "), c.Title)
		for _, f := range c.Failures {
			fmt.Fprintf(&b, "  %s: %s: %s\n", f.Probe, f.outcome(), f.Detail)
			fmt.Fprintf(&b, "    $ %s%s\n", shellJoin(f.Argv), f.stdinRedirect())
		}
	}
	return b.String()
}

// outcome is how the run ended.
func (f Failure) outcome() string {
	switch {
	case f.TimedOut:
		return fmt.Sprintf("killed after %dms", f.DurationMS)
	case f.ExitCode == nil:
		return "no exit code"
	default:
		return fmt.Sprintf("exit %d", *f.ExitCode)
	}
}

// stdinRedirect says where the run's stdin came from, as a shell would.
func (f Failure) stdinRedirect() string {
	switch f.Stdin {
	case "closed":
		return " </dev/null"
	case "":
		return ""
	default:
		return " # stdin " + f.Stdin // open: a pipe nobody writes to
	}
}

// shellJoin quotes each argument for a POSIX shell where it needs it.
func shellJoin(argv []string) string {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = shellQuote(a)
	}
	return strings.Join(quoted, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
