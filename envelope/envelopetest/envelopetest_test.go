package envelopetest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/envelope/envelopetest"
)

// TestEnvelope: what the code answered reaches the envelope as an agent
// reads it, whatever it returned.
func TestEnvelope(t *testing.T) {
	for _, tc := range []struct {
		name string
		code func(ctx context.Context) error
		ok   bool
		data string
		err  string // the error's code
		exit int    // meta.exit_code
	}{
		{"result", func(ctx context.Context) error { return envelope.From(ctx).Result([]int{1, 2}) }, true, `[1,2]`, "", 0},
		{"nothing", func(context.Context) error { return nil }, true, `null`, "", 0},
		{"typed error", func(context.Context) error { return envelope.Validationf("BAD_ID", "no such id") }, false, `null`, "BAD_ID", 2},
		{"plain error", func(context.Context) error { return errors.New("disk full") }, false, `null`, "ERROR", 1},
		{"from a derived context", func(ctx context.Context) error {
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			return envelope.From(ctx).Result("x")
		}, true, `{"value":"x"}`, "", 0}, // a scalar, wrapped as the envelope wraps one
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := envelopetest.NewRecorder()
			env, err := rec.Envelope(tc.code(rec.Context(context.Background())))
			if err != nil {
				t.Fatal(err)
			}
			code := ""
			if env.Error != nil {
				code = env.Error.Code
			}
			if env.OK != tc.ok || string(env.Data) != tc.data || code != tc.err || env.Meta.ExitCode != tc.exit {
				t.Errorf("ok %v, data %s, error %q, exit_code %d; want %v, %s, %q, %d", env.OK, env.Data, code, env.Meta.ExitCode, tc.ok, tc.data, tc.err, tc.exit)
			}
		})
	}
}
