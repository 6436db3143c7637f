//go:build linux

package e2e

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/internal/e2eapp/app"
)

// ===========================================================================
// A service and a proxy, on loopback: real sockets the binary reaches.

// serviceHost is the service's name. Nothing resolves it: a request to it
// arrives only through the proxy, which knows where the service is.
const serviceHost = "api.e2eapp.test"

// request is what the service was asked.
type request struct {
	Method, Path, Auth, Body string
}

// service is the HTTPS API e2eapp's `api` commands call, on loopback, with
// a certificate of a CA of its own, which no system trusts: a client
// verifies it only with that CA's bundle (ca).
type service struct {
	addr string // 127.0.0.1:port
	port string
	ca   string // the CA bundle's path, in the sandbox

	mu   sync.Mutex
	seen []request
}

func newService(t *testing.T, sb *sandbox, handler http.HandlerFunc) *service {
	t.Helper()
	cert, caPEM := selfSigned(t)
	s := &service{ca: sb.path("ca.pem")}
	if err := os.WriteFile(s.ca, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.seen = append(s.seen, request{r.Method, r.URL.Path, r.Header.Get("Authorization"), string(body)})
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		handler(w, r)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // a client that rejects the certificate is a case, not news
	srv.StartTLS()
	t.Cleanup(srv.Close)
	s.addr = srv.Listener.Addr().String()
	_, s.port, _ = net.SplitHostPort(s.addr)
	return s
}

// url is the service's URL for path at host (localhost, 127.0.0.1 or
// 0.0.0.0: all reach it; serviceHost only through the proxy, on 443).
func (s *service) url(host, path string) string {
	if host == serviceHost {
		return "https://" + serviceHost + path
	}
	return "https://" + net.JoinHostPort(host, s.port) + path
}

// requests returns what the service was asked since the last call.
func (s *service) requests() []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := s.seen
	s.seen = nil
	return seen
}

// selfSigned is a CA certificate that is its own server certificate, for
// serviceHost, localhost, 127.0.0.1 and 0.0.0.0, and its PEM.
func selfSigned(t *testing.T) (tls.Certificate, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "e2eapp test service CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{serviceHost, "localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv4zero},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// proxy is an HTTP proxy that tunnels HTTPS (CONNECT), as a corporate one
// does, and knows where serviceHost is. It records each tunnel's target.
type proxy struct {
	url string

	mu      sync.Mutex
	tunnels []string
}

func newProxy(t *testing.T, svc *service) *proxy {
	t.Helper()
	p := &proxy{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			http.Error(w, "this proxy only tunnels", http.StatusMethodNotAllowed)
			return
		}
		p.mu.Lock()
		p.tunnels = append(p.tunnels, r.Host)
		p.mu.Unlock()
		target := r.Host
		if host, _, _ := net.SplitHostPort(target); host == serviceHost {
			target = svc.addr
		}
		up, err := net.Dial("tcp", target)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer up.Close()
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		if _, err := conn.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
			return
		}
		go func() {
			io.Copy(up, rw) // what the client sent, buffered or not
			up.(*net.TCPConn).CloseWrite()
		}()
		io.Copy(conn, up)
	}))
	t.Cleanup(srv.Close)
	p.url = srv.URL
	return p
}

// took returns the tunnels opened since the last call.
func (p *proxy) took() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.tunnels
	p.tunnels = nil
	return t
}

// closedAddr is a loopback address nobody listens on: a dial is refused.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// tokenEnv holds the API token the tests give e2eapp (--api-token-from-env
// tokenEnv: a secret is never on the command line, REQ-C-016).
const tokenEnv = "E2EAPP_TEST_TOKEN"

// apiGet is `api get --url url` with the token in tokenEnv.
func apiGet(url string) []string {
	return []string{"api", "get", "--url", url, "--api-token-from-env", tokenEnv}
}

// networkContext is error.network_context, or nil.
func networkContext(env map[string]any) map[string]any {
	nc, _ := get(env, "error.network_context").(map[string]any)
	return nc
}

// ---------------------------------------------------------------------------
// REQ-F-036 HTTP client proxy environment variable compliance.

