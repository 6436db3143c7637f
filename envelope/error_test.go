package envelope_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
)

func TestAs(t *testing.T) {
	custom := envelope.Errorf(exitcode.Conflict, "SPACE_EXISTS", "space %q exists", "s1")
	_, statErr := os.Stat(filepath.Join(t.TempDir(), "missing"))
	tests := []struct {
		name string
		err  error
		code string
		exit exitcode.Code
		same *envelope.Error // when set, As must return this very value
	}{
		{name: "deadline", err: context.DeadlineExceeded, code: "TIMEOUT", exit: exitcode.Timeout},
		{name: "wrapped deadline", err: fmt.Errorf("fetch: %w", context.DeadlineExceeded), code: "TIMEOUT", exit: 10},
		{name: "canceled", err: context.Canceled, code: "CANCELLED", exit: 130},
		{name: "not exist wrapped", err: fmt.Errorf("open config: %w", fs.ErrNotExist), code: "NOT_FOUND", exit: 5},
		{name: "os.Stat of a missing file", err: statErr, code: "NOT_FOUND", exit: 5},
		{name: "permission", err: fs.ErrPermission, code: "PERMISSION_DENIED", exit: 7},
		{name: "permission wrapped", err: fmt.Errorf("write: %w", fs.ErrPermission), code: "PERMISSION_DENIED", exit: 7},
		{name: "plain error", err: errors.New("boom"), code: "GENERAL_ERROR", exit: 1},
		{name: "*Error", err: custom, code: "SPACE_EXISTS", exit: 6, same: custom},
		{name: "*Error wrapped", err: fmt.Errorf("layer: %w", custom), code: "SPACE_EXISTS", exit: 6, same: custom},
		{name: "*Error joined", err: errors.Join(errors.New("other"), custom), code: "SPACE_EXISTS", exit: 6, same: custom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := envelope.As(tt.err)
			if got == nil {
				t.Fatal("As returned nil")
			}
			if got.Code != tt.code || got.Exit != tt.exit {
				t.Errorf("As(%v) = %s exit %d, want %s exit %d", tt.err, got.Code, got.Exit, tt.code, tt.exit)
			}
			if tt.same != nil && got != tt.same {
				t.Errorf("As did not pass the *Error through: got %p, want %p", got, tt.same)
			}
			if tt.same == nil {
				if got.Message != tt.err.Error() {
					t.Errorf("message = %q, want %q", got.Message, tt.err.Error())
				}
				if !errors.Is(got, tt.err) {
					t.Errorf("As(err) does not unwrap to err")
				}
			}
		})
	}
	if envelope.As(nil) != nil {
		t.Error("As(nil) != nil")
	}
}

func TestErrorf(t *testing.T) {
	cause := fs.ErrNotExist
	e := envelope.Errorf(exitcode.NotFound, "SPACE_NOT_FOUND", "space %s: %w", "s1", cause).
		WithSuggestion(fmt.Sprintf("run '%s'", "tool space list"))
	if got, want := e.Error(), "SPACE_NOT_FOUND: space s1: file does not exist"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(e, fs.ErrNotExist) {
		t.Error("the %w argument is not the cause")
	}
	if e.Suggestion != "run 'tool space list'" {
		t.Errorf("suggestion = %q", e.Suggestion)
	}
}

