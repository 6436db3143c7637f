package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
	"github.com/google/go-cmp/cmp"
)

// standIn writes a shell script that stands in for meridian, and returns
// its path.
func standIn(t *testing.T, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "meridian")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// fakeMeridian answers as meridian does, with an envelope whose data is the
// command line it was given, and exits with $FAKE_EXIT. The command line
// comes in the file $DUET_ARGS_FILE names (package argsfile), never as
// arguments, which every local user sees: with any, it exits 99.
func fakeMeridian(t *testing.T) string {
	return standIn(t, `[ "$#" -eq 0 ] || exit 99
args=$(tr -d '[]"\n' < "$DUET_ARGS_FILE" | sed 's/,/ /g')
printf '{"ok":true,"data":"%s","warnings":[]}' "$args"
exit ${FAKE_EXIT:-0}
`)
}

func newServer(t *testing.T, env ...string) (*Server, *httptest.Server) {
	t.Helper()
	s := &Server{Exe: fakeMeridian(t), Dir: t.TempDir(), StateDir: t.TempDir(), Env: env, Token: NewToken(), Poll: time.Millisecond}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, ts
}

// TestRoutes: each route runs the meridian command line it stands for,
// and answers its envelope with the status its exit code says.
func TestRoutes(t *testing.T) {
	for _, tt := range []struct {
		method, path, body string
		exit               string
		args               string
		status             int
	}{
		{"GET", "/api/spaces", "", "0", "space list --format json", 200},
		{"GET", "/api/spaces/s1", "", "0", "space show s1 --format json", 200},
		{"GET", "/api/spaces/s1/runs?status=failed&limit=5&bogus=1", "", "0", "run list --space s1 --status failed --limit 5 --format json", 200},
		{"GET", "/api/spaces/s1/runs/r3", "", "5", "run show r3 --space s1 --format json", 404},
		{"GET", "/api/spaces/s1/stats", "", "0", "run stats --space s1 --format json", 200},
		{"GET", "/api/spaces/s1/wait", "", "0", "run wait --space s1 --format json", 200},
		{"GET", "/api/spaces/s1/stats?model=opus&limit=5", "", "0", "run stats --space s1 --model opus --format json", 200},
		{"POST", "/api/runs", `{"prompt":"do it","model":"opus","space":"s2"}`, "0", "run spawn --prompt do it --space s2 --model opus --format json", 200},
		{"POST", "/api/runs", `{"prompt":"x"}`, "2", "run spawn --prompt x --format json", 400},
		{"POST", "/api/spaces/s1/runs/r2/continue", `{"prompt":"and tests"}`, "0", "run continue r2 --space s1 --prompt and tests --format json", 200},
		{"POST", "/api/spaces/s1/runs/r2/continue", `{"prompt":`, "0", "", 400},
		{"POST", "/api/spaces/s1/close", "", "2", "space close s1 --format json", 400},
		{"POST", "/api/spaces/s1/close?confirm=yes", "", "0", "space close s1 --yes --format json", 200},
	} {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			s, ts := newServer(t, "FAKE_EXIT="+tt.exit)
			req, _ := http.NewRequest(tt.method, ts.URL+tt.path, strings.NewReader(tt.body))
			req.Header.Set(TokenHeader, s.Token)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var env struct{ Data string }
			if err := json.NewDecoder(res.Body).Decode(&env); err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != tt.status || env.Data != tt.args {
				t.Errorf("status %d, ran %q; want %d, %q", res.StatusCode, env.Data, tt.status, tt.args)
			}
		})
	}
}

// TestGuard: without the token nothing but the static files is served, a
// state-changing request from another origin is refused, and so is every
// request addressed to another host (a page whose name was rebound to
// loopback), its own origin included.
func TestGuard(t *testing.T) {
	s, ts := newServer(t)
	port := ts.URL[strings.LastIndex(ts.URL, ":"):]
	for _, tt := range []struct {
		method, path, token, origin string
		status                      int
		code                        string
		host                        string
	}{
		{"GET", "/", "", "", 403, "TOKEN_REQUIRED", ""},
		{"GET", "/?t=" + s.Token, "", "", 200, "", ""},
		{"GET", "/api/spaces", "wrong", "", 403, "TOKEN_REQUIRED", ""},
		{"GET", "/api/spaces?t=" + s.Token, "", "", 200, "", ""},
		{"POST", "/api/runs", s.Token, "http://elsewhere.example", 403, "ORIGIN_REFUSED", ""},
		{"POST", "/api/runs", s.Token, ts.URL, 200, "", ""},
		{"GET", "/static/app.js", "", "", 200, "", ""},
		{"GET", "/static/../web.go", "", "", 403, "TOKEN_REQUIRED", ""}, // /web.go: nothing outside the static files
		{"GET", "/?t=" + s.Token, "", "", 421, "HOST_REFUSED", "rebound.example" + port},
		{"POST", "/api/runs", s.Token, "http://rebound.example" + port, 421, "HOST_REFUSED", "rebound.example" + port},
		{"GET", "/api/spaces?t=" + s.Token, "", "", 200, "", "localhost" + port},
	} {
		req, _ := http.NewRequest(tt.method, ts.URL+tt.path, strings.NewReader(`{"prompt":"x"}`))
		if tt.token != "" {
			req.Header.Set(TokenHeader, tt.token)
		}
		if tt.origin != "" {
			req.Header.Set("Origin", tt.origin)
		}
		if tt.host != "" {
			req.Host = tt.host
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tt.status || tt.code != "" && !strings.Contains(string(body), tt.code) {
			t.Errorf("%s %s (token %q, origin %q): %d %s; want %d %s", tt.method, tt.path, tt.token, tt.origin, res.StatusCode, body, tt.status, tt.code)
		}
	}
}

// TestEvents: the WebSocket says which spaces' files changed, and refuses
// a page of another origin.
func TestEvents(t *testing.T) {
	s, ts := newServer(t)
	space := filepath.Join(s.StateDir, ".spaces", "s1")
	if err := os.MkdirAll(space, 0o755); err != nil {
		t.Fatal(err)
	}
	url := "ws" + strings.TrimPrefix(ts.URL, "http") + "/api/events?t=" + s.Token
	if _, _, err := websocket.Dial(t.Context(), url, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://elsewhere.example"}}}); err == nil {
		t.Error("a page of another origin got the event stream")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	next := func() event {
		t.Helper()
		var ev event
		if err := wsjson.Read(ctx, c, &ev); err != nil {
			t.Fatal(err)
		}
		return ev
	}
	// Once it says it watches, a change to a space's run log is told.
	if diff := cmp.Diff(event{Type: "ready", Spaces: []string{}}, next()); diff != "" {
		t.Errorf("first event (-want +got):\n%s", diff)
	}
	if err := os.WriteFile(filepath.Join(space, "runs.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(event{Type: "changed", Spaces: []string{"s1"}}, next()); diff != "" {
		t.Errorf("event (-want +got):\n%s", diff)
	}
}
