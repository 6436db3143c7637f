package mcp

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/hostguard"
	"github.com/duet-cli/duet/runenv"
)

// flagHTTP is the serve command's flag that serves over streamable HTTP
// instead of stdin and stdout.
const flagHTTP = "http"

// httpPath is where the server answers.
const httpPath = "/mcp"

// serveHTTP serves the app's tools over streamable HTTP on addr until ctx
// is done, and says where on stderr. The server is stateless — each
// request stands alone, as a tool call does — so it keeps no sessions to
// lose. It refuses requests a browser makes from another site (origin and
// Sec-Fetch-Site checks) and, on every address, requests naming a host
// other than an IP address, localhost or this machine (hostguard: DNS
// rebinding; the SDK's own, narrower check of a loopback connection runs
// after it). On every address, loopback included — any
// local process or a page in a browser can reach loopback — it wants a
// token: $<TOOL>_MCP_TOKEN, else one made now and printed once, in the URL
// it says it serves at (?t=, for a client that sends no headers, such as
// the MCP Inspector's CLI), as `meridian ui` prints its page's. A request
// carries it as a bearer token or in that URL.
func serveHTTP(ctx context.Context, h *adapters.Host, addr string, opts []Option) int {
	tool := h.App.Tree().Name
	// A call ends with the server (SIGTERM, SIGINT), its process group
	// stopped, before the server waits for it to return.
	handler, err := Handler(h.App, append(slices.Clip(opts), func(c *config) { c.serving = ctx })...)
	if err != nil {
		return h.Fail(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return h.Fail(envelope.Validationf(errcode.InvalidFlagValue, "--%s %s: %v", flagHTTP, addr, err).WithField(flagHTTP))
	}
	url := "http://" + ln.Addr().String() + httpPath
	name := runenv.EnvName(tool, "MCP_TOKEN")
	token, _ := h.LookupEnv(name)
	if token == "" {
		token = newToken()
		fmt.Fprintf(h.Stderr, "%s is not set: requests need the bearer token %s\n", name, token)
		url += "?t=" + token
	}
	handler = tokenInURL(auth.RequireBearerToken(bearer(token), nil)(handler))
	mux := http.NewServeMux()
	mux.Handle(httpPath, hostguard.Handler(handler)) // a page rebound to loopback names another host
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(h.Stderr, "serving MCP at %s\n", url)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		// Told to stop: requests under way get a moment to end, and a
		// connection still open after it is cut.
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if srv.Shutdown(shut) != nil {
			srv.Close()
		}
		err = nil
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return h.Fail(envelope.Errorf(exitcode.GeneralError, "SERVE_FAILED", "%v", err))
	}
	return int(exitcode.Success)
}

// Handler serves app's tools over streamable HTTP, for an app that serves
// HTTP itself (`serve --http` is this handler on a server of its own). It
// is stateless — each request stands alone, as a tool call does —,
// answers a body that is no JSON-RPC message with a JSON-RPC error, and
// refuses requests a browser makes from another site; authentication is
// the caller's.
func Handler(app adapters.Framework, opts ...Option) (http.Handler, error) {
	s, err := NewServer(app, opts...)
	if err != nil {
		return nil, err
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: true})
	return http.NewCrossOriginProtection().Handler(checkedBodies(h)), nil
}

// tokenInURL takes a token given in the URL (?t=) as the bearer token.
func tokenInURL(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if t := r.URL.Query().Get("t"); t != "" && r.Header.Get("Authorization") == "" {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer "+t)
		}
		next.ServeHTTP(w, r)
	})
}

// bearer accepts the one token, compared in constant time; it does not
// expire while the server runs.
func bearer(token string) auth.TokenVerifier {
	return func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
}

func newToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// fail reports err on stderr as a person reads an error, and returns its
// exit code: the clients commands are a person's. (The server's own
// failures go through Host.Fail: an agent reads them as an envelope on
// stderr, REQ-C-032.)
func fail(h *adapters.Host, err error) int {
	e := envelope.As(err)
	fmt.Fprintf(h.Stderr, "%s: ERROR %s\n", h.App.Tree().Name, envelope.Human(e))
	return int(e.Exit)
}