// TestF036ProxyFromTheEnvironment: REQ-F-036 criteria 1 to 4. `api get`
// makes its request with nethttp's client. With HTTPS_PROXY naming a proxy
// (on loopback), the request to the service goes through it: the proxy
// tunnels api.e2eapp.test:443, a name only the proxy can reach, and the
// answer comes back. NO_PROXY=localhost sends a request to localhost
// direct (the proxy tunnels nothing); a host NO_PROXY names (0.0.0.0,
// which reaches this machine and is not loopback, so is proxied unless
// named) goes direct, and the same host not named goes through the proxy.
// The service's certificate is of a CA no system trusts: with
// REQUESTS_CA_BUNDLE naming it the request succeeds, without it it fails
// (exit 12, TLS_FAILED) and the service is never asked. The command's
// source (app/network.go) holds no proxy, TLS or environment code.
func TestF036ProxyFromTheEnvironment(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	svc := newService(t, sb, func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"user": "alice", "path": r.URL.Path})
	})
	px := newProxy(t, svc)
	tok := tokenEnv + "=tok-f036"
	ca := "REQUESTS_CA_BUNDLE=" + svc.ca
	zero := net.JoinHostPort("0.0.0.0", svc.port)

	tests := []struct {
		name    string
		env     []string
		url     string
		tunnels []string // what the proxy tunnelled
	}{
		{"HTTPS_PROXY", []string{"HTTPS_PROXY=" + px.url}, svc.url(serviceHost, "/v1/me"), []string{serviceHost + ":443"}},
		{"https_proxy", []string{"https_proxy=" + px.url}, svc.url(serviceHost, "/v1/me"), []string{serviceHost + ":443"}},
		{"NO_PROXY=localhost", []string{"HTTPS_PROXY=" + px.url, "NO_PROXY=localhost"}, svc.url("localhost", "/v1/me"), nil},
		{"a host NO_PROXY does not name", []string{"HTTPS_PROXY=" + px.url, "NO_PROXY=localhost"}, svc.url("0.0.0.0", "/v1/me"), []string{zero}},
		{"a host NO_PROXY names", []string{"HTTPS_PROXY=" + px.url, "NO_PROXY=localhost,0.0.0.0"}, svc.url("0.0.0.0", "/v1/me"), nil},
	}
	for _, tt := range tests {
		r := sb.runEnv(t, append(tt.env, tok, ca), apiGet(tt.url)...)
		want(t, tt.name, expect(t, tt.name, r, 0), map[string]any{"data.user": "alice", "data.path": "/v1/me"})
		if diff := cmp.Diff(tt.tunnels, px.took()); diff != "" {
			t.Errorf("%s: the proxy's tunnels (-want +got):\n%s", tt.name, diff)
		}
		if diff := cmp.Diff([]request{{"GET", "/v1/me", "Bearer tok-f036", ""}}, svc.requests()); diff != "" {
			t.Errorf("%s: the service's requests (-want +got):\n%s", tt.name, diff)
		}
	}

	// The CA bundle is what verifies the service.
	r := sb.runEnv(t, []string{"HTTPS_PROXY=" + px.url, tok}, apiGet(svc.url(serviceHost, "/v1/me"))...)
	env := expect(t, "no CA bundle", r, 12)
	want(t, "no CA bundle", env, map[string]any{"error.code": "TLS_FAILED", "error.network_context.ssl_verify": true})
	if got := svc.requests(); len(got) != 0 {
		t.Errorf("without the CA bundle the service was asked %v", got)
	}
	px.took()

	// The author's code: no proxy, TLS or environment handling.
	src := readFile(t, filepath.Join("..", "app", "network.go"))
	f, err := parser.ParseFile(token.NewFileSet(), "network.go", src, 0) // comments dropped
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if slices.Contains([]string{"os", "crypto/tls", "crypto/x509", "net/url", "golang.org/x/net/proxy", "github.com/duet-cli/duet/runenv"}, path) {
			t.Errorf("app/network.go imports %s", path)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		var name string
		switch x := n.(type) {
		case *ast.Ident:
			name = x.Name
		case *ast.BasicLit:
			name = x.Value
		}
		if l := strings.ToLower(name); strings.Contains(l, "proxy") || strings.Contains(l, "tls") || slices.Contains([]string{"transport", "getenv", "lookupenv", "rootcas"}, l) {
			t.Errorf("app/network.go handles the network itself: %s", name)
		}
		return true
	})
}

// ---------------------------------------------------------------------------
// REQ-F-037 Network error context block.

