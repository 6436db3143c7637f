//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/duet-cli/duet/internal/ptytest"
)

// ui starts `meridian ui` in the sandbox's project as a person does, at a
// terminal, and returns the URL it printed, with its token. It is
// interrupted when the test ends, and waited for.
func (sb *sandbox) ui(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(bin, "ui")
	cmd.Env, cmd.Dir = sb.env, sb.dir
	p := ptytest.Start(t, cmd)
	t.Cleanup(func() { // before the project is removed: the chats it ends write their end there
		cmd.Process.Signal(syscall.SIGINT)
		p.Wait(t)
	})
	p.WaitFor(t, "until interrupted") // the line after the URL's
	for _, line := range strings.Split(p.Output(), "\n") {
		if url, ok := strings.CutPrefix(strings.TrimSpace(line), "meridian ui: http"); ok {
			return "http" + url
		}
	}
	t.Fatalf("meridian ui printed no URL:\n%s", p.Output())
	return ""
}

// chromium is the path of a Chromium or Chrome, or "" when there is none.
func chromium() string {
	if p := os.Getenv("MERIDIAN_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser is a headless Chromium page, driven over the DevTools protocol.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromium()
	if path == "" {
		t.Skip("no Chromium on PATH (apt-get install chromium): the UI's browser tests need one")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(1400, 900), chromedp.UserDataDir(t.TempDir()))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTime(); cancelCtx(); cancelAlloc() })
	return ctx
}

// do runs the browser's steps, each within 20 s; when one fails, the test
// fails saying which, and keeps a screenshot of the page as it was.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	for i, step := range steps {
		done := make(chan error, 1)
		go func() { done <- chromedp.Do(ctx, step) }()
		var err error
		select {
		case err = <-done:
		case <-time.After(20 * time.Second): // the step waits still; the page is looked at as it is
			err = errors.New("not done in 20 s")
		}
		if err == nil {
			continue
		}
		name := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()) + "-failed.png"
		if png, shot := chromedp.Run(ctx, chromedp.FullScreenshot(100)); shot == nil {
			artefact(t, name, png)
		}
		text, _ := chromedp.Run(ctx, chromedp.Text(`body`))
		t.Fatalf("step %d of %d in the browser: %v (screenshot %s); the page reads:\n%s", i+1, len(steps), err, name, text)
	}
}

// typeLine types text and Enter into the focused element as a keyboard
// does: the text as one input (chromedp's SendKeys sends each key as a key
// and as a character, which a terminal takes twice), then Enter, whose
// key-down a terminal turns into a carriage return.
func typeLine(text string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: text}); err != nil {
			return err
		}
		for _, kind := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
			enter := input.DispatchKeyEventParams{Type: kind, Key: "Enter", Code: "Enter", WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13}
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, enter); err != nil {
				return err
			}
		}
		return nil
	})
}

