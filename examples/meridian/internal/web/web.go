// Package web is Meridian's web UI: a dashboard of a project's spaces and
// runs, live, and the actions a person takes on them, served by one HTTP
// server on this machine (`meridian ui`).
//
// The server keeps no state of its own and answers no read itself: every
// read and every action runs meridian, as an agent does (one JSON envelope
// on a pipe), in the project's directory. So the page and the CLI read and
// write the same files and see each other's changes, and the page shows an
// envelope's errors and warnings as the CLI words them — a destructive
// action asks for the same confirmation. A WebSocket tells the page when a
// space's files change, so that a run's status is live; a chat runs in a
// terminal pane (terminal.go).
//
// The same server is an MCP endpoint, at /mcp: the tools of `meridian
// serve`, for an agent beside the person.
//
// Every request carries the token the command printed (in the page's URL,
// then in a header or, for the WebSocket, the query; an MCP client's as its
// bearer token); a state-changing request and the WebSocket must come from
// the page's own origin.
package web

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"github.com/duet-cli/duet/examples/meridian/internal/run"
	"github.com/duet-cli/duet/examples/meridian/internal/state"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/argsfile"
	"github.com/duet-cli/duet/internal/hostguard"
	"github.com/duet-cli/duet/proc"
)

//go:embed static
var static embed.FS

// TokenHeader is the header a request gives the token in.
const TokenHeader = "X-Meridian-Token"

// Server serves the UI of one project.
type Server struct {
	Exe      string        // the meridian executable each request runs
	Dir      string        // the directory it runs in, in the project
	Env      []string      // its environment
	StateDir string        // the project's .meridian, whose spaces the event stream watches
	Token    string        // what every request must carry
	Poll     time.Duration // how often the event stream looks at the spaces' files (0: 200 ms)
	MCP      http.Handler  // the MCP endpoint, at /mcp: the agent's commands as tools; nil: none

	terms terminals // the chats pages started
}

// NewToken returns a token no one can guess: 32 random bytes, in hex.
func NewToken() string {
	b := make([]byte, 32)
	rand.Read(b) // crypto/rand's Read does not fail
	return hex.EncodeToString(b)
}

// Handler returns the server's routes, behind the token and origin checks.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	assets, _ := fs.Sub(static, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(assets)))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		http.ServeFileFS(w, r, assets, "index.html")
	})
	mux.HandleFunc("GET /api/spaces", s.cli(func(*http.Request) ([]string, error) { return []string{"space", "list"}, nil }))
	mux.HandleFunc("GET /api/spaces/{space}", s.cli(func(r *http.Request) ([]string, error) {
		return []string{"space", "show", r.PathValue("space")}, nil
	}))
	mux.HandleFunc("GET /api/spaces/{space}/runs", s.cli(func(r *http.Request) ([]string, error) {
		return filtered(r, []string{"run", "list", "--space", r.PathValue("space")}, "limit", "cursor"), nil
	}))
	mux.HandleFunc("GET /api/spaces/{space}/stats", s.cli(func(r *http.Request) ([]string, error) {
		return filtered(r, []string{"run", "stats", "--space", r.PathValue("space")}), nil
	}))
	mux.HandleFunc("GET /api/spaces/{space}/wait", s.cli(func(r *http.Request) ([]string, error) {
		return []string{"run", "wait", "--space", r.PathValue("space")}, nil // its running runs
	}))
	mux.HandleFunc("GET /api/spaces/{space}/runs/{run}", s.cli(func(r *http.Request) ([]string, error) {
		return []string{"run", "show", r.PathValue("run"), "--space", r.PathValue("space")}, nil
	}))
	mux.HandleFunc("POST /api/runs", s.cli(spawnArgs))
	mux.HandleFunc("POST /api/spaces/{space}/runs/{run}/continue", s.cli(func(r *http.Request) ([]string, error) {
		var form struct {
			Prompt string `json:"prompt"`
		}
		if err := decode(r, "continue", &form); err != nil {
			return nil, err
		}
		return []string{"run", "continue", r.PathValue("run"), "--space", r.PathValue("space"), "--prompt", form.Prompt}, nil
	}))
	mux.HandleFunc("POST /api/spaces/{space}/close", s.cli(func(r *http.Request) ([]string, error) {
		args := []string{"space", "close", r.PathValue("space")}
		if r.URL.Query().Get("confirm") == "yes" { // the person confirmed what the envelope asked
			args = append(args, "--yes")
		}
		return args, nil
	}))
	mux.HandleFunc("GET /api/events", s.events)
	mux.HandleFunc("GET /api/spaces/{space}/runs/{run}/output", s.follow)
	if s.MCP != nil {
		mux.Handle("/mcp", s.MCP)
	}
	mux.HandleFunc("GET /api/terminals", s.listTerminals)
	mux.HandleFunc("POST /api/terminals", s.startTerminal)
	mux.HandleFunc("DELETE /api/terminals/{id}", s.endTerminal)
	mux.HandleFunc("GET /api/terminals/{id}/attach", s.attachTerminal)
	return hostguard.Handler(s.guard(mux)) // a page rebound to loopback names another host
}

