package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// fakeChat stands in for `meridian start`: on a terminal, it says it is
// ready and answers each line.
func fakeChat(t *testing.T) string {
	return standIn(t, "echo ready\nwhile read line; do echo \"got $line\"; done\n")
}

// TestTerminals: a chat started by a page runs on a terminal; a page
// attached to it types and reads; a page that attaches again is shown what
// it missed; ending it hangs it up; and the list says which are alive.
func TestTerminals(t *testing.T) {
	s, ts := newServer(t)
	s.Exe = fakeChat(t)
	defer s.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	call := func(method, path, body string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		req.Header.Set(TokenHeader, s.Token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var env map[string]any
		if err := json.NewDecoder(res.Body).Decode(&env); err != nil || env["ok"] != true {
			t.Fatalf("%s %s: %v %v", method, path, env, err)
		}
		return env
	}
	started := call("POST", "/api/terminals", `{"space":"s1"}`)["data"].(map[string]any)
	if started["id"] != "t1" || started["title"] != "meridian start --space s1" {
		t.Fatalf("started %v", started)
	}
	attach := func() *websocket.Conn {
		t.Helper()
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/api/terminals/t1/attach?t="+s.Token, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// readUntil reads what the chat writes until it has written want.
	readUntil := func(c *websocket.Conn, want string) string {
		t.Helper()
		var seen bytes.Buffer
		for !strings.Contains(seen.String(), want) {
			_, b, err := c.Read(ctx)
			if err != nil {
				t.Fatalf("waiting for %q, saw %q: %v", want, seen.String(), err)
			}
			seen.Write(b)
		}
		return seen.String()
	}
	c := attach()
	readUntil(c, "ready")
	if err := c.Write(ctx, websocket.MessageBinary, []byte("hi\r")); err != nil {
		t.Fatal(err)
	}
	readUntil(c, "got hi")
	c.Close(websocket.StatusNormalClosure, "") // the pane closes; the chat goes on
	again := attach()
	if replay := readUntil(again, "got hi"); !strings.Contains(replay, "ready") {
		t.Errorf("attached again, shown %q: not what it missed", replay)
	}
	if ended := call("DELETE", "/api/terminals/t1", "")["data"].(map[string]any); ended["alive"] != false {
		t.Errorf("ended: %v", ended)
	}
	if _, _, err := again.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Errorf("the pane of an ended chat: %v, want its normal closure", err)
	}
	list := call("GET", "/api/terminals", "")["data"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["alive"] != false {
		t.Errorf("terminals after the end: %v", list)
	}
}
