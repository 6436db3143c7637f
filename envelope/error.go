package envelope

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/errcode"
)

// Phase is the step of an invocation in which an error happened. An error in
// the validation phase guarantees that nothing was changed.
type Phase string

// The phases of an invocation.
const (
	Validation Phase = "validation"
	Execution  Phase = "execution"
	Cleanup    Phase = "cleanup"
)

// RetryStrategy tells an agent how to back off before retrying.
type RetryStrategy string

// The retry strategies of the spec.
const (
	RetryImmediate   RetryStrategy = "immediate"
	RetryLinear      RetryStrategy = "linear_backoff"
	RetryExponential RetryStrategy = "exponential_backoff"
)

// Error is a structured failure: a stable code an agent can branch on, the exit
// code it ends the process with, and whatever the agent needs to act on it.
//
// Build one with [Errorf] and the With methods; return it from a command like any
// other error.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Detail  string `json:"detail,omitempty"`
	// Retryable left false is filled by Settle from the exit code's entry;
	// WithoutRetry makes it stay false.
	Retryable     bool          `json:"retryable"`
	RetryAfterMS  int64         `json:"retry_after_ms,omitempty"`
	RetryStrategy RetryStrategy `json:"retry_strategy,omitempty"`
	FixRequired   string        `json:"fix_required,omitempty"`
	FixCommand    string        `json:"fix_command,omitempty"`
	Phase         Phase         `json:"phase,omitempty"`
	Suggestion    string        `json:"suggestion,omitempty"`
	Redirect      *Redirect     `json:"redirect,omitempty"`
	Field         string        `json:"field,omitempty"`
	ValidValues   []string      `json:"valid_values,omitempty"`
	Errors        []FieldError  `json:"errors,omitempty"`

	// Auth, trust and network (issue 16): see auth.go and network.go.
	Hint               string          `json:"hint,omitempty"`                // the command that fixes it, for a person to run: "Run: tool auth login"
	ExpiresAt          string          `json:"expires_at,omitempty"`          // when expired credentials expired, RFC 3339
	RefreshCommand     string          `json:"refresh_command,omitempty"`     // the command that renews expired credentials
	RequiredPermission string          `json:"required_permission,omitempty"` // the permission the credential lacks
	RequiredScopes     []string        `json:"required_scopes,omitempty"`
	ActiveScopes       []string        `json:"active_scopes,omitempty"`
	MissingScopes      []string        `json:"missing_scopes,omitempty"`
	AuthMethods        []AuthMethod    `json:"auth_methods,omitempty"` // how to authenticate without a browser
	NetworkContext     *NetworkContext `json:"network_context,omitempty"`

	// Exit is the process exit code this error ends the invocation with.
	Exit exitcode.Code `json:"-"`

	retrySet    bool
	keepResult  bool // the command's result is this failure's payload (WithResult)
	keepPreview bool // meta keeps a refused dry run's effect and would_affect (WithPreview)
	partial     bool // a signal stopped the work: data is {"partial": true} (Interrupted)
	cause       error
	// external: Context holds outside text (WithExternalContext): all of
	// it, or the members externalKeys names.
	external     bool
	externalKeys []string

	// long work
	ConflictID string `json:"conflict_id,omitempty"` // ALREADY_EXISTS: the id of the resource that exists
	// input: what a refused input shows the caller (see package input).
	CorrectedInput string         `json:"corrected_input,omitempty"` // the input as it would have been accepted
	Context        map[string]any `json:"context,omitempty"`         // the figures behind the error, such as received_bytes
	Path           string         `json:"path,omitempty"`            // the file at fault, absolute
	LoopTarget     string         `json:"loop_target,omitempty"`     // the directory a symlink loops back to
	CompletedCount *int           `json:"completed_count,omitempty"` // the work done before the error
	MaxDepth       int            `json:"max_depth,omitempty"`       // the depth limit that was reached
	// interactivity and child processes (issue 16: kids)
	Alternatives []Alternative `json:"alternatives,omitempty"` // EDITOR_REQUIRED: the flags that take the editor's place
}

// FieldError is one validation failure among several reported at once.
type FieldError struct {
	Code        string   `json:"code"`
	Message     string   `json:"message"`
	Field       string   `json:"field,omitempty"`
	ValidValues []string `json:"valid_values,omitempty"`
	Suggestion  string   `json:"suggestion,omitempty"`
	// input: a JSON value refused, as it would have been accepted.
	CorrectedInput string `json:"corrected_input,omitempty"`
}

// Redirect names the command that replaces a moved one.
type Redirect struct {
	Command   string `json:"command"`
	Permanent bool   `json:"permanent"`
	Reason    string `json:"reason,omitempty"`
}

