package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/duet-cli/duet/internal/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveHTTP starts the test app's `serve --http addr` with env, as a
// person starts a server, and returns the URL it says it serves at and the
// lines it wrote on stderr before that. The server is stopped with SIGTERM
// when the test ends, and must exit as a terminated command does (143).
func serveHTTP(t *testing.T, addr string, env ...string) (string, []string) {
	t.Helper()
	//duetvet:allow rawexec -- the test binary as the app, started as a person starts a server
	cmd := exec.Command(os.Args[0], "serve", "--http", addr)
	cmd.Env = append(append(os.Environ(), appEnv+"=1"), env...)
	return mcptest.ServeHTTP(t, cmd, syscall.SIGTERM, 143)
}

// viaLoopback is the URL of a server listening on every address, reached
// on 127.0.0.1.
func viaLoopback(t *testing.T, raw string) string {
	t.Helper()
	u, err := neturl.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = "127.0.0.1:" + u.Port()
	return u.String()
}

// bearerHeader adds an Authorization header to every request.
type bearerHeader string

func (b bearerHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

func connectHTTP(t *testing.T, url, token string) (*sdk.ClientSession, error) {
	t.Helper()
	ct := &sdk.StreamableClientTransport{Endpoint: url}
	if token != "" {
		ct.HTTPClient = &http.Client{Transport: bearerHeader(token)}
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// TestServeHTTP serves the tools over streamable HTTP on loopback, to the
// SDK's own client: the same tools as over stdio, and calls that run the
// commands.
func TestServeHTTP(t *testing.T) {
	url, _ := serveHTTP(t, "127.0.0.1:0")
	cs, err := connectHTTP(t, url, "")
	if err != nil {
		t.Fatal(err)
	}
	listed, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range listed.Tools {
		names = append(names, tool.Name)
	}
	var want []string
	for _, tool := range describeTools(t)["tools"].([]any) {
		want = append(want, tool.(map[string]any)["name"].(string))
	}
	slices.Sort(want)
	if slices.Sort(names); !slices.Equal(names, want) {
		t.Errorf("tools over HTTP %v, want those of describe --mcp %v", names, want)
	}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "show", Arguments: map[string]any{"id": "n2"}})
	if err != nil || res.IsError || !strings.Contains(text(res), `"title":"second"`) {
		t.Errorf("show n2 over HTTP: %v, %s", err, text(res))
	}
}

// TestServeHTTPRefuses: a browser's request from another site, a request
// naming another host to a loopback server (DNS rebinding), and a request
// without the token — on loopback too, where any local process or page
// reaches it (issue 34: `purge` ran for a plain curl) — are refused before
// they reach a tool.
func TestServeHTTPRefuses(t *testing.T) {
	url, _ := serveHTTP(t, "127.0.0.1:0")
	post := func(t *testing.T, url string, header ...string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for i := 0; i+1 < len(header); i += 2 {
			if header[i] == "Host" {
				req.Host = header[i+1]
			} else {
				req.Header.Set(header[i], header[i+1])
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tt := range []struct {
		name   string
		header []string
		want   int
	}{
		{"another site", []string{"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"}, http.StatusForbidden},
		{"another host", []string{"Host", "evil.example"}, http.StatusMisdirectedRequest},
		{"the same site", []string{"Sec-Fetch-Site", "same-origin"}, http.StatusOK},
	} {
		if got := post(t, url, tt.header...); got != tt.want {
			t.Errorf("%s: status %d, want %d", tt.name, got, tt.want)
		}
	}
	bare, _, found := strings.Cut(url, "?t=")
	if !found {
		t.Fatalf("the URL said has no token: %s", url)
	}
	if got := post(t, bare); got != http.StatusUnauthorized {
		t.Errorf("on loopback without the token: status %d, want 401", got)
	}

	t.Run("off loopback, a token from the environment", func(t *testing.T) {
		url, _ := serveHTTP(t, "0.0.0.0:0", "NOTES_MCP_TOKEN=s3cret")
		url = viaLoopback(t, url)
		if got := post(t, url); got != http.StatusUnauthorized {
			t.Errorf("no token: status %d, want 401", got)
		}
		if got := post(t, url, "Authorization", "Bearer guess"); got != http.StatusUnauthorized {
			t.Errorf("a wrong token: status %d, want 401", got)
		}
		if _, err := connectHTTP(t, url, "s3cret"); err != nil {
			t.Errorf("with the token: %v", err)
		}
		if got := post(t, url, "Authorization", "Bearer s3cret", "Host", "evil.example:80"); got != http.StatusMisdirectedRequest {
			t.Errorf("with the token, naming another host: status %d, want 421", got)
		}
	})
	t.Run("off loopback, a token made and said", func(t *testing.T) {
		url, said := serveHTTP(t, "0.0.0.0:0")
		url = viaLoopback(t, url)
		var token string
		for _, line := range said {
			if _, tok, ok := strings.Cut(line, "requests need the bearer token "); ok {
				token = tok
			}
		}
		if len(token) < 32 {
			t.Fatalf("no token said: %q", said)
		}
		if _, err := connectHTTP(t, url, token); err != nil {
			t.Errorf("with the token it said: %v", err)
		}
	})
}

// TestServeHTTPMalformedBodies: a body that is no JSON-RPC message is
// answered with the JSON-RPC error the stdio transport gives it — parse
// error for garbage, a truncated request or nesting deeper than decoders
// go, invalid request for JSON that is no message — and the server serves
// the next request (issue 34; the SDK answered them in plain text).
func TestServeHTTPMalformedBodies(t *testing.T) {
	url, _ := serveHTTP(t, "127.0.0.1:0", "NOTES_MCP_TOKEN=s3cret")
	for _, tt := range []struct {
		body string
		code float64
	}{
		{"garbage", -32700},
		{`{"jsonrpc":"2.0","id":9,"method":"tools/list"`, -32700},
		{strings.Repeat("[", 20000) + strings.Repeat("]", 20000), -32700},
		{`{}`, -32600},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600},
	} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(tt.body))
		req.Header.Set("Authorization", "Bearer s3cret")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var answer struct {
			JSONRPC string `json:"jsonrpc"`
			ID      any    `json:"id"`
			Error   struct {
				Code float64 `json:"code"`
			} `json:"error"`
		}
		err = json.NewDecoder(res.Body).Decode(&answer)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusBadRequest || answer.JSONRPC != "2.0" || answer.Error.Code != tt.code {
			t.Errorf("%.40s: %d %+v (%v); want 400 and JSON-RPC error %v", tt.body, res.StatusCode, answer, err, tt.code)
		}
	}
	if _, err := connectHTTP(t, url, "s3cret"); err != nil {
		t.Errorf("a client after the malformed bodies: %v", err)
	}
}