// TestF037NetworkErrorContext: REQ-F-037 criteria 1 to 4. A connection
// that fails — to a proxy (HTTPS_PROXY) nobody listens at, or straight to
// a port nobody listens on — exits 12, CONNECTION_FAILED, with
// error.network_context: the URL, proxy_used and proxy_source (the proxy
// and HTTPS_PROXY; null, present, with no proxy), ssl_verify, and a
// suggestion, a curl command that, run by a shell, fails to connect the
// same way (curl's exit 7). A proxy's password is not repeated. An error
// that is not the network's — the service's 404, no credential — has no
// network_context.
func TestF037NetworkErrorContext(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	svc := newService(t, sb, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":"not_found"}`)
	})
	deadProxyAddr, deadServiceAddr := closedAddr(t), closedAddr(t)
	deadProxy, deadService := "http://"+deadProxyAddr, "https://"+deadServiceAddr+"/v1/me"
	token := tokenEnv + "=tok-f037"

	tests := []struct {
		name       string
		env        []string
		url        string
		proxy      any // proxy_used
		source     any // proxy_source
		suggestion string
	}{
		{"through a proxy", []string{"HTTPS_PROXY=" + deadProxy, "NO_PROXY=localhost"}, svc.url(serviceHost, "/v1/me"),
			deadProxy, "HTTPS_PROXY", "curl -v --proxy " + deadProxy + " " + svc.url(serviceHost, "/v1/me")},
		{"no proxy", nil, deadService, nil, nil, "curl -v " + deadService},
		{"a proxy with a password", []string{"HTTPS_PROXY=http://agent:s3cret-pw@" + deadProxyAddr}, svc.url(serviceHost, "/v1/me"),
			"http://agent:xxxxx@" + deadProxyAddr, "HTTPS_PROXY",
			"curl -v --proxy http://agent:xxxxx@" + deadProxyAddr + " " + svc.url(serviceHost, "/v1/me")},
	}
	for _, tt := range tests {
		r := sb.runEnv(t, append(tt.env, token), apiGet(tt.url)...)
		env := expect(t, tt.name, r, 12)
		nc := networkContext(env)
		if nc == nil {
			t.Fatalf("%s: no error.network_context: %s", tt.name, r.stdout)
		}
		if _, present := nc["proxy_used"]; !present {
			t.Errorf("%s: network_context has no proxy_used (null is not absent): %v", tt.name, nc)
		}
		want(t, tt.name, env, map[string]any{
			"error.code":                         "CONNECTION_FAILED",
			"error.network_context.url":          tt.url,
			"error.network_context.proxy_used":   tt.proxy,
			"error.network_context.proxy_source": tt.source,
			"error.network_context.ssl_verify":   true,
			"error.network_context.suggestion":   tt.suggestion,
		})
		if strings.Contains(r.stdout, "s3cret-pw") {
			t.Errorf("%s: the proxy's password is in the answer: %s", tt.name, r.stdout)
		}
		// The suggestion is a command a shell runs, and it shows the failure.
		if _, err := exec.LookPath("curl"); err == nil {
			cmd := exec.CommandContext(bounded(t), "sh", "-c", tt.suggestion+" --max-time 20")
			cmd.Env = sb.env
			out, _ := cmd.CombinedOutput()
			_, port, _ := net.SplitHostPort(deadProxyAddr)
			if tt.proxy == nil {
				_, port, _ = net.SplitHostPort(deadServiceAddr)
			}
			if code := cmd.ProcessState.ExitCode(); code != 7 || !strings.Contains(string(out), "port "+port) {
				t.Errorf("%s: %q exited %d, not curl's failure to connect (7) to port %s:\n%s", tt.name, tt.suggestion, code, port, out)
			}
		}
	}
	if got := svc.requests(); len(got) != 0 {
		t.Errorf("the service was asked %v through a proxy that is down", got)
	}

	for _, tt := range []struct {
		name string
		args []string
		code int
	}{
		{"the service's 404", apiGet(svc.url("localhost", "/v1/nobody")), 5},
		{"no credential", []string{"api", "get", "--url", svc.url("localhost", "/v1/me")}, 8},
	} {
		r := sb.runEnv(t, []string{token, "REQUESTS_CA_BUNDLE=" + svc.ca}, tt.args...)
		env := expect(t, tt.name, r, tt.code)
		if _, has := get(env, "error").(map[string]any)["network_context"]; has || strings.Contains(r.stdout, "network_context") {
			t.Errorf("%s: a network_context for an error that is not the network's: %s", tt.name, r.stdout)
		}
	}
}

// ---------------------------------------------------------------------------
// REQ-O-019 --proxy and --no-proxy flags.