// Errorf returns an error that exits with exit and carries code, a stable
// UPPER_SNAKE identifier such as "SPACE_NOT_FOUND". An argument that is an error
// and is formatted with %w becomes the error's cause.
func Errorf(exit exitcode.Code, code, format string, args ...any) *Error {
	wrapped := fmt.Errorf(format, args...)
	return &Error{Code: code, Message: wrapped.Error(), Exit: exit, cause: errors.Unwrap(wrapped)}
}

// Error returns "CODE: message".
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Unwrap returns the error's cause, if any.
func (e *Error) Unwrap() error { return e.cause }

// WithSuggestion sets the next step an agent or a person should take.
func (e *Error) WithSuggestion(step string) *Error {
	e.Suggestion = step
	return e
}

// WithFix says what the caller must correct and, when one exists, the read-only
// command that corrects or reveals it, runnable verbatim.
func (e *Error) WithFix(required, command string) *Error {
	e.FixRequired, e.FixCommand = required, command
	return e
}

// WithRetry marks the error retryable, whatever its exit code's entry says
// (but a TIMEOUT's: see [Error.Settle]), with a back-off hint: wait after
// (whole milliseconds; 0 for no hint, which a RATE_LIMITED error fills
// with [DefaultRateLimitWait]), then retry as strategy says.
func (e *Error) WithRetry(after time.Duration, strategy RetryStrategy) *Error {
	e.Retryable, e.RetryAfterMS, e.RetryStrategy, e.retrySet = true, after.Milliseconds(), strategy, true
	return e
}

// WithoutRetry marks the error terminal, whatever its exit code's entry
// says: the same call will fail the same way. (Not a TIMEOUT or a
// RATE_LIMITED error: see [Error.Settle].)
func (e *Error) WithoutRetry() *Error {
	e.Retryable, e.RetryAfterMS, e.RetryStrategy, e.retrySet = false, 0, "", true
	return e
}

// WithDetail adds extended explanation, such as a raw upstream error.
func (e *Error) WithDetail(detail string) *Error {
	e.Detail = detail
	return e
}

// WithField names the input field at fault and, for a choice, its valid values.
func (e *Error) WithField(field string, valid ...string) *Error {
	e.Field, e.ValidValues = field, valid
	return e
}

// WithPhase sets the phase the error happened in.
func (e *Error) WithPhase(p Phase) *Error {
	e.Phase = p
	return e
}

// WithRedirect attaches the replacement of a moved command.
func (e *Error) WithRedirect(r Redirect) *Error {
	e.Redirect = &r
	return e
}

// DefaultRateLimitWait is how long a RATE_LIMITED error (exit 11) tells an
// agent to wait, in error.retry_after_ms, when the command does not say
// (WithRetry): the CLI Agent Spec's REQ-C-014 wants one on every such
// error, and a rate limit's window is commonly a minute, or half of one.
// Its retry_strategy is then exponential_backoff.
const DefaultRateLimitWait = 30 * time.Second

// Settle fills what the error leaves to its exit code's table entry: retryable,
// unless the error set it, and the execution phase by default. A retryable
// error keeps no fix; a terminal one keeps no back-off.
//
// Two exits are settled by rule (REQ-C-014). A TIMEOUT (exit 10) is as
// retryable as the command's declared TIMEOUT entry says, whatever the
// error set: whether the identical rerun can succeed is the command's to
// declare, and after partial side effects it cannot. A RATE_LIMITED error
// (exit 11, or error.code RATE_LIMITED) is always retryable, and carries
// a wait: WithRetry's, else [DefaultRateLimitWait] — a limit that time
// does not lift (a used-up quota) is another exit, such as PRECONDITION.
func (e *Error) Settle(t exitcode.Table) {
	switch {
	case e.Exit == exitcode.Timeout:
		if entry, ok := t[exitcode.Timeout]; ok {
			e.Retryable = entry.Retryable && entry.SideEffects != exitcode.Partial
		}
	case e.Exit == exitcode.RateLimited || e.Code == "RATE_LIMITED":
		e.Retryable = true
		if e.RetryAfterMS <= 0 {
			e.RetryAfterMS = DefaultRateLimitWait.Milliseconds()
			if e.RetryStrategy == "" {
				e.RetryStrategy = RetryExponential
			}
		}
	case !e.retrySet && !e.Retryable: // set true by hand, it stays
		e.Retryable = t[e.Exit].Retryable
	}
	if e.Phase == "" {
		e.Phase = Execution
		if e.Exit == exitcode.ArgError { // exit 2 means nothing ran that changed anything (F-002)
			e.Phase = Validation
		}
	}
	if !e.Retryable {
		e.RetryAfterMS, e.RetryStrategy = 0, ""
	}
}

// Validationf returns an ARG_ERROR in the validation phase: the input is at
// fault and nothing was changed.
func Validationf(code, format string, args ...any) *Error {
	return Errorf(exitcode.ArgError, code, format, args...).WithPhase(Validation)
}

