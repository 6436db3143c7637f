package nethttp

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/duet-cli/duet/runenv"
)

// Reach connects to the host of rawURL, through the proxy the invocation
// names for it (--proxy, HTTPS_PROXY, HTTP_PROXY, NO_PROXY), and hangs up
// without sending a request: the check `tool doctor` makes of an endpoint
// the tool talks to. Give it to the adapter as a check:
//
//	adapters.WithCheck("api reachable", func(ctx context.Context) adapters.CheckResult {
//		if err := nethttp.Reach(ctx, "https://api.example.com"); err != nil {
//			return adapters.CheckResult{Error: err.Error(), Fix: "curl -sSI https://api.example.com"}
//		}
//		return adapters.CheckResult{OK: true}
//	})
//
// It lives here, not in the adapters, so that an app which never opens a
// connection does not link package net.
func Reach(ctx context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return fmt.Errorf("%q is not a URL", rawURL)
	}
	port := u.Port()
	if port == "" {
		port = "443"
		if u.Scheme == "http" {
			port = "80"
		}
	}
	target := net.JoinHostPort(u.Hostname(), port)
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, ConnectTimeout)
		defer cancel()
	}
	var d net.Dialer
	proxy, _, err := runenv.From(ctx).Proxy.For(u)
	if err != nil {
		return err
	}
	if proxy == "" {
		conn, err := d.DialContext(ctx, "tcp", target)
		if err != nil {
			return fmt.Errorf("cannot connect to %s: %w", target, err)
		}
		return conn.Close()
	}
	p, err := url.Parse(proxy)
	if err != nil {
		return err
	}
	via := p.Host
	if p.Port() == "" {
		via = net.JoinHostPort(p.Hostname(), "80")
	}
	conn, err := d.DialContext(ctx, "tcp", via)
	if err != nil {
		return fmt.Errorf("cannot connect to the proxy %s for %s: %w", via, target, err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	status, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return fmt.Errorf("the proxy %s did not answer for %s: %w", via, target, err)
	}
	if f := strings.Fields(status); len(f) < 2 || f[1] != "200" {
		return fmt.Errorf("the proxy %s refused %s: %s", via, target, strings.TrimSpace(status))
	}
	return nil
}