// filtered is args with the filters of run list and run stats the query
// gives (status, model, agent), and the other flags named.
func filtered(r *http.Request, args []string, flags ...string) []string {
	for _, name := range append([]string{"status", "model", "agent"}, flags...) {
		if v := r.URL.Query().Get(name); v != "" {
			args = append(args, "--"+name, v)
		}
	}
	return args
}

// guard refuses a request without the token, and a state-changing one (or
// a WebSocket) from another origin than the page's. The static files
// hold no data and are served to anyone who reaches the server.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/static/") {
			next.ServeHTTP(w, r)
			return
		}
		token := r.Header.Get(TokenHeader)
		if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && token == "" {
			token = bearer // an MCP client's
		}
		if token == "" {
			token = r.URL.Query().Get("t")
		}
		if subtle.ConstantTimeCompare([]byte(token), []byte(s.Token)) != 1 {
			refuse(w, http.StatusForbidden, "TOKEN_REQUIRED", "this page needs the token `meridian ui` printed: open the URL it printed")
			return
		}
		if r.Method != http.MethodGet || strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			if origin := r.Header.Get("Origin"); origin != "" && origin != "http://"+r.Host {
				refuse(w, http.StatusForbidden, "ORIGIN_REFUSED", "requests that change state are taken from this server's own page only")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// refuse answers as the CLI would: an envelope with the error.
func refuse(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"ok": false, "data": nil, "warnings": []string{},
		"error": map[string]any{"code": code, "message": message, "retryable": false}})
}

// spawnArgs is `run spawn` for the form the page posts.
func spawnArgs(r *http.Request) ([]string, error) {
	var form struct {
		Space  string `json:"space"`
		Prompt string `json:"prompt"`
		Model  string `json:"model"`
		Agent  string `json:"agent"`
	}
	if err := decode(r, "spawn", &form); err != nil {
		return nil, err
	}
	return given([]string{"run", "spawn", "--prompt", form.Prompt}, "--space", form.Space, "--model", form.Model, "--agent", form.Agent), nil
}

// decode reads the JSON of the form a page posts, of at most a megabyte.
func decode(r *http.Request, form string, v any) error {
	if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<20)).Decode(v); err != nil {
		return fmt.Errorf("the body is not the %s form's JSON: %w", form, err)
	}
	return nil
}

// given is args with each flag of flagValues (a flag, then its value) whose
// value is not empty: what a form left blank is left to meridian.
func given(args []string, flagValues ...string) []string {
	for i := 0; i+1 < len(flagValues); i += 2 {
		if flagValues[i+1] != "" {
			args = append(args, flagValues[i], flagValues[i+1])
		}
	}
	return args
}

// poll is how often the WebSockets look at the files they follow.
func (s *Server) poll() time.Duration { return cmp.Or(s.Poll, 200*time.Millisecond) }

