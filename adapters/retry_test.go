package adapters_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// retryApp's commands time out (waiting on their context) or hit a rate
// limit, under the TIMEOUT entries they declare.
func retryApp() *cli.Command {
	wait := func(retry bool) cli.ActionFunc {
		return func(ctx context.Context, _ *cli.Command) error {
			<-ctx.Done()
			if retry { // the command's own word does not beat its declared entry
				return envelope.Errorf(exitcode.Timeout, "TIMEOUT", "gave up: %w", ctx.Err()).WithRetry(time.Second, envelope.RetryLinear)
			}
			return ctx.Err()
		}
	}
	limited := func(after time.Duration) cli.ActionFunc {
		return func(context.Context, *cli.Command) error {
			e := envelope.Errorf(exitcode.RateLimited, "RATE_LIMITED", "the API allows 10 calls a minute")
			if after > 0 {
				e = e.WithRetry(after, envelope.RetryLinear)
			}
			return e
		}
	}
	transient := exitcode.Table{exitcode.Timeout: {Retryable: true, SideEffects: exitcode.None}}
	return &cli.Command{Name: "app", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "scan", Action: wait(false)}, schema.Meta{Danger: schema.Safe}),
		urfave.Annotate(&cli.Command{Name: "scan-eager", Action: wait(true)}, schema.Meta{Danger: schema.Safe}),
		urfave.Annotate(&cli.Command{Name: "poll", Action: wait(false)}, schema.Meta{Danger: schema.Safe, ExitCodes: transient}),
		urfave.Annotate(&cli.Command{Name: "sync", Action: wait(true)}, schema.Meta{Danger: schema.Mutating}),
		urfave.Annotate(&cli.Command{Name: "fetch", Action: limited(0)}, schema.Meta{Danger: schema.Safe}),
		urfave.Annotate(&cli.Command{Name: "fetch-hinted", Action: limited(2 * time.Second)}, schema.Meta{Danger: schema.Safe}),
	}}
}

// TestRetryHints holds REQ-C-014's criteria on the wire. A TIMEOUT is as
// retryable as the command's declared TIMEOUT entry (a safe command's by
// default is not: the same input times out again), whatever the command's
// error said; one that changed nothing and is not retryable carries
// fix_required naming a larger --timeout; one after partial side effects
// is never retryable. A RATE_LIMITED error always carries retry_after_ms:
// WithRetry's, else Duet's documented default.
func TestRetryHints(t *testing.T) {
	tests := []struct {
		args      []string
		exit      int
		retryable bool
		after     int64
		strategy  envelope.RetryStrategy
		fix       string
	}{
		{[]string{"scan", "--timeout", "50ms"}, 10, false, 0, "", "Reissue with a larger --timeout, such as --timeout 100ms"},
		{[]string{"scan-eager", "--timeout", "50ms"}, 10, false, 0, "", "Reissue with a larger --timeout, such as --timeout 100ms"},
		{[]string{"poll", "--timeout", "50ms"}, 10, true, 0, "", ""},
		{[]string{"sync", "--timeout", "50ms"}, 10, false, 0, "", ""},
		{[]string{"fetch"}, 11, true, envelope.DefaultRateLimitWait.Milliseconds(), envelope.RetryExponential, ""},
		{[]string{"fetch-hinted"}, 11, true, 2000, envelope.RetryLinear, ""},
	}
	for _, tt := range tests {
		t.Run(tt.args[0], func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := urfave.Run(context.Background(), retryApp(), tt.args, run{}.options(&stdout, &stderr)...)
			r := result{code: code, stdout: stdout.String(), stderr: stderr.String()}
			w := envelopeOf(t, r)
			if r.code != tt.exit || w.Error == nil {
				t.Fatalf("exit %d, error %+v; want exit %d", r.code, w.Error, tt.exit)
			}
			e := w.Error
			if e.Retryable != tt.retryable || e.RetryAfterMS != tt.after || e.RetryStrategy != tt.strategy || e.FixRequired != tt.fix {
				t.Errorf("retryable %v, retry_after_ms %d, retry_strategy %q, fix_required %q;\nwant %v, %d, %q, %q",
					e.Retryable, e.RetryAfterMS, e.RetryStrategy, e.FixRequired, tt.retryable, tt.after, tt.strategy, tt.fix)
			}
		})
	}
}
