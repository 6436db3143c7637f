// Package exitcode is the table of process exit codes a Duet command may end with.
//
// The fifteen framework codes 0–14 come from the CLI Agent Spec (v1.16). Each
// carries a name, a description written for an agent, whether an identical
// retry may succeed, and how much external state the command may have
// changed. Commands declare the codes they use in a [Table], merged over
// [Defaults]; codes 15–63 are the framework's own extensions, and 79–125 are
// free for command-specific meanings; both must be declared with a name.
//
// Returning a literal integer from a command is a bug: use the named constants.
package exitcode

import (
	"fmt"
	"slices"
)

// Code is a process exit status.
type Code int

// The framework codes of the CLI Agent Spec.
const (
	Success          Code = 0
	GeneralError     Code = 1
	ArgError         Code = 2
	PartialFailure   Code = 3
	Precondition     Code = 4
	NotFound         Code = 5
	Conflict         Code = 6
	PermissionDenied Code = 7
	AuthRequired     Code = 8
	PaymentRequired  Code = 9
	Timeout          Code = 10
	RateLimited      Code = 11
	Unavailable      Code = 12
	Redirected       Code = 13
	// Incomplete: the work goes on past the caller's budget, in a job the
	// answer names with the commands that continue and cancel it (§79).
	// Only a command that can answer so lists it (see [Defaults]).
	Incomplete Code = 14
)

// Signal exits. They follow the shell convention 128+signal and are not part of
// any [Table]: a command cannot choose them, only the process's signal handling.
const (
	Interrupted Code = 130 // SIGINT
	Terminated  Code = 143 // SIGTERM
)

// The range a command may use for codes of its own.
const (
	CustomMin Code = 79
	CustomMax Code = 125
)

// The range the framework (Duet) may use for extensions of its own.
const (
	ExtensionMin Code = 15
	ExtensionMax Code = 63
)

// SideEffects says how much externally visible work was committed before an exit.
type SideEffects string

// The extents of [SideEffects].
const (
	None     SideEffects = "none"
	Partial  SideEffects = "partial"
	Complete SideEffects = "complete"
)

// Entry describes one exit code. Its JSON form is the spec's ExitCodeEntry.
type Entry struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Retryable   bool        `json:"retryable"`
	SideEffects SideEffects `json:"side_effects"`
	// ErrorCodes lists the error.code values the command answers under
	// this exit, when it declares them (ExitCodeEntry 1.1): an agent plans
	// its branches before the call. nil says nothing; an empty, non-nil
	// list says the exit carries no error.code.
	ErrorCodes []string `json:"error_codes,omitempty"`
}

// Equal reports whether e and o say the same.
func (e Entry) Equal(o Entry) bool {
	return e.Name == o.Name && e.Description == o.Description && e.Retryable == o.Retryable &&
		e.SideEffects == o.SideEffects && (e.ErrorCodes == nil) == (o.ErrorCodes == nil) && slices.Equal(e.ErrorCodes, o.ErrorCodes)
}

var framework = [...]Entry{
	Success:          {Name: "SUCCESS", Description: "The operation completed as intended.", SideEffects: Complete},
	GeneralError:     {Name: "GENERAL_ERROR", Description: "An unclassified failure; state may be partially modified.", SideEffects: Partial},
	ArgError:         {Name: "ARG_ERROR", Description: "Input failed validation before any side effect; fix the input and reissue.", SideEffects: None},
	PartialFailure:   {Name: "PARTIAL_FAILURE", Description: "The operation started but did not complete; inspect state before retrying.", SideEffects: Partial},
	Precondition:     {Name: "PRECONDITION", Description: "A required precondition was not satisfied; nothing was changed.", SideEffects: None},
	NotFound:         {Name: "NOT_FOUND", Description: "The addressed resource does not exist; nothing was changed.", SideEffects: None},
	Conflict:         {Name: "CONFLICT", Description: "The resource already exists or a version conflict was detected; nothing was changed.", SideEffects: None},
	PermissionDenied: {Name: "PERMISSION_DENIED", Description: "The caller lacks permission; do not retry, escalate or stop.", SideEffects: None},
	AuthRequired:     {Name: "AUTH_REQUIRED", Description: "Credentials are missing, invalid or expired.", SideEffects: None},
	PaymentRequired:  {Name: "PAYMENT_REQUIRED", Description: "A payment is required to proceed.", SideEffects: None},
	Timeout:          {Name: "TIMEOUT", Description: "The operation exceeded its time limit; state may be partially modified.", SideEffects: Partial},
	RateLimited:      {Name: "RATE_LIMITED", Description: "An upstream rate limit was hit; nothing was changed; retry after retry_after_ms.", Retryable: true, SideEffects: None},
	Unavailable:      {Name: "UNAVAILABLE", Description: "A service is temporarily unavailable; nothing was changed; retry with back-off.", Retryable: true, SideEffects: None},
	Redirected:       {Name: "REDIRECTED", Description: "The command or flag moved; error.redirect names the replacement.", SideEffects: None},
	Incomplete:       {Name: "INCOMPLETE", Description: "The work goes on past the call's budget; continue_command resumes it, cancel_command stops it.", SideEffects: Partial},
}

var (
	interrupted = Entry{Name: "CANCELLED", Description: "Interrupted by SIGINT; state may be partially modified.", SideEffects: Partial}
	terminated  = Entry{Name: "CANCELLED", Description: "Terminated by SIGTERM; state may be partially modified.", SideEffects: Partial}
)

// Framework reports whether c is one of the spec's codes 0–14.
func (c Code) Framework() bool { return c >= Success && c <= Incomplete }

// Signal reports whether c is one of the signal exits, 130 and 143.
func (c Code) Signal() bool { return c == Interrupted || c == Terminated }

// Signals returns a fresh table of the two signal exits, for a command's
// declared exit codes: every command a lifecycle runs may end with them,
// and an agent tells "I cancelled it" from "it failed" by them.
func Signals() Table {
	return Table{Interrupted: interrupted, Terminated: terminated}
}

// Custom reports whether c lies in the command-specific range 79–125.
func (c Code) Custom() bool { return c >= CustomMin && c <= CustomMax }

// Extension reports whether c lies in the framework's extension range 15–63.
func (c Code) Extension() bool { return c >= ExtensionMin && c <= ExtensionMax }

// Entry returns the default entry of a framework or signal code, and false for
// any other code.
func (c Code) Entry() (Entry, bool) {
	switch {
	case c.Framework():
		return framework[c], true
	case c == Interrupted:
		return interrupted, true
	case c == Terminated:
		return terminated, true
	}
	return Entry{}, false
}

// String returns the code's name, such as "NOT_FOUND", or "EXIT_<n>" for a code
// the framework does not name.
func (c Code) String() string {
	if e, ok := c.Entry(); ok {
		return e.Name
	}
	return fmt.Sprintf("EXIT_%d", int(c))
}