// artefact keeps a screenshot where CI collects test artefacts
// ($MERIDIAN_ARTEFACTS), or in the test's own directory.
func artefact(t *testing.T, name string, png []byte) {
	t.Helper()
	dir := os.Getenv("MERIDIAN_ARTEFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUIRefusesWithoutToken: the page and the API answer only a request
// that carries the token `meridian ui` printed, and take a state-changing
// request only from the page's own origin.
func TestUIRefusesWithoutToken(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	url := sb.ui(t)
	base, token, _ := strings.Cut(url, "?t=")
	for _, tt := range []struct {
		method, path, token, origin string
		want                        int
	}{
		{"GET", "", "", "", http.StatusForbidden},
		{"GET", "api/spaces", "", "", http.StatusForbidden},
		{"GET", "api/spaces", "not-the-token", "", http.StatusForbidden},
		{"GET", "api/spaces", token, "", http.StatusOK},
		{"POST", "api/runs", token, "http://elsewhere.example", http.StatusForbidden},
		{"GET", "static/app.js", "", "", http.StatusOK}, // code, no data
		// A path segment is a value, never a flag (issue 34: this ran
		// `meridian space show --show-config`).
		{"GET", "api/spaces/--show-config", token, "", http.StatusBadRequest},
		{"GET", "api/spaces/s1/runs/--help", token, "", http.StatusBadRequest},
	} {
		req, err := http.NewRequest(tt.method, base+tt.path, strings.NewReader(`{"prompt":"x"}`))
		if err != nil {
			t.Fatal(err)
		}
		if tt.token != "" {
			req.Header.Set("X-Meridian-Token", tt.token)
		}
		if tt.origin != "" {
			req.Header.Set("Origin", tt.origin)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tt.want {
			t.Errorf("%s /%s (token %q, origin %q): %d, want %d", tt.method, tt.path, tt.token, tt.origin, res.StatusCode, tt.want)
		}
	}
}

// TestUISpawnLive: in a real browser, a run spawned from the page says
// the warning meridian gave it and shows running, with its output as it comes, then — with no reload, told by the
// WebSocket — succeeded, with its report and the change it made; a run the CLI spawns meanwhile shows
// up too; a run continued from its page runs on; the page waits for the
// space's runs; and the filters select runs.
func TestUISpawnLive(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	if out, err := exec.Command("git", "init", "-q", sb.dir).CombinedOutput(); err != nil { // for the run's diff
		t.Fatalf("git init: %v\n%s", err, out)
	}
	url := sb.ui(t)
	ctx := browser(t)
	row := func(id, status string) string {
		return `//table[@id="runs"]//tr[td[1][text()="` + id + `"] and td[2][text()="` + status + `"]]`
	}
	do(t, ctx,
		chromedp.Navigate(url),
		chromedp.WaitVisible(`#live.on`),
		// It runs five seconds: long enough to be seen running, on a loaded machine too.
		chromedp.SendKeys(`#prompt`, "[fake:sleep=5s] [fake-write:notes.txt=hello\\n] Summarise the project"),
		chromedp.SendKeys(`#model`, "opus"),
		chromedp.Click(`#spawn-button`),
		// No space was chosen: meridian made one, and its warning reads
		// as the CLI words it on stderr.
		chromedp.WaitVisible(`//div[@id="messages"]/p[starts-with(text(), "WARNING [SPACE_AUTO_CREATED]: No MERIDIAN_SPACE_ID set. Created space s1.")]`),
		chromedp.WaitVisible(row("r1", "running")),
		// its output as it comes: the harness's first event, before it ends
		chromedp.WaitVisible(`//pre[@id="run-output"][contains(text(), '"type":"system"')]`),
		chromedp.WaitVisible(row("r1", "succeeded")),
		chromedp.WaitVisible(`//pre[@id="run-report"][contains(text(), "fake claude report")]`),
		// what the run changed in the project, and its diff
		chromedp.WaitVisible(`//ul[@id="run-files"]/li[text()="added notes.txt"]`),
		chromedp.WaitVisible(`//pre[@id="run-diff"][contains(text(), "+hello")]`),
	)
	report, err := chromedp.Run(ctx, chromedp.Text(`#run-report`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(report, "Summarise the project") {
		t.Errorf("run r1's report on the page: %q", report)
	}
	// The CLI and the page share the files: a run the CLI starts appears.
	sb.ok(t, sb.env, nil, "run", "spawn", "--space", "s1", "-p", "from the CLI", "-m", "opus", "--wait")
	do(t, ctx, chromedp.WaitVisible(row("r2", "succeeded")))
	// r1 continued from its page: a new run of the same conversation.
	do(t, ctx,
		chromedp.Click(`//table[@id="runs"]//td[text()="r1"]`),
		chromedp.WaitVisible(`//h2[@id="run-title"][text()="Run r1"]`),
		chromedp.SendKeys(`#continue-prompt`, "now the tests"),
		chromedp.Click(`#continue-button`),
		chromedp.WaitVisible(row("r3", "succeeded")),
		chromedp.WaitVisible(`//pre[@id="run-report"][contains(text(), "now the tests")]`),
	)
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	artefact(t, "meridian-ui-dashboard.png", png)
	// Waiting for the space's runs, as run wait does: one the CLI started.
	sb.ok(t, sb.env, nil, "run", "spawn", "--space", "s1", "-p", "[fake:sleep=3s] slowly", "-m", "opus")
	do(t, ctx,
		chromedp.Click(`#wait-space`),
		chromedp.WaitVisible(`//div[@id="messages"]/p[text()="Waited for 1 run: 1 succeeded, 0 failed, 0 cancelled."]`),
		chromedp.WaitVisible(row("r4", "succeeded")),
	)
	// Filtered by a model none of them ran, the runs and their totals go.
	do(t, ctx,
		chromedp.SendKeys(`#model-filter`, "codex\t"),
		chromedp.WaitVisible(`//p[@id="totals"][starts-with(text(), "0 runs")]`),
		chromedp.WaitNotPresent(`//table[@id="runs"]//td[text()="r1"]`),
	)
}

// TestUIChatPane: in a real browser, a chat started from the page runs the
// harness on a terminal in a pane, and two run side by side: what is typed
// in one reaches its harness and its answer shows there; `meridian space
// show` says the chats are alive, as the page does; a reload attaches the
// panes again and shows what was said; ending a chat from its pane ends it
// for the CLI too.
func TestUIChatPane(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	sb.ok(t, sb.env, nil, "run", "spawn", "-p", "make the space", "-m", "opus", "--wait") // space s1
	url := sb.ui(t)
	ctx := browser(t)
	pane := func(id string) string { return `//div[@id="pane-` + id + `"]` }
	say := func(id, text string) string { // xterm's rows may draw a space as a no-break space
		return pane(id) + `//div[contains(@class, "xterm-rows")][contains(translate(., "` + "\u00a0" + `", " "), "` + text + `")]`
	}
	alive := func(chat, yes string) string {
		return `//table[@id="chats"]//tr[td[1][text()="` + chat + `"] and td[4][text()="` + yes + `"]]`
	}
	// chat opens terminal id for chat c and says line in it. It ends once
	// the chats table lists c, as a person would see it before clicking
	// again: the row moves the button below it, and a click while it moves
	// lands beside the button.
	chat := func(id, c, line string) []chromedp.Action[chromedp.Void] {
		return []chromedp.Action[chromedp.Void]{
			chromedp.Click(`#new-chat-button`),
			chromedp.WaitVisible(say(id, "fake claude interactive session")),
			chromedp.Focus(pane(id) + `//textarea[contains(@class, "xterm-helper-textarea")]`),
			typeLine(line),
			chromedp.WaitVisible(say(id, "you said: "+line)),
			chromedp.WaitVisible(alive(c, "yes")),
		}
	}
	// Two chats, side by side, each its own harness.
	do(t, ctx, chromedp.Navigate(url), chromedp.WaitVisible(`#live.on`),
		chromedp.Click(`//table[@id="spaces"]//td[text()="s1"]`), chromedp.SendKeys(`#chat-model`, "opus"))
	do(t, ctx, chat("t1", "c1", "hello there")...)
	do(t, ctx, chat("t2", "c2", "and you")...)
	if text, _ := chromedp.Run(ctx, chromedp.Text(pane("t1"))); strings.Contains(text, "and you") {
		t.Errorf("what was typed in t2 shows in t1:\n%s", text)
	}
	type chats struct {
		Chats []struct {
			ID    string `json:"id"`
			Alive bool   `json:"alive"`
		} `json:"chats"`
	}
	var detail chats
	sb.ok(t, sb.env, &detail, "space", "show", "s1")
	if len(detail.Chats) != 2 || !detail.Chats[0].Alive || !detail.Chats[1].Alive {
		t.Errorf("meridian space show s1: chats %+v; want c1 and c2 alive, as the page says", detail.Chats)
	}
	// A reload attaches both panes again, with what was said before it.
	do(t, ctx, chromedp.Navigate(url),
		chromedp.WaitVisible(say("t1", "you said: hello there")), chromedp.WaitVisible(say("t2", "you said: and you")),
		chromedp.Click(`//table[@id="spaces"]//td[text()="s1"]`), chromedp.WaitVisible(alive("c2", "yes")))
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	artefact(t, "meridian-ui-chat.png", png)
	// Ending one chat from its pane ends it for the CLI too, not the other.
	do(t, ctx,
		chromedp.Click(pane("t1")+`//button[text()="End chat"]`),
		chromedp.WaitVisible(pane("t1")+`//span[contains(text(), "(ended)")]`),
		chromedp.WaitVisible(alive("c1", "no")),
	)
	sb.ok(t, sb.env, &detail, "space", "show", "s1")
	if len(detail.Chats) != 2 || detail.Chats[0].Alive || !detail.Chats[1].Alive {
		t.Errorf("meridian space show s1 after the page ended c1: %+v", detail.Chats)
	}
}

// TestUICloseSpaceAsks: closing a space from the page asks what the CLI
// asks an agent — a confirmation — and closes it once confirmed, for the
// CLI too.
func TestUICloseSpaceAsks(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	sb.ok(t, sb.env, nil, "run", "spawn", "-p", "make the space", "-m", "opus", "--wait") // space s1
	url := sb.ui(t)
	base, token, _ := strings.Cut(url, "?t=")
	post := func(path string) (int, string) {
		req, _ := http.NewRequest("POST", base+path, nil)
		req.Header.Set("X-Meridian-Token", token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var env envelope
		if err := json.NewDecoder(res.Body).Decode(&env); err != nil {
			t.Fatal(err)
		}
		if env.Error != nil {
			return res.StatusCode, env.Error.Code
		}
		return res.StatusCode, ""
	}
	if code, errCode := post("api/spaces/s1/close"); code != http.StatusBadRequest || errCode != "CONFIRMATION_REQUIRED" {
		t.Errorf("close without confirming: %d %s; want 400 CONFIRMATION_REQUIRED", code, errCode)
	}
	if code, errCode := post("api/spaces/s1/close?confirm=yes"); code != http.StatusOK {
		t.Errorf("close, confirmed: %d %s; want 200", code, errCode)
	}
	var detail struct {
		Status string `json:"status"`
	}
	sb.ok(t, sb.env, &detail, "space", "show", "s1")
	if detail.Status != "closed" {
		t.Errorf("meridian space show s1 after the page closed it: status %q", detail.Status)
	}
}

// bearer adds an MCP client's Authorization header to every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestUIServesMCP: the UI's server is an MCP endpoint too, at /mcp, for the
// SDK's own client with the token as its bearer token: the tools of
// `meridian serve`, whose calls run meridian on the same files the page
// shows. Without the token it is refused.
func TestUIServesMCP(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	sb.ok(t, sb.env, nil, "run", "spawn", "-p", "make the space", "-m", "opus", "--wait") // space s1, run r1
	url := sb.ui(t)
	base, token, _ := strings.Cut(url, "?t=")
	connect := func(token string) (*sdk.ClientSession, error) {
		ct := &sdk.StreamableClientTransport{Endpoint: base + "mcp", HTTPClient: &http.Client{Transport: bearer(token)}}
		return sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	}
	if cs, err := connect("not-the-token"); err == nil {
		cs.Close()
		t.Error("an MCP client without the token connected")
	}
	cs, err := connect(token)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "run_list", Arguments: map[string]any{"space": "s1"}})
	if err != nil {
		t.Fatal(err)
	}
	listed, _ := json.Marshal(res.StructuredContent)
	if res.IsError || !strings.Contains(string(listed), `"id":"r1"`) {
		t.Errorf("run_list over the UI's MCP endpoint: error %v, %s", res.IsError, listed)
	}
}

// TestUIEndsOnSIGTERM: `meridian ui` stopped by SIGTERM, as a service
// manager stops it, exits 143 with the signal named — not 0, as if it had
// finished its work (issue 34).
func TestUIEndsOnSIGTERM(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	cmd := exec.Command(bin, "ui")
	cmd.Env, cmd.Dir = sb.env, sb.dir
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	for lines.Scan() && !strings.Contains(lines.Text(), "until interrupted") {
	}
	cmd.Process.Signal(syscall.SIGTERM)
	go io.Copy(io.Discard, stderr)
	code := exitCode(cmd.Wait())
	if code != 143 || !strings.Contains(stdout.String(), `"signal":"SIGTERM"`) {
		t.Errorf("meridian ui after SIGTERM: exit %d, %s; want 143 naming the signal", code, stdout.String())
	}
}
