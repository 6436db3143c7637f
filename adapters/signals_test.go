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

// TestSignalBeforeRelease: a signal that comes while the command holds the
// signals is the command's even when the lifecycle reads it only after the
// command let go — the Ctrl-C that ended a chat's harness, read a moment
// after the chat returned. The run does not end as cancelled (meridian's
// start answered CANCELLED, exit 130, now and then).
func TestSignalBeforeRelease(t *testing.T) {
	for i := range 200 {
		sigs := make(chan os.Signal, 1)
		app := &cli.Command{Name: "app", Commands: []*cli.Command{urfave.Annotate(&cli.Command{
			Name: "chat",
			Action: func(ctx context.Context, _ *cli.Command) error {
				_, release := adapters.TakeSignals(ctx)
				sigs <- os.Interrupt // the child's Ctrl-C, also the process's
				release()            // the child ended of it: the command lets go
				return nil
			},
		}, schema.Meta{Danger: schema.Safe})}}
		var stdout, stderr bytes.Buffer
		code := urfave.Run(context.Background(), app, []string{"chat"},
			adapters.WithStdio(bytes.NewReader(nil), &stdout, &stderr), adapters.WithSignals(sigs))
		if code != 0 {
			t.Fatalf("run %d: exit %d, want 0: the signal the command held cancelled the run\n%s", i, code, stdout.String())
		}
	}
}