// TestO019ProxyFlags: REQ-O-019 criteria 1 to 4. `api get` (Meta.Network)
// has --proxy and --no-proxy. --proxy sends the request through the proxy
// it names — with no proxy in the environment, and over an HTTPS_PROXY
// that is down; --no-proxy connects directly though HTTPS_PROXY names a
// proxy (for a host that proxy otherwise tunnels, 0.0.0.0). A --proxy
// nobody listens at fails with network_context.proxy_used naming it and
// proxy_source "--proxy". The two together are refused (exit 2). In the
// manifest, exactly the commands with has_network_io have the flags:
// `status` and `notes add` have neither.
func TestO019ProxyFlags(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	svc := newService(t, sb, func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"user": "alice"})
	})
	px := newProxy(t, svc)
	dead := "http://" + closedAddr(t)
	base := []string{tokenEnv + "=tok-o019", "REQUESTS_CA_BUNDLE=" + svc.ca}
	zero := svc.url("0.0.0.0", "/v1/me")

	tests := []struct {
		name    string
		env     []string
		args    []string
		tunnels []string
	}{
		{"--proxy", nil, append(apiGet(svc.url(serviceHost, "/v1/me")), "--proxy", px.url), []string{serviceHost + ":443"}},
		{"--proxy over HTTPS_PROXY", []string{"HTTPS_PROXY=" + dead}, append(apiGet(svc.url(serviceHost, "/v1/me")), "--proxy", px.url), []string{serviceHost + ":443"}},
		{"HTTPS_PROXY alone", []string{"HTTPS_PROXY=" + px.url}, apiGet(zero), []string{net.JoinHostPort("0.0.0.0", svc.port)}},
		{"--no-proxy", []string{"HTTPS_PROXY=" + px.url}, append(apiGet(zero), "--no-proxy"), nil},
	}
	for _, tt := range tests {
		want(t, tt.name, expect(t, tt.name, sb.runEnv(t, append(tt.env, base...), tt.args...), 0), map[string]any{"data.user": "alice"})
		if diff := cmp.Diff(tt.tunnels, px.took()); diff != "" {
			t.Errorf("%s: the proxy's tunnels (-want +got):\n%s", tt.name, diff)
		}
	}

	env := expect(t, "--proxy down", sb.runEnv(t, base, append(apiGet(svc.url(serviceHost, "/v1/me")), "--proxy", dead)...), 12)
	want(t, "--proxy down", env, map[string]any{
		"error.code": "CONNECTION_FAILED", "error.network_context.proxy_used": dead, "error.network_context.proxy_source": "--proxy"})

	env = expect(t, "both", sb.runEnv(t, base, append(apiGet(zero), "--proxy", px.url, "--no-proxy")...), 2)
	want(t, "both", env, map[string]any{"error.code": "MUTUALLY_EXCLUSIVE_FLAGS"})
	if got := svc.requests(); len(got) != 4 {
		t.Errorf("the service was asked %d times, want the 4 successes alone: %v", len(got), got)
	}

	commands, _ := sb.manifest(t)["commands"].(map[string]any)
	networked := 0
	for path, c := range commands {
		flags, _ := get(c, "flags").(map[string]any)
		_, proxy := flags["proxy"]
		_, noProxy := flags["no-proxy"]
		network := get(c, "has_network_io") == true
		if proxy != network || noProxy != network {
			t.Errorf("%s: has_network_io %v, --proxy %v, --no-proxy %v", path, network, proxy, noProxy)
		}
		if network {
			networked++
		}
	}
	if networked == 0 || get(commands["api.get"], "has_network_io") != true {
		t.Errorf("no command, or not api get, declares network I/O")
	}
	for _, cmd := range [][]string{{"status"}, {"notes", "add"}} {
		if flags := flagNames(sb.schemaOf(t, cmd...)); slices.Contains(flags, "proxy") || slices.Contains(flags, "no-proxy") {
			t.Errorf("%s --schema has the proxy flags: %v", cmd, flags)
		}
	}
}

// ---------------------------------------------------------------------------
// REQ-F-063 Credential expiry structured error.

// TestF063CredentialErrors: REQ-F-063 criteria 1 to 4. `api get` against
// a service that says the token expired (401) exits 8, CREDENTIALS_EXPIRED,
// with expires_at and refresh_command, the command that renews it (`api
// refresh-token`, which, run as it is, renews); with no token at all it
// exits 8, UNAUTHENTICATED, with the hint "Run: e2eapp device-login" (a
// login that runs), asking the service nothing; a token the service
// refuses for a permission (403) exits 7, PERMISSION_DENIED, with
// required_permission. An agent tells the three apart by exit code and
// error.code alone.
func TestF063CredentialErrors(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	svc := newService(t, sb, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/deploy":
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":"token_expired","expired_at":"2025-03-01T00:00:00Z"}`)
		case "/v1/billing":
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `{"error":"insufficient_scope","required_permission":"billing:read"}`)
		case "/oauth/token":
			io.WriteString(w, `{"expires_at":"2030-01-01T00:00:00Z"}`)
		}
	})
	base := []string{"REQUESTS_CA_BUNDLE=" + svc.ca, "E2EAPP_AUTH_URL=" + svc.url("localhost", "/oauth/token")}
	withToken := append([]string{tokenEnv + "=tok-f063"}, base...)

	tests := []struct {
		name  string
		env   []string
		args  []string
		exit  int
		want  map[string]any
		asked []request
	}{
		{"expired", withToken, apiGet(svc.url("localhost", "/v1/deploy")), 8, map[string]any{
			"error.code": "CREDENTIALS_EXPIRED", "error.expires_at": "2025-03-01T00:00:00Z", "error.refresh_command": "e2eapp api refresh-token",
		}, []request{{"GET", "/v1/deploy", "Bearer tok-f063", ""}}},
		{"missing", base, []string{"api", "get", "--url", svc.url("localhost", "/v1/deploy")}, 8, map[string]any{
			"error.code": "UNAUTHENTICATED", "error.hint": "Run: e2eapp device-login", "error.refresh_command": nil,
		}, nil},
		{"denied", withToken, apiGet(svc.url("localhost", "/v1/billing")), 7, map[string]any{
			"error.code": "PERMISSION_DENIED", "error.required_permission": "billing:read", "error.refresh_command": nil, "error.hint": nil,
		}, []request{{"GET", "/v1/billing", "Bearer tok-f063", ""}}},
	}
	answers := map[int][]string{}
	for _, tt := range tests {
		env := expect(t, tt.name, sb.runEnv(t, tt.env, tt.args...), tt.exit)
		want(t, tt.name, env, tt.want)
		if diff := cmp.Diff(tt.asked, svc.requests()); diff != "" {
			t.Errorf("%s: the service's requests (-want +got):\n%s", tt.name, diff)
		}
		answers[tt.exit] = append(answers[tt.exit], tt.want["error.code"].(string))
	}
	// 7 is the denial an agent cannot correct, 8 the credentials it can;
	// within 8 the code says which.
	if diff := cmp.Diff(map[int][]string{7: {"PERMISSION_DENIED"}, 8: {"CREDENTIALS_EXPIRED", "UNAUTHENTICATED"}}, answers); diff != "" {
		t.Errorf("exit codes and error codes (-want +got):\n%s", diff)
	}

	// What the errors name runs, as it is.
	refresh := expect(t, "refresh_command", sb.runEnv(t, base, "api", "refresh-token"), 0)
	want(t, "refresh_command", refresh, map[string]any{"data.refreshed": true, "data.expires_at": "2030-01-01T00:00:00Z"})
	expect(t, "the hint's login", sb.run(t, "device-login"), 0)
}

