package web

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/coder/websocket"
	"github.com/creack/pty"

	"github.com/duet-cli/duet/proc"
)

// maxReplay is how much of a terminal's output a page that attaches is
// shown first: what it missed while it was away, up to this many bytes.
const maxReplay = 256 << 10

// terminals are the chats pages started: each `meridian start` on a
// pseudo-terminal of this server's. The harness does not know it is in a
// browser; it has a terminal. A chat outlives the page that started it —
// a page that attaches again is shown what it missed — and ends when the
// harness leaves, when a page ends it, or when the server stops.
type terminals struct {
	mu   sync.Mutex
	last int
	open map[string]*terminal
}

// terminal is one chat's pseudo-terminal.
type terminal struct {
	id, title string
	cmd       *proc.Cmd
	pty       *os.File
	done      chan struct{} // closed when the chat has ended

	mu    sync.Mutex
	out   []byte                   // its output so far: the last maxReplay bytes
	pages map[chan []byte]struct{} // the pages attached, each sent what comes next
}

// info is what the page is told of a terminal.
type info struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Alive bool   `json:"alive"`
}

// chatForm is what the page posts to start a chat.
type chatForm struct {
	Space    string `json:"space"`
	Continue string `json:"continue"` // a chat of the space (c2) to continue
	Model    string `json:"model"`
}

// start runs `meridian start` for form on a new pseudo-terminal. The chat
// outlives the request that starts it, not the server: ctx's invocation
// stops it when `meridian ui` ends.
func (s *Server) start(ctx context.Context, form chatForm) (*terminal, error) {
	args := given([]string{"start"}, "--space", form.Space, "--model", form.Model)
	if form.Continue != "" {
		args = append(args, "--continue", form.Continue) // a boolean, and the chat as the argument
	}
	f, tty, err := pty.Open()
	if err != nil {
		return nil, err
	}
	defer tty.Close() // the chat's own copy is what keeps it open
	pty.Setsize(f, &pty.Winsize{Rows: 24, Cols: 100})
	// A person's session on a terminal of its own, which it leads and
	// whose hang-up ends it, as a terminal window's shell does.
	cmd := proc.Command(context.WithoutCancel(ctx), s.Exe, args...)
	cmd.Dir, cmd.Env = s.Dir, append(s.Env[:len(s.Env):len(s.Env)], "TERM=xterm-256color")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	cmd.PreserveLocale = true
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, err
	}
	s.terms.mu.Lock()
	if s.terms.open == nil {
		s.terms.open = map[string]*terminal{}
	}
	s.terms.last++
	t := &terminal{id: "t" + strconv.Itoa(s.terms.last), title: "meridian " + strings.Join(args, " "), cmd: cmd, pty: f,
		done: make(chan struct{}), pages: map[chan []byte]struct{}{}}
	s.terms.open[t.id] = t
	s.terms.mu.Unlock()
	go t.pump()
	return t, nil
}

// pump copies the chat's output to its replay and its pages until the
// chat ends.
func (t *terminal) pump() {
	buf := make([]byte, 32<<10)
	for {
		n, err := t.pty.Read(buf)
		if n > 0 {
			chunk := append([]byte(nil), buf[:n]...)
			t.mu.Lock()
			t.out = append(t.out, chunk...)
			if len(t.out) > maxReplay {
				t.out = append([]byte(nil), t.out[len(t.out)-maxReplay:]...)
			}
			for page := range t.pages {
				select {
				case page <- chunk:
				default: // a page that cannot keep up attaches again
					delete(t.pages, page)
					close(page)
				}
			}
			t.mu.Unlock()
		}
		if err != nil { // EIO: the chat ended and closed the terminal
			break
		}
	}
	t.cmd.Wait()
	t.pty.Close()
	close(t.done)
	t.mu.Lock()
	for page := range t.pages {
		close(page)
	}
	t.pages = nil
	t.mu.Unlock()
}

// attach returns what the chat wrote so far, and a channel of what it
// writes next (closed when it ends); detach with the channel.
func (t *terminal) attach() ([]byte, chan []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	page := make(chan []byte, 256)
	if t.pages == nil { // ended
		close(page)
	} else {
		t.pages[page] = struct{}{}
	}
	return append([]byte(nil), t.out...), page
}

func (t *terminal) detach(page chan []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.pages[page]; ok {
		delete(t.pages, page)
		close(page)
	}
}

// ended waits up to d for the chat to end, and reports whether it has.
func (t *terminal) ended(d time.Duration) bool {
	select {
	case <-t.done:
		return true
	case <-time.After(d):
		return false
	}
}

