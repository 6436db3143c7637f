package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// TestDurationMeasured: meta.duration_ms is the time the invocation took,
// whatever its end — success, failure, timeout or a signal (F-039). The
// clock is synctest's, so a second is exactly 1000 ms.
func TestDurationMeasured(t *testing.T) {
	nap := func(ctx context.Context, cmd *cli.Command) error {
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return ctx.Err()
		}
		if cmd.Bool("fail") {
			return envelope.Errorf(exitcode.Unavailable, "GONE", "the store went away")
		}
		return envelope.From(ctx).Result(map[string]bool{"rested": true})
	}
	block := func(ctx context.Context, _ *cli.Command) error { <-ctx.Done(); return ctx.Err() }
	tests := []struct {
		name   string
		args   []string
		signal bool // SIGINT after a second
		exit   int
	}{
		{"success", []string{"nap"}, false, 0},
		{"failure", []string{"nap", "--fail"}, false, 12},
		{"timeout", []string{"block", "--timeout", "1s"}, false, 10},
		{"cancelled", []string{"block"}, true, 130},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				root := &cli.Command{Name: "app", Commands: []*cli.Command{
					urfave.Annotate(&cli.Command{Name: "nap", Flags: []cli.Flag{&cli.BoolFlag{Name: "fail"}}, Action: nap}, schema.Meta{Danger: schema.Safe}),
					urfave.Annotate(&cli.Command{Name: "block", Action: block}, schema.Meta{Danger: schema.Safe, Timeout: schema.NoTimeout}),
				}}
				sigs := make(chan os.Signal, 1)
				if tt.signal {
					go func() { time.Sleep(time.Second); sigs <- os.Interrupt }()
				}
				var stdout, stderr bytes.Buffer
				code := urfave.Run(context.Background(), root, tt.args, urfave.WithSpecStrict(),
					urfave.WithStdio(strings.NewReader(""), &stdout, &stderr), urfave.WithEnv(nil),
					urfave.WithTerminal(false, false, false), urfave.WithSignals(sigs))
				var env struct {
					Meta map[string]any `json:"meta"`
				}
				if err := json.Unmarshal(stdout.Bytes(), &env); err != nil {
					t.Fatalf("stdout is not one envelope: %v\n%s", err, stdout.String())
				}
				if code != tt.exit || env.Meta["duration_ms"] != 1000.0 {
					t.Errorf("exit %d, meta.duration_ms %v; want exit %d and 1000\nstdout: %s", code, env.Meta["duration_ms"], tt.exit, stdout.String())
				}
			})
		})
	}
}