// ---------------------------------------------------------------------------
// REQ-F-064 Output truncation detection and warning.

// TestF064Truncation: REQ-F-064 criteria 1 to 4. `api put-note` stores
// --body (declared max_bytes 255) in the service: 500 bytes exit 2,
// FIELD_TOO_LARGE, phase validation, naming body, and the service is never
// asked; 255 bytes are stored. `api get-note` reads a note the service cut
// short and says so: meta.truncated true and a FIELD_TRUNCATED warning
// whose context gives field, returned_bytes and original_bytes (left out
// when the service does not say). Every answer is one whole envelope.
func TestF064Truncation(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	short := strings.Repeat("b", 255)
	svc := newService(t, sb, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/notes/known":
			json.NewEncoder(w).Encode(map[string]any{"body": short, "truncated": true, "original_bytes": 8192})
		case "/notes/unknown":
			json.NewEncoder(w).Encode(map[string]any{"body": short, "truncated": true})
		case "/notes/whole":
			json.NewEncoder(w).Encode(map[string]any{"body": "all of it"})
		}
	})
	base := []string{"REQUESTS_CA_BUNDLE=" + svc.ca}
	put := func(body string) result {
		return sb.runEnv(t, base, "api", "put-note", "--url", svc.url("localhost", "/notes/n1"), "--body", body)
	}

	env := expect(t, "500 bytes", put(strings.Repeat("x", 500)), 2)
	want(t, "500 bytes", env, map[string]any{"error.code": "FIELD_TOO_LARGE", "error.phase": "validation", "error.field": "body", "data": nil})
	if got := svc.requests(); len(got) != 0 {
		t.Errorf("a value over max_bytes reached the service: %v", got)
	}
	want(t, "255 bytes", expect(t, "255 bytes", put(strings.Repeat("x", 255)), 0), map[string]any{"data.bytes": 255.0})
	if diff := cmp.Diff([]request{{"PUT", "/notes/n1", "", strings.Repeat("x", 255)}}, svc.requests()); diff != "" {
		t.Errorf("the service's requests (-want +got):\n%s", diff)
	}

	for _, tt := range []struct {
		note      string
		truncated any
		contexts  []any // of the FIELD_TRUNCATED warnings
	}{
		{"known", true, []any{map[string]any{"field": "data.body", "returned_bytes": 255.0, "original_bytes": 8192.0}}},
		{"unknown", true, []any{map[string]any{"field": "data.body", "returned_bytes": 255.0}}},
		{"whole", nil, nil},
	} {
		env := expect(t, tt.note, sb.runEnv(t, base, "api", "get-note", "--url", svc.url("localhost", "/notes/"+tt.note)), 0)
		var contexts []any
		list, _ := env["warnings"].([]any)
		for _, w := range list {
			if get(w, "code") == "FIELD_TRUNCATED" {
				contexts = append(contexts, get(w, "context"))
			}
		}
		if len(tt.contexts) > 0 && len(contexts) == 1 && contexts[0] == nil && strings.Contains(asJSON(env), "returned_bytes=255") {
			gap(t, "FIELD_TRUNCATED carries field and byte counts in its message only, no context (envelope/truncation.go): %v", list)
		}
		if diff := cmp.Diff(map[string]any{"meta.truncated": tt.truncated, "contexts": tt.contexts},
			map[string]any{"meta.truncated": get(env, "meta.truncated"), "contexts": any(contexts)}); diff != "" {
			t.Errorf("%s note (-want +got):\n%s", tt.note, diff)
		}
		if d := get(env, "data.body"); tt.note != "whole" && d != short {
			t.Errorf("%s note: data.body %v, want the 255 bytes the service gave", tt.note, d)
		}
	}
}

// asJSON is an envelope as text.
func asJSON(env map[string]any) string {
	raw, _ := json.Marshal(env)
	return string(raw)
}