func TestSettle(t *testing.T) {
	tab := exitcode.Defaults()
	wait := envelope.DefaultRateLimitWait.Milliseconds()
	// TIMEOUT entries a command may declare (REQ-C-014, v1.14).
	timeouts := func(e exitcode.Entry) exitcode.Table { return tab.Merge(exitcode.Table{exitcode.Timeout: e}) }
	transient := timeouts(exitcode.Entry{Retryable: true, SideEffects: exitcode.None})
	inputBound := timeouts(exitcode.Entry{Retryable: false, SideEffects: exitcode.None})
	partial := timeouts(exitcode.Entry{Retryable: true, SideEffects: exitcode.Partial}) // a contradiction: partial wins
	tests := []struct {
		name      string
		err       *envelope.Error
		retryable bool
		phase     envelope.Phase
		after     int64
		tab       exitcode.Table // nil: tab
	}{
		{"rate limited is retryable, after the default wait", envelope.Errorf(exitcode.RateLimited, "SLOW_DOWN", "x"), true, envelope.Execution, wait, nil},
		{"rate limited waits as WithRetry says", envelope.Errorf(exitcode.RateLimited, "SLOW_DOWN", "x").WithRetry(5*time.Second, envelope.RetryLinear), true, envelope.Execution, 5000, nil},
		{"rate limited without a wait gets the default", envelope.Errorf(exitcode.RateLimited, "SLOW_DOWN", "x").WithRetry(0, envelope.RetryImmediate), true, envelope.Execution, wait, nil},
		{"rate limited is never terminal", envelope.Errorf(exitcode.RateLimited, "SLOW_DOWN", "x").WithoutRetry(), true, envelope.Execution, wait, nil},
		{"RATE_LIMITED under another exit waits too", envelope.Errorf(exitcode.GeneralError, "RATE_LIMITED", "x"), true, envelope.Execution, wait, nil},
		{"not found is not", envelope.Errorf(exitcode.NotFound, "GONE", "x"), false, envelope.Execution, 0, nil},
		{"explicit retry wins", envelope.Errorf(exitcode.NotFound, "GONE", "x").WithRetry(500*time.Millisecond, envelope.RetryLinear), true, envelope.Execution, 500, nil},
		{"explicitly terminal wins", envelope.Errorf(exitcode.Unavailable, "X", "x").WithoutRetry(), false, envelope.Execution, 0, nil},
		{"a timeout is as retryable as the default entry", envelope.Errorf(exitcode.Timeout, "TIMEOUT", "x"), false, envelope.Execution, 0, nil},
		{"a timeout is as retryable as a declared transient entry", envelope.Errorf(exitcode.Timeout, "TIMEOUT", "x"), true, envelope.Execution, 0, transient},
		{"a timeout's WithRetry does not beat its entry", envelope.Errorf(exitcode.Timeout, "TIMEOUT", "x").WithRetry(time.Second, envelope.RetryLinear), false, envelope.Execution, 0, inputBound},
		{"a timeout's WithoutRetry does not beat its entry", envelope.Errorf(exitcode.Timeout, "TIMEOUT", "x").WithoutRetry(), true, envelope.Execution, 0, transient},
		{"a timeout after partial side effects is never retryable", envelope.Errorf(exitcode.Timeout, "TIMEOUT", "x"), false, envelope.Execution, 0, partial},
		{"set by hand, retryable stays", func() *envelope.Error {
			e := envelope.Errorf(exitcode.NotFound, "GONE", "x")
			e.Retryable = true
			return e
		}(), true, envelope.Execution, 0, nil},
		{"a terminal error keeps no back-off", func() *envelope.Error {
			e := envelope.Errorf(exitcode.NotFound, "GONE", "x")
			e.RetryAfterMS = 500
			return e
		}(), false, envelope.Execution, 0, nil},
		{"validation phase is kept", envelope.Validationf("BAD", "x"), false, envelope.Validation, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := tt.tab
			if table == nil {
				table = tab
			}
			tt.err.Settle(table)
			if tt.err.Retryable != tt.retryable || tt.err.Phase != tt.phase || tt.err.RetryAfterMS != tt.after {
				t.Errorf("settled to retryable=%v phase=%q after=%d, want %v %q %d", tt.err.Retryable, tt.err.Phase, tt.err.RetryAfterMS, tt.retryable, tt.phase, tt.after)
			}
		})
	}
}

func TestInvalid(t *testing.T) {
	one := []envelope.FieldError{{Code: "INVALID_ENUM_VALUE", Field: "status", Message: "--status must be one of open, done", ValidValues: []string{"open", "done"}, Suggestion: "use --status open"}}
	e := envelope.Invalid(one)
	want := &envelope.Error{
		Code: "INVALID_ENUM_VALUE", Message: "--status must be one of open, done", Exit: exitcode.ArgError,
		Phase: envelope.Validation, Field: "status", ValidValues: []string{"open", "done"},
		Suggestion: "use --status open", FixRequired: "use one of: open, done", Errors: one,
	}
	if diff := cmp.Diff(want, e, cmp.AllowUnexported(envelope.Error{})); diff != "" {
		t.Errorf("Invalid(one) mismatch (-want +got):\n%s", diff)
	}

	many := []envelope.FieldError{
		{Code: "MISSING_REQUIRED_FLAG", Field: "space", Message: "required flag --space is missing"},
		{Code: "INVALID_FLAG_VALUE", Field: "n", Message: "invalid value \"x\" for flag --n"},
		{Code: "UNKNOWN_FLAG", Field: "bogus", Message: "unknown flag --bogus"},
	}
	e = envelope.Invalid(many)
	if e.Code != "VALIDATION_FAILED" || e.Exit != exitcode.ArgError || e.Phase != envelope.Validation {
		t.Errorf("Invalid(many) = %s exit %d phase %q, want VALIDATION_FAILED exit 2 phase validation", e.Code, e.Exit, e.Phase)
	}
	if diff := cmp.Diff(many, e.Errors); diff != "" {
		t.Errorf("Invalid(many).Errors (-want +got):\n%s", diff)
	}
	for _, p := range many {
		if !strings.Contains(e.Message, p.Message) {
			t.Errorf("message %q lacks %q", e.Message, p.Message)
		}
	}
	if !strings.HasPrefix(e.Message, "3 invalid inputs") {
		t.Errorf("message %q does not count the problems", e.Message)
	}
	if e.FixRequired == "" {
		t.Error("Invalid(many) has no fix_required")
	}
	h := envelope.Human(e)
	for _, p := range many {
		if !strings.Contains(h, "\n  - "+p.Message) {
			t.Errorf("Human() does not list %q:\n%s", p.Message, h)
		}
	}
}

