// Package nethttp is the HTTP client a command's requests go through, so
// that its author writes no proxy, certificate or timeout handling: the
// client follows the proxy of the invocation (HTTPS_PROXY, HTTP_PROXY and
// NO_PROXY, or --proxy and --no-proxy, as package runenv resolves them),
// verifies TLS against the system's roots plus the CA bundle
// REQUESTS_CA_BUNDLE or SSL_CERT_FILE names, and gives up when the
// invocation's timeout does.
//
// A request that fails returns a *url.Error, which the lifecycle turns into
// an error with a network_context: the URL, the proxy used and where it came
// from, NO_PROXY, and a curl command that shows the failure again.
//
// It is its own package so that an app that makes no HTTP requests does not
// link net/http.
package nethttp

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/duet-cli/duet/runenv"
)

// DefaultTimeout bounds a request made without a deadline, so that no
// request waits for ever unless the caller asked for that (--timeout 0).
const DefaultTimeout = 5 * time.Minute

// ConnectTimeout bounds establishing each connection, unless the invocation
// says otherwise (--connect-timeout).
const ConnectTimeout = 10 * time.Second

// CABundleEnv are the variables that name a file of PEM certificates to
// trust besides the system's, in the order they are read.
var CABundleEnv = []string{"REQUESTS_CA_BUNDLE", "SSL_CERT_FILE"}

// Client returns a client for the invocation ctx belongs to. Send requests
// made with http.NewRequestWithContext(ctx, ...), so that they end when the
// command is cancelled. It fails only when a CA bundle is named and cannot
// be read.
func Client(ctx context.Context) (*http.Client, error) {
	env := runenv.From(ctx)
	tlsConfig, err := tlsFor(env)
	if err != nil {
		return nil, err
	}
	proxy := env.Proxy
	connect := ConnectTimeout
	if env.ConnectTimeout > 0 {
		connect = env.ConnectTimeout
	}
	dialer := &net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}
	transport := &http.Transport{
		Proxy: func(req *http.Request) (*url.URL, error) {
			p, _, err := proxy.For(req.URL)
			if err != nil || p == "" {
				return nil, err
			}
			return url.Parse(p)
		},
		DialContext:           dialer.DialContext,
		TLSClientConfig:       tlsConfig,
		TLSHandshakeTimeout:   connect,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          10,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	timeout := DefaultTimeout
	if d, ok := ctx.Deadline(); ok {
		timeout = max(time.Until(d), time.Millisecond)
	} else if env.NoTimeout {
		timeout = 0 // the caller's deliberate choice, --timeout 0
	}
	var rt http.RoundTripper = transport
	if env.Debug != nil {
		rt = &debugTransport{next: transport, log: env.Debug}
	}
	return &http.Client{Transport: rt, Timeout: timeout}, nil
}

// tlsFor returns the TLS settings: nil (the system's roots) unless a CA
// bundle is named.
func tlsFor(env runenv.Env) (*tls.Config, error) {
	for _, name := range CABundleEnv {
		path := env.Getenv(name)
		if path == "" {
			continue
		}
		pem, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: %s holds no PEM certificate", name, path)
		}
		return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
	}
	return nil, nil
}