// ---------------------------------------------------------------------------
// REQ-F-034 Secret field auto-redaction in logs.

// auditLines reads an audit log's entries.
func auditLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(readFile(t, path)))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("audit log line %q: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	return lines
}

// TestF034AuditLogRedaction: REQ-F-034 criteria 1 to 4, with the audit log
// on (E2EAPP_AUDIT_LOG). `api get` fetches an account record whose fields
// include password, API_TOKEN and, nested, Client_Secret. stdout answers
// the record as the service gave it, and the service got the real token
// (the command ran unredacted); the audit entry has the token's argument
// (--api-token-from-env) "[REDACTED]" and those fields "[REDACTED]"
// whatever their case, the others as they were, and no secret value
// anywhere. `--api-token abc123` on the command line is
// refused (REQ-C-016: a secret is never taken from argv), and its entry
// too says "[REDACTED]", never abc123; `audit-log` answers the same.
func TestF034AuditLogRedaction(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	record := map[string]any{
		"user": "alice", "password": "hunter2-secret", "API_TOKEN": "tok-in-data-77",
		"service_account": map[string]any{"Client_Secret": "cs-nested-456", "client_id": "app-1"},
	}
	svc := newService(t, sb, func(w http.ResponseWriter, r *http.Request) { json.NewEncoder(w).Encode(record) })
	audit := sb.path("audit.jsonl")
	base := []string{"E2EAPP_AUDIT_LOG=" + audit, "REQUESTS_CA_BUNDLE=" + svc.ca, tokenEnv + "=abc123-from-env"}

	env := expect(t, "api get", sb.runEnv(t, base, apiGet(svc.url("localhost", "/v1/account"))...), 0)
	if diff := cmp.Diff(record, env["data"]); diff != "" {
		t.Errorf("stdout's data is not the record as given (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]request{{"GET", "/v1/account", "Bearer abc123-from-env", ""}}, svc.requests()); diff != "" {
		t.Errorf("the service's requests (-want +got):\n%s", diff)
	}
	env = expect(t, "--api-token abc123", sb.runEnv(t, base, "api", "get", "--url", svc.url("localhost", "/v1/account"), "--api-token", "abc123"), 2)
	want(t, "--api-token abc123", env, map[string]any{"error.code": "SECRET_ON_COMMAND_LINE", "error.field": "api-token"})

	lines := auditLines(t, audit)
	if len(lines) != 2 {
		t.Fatalf("audit log has %d entries, want 2:\n%s", len(lines), readFile(t, audit))
	}
	want(t, "the run's entry", lines[0], map[string]any{
		"command": "api.get", "exit_code": 0.0, "args.api-token-from-env": "[REDACTED]",
		"data.user": "alice", "data.password": "[REDACTED]", "data.API_TOKEN": "[REDACTED]",
		"data.service_account.Client_Secret": "[REDACTED]", "data.service_account.client_id": "app-1",
	})
	want(t, "the refusal's entry", lines[1], map[string]any{"command": "api.get", "exit_code": 2.0, "args.api-token": "[REDACTED]"})
	log := readFile(t, audit)
	shown := expect(t, "audit-log", sb.runEnv(t, base, "audit-log", "--command", "api.get"), 0)
	for _, secret := range []string{"abc123", "hunter2-secret", "tok-in-data-77", "cs-nested-456"} {
		if strings.Contains(log, secret) || strings.Contains(asJSON(shown), secret) {
			t.Errorf("%s is in the audit log:\n%s\n%s", secret, log, asJSON(shown))
		}
	}
	if !strings.Contains(asJSON(shown), `"api-token":"[REDACTED]"`) {
		t.Errorf("audit-log does not answer api-token as [REDACTED]: %s", asJSON(shown))
	}
}

// ---------------------------------------------------------------------------
// REQ-C-019 Subprocess-invoking commands declare argument schema.

// TestC019SubprocessArguments: REQ-C-019 criteria 1 to 4. `tag` runs git
// through proc with its <name> (marked Subprocess) and declares the
// program: --schema has subprocess {binary git, user_controlled_args
// [name], hardcoded_args [tag -a]}. A name with a shell metacharacter is
// refused, exit 2, SHELL_METACHARACTER, before git runs (tag's code checks
// nothing: Duet does; TestF044ArgumentsVerbatim shows more). duetvet,
// Duet's analyzers as a built binary, reports a program started with
// os/exec or os.StartProcess, the Go ways round proc (Go has no
// os.system), and passes the same code with a reasoned allow comment.
func TestC019SubprocessArguments(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	doc := sb.schemaOf(t, "tag")
	if diff := cmp.Diff(map[string]any{"binary": "git", "user_controlled_args": []any{"name"}, "hardcoded_args": []any{"tag", "-a"}}, doc["subprocess"]); diff != "" {
		t.Errorf("tag --schema subprocess (-want +got):\n%s", diff)
	}
	repo := sb.newRepo(t)
	injected := sb.path("INJECTED")
	env := expect(t, "tag with ;", sb.run(t, "tag", "v1;touch "+injected, "--repo", repo, "--message", "m"), 2)
	want(t, "tag with ;", env, map[string]any{"error.code": "SHELL_METACHARACTER", "error.phase": "validation", "error.field": "name"})
	if tags := strings.TrimSpace(sb.gitOut(t, "-C", repo, "tag")); tags != "" || exists(injected) {
		t.Errorf("git ran (tags %q) or the injection did (%v)", tags, exists(injected))
	}

	module := func(allow string) string {
		return "package main\n\nimport (\n\t\"os\"\n\t\"os/exec\"\n)\n\nfunc main() {\n" +
			allow + "\t_ = exec.Command(\"sh\", \"-c\", os.Args[1]).Run()\n" +
			allow + "\t_, _ = os.StartProcess(\"/bin/true\", nil, &os.ProcAttr{})\n}\n"
	}
	out, err := vetModule(t, module(""))
	if err == nil || strings.Count(out, "starts a program outside package proc") != 2 || !strings.Contains(out, "exec.Command") || !strings.Contains(out, "os.StartProcess") {
		t.Errorf("duetvet on exec.Command and os.StartProcess: %v\n%s", err, out)
	}
	if out, err := vetModule(t, module("\t//duetvet:allow rawexec -- the test's own reason\n")); err != nil {
		t.Errorf("duetvet with an allow comment: %v\n%s", err, out)
	}
}

// ---------------------------------------------------------------------------
// REQ-C-023 Editor-requiring commands declare non-interactive alternative.

// TestC023EditorDeclaration: REQ-C-023 criterion 1, and the schema.
// e2eapp-misdeclared with a command that opens an editor and names no
// alternative does not start (exit 1, nothing on stdout, the command and
// Meta.Alternatives named on stderr). `notes add` declares both:
// requires_editor and non_interactive_alternatives [message, from-file]
// in --schema; piped it exits 4 naming --message (alternatives[], and the
// suggestion "use --message <message> or --from-file <from-file> instead"). Criteria 2 to 4 at length: TestF055EditorCommandNeedsAnAlternative
// (exit 4 EDITOR_REQUIRED, --message proceeds, the editor at a terminal).
func TestC023EditorDeclaration(t *testing.T) {
	t.Parallel()
	mis := sandboxFor(t, misdeclared)
	for _, args := range [][]string{{"status"}, {"commit"}} {
		r := mis.runEnv(t, []string{"E2EAPP_MISDECLARE=editor-no-alternative"}, args...)
		if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, `command "commit"`) || !strings.Contains(r.stderr, "Meta.Editor needs Meta.Alternatives") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want it not to start, naming commit and Meta.Alternatives", args, r.code, r.stdout, r.stderr)
		}
	}
	sb := newSandbox(t)
	doc := sb.schemaOf(t, "notes", "add")
	want(t, "notes add --schema", doc, map[string]any{"requires_editor": true, "non_interactive_alternatives": []any{"message", "from-file"}})
	env := expect(t, "notes add", sb.run(t, "notes", "add", "--file", sb.path("notes.txt")), 4)
	suggestion, _ := get(env, "error.suggestion").(string)
	if get(env, "error.alternatives.0.flag") != "--message" || !strings.HasPrefix(suggestion, "use --message <message>") {
		t.Errorf("notes add: the refusal does not name --message: %s", asJSON(env))
	}
}