func (t *terminal) alive() bool {
	select {
	case <-t.done:
		return false
	default:
		return true
	}
}

// end hangs the chat's terminal up, as closing a terminal window does: its
// processes — meridian, which leads the terminal's session, and the
// harness, in meridian's process group — get SIGHUP, and meridian records
// how the chat ended.
func (t *terminal) end() {
	if t.alive() {
		syscall.Kill(-t.cmd.Process.Pid, syscall.SIGHUP)
	}
}

func (s *Server) terminal(r *http.Request) *terminal {
	s.terms.mu.Lock()
	defer s.terms.mu.Unlock()
	return s.terms.open[r.PathValue("id")]
}

// Close ends every chat a page started, giving each a few seconds to end;
// what is left is the invocation's to stop (proc).
func (s *Server) Close() {
	s.terms.mu.Lock()
	open := make([]*terminal, 0, len(s.terms.open))
	for _, t := range s.terms.open {
		open = append(open, t)
	}
	s.terms.mu.Unlock()
	for _, t := range open {
		t.end()
	}
	for _, t := range open {
		t.ended(hangupGrace)
	}
}

// hangupGrace is how long a chat whose terminal was hung up has to end.
const hangupGrace = 5 * time.Second

// answer writes data as an envelope that succeeded.
func answer(w http.ResponseWriter, data any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"ok": true, "data": data, "error": nil, "warnings": []string{}})
}

func (s *Server) listTerminals(w http.ResponseWriter, _ *http.Request) {
	s.terms.mu.Lock()
	list := make([]info, 0, len(s.terms.open))
	for i := 1; i <= s.terms.last; i++ {
		if t := s.terms.open["t"+strconv.Itoa(i)]; t != nil {
			list = append(list, info{t.id, t.title, t.alive()})
		}
	}
	s.terms.mu.Unlock()
	answer(w, list)
}

func (s *Server) startTerminal(w http.ResponseWriter, r *http.Request) {
	var form chatForm
	if err := decode(r, "chat", &form); err != nil {
		refuse(w, http.StatusBadRequest, "INVALID_REQUEST", err.Error())
		return
	}
	t, err := s.start(r.Context(), form)
	if err != nil {
		refuse(w, http.StatusInternalServerError, "CHAT_NOT_STARTED", err.Error())
		return
	}
	answer(w, info{t.id, t.title, true})
}

func (s *Server) endTerminal(w http.ResponseWriter, r *http.Request) {
	t := s.terminal(r)
	if t == nil {
		refuse(w, http.StatusNotFound, "TERMINAL_NOT_FOUND", "no terminal "+r.PathValue("id"))
		return
	}
	t.end()
	answer(w, info{t.id, t.title, !t.ended(hangupGrace)})
}

// control is a message the page sends besides keystrokes.
type control struct {
	Type       string `json:"type"` // "resize"
	Cols, Rows uint16
}

// attachTerminal is the WebSocket of one terminal pane: first what the chat
// wrote so far, then what it writes, as binary messages; the page sends
// keystrokes as binary messages and a resize as a text one. The chat goes
// on when the pane goes.
func (s *Server) attachTerminal(w http.ResponseWriter, r *http.Request) {
	t := s.terminal(r)
	if t == nil {
		refuse(w, http.StatusNotFound, "TERMINAL_NOT_FOUND", "no terminal "+r.PathValue("id"))
		return
	}
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	replay, page := t.attach()
	defer t.detach(page)
	go func() { // the page's keystrokes and resizes
		defer cancel()
		for {
			kind, msg, err := c.Read(ctx)
			if err != nil {
				return
			}
			switch kind {
			case websocket.MessageBinary:
				t.pty.Write(msg)
			case websocket.MessageText:
				var m control
				if json.Unmarshal(msg, &m) == nil && m.Type == "resize" && m.Cols > 0 && m.Rows > 0 {
					pty.Setsize(t.pty, &pty.Winsize{Cols: m.Cols, Rows: m.Rows})
				}
			}
		}
	}()
	if err := c.Write(ctx, websocket.MessageBinary, replay); err != nil {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case chunk, ok := <-page:
			if !ok {
				if t.alive() { // the page fell behind
					c.Close(websocket.StatusTryAgainLater, "attach again")
				} else {
					c.Close(websocket.StatusNormalClosure, "the chat ended")
				}
				return
			}
			if err := c.Write(ctx, websocket.MessageBinary, chunk); err != nil {
				return
			}
		}
	}
}