// TestCursor (REQ-O-003): a cursor decodes to its offset for the query it
// was issued for, and is INVALID_CURSOR (exit 2, not retryable, fix_required
// to start again) for any other query and for anything not issued.
func TestCursor(t *testing.T) {
	for _, off := range []int{0, 1, 20, 12345} {
		for _, query := range []string{"", "list:3f2a"} {
			c := envelope.EncodeCursor(off, query)
			got, err := envelope.DecodeCursor(c, query)
			if err != nil || got != off {
				t.Errorf("DecodeCursor(EncodeCursor(%d, %q)) = %d, %v", off, query, got, err)
			}
			if strings.Contains(c, fmt.Sprint(off)) && off > 9 {
				t.Errorf("cursor %q is not opaque", c)
			}
		}
	}
	bad := map[string]string{
		"empty":           "",
		"not base64":      "!!!",
		"plain number":    "20",
		"other prefix":    base64.RawURLEncoding.EncodeToString([]byte("other:5")),
		"negative offset": envelope.EncodeCursor(-1, "q"),
		"not a number":    base64.RawURLEncoding.EncodeToString([]byte("duet1:q:abc")),
		"padded base64":   base64.URLEncoding.EncodeToString([]byte("duet1:q:55")),
		"no query":        base64.RawURLEncoding.EncodeToString([]byte("duet1:5")),
		"another query":   envelope.EncodeCursor(5, "other"),
		"unbound":         envelope.EncodeCursor(5, ""),
	}
	for name, c := range bad {
		t.Run(name, func(t *testing.T) {
			_, err := envelope.DecodeCursor(c, "q")
			var e *envelope.Error
			if !errors.As(err, &e) {
				t.Fatalf("DecodeCursor(%q) = %v, want an *envelope.Error", c, err)
			}
			if e.Code != "INVALID_CURSOR" || e.Exit != exitcode.ArgError || e.Field != "cursor" || e.Retryable || e.FixRequired == "" {
				t.Errorf("DecodeCursor(%q) = %s exit %d field %q retryable %v fix %q, want INVALID_CURSOR exit 2 field cursor, not retryable, with a fix",
					c, e.Code, e.Exit, e.Field, e.Retryable, e.FixRequired)
			}
		})
	}
}

func TestHuman(t *testing.T) {
	tests := []struct {
		name string
		err  *envelope.Error
		want string
	}{
		{"suggestion", envelope.Errorf(5, "SPACE_NOT_FOUND", "space s1 does not exist").WithSuggestion("run 'tool space list'"), "[SPACE_NOT_FOUND]: space s1 does not exist. Next: run 'tool space list'"},
		{"fix command", envelope.Errorf(2, "X", "bad input.").WithFix("pass --yes", "tool purge --dry-run"), "[X]: bad input. Next: run 'tool purge --dry-run'"},
		{"fix only", envelope.Errorf(2, "X", "bad input").WithFix("pass --yes", ""), "[X]: bad input. Next: pass --yes"},
		{"nothing next", envelope.Errorf(1, "X", "boom"), "[X]: boom."},
		{"the fix is the problem", envelope.Invalid([]envelope.FieldError{{Code: "UNKNOWN_FLAG", Message: `unknown flag --bogus for "list"`}}), `[UNKNOWN_FLAG]: unknown flag --bogus for "list".`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := envelope.Human(tt.err); got != tt.want {
				t.Errorf("Human() = %q, want %q", got, tt.want)
			}
		})
	}
}