// ---------------------------------------------------------------------------
// REQ-C-024 GUI-launching commands declare headless behavior.

// TestC024GUIDeclaration: REQ-C-024's schema, beside its criteria shown in
// TestF057NoBrowserHeadless (1: data.open_url headless), TestF057UndeclaredBrowser
// (2: no headless behaviour, no start), TestF057BrowserWithADisplay (3:
// the browser opens with a display) and TestF057HeadlessInEveryAnswer (4:
// meta.headless in every answer). --schema gives gui_operations and
// headless_behavior: `docs` emit_in_output, `login` error; a command that
// opens nothing has neither.
func TestC024GUIDeclaration(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	for cmd, behaviour := range map[string]any{"docs": "emit_in_output", "login": "error"} {
		want(t, cmd+" --schema", sb.schemaOf(t, cmd), map[string]any{"gui_operations": []any{"browser_open"}, "headless_behavior": behaviour})
	}
	want(t, "status --schema", sb.schemaOf(t, "status"), map[string]any{"gui_operations": nil, "headless_behavior": nil})
}

// ---------------------------------------------------------------------------
// REQ-F-075 Subcommand additive stability.

// TestF075SubcommandStability: REQ-F-075 criteria 1 to 4. e2eapp 1.0.0 is
// wrapped with the describe document of 0.9.0 (adapters.WithHistory).
// Built without 0.9.0's `api export`, never deprecated there
// (e2eapp-misdeclared, case command-removed), it does not start: exit 1,
// nothing on stdout, the command named on stderr. e2eapp itself starts
// without 0.9.0's `api ping`, which 0.9.0 deprecated. `api status`,
// deprecated in 1.0.0, runs and answers as `api get` does, with the
// structured DEPRECATED line on stderr (replacement, removed_in). describe
// --full gives every command of the app its introduced_in (0.9.0's
// release for what it had, 1.0.0 for the new), and `api status` its
// deprecated_in and replacement; the manifest says the same in each
// description. Every command 0.9.0 had and did not deprecate still
// answers in 1.0.0.
func TestF075SubcommandStability(t *testing.T) {
	t.Parallel()
	mis := sandboxFor(t, misdeclared)
	for _, args := range [][]string{{"status"}, {"manifest"}, {"api", "get", "--help"}} {
		r := mis.runEnv(t, []string{"E2EAPP_MISDECLARE=command-removed"}, args...)
		if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "api.export is gone without having been deprecated") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want it not to start, naming api.export", args, r.code, r.stdout, r.stderr)
		}
	}

	sb := newSandbox(t)
	svc := newService(t, sb, func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"status": "green"})
	})
	base := []string{"REQUESTS_CA_BUNDLE=" + svc.ca, tokenEnv + "=tok-f075"}
	url := svc.url("localhost", "/v1/status")
	now := expect(t, "api get", sb.runEnv(t, base, apiGet(url)...), 0)
	old := sb.runEnv(t, base, "api", "status", "--url", url, "--api-token-from-env", tokenEnv)
	was := expect(t, "api status", old, 0)
	if !cmp.Equal(now["data"], was["data"]) || !slices.Contains(warningCodes(was), "DEPRECATED") {
		t.Errorf("api status answered %v with warnings %v; want api get's %v and DEPRECATED", was["data"], warningCodes(was), now["data"])
	}
	var line map[string]any
	for _, l := range strings.Split(old.stderr, "\n") {
		if err := json.Unmarshal([]byte(l), &line); err == nil && line["code"] == "DEPRECATED" {
			break
		}
		line = nil
	}
	message, _ := line["message"].(string)
	if line["level"] != "warn" || line["replacement"] != "e2eapp api get" || line["removed_in"] != "2.0.0" || !strings.Contains(message, "use e2eapp api get instead") {
		t.Errorf("api status: stderr's DEPRECATED line %v\nstderr: %s", line, old.stderr)
	}

	described := expect(t, "describe --full", sb.run(t, "describe", "--full"), 0)
	commands, _ := get(described, "data.commands").(map[string]any)
	for path, introduced := range map[string]string{"e2eapp": "0.8.0", "lookup": "0.8.0", "sync": "0.8.0", "api": "0.9.0", "api.status": "0.9.0", "api.get": "1.0.0", "notes.add": "1.0.0"} {
		if got := get(commands[path], "introduced_in"); got != introduced {
			t.Errorf("describe: %s introduced_in %v, want %s", path, got, introduced)
		}
	}
	want(t, "describe api.status", map[string]any{"c": commands["api.status"]}, map[string]any{
		"c.deprecated_in": "1.0.0", "c.replacement": "e2eapp api get", "c.removed_in": "2.0.0"})
	manifest, _ := sb.manifest(t)["commands"].(map[string]any)
	for _, path := range appCommands(app.New(), "") {
		c := commands[path]
		introduced, _ := get(c, "introduced_in").(string)
		if introduced == "" {
			t.Errorf("describe: %s has no introduced_in", path)
		}
		if d, _ := get(manifest[path], "description").(string); !strings.Contains(d, "Introduced in "+introduced+".") {
			t.Errorf("manifest: %s's description %q does not say when it was introduced", path, d)
		}
	}
	if d, _ := get(manifest["api.status"], "description").(string); !strings.Contains(d, "Deprecated in 1.0.0: use e2eapp api get. Removed in 2.0.0.") {
		t.Errorf("manifest: api status's description %q does not say it is deprecated", d)
	}

	// What worked in 0.9.0 still answers, but what 0.9.0 warned of.
	for _, cmd := range [][]string{{"lookup"}, {"sync"}, {"api"}, {"api", "status"}} {
		expect(t, strings.Join(cmd, " ")+" --schema", sb.run(t, append(cmd, "--schema")...), 0)
	}
	// 0.9.0 deprecated `api ping` (its describe says so): 1.0.0 may drop it.
	want(t, "api ping", expect(t, "api ping", sb.run(t, "api", "ping"), 2), map[string]any{"error.code": "UNKNOWN_COMMAND", "error.field": "ping"})
}

// appCommands are the dot paths of the app's own commands (not Duet's),
// as describe and the manifest key them: the root by its name.
func appCommands(c *cli.Command, parent string) []string {
	path := c.Name
	if parent != "" && parent != app.Name {
		path = parent + "." + c.Name
	}
	paths := []string{path}
	for _, sub := range c.Commands {
		paths = append(paths, appCommands(sub, path)...)
	}
	return paths
}
