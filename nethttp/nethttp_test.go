package nethttp_test

import (
	"context"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/duet-cli/duet/nethttp"
	"github.com/duet-cli/duet/runenv"
)

// invocation returns a context as the lifecycle makes one, with env as the
// environment and p's flags.
func invocation(env map[string]string, p runenv.Proxy) context.Context {
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	return runenv.NewContext(context.Background(), runenv.Env{LookupEnv: lookup, Proxy: p})
}

// get fetches target with the invocation's client and returns the body.
func get(t *testing.T, ctx context.Context, target string) (string, error) {
	t.Helper()
	c, err := nethttp.Client(ctx)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// proxyServer answers every request itself, naming the URL it was asked for:
// an HTTP proxy, as a client that uses it sees one.
func proxyServer(t *testing.T) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "proxied %s", r.URL)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestClientProxy(t *testing.T) {
	proxy := proxyServer(t)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "direct") }))
	t.Cleanup(target.Close)
	tests := []struct {
		name   string
		env    map[string]string
		flags  runenv.Proxy
		target string
		want   string
	}{
		{"HTTP_PROXY", map[string]string{"HTTP_PROXY": proxy.URL}, runenv.Proxy{}, "http://api.example.test/v1", "proxied http://api.example.test/v1"},
		{"--proxy overrides HTTP_PROXY", map[string]string{"HTTP_PROXY": "http://127.0.0.1:1"}, runenv.Proxy{Override: proxy.URL}, "http://api.example.test/v1", "proxied http://api.example.test/v1"},
		{"localhost bypasses", map[string]string{"HTTP_PROXY": proxy.URL, "NO_PROXY": "localhost"}, runenv.Proxy{}, strings.Replace(target.URL, "127.0.0.1", "localhost", 1), "direct"},
		{"loopback bypasses", map[string]string{"HTTP_PROXY": proxy.URL}, runenv.Proxy{}, target.URL, "direct"},
		{"--no-proxy", map[string]string{"HTTP_PROXY": proxy.URL}, runenv.Proxy{Direct: true, Override: ""}, target.URL, "direct"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := get(t, invocation(tt.env, tt.flags), tt.target)
			if err != nil || got != tt.want {
				t.Errorf("GET %s = %q, %v; want %q", tt.target, got, err, tt.want)
			}
		})
	}
}

func TestClientCABundle(t *testing.T) {
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secure") }))
	t.Cleanup(server.Close)
	bundle := filepath.Join(t.TempDir(), "ca.pem")
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw})
	if err := os.WriteFile(bundle, cert, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range nethttp.CABundleEnv {
		t.Run(name, func(t *testing.T) {
			got, err := get(t, invocation(map[string]string{name: bundle}, runenv.Proxy{}), server.URL)
			if err != nil || got != "secure" {
				t.Errorf("GET with %s = %q, %v; want secure", name, got, err)
			}
		})
	}
	t.Run("no bundle", func(t *testing.T) {
		if _, err := get(t, invocation(nil, runenv.Proxy{}), server.URL); err == nil || !strings.Contains(err.Error(), "certificate") {
			t.Errorf("GET without the bundle: %v, want a certificate error", err)
		}
	})
	t.Run("unreadable bundle", func(t *testing.T) {
		_, err := nethttp.Client(invocation(map[string]string{"SSL_CERT_FILE": filepath.Join(t.TempDir(), "none")}, runenv.Proxy{}))
		if err == nil || !strings.Contains(err.Error(), "SSL_CERT_FILE") {
			t.Errorf("Client with a missing bundle: %v, want an error naming SSL_CERT_FILE", err)
		}
	})
}

// TestClientTimeout: a request never waits for ever unless the caller chose
// that with --timeout 0 (C-012).
func TestClientTimeout(t *testing.T) {
	tests := []struct {
		name string
		ctx  context.Context
		want time.Duration
	}{
		{"outside an invocation", context.Background(), nethttp.DefaultTimeout},
		{"an invocation with no limit given", runenv.NewContext(context.Background(), runenv.Env{}), nethttp.DefaultTimeout},
		{"--timeout 0", runenv.NewContext(context.Background(), runenv.Env{NoTimeout: true}), 0},
	}
	for _, tt := range tests {
		c, err := nethttp.Client(tt.ctx)
		if err != nil || c.Timeout != tt.want {
			t.Errorf("%s: timeout %v, %v; want %v", tt.name, c.Timeout, err, tt.want)
		}
	}
}

func TestClientConnectTimeout(t *testing.T) {
	ctx := runenv.NewContext(context.Background(), runenv.Env{ConnectTimeout: 3 * time.Second})
	c, err := nethttp.Client(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Transport.(*http.Transport).TLSHandshakeTimeout; got != 3*time.Second {
		t.Errorf("handshake timeout %v, want the invocation's 3s", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	if c, _ := nethttp.Client(ctx); c.Timeout <= 0 || c.Timeout > time.Hour {
		t.Errorf("timeout %v, want at most the invocation's hour", c.Timeout)
	}
}

// TestClientHTTPSProxy: an HTTPS request goes through HTTPS_PROXY, with the
// credentials its URL holds, as a CONNECT tunnel.
func TestClientHTTPSProxy(t *testing.T) {
	type seen struct{ method, host, auth string }
	got := make(chan seen, 1)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- seen{r.Method, r.Host, r.Header.Get("Proxy-Authorization")}
		http.Error(w, "no tunnels here", http.StatusBadGateway)
	}))
	t.Cleanup(proxy.Close)
	withAuth := strings.Replace(proxy.URL, "http://", "http://agent:pw@", 1)
	_, err := get(t, invocation(map[string]string{"HTTPS_PROXY": withAuth}, runenv.Proxy{}), "https://api.example.test/v1")
	if err == nil {
		t.Fatal("GET through a proxy that refuses tunnels succeeded")
	}
	s := <-got
	if s.method != http.MethodConnect || s.host != "api.example.test:443" || !strings.HasPrefix(s.auth, "Basic ") {
		t.Errorf("proxy saw %+v, want CONNECT api.example.test:443 with basic credentials", s)
	}
}