// Invalid combines validation failures into one ARG_ERROR that lists all of
// them, so an agent fixes its call once instead of once per failure.
func Invalid(problems []FieldError) *Error {
	if len(problems) == 1 {
		p := problems[0]
		e := Validationf(p.Code, "%s", p.Message).WithField(p.Field, p.ValidValues...)
		e.Suggestion = p.Suggestion
		e.FixRequired = fixFor(p)
		e.CorrectedInput = p.CorrectedInput
		e.Errors = problems
		return e
	}
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.Message
	}
	e := Validationf("VALIDATION_FAILED", "%d invalid inputs: %s", len(problems), strings.Join(msgs, "; "))
	e.FixRequired = "correct every input listed in errors"
	e.Errors = problems
	return e
}

// fixFor states what to correct for a problem, which fix_required carries:
// a step ("add --prompt"), not the message again — unless the problem
// names nothing to correct, when the message is all there is.
func fixFor(p FieldError) string {
	if p.Field == "" && len(p.ValidValues) == 0 {
		return p.Message
	}
	flag := "--" + strings.TrimLeft(p.Field, "-")
	if len(p.Field) == 1 {
		flag = "-" + p.Field
	}
	switch p.Code {
	case errcode.MissingRequiredFlag:
		return "add " + flag
	case errcode.MissingFlagValue:
		return "give " + flag + " a value"
	case errcode.InvalidFlagValue:
		return "give " + flag + " a value of its type"
	case errcode.UnknownFlag:
		return "remove " + flag
	case "MISSING_ARGUMENT":
		return "give <" + p.Field + ">"
	case "UNEXPECTED_ARGUMENT":
		return "remove the arguments the command does not take"
	case "MUTUALLY_EXCLUSIVE_FLAGS":
		return "keep one of those flags"
	case "FLAGS_REQUIRED_TOGETHER", "ONE_FLAG_REQUIRED":
		return "give the flags named"
	}
	if len(p.ValidValues) > 0 {
		return "use one of: " + strings.Join(p.ValidValues, ", ")
	}
	return "correct " + p.Field
}

// As maps any error to a structured one:
//
//   - an [*Error] anywhere in the chain is returned as is;
//   - an error in the chain with a method Envelope() *Error answers with
//     what that returns — a failure that knows what an agent should see of
//     it, such as package proc's ExitError (a program's exit code and the
//     tail of its stderr, as external context) — with the whole error's
//     message when it was wrapped;
//   - context.DeadlineExceeded becomes TIMEOUT (exit 10);
//   - context.Canceled becomes CANCELLED (exit 130);
//   - fs.ErrNotExist becomes NOT_FOUND (exit 5);
//   - fs.ErrPermission becomes PERMISSION_DENIED (exit 7);
//   - anything else is GENERAL_ERROR (exit 1) with the error's message.
func As(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var own enveloper
	if errors.As(err, &own) {
		if e := own.Envelope(); e != nil {
			if _, top := err.(enveloper); !top {
				e.Message = err.Error() // the words the app wrapped it in
			}
			return e
		}
	}
	var code exitcode.Code
	var name string
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		code, name = exitcode.Timeout, errcode.Timeout
	case errors.Is(err, context.Canceled):
		code, name = exitcode.Interrupted, "CANCELLED"
	case errors.Is(err, fs.ErrNotExist):
		code, name = exitcode.NotFound, "NOT_FOUND"
	case errors.Is(err, fs.ErrPermission):
		code, name = exitcode.PermissionDenied, "PERMISSION_DENIED"
	default:
		code, name = exitcode.GeneralError, "GENERAL_ERROR"
	}
	return network(&Error{Code: name, Message: err.Error(), Exit: code, cause: err}, err)
}

// enveloper is an error that builds its own structured form (see [As]).
type enveloper interface {
	error
	Envelope() *Error
}

// Interrupted marks the error as the answer of work a signal stopped, named
// as "SIGINT" or "SIGTERM": error.context.signal names it, and data is
// {"partial": true}, so that an agent knows to inspect the state before it
// runs the command again (REQ-F-013, REQ-F-069).
func (e *Error) Interrupted(signal string) *Error {
	if e.Context == nil {
		e.Context = map[string]any{}
	}
	e.Context["signal"] = signal
	e.partial = true
	return e
}

// Signal returns the signal that stopped the work, or "".
func (e *Error) Signal() string {
	s, _ := e.Context["signal"].(string)
	return s
}

// WithPreview keeps, on a refusal, what a dry run found it would change
// (meta.effect and meta.would_affect), while data stays null as on every
// failure without a declared payload.
func (e *Error) WithPreview() *Error {
	e.keepPreview = true
	return e
}

// WithResult keeps the result the command gave as data, beside the error:
// for a failure that still has an answer, such as a check that ran and
// found problems, whose report is the answer. A person sees the result's
// rendering and then the error.
func (e *Error) WithResult() *Error {
	e.keepResult = true
	return e
}
