package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/examples/meridian/internal/space"
	"github.com/duet-cli/duet/examples/meridian/internal/web"
	"github.com/duet-cli/duet/schema"
)

// Served is what `ui` answers once it is stopped.
type Served struct {
	URL string `json:"url"` // without its token
}

func (e Env) uiCommand() *cli.Command {
	return urfave.Annotate(&cli.Command{
		Name:     "ui",
		Category: catUtilities,
		Usage:    "Serve the web UI: the project's spaces and runs, live, in a browser on this machine",
		Description: "Prints the page's URL, with the token every request needs, on stderr, and serves until\n" +
			"interrupted. Every read and action runs meridian itself, on the same files as the CLI.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "http", Value: "127.0.0.1:0", Usage: "the address to listen on: loopback, on a free port, unless given"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			p := e.project(cmd)
			srv := &web.Server{Exe: e.Exe, Dir: e.Dir, StateDir: p.State.Dir, Token: web.NewToken(),
				// The page names the space of each request.
				Env: slices.DeleteFunc(e.Environ(), func(kv string) bool { return strings.HasPrefix(kv, space.EnvID+"=") })}
			if e.MCP != nil {
				var err error
				if srv.MCP, err = e.MCP(); err != nil {
					return err
				}
			}
			ln, err := net.Listen("tcp", cmd.String("http"))
			if err != nil {
				return envelope.Validationf("INVALID_FLAG_VALUE", "cannot listen on %s: %v", cmd.String("http"), err).WithField("http")
			}
			base := "http://" + ln.Addr().String() + "/"
			if ip, ok := ln.Addr().(*net.TCPAddr); ok && !ip.IP.IsLoopback() {
				envelope.From(ctx).Warn("UI_NOT_LOOPBACK", "the UI listens on "+ln.Addr().String()+", beyond this machine: anyone with the URL's token can act on the project", "")
			}
			fmt.Fprintf(e.stderr(), "meridian ui: %s?t=%s\n", base, srv.Token)
			if srv.MCP != nil {
				fmt.Fprintf(e.stderr(), "meridian ui: MCP at %smcp, with the same token as its bearer token\n", base)
			}
			fmt.Fprintf(e.stderr(), "meridian ui: serving %s until interrupted\n", p.Root)
			// Requests run meridian in this invocation: what they start is
			// tracked, and stopped with it.
			hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second,
				BaseContext: func(net.Listener) context.Context { return ctx }}
			served := make(chan error, 1)
			go func() { served <- hs.Serve(ln) }()
			select {
			case err := <-served:
				return err
			case <-ctx.Done():
			}
			stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			defer cancel()
			shut := hs.Shutdown(stop)
			srv.Close() // the chats pages started end with the server
			if shut != nil && !errors.Is(shut, context.DeadlineExceeded) {
				return shut
			}
			return envelope.From(ctx).Result(Served{URL: base})
		},
	}, schema.Meta{Danger: schema.Safe, Audience: schema.HumanOnly, Timeout: schema.NoTimeout, Output: schema.Of[Served]()})
}

// stderr is where the command prints for the person who started it.
func (e Env) stderr() io.Writer {
	if e.Stderr != nil {
		return e.Stderr
	}
	return os.Stderr
}
