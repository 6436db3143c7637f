package adapters_test

import (
	"bytes"
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// A command that took the signals gets them and finishes as it likes; once
// it lets them go, a signal cancels the run again.
func TestTakeSignals(t *testing.T) {
	tests := []struct {
		name    string
		release bool // let the signals go before the second one
		exit    int
	}{
		{name: "kept", exit: 0},
		{name: "released", release: true, exit: 130},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sigs := make(chan os.Signal, 1)
			got := make(chan os.Signal, 1)
			app := &cli.Command{Name: "app", Commands: []*cli.Command{urfave.Annotate(&cli.Command{
				Name: "child",
				Action: func(ctx context.Context, _ *cli.Command) error {
					taken, release := adapters.TakeSignals(ctx)
					sigs <- syscall.SIGTERM
					select {
					case s := <-taken:
						got <- s
					case <-ctx.Done(): // the lifecycle kept it
						got <- nil
						return ctx.Err()
					}
					if tt.release {
						release()
						sigs <- os.Interrupt
						<-ctx.Done() // cancelled by the lifecycle
						return ctx.Err()
					}
					defer release()
					select {
					case <-ctx.Done():
						t.Error("the run was cancelled while the command held the signals")
					case <-time.After(50 * time.Millisecond):
					}
					return envelope.From(ctx).Result("child ended")
				},
			}, schema.Meta{Danger: schema.Safe})}}
			var stdout, stderr bytes.Buffer
			code := urfave.Run(context.Background(), app, []string{"child"},
				adapters.WithStdio(bytes.NewReader(nil), &stdout, &stderr), adapters.WithSignals(sigs))
			if code != tt.exit {
				t.Errorf("exit = %d, want %d\nstdout: %s\nstderr: %s", code, tt.exit, stdout.String(), stderr.String())
			}
			if s := <-got; s != syscall.SIGTERM {
				t.Errorf("the command got %v, want SIGTERM", s)
			}
		})
	}
}