// cli answers a request with what meridian answers an agent: its
// envelope, with an HTTP status that says the same as its exit code.
func (s *Server) cli(argsOf func(*http.Request) ([]string, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for _, name := range []string{"space", "run"} {
			// A path segment is a value, never a flag: GET
			// /api/spaces/--show-config must not run `space show
			// --show-config`.
			if strings.HasPrefix(r.PathValue(name), "-") {
				refuse(w, http.StatusBadRequest, "INVALID_REQUEST", fmt.Sprintf("%q is no %s: a %s is named, not flagged", r.PathValue(name), name, name))
				return
			}
		}
		args, err := argsOf(r)
		if err != nil {
			refuse(w, http.StatusBadRequest, "INVALID_REQUEST", err.Error())
			return
		}
		body, code, err := s.run(r.Context(), args)
		if err != nil {
			refuse(w, http.StatusInternalServerError, "MERIDIAN_FAILED", err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(httpStatus(code))
		w.Write(body)
	}
}

// run runs meridian with args as an agent does, and returns its envelope
// and exit code.
func (s *Server) run(ctx context.Context, args []string) ([]byte, int, error) {
	// In a file only this user reads: a prompt on the command line is seen
	// by every local user in ps, and one over 128 KiB cannot start.
	env, remove, err := argsfile.Hand(s.Env, append(args, "--format", "json"))
	if err != nil {
		return nil, 0, err
	}
	defer remove()
	cmd := proc.Command(ctx, s.Exe)
	cmd.Dir, cmd.Env = s.Dir, env
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		if !json.Valid(out) {
			return nil, 0, errors.New("meridian " + strings.Join(args, " ") + " answered no envelope: " + exit.Error())
		}
		return out, exit.ExitCode(), nil
	case err != nil:
		return nil, 0, err
	}
	return out, 0, nil
}

// httpStatus is the HTTP status that says what a meridian exit code says.
func httpStatus(code int) int {
	switch exitcode.Code(code) {
	case exitcode.Success:
		return http.StatusOK
	case exitcode.ArgError:
		return http.StatusBadRequest
	case exitcode.NotFound:
		return http.StatusNotFound
	case exitcode.Conflict:
		return http.StatusConflict
	case exitcode.PermissionDenied, exitcode.AuthRequired:
		return http.StatusForbidden
	case exitcode.Precondition:
		return http.StatusPreconditionFailed
	}
	return http.StatusInternalServerError
}

// event is what the WebSocket sends: "ready" once it watches, then
// "changed" with the spaces whose files changed.
type event struct {
	Type   string   `json:"type"`
	Spaces []string `json:"spaces"`
}

// events is the WebSocket that tells the page which spaces changed: their
// run log, their space.json, their chats. It looks at the files' sizes and
// times every Poll; the page then asks for what it shows again.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil) // refuses another origin than the page's
	if err != nil {
		return
	}
	defer c.CloseNow()
	ctx := c.CloseRead(r.Context())
	seen := s.stamps()
	// Changes from here on are told: a page that was away asks again for
	// what it shows, as for any change.
	if err := wsjson.Write(ctx, c, event{Type: "ready", Spaces: []string{}}); err != nil {
		return
	}
	tick := time.NewTicker(s.poll())
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			c.Close(websocket.StatusNormalClosure, "")
			return
		case <-tick.C:
		}
		now := s.stamps()
		var changed []string
		for space, st := range now {
			if seen[space] != st {
				changed = append(changed, space)
			}
		}
		for space := range seen {
			if _, ok := now[space]; !ok {
				changed = append(changed, space)
			}
		}
		seen = now
		if len(changed) == 0 {
			continue
		}
		slices.Sort(changed)
		if err := wsjson.Write(ctx, c, event{Type: "changed", Spaces: changed}); err != nil {
			return
		}
	}
}

// stamp is what a space's files look like from outside: each one's size
// and modification time, which any write changes.
type stamp struct{ log, space, sessions [2]int64 }

// stamps reads each space's stamp.
func (s *Server) stamps() map[string]stamp {
	root := state.Root{Dir: s.StateDir}
	entries, _ := os.ReadDir(root.SpacesDir()) // none yet: no space
	out := make(map[string]stamp, len(entries))
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := root.SpaceDir(e.Name())
		at := func(name string) [2]int64 { return stampOf(filepath.Join(dir, name)) }
		out[e.Name()] = stamp{stampOf(state.Runs{Dir: dir}.LogPath()), at("space.json"), at("sessions.jsonl")}
	}
	return out
}

// follow is the WebSocket of a running run's output: what `meridian run
// output` answers, each time the run's output or the space's run log
// changes, from where the last answer ended, until the run has ended and
// all it printed is sent.
func (s *Server) follow(w http.ResponseWriter, r *http.Request) {
	space, id := r.PathValue("space"), r.PathValue("run")
	if state.ValidSpaceID(space) != nil || !run.ValidID(id) { // they name files
		refuse(w, http.StatusBadRequest, "INVALID_REQUEST", "a space such as s1 and a run such as r3")
		return
	}
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	ctx := c.CloseRead(r.Context())
	runs := state.Runs{Dir: state.Root{Dir: s.StateDir}.SpaceDir(space)}
	at := func() [2][2]int64 { return [2][2]int64{stampOf(run.OutputPath(runs, id)), stampOf(runs.LogPath())} }
	tick := time.NewTicker(s.poll())
	defer tick.Stop()
	var from int64
	var seen [2][2]int64
	for first := true; ; first = false {
		if now := at(); first || now != seen {
			seen = now
			for { // all that is there, in parts of run.MaxOutput
				body, code, err := s.run(ctx, []string{"run", "output", id, "--space", space, "--from", strconv.FormatInt(from, 10)})
				if err != nil {
					return
				}
				if err := c.Write(ctx, websocket.MessageText, body); err != nil || code != 0 {
					return
				}
				var env struct {
					Data struct {
						To            int64
						More, Running bool
					}
				}
				if json.Unmarshal(body, &env) != nil {
					return
				}
				from = env.Data.To
				if !env.Data.More && !env.Data.Running {
					c.Close(websocket.StatusNormalClosure, "the run has ended")
					return
				}
				if !env.Data.More {
					break
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// stampOf is a file's size and modification time; {-1, 0} when there is
// none.
func stampOf(path string) [2]int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return [2]int64{-1, 0}
	}
	return [2]int64{fi.Size(), fi.ModTime().UnixNano()}
}
