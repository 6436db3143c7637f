//go:build linux

package e2e

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// ui starts `meridian ui` in the sandbox's project and returns the URL it
// printed, with its token. The server is interrupted when the test ends.
func (sb *sandbox) ui(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(bin, "ui")
	cmd.Env, cmd.Dir = sb.env, sb.dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
	})
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		if url, ok := strings.CutPrefix(lines.Text(), "meridian ui: "); ok {
			go func() { // keep the pipe drained
				for lines.Scan() {
				}
			}()
			return url
		}
	}
	t.Fatalf("meridian ui printed no URL (%v)", lines.Err())
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

// TestUISpawnLive: in a real browser, a run spawned from the page shows
// running, then — with no reload, told by the WebSocket — succeeded, with
// its report; a run the CLI spawns meanwhile shows up too.
func TestUISpawnLive(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	url := sb.ui(t)
	ctx := browser(t)
	row := func(id, status string) string {
		return `//table[@id="runs"]//tr[td[1][text()="` + id + `"] and td[2][text()="` + status + `"]]`
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate(url),
		chromedp.WaitVisible(`#live.on`),
		chromedp.SendKeys(`#prompt`, "[fake:sleep=2s] Summarise the project"),
		chromedp.SendKeys(`#model`, "opus"),
		chromedp.Click(`#spawn-button`),
		chromedp.WaitVisible(row("r1", "running")),
		chromedp.WaitVisible(row("r1", "succeeded")),
		chromedp.WaitVisible(`//pre[@id="run-report"][contains(text(), "fake claude report")]`),
	)
	if err != nil {
		t.Fatalf("the page: %v", err)
	}
	report, err := chromedp.Run(ctx, chromedp.Text(`#run-report`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(report, "Summarise the project") {
		t.Errorf("run r1's report on the page: %q", report)
	}
	// The CLI and the page share the files: a run the CLI starts appears.
	sb.ok(t, sb.env, nil, "run", "spawn", "--space", "s1", "-p", "from the CLI", "-m", "opus", "--wait")
	if err := chromedp.Do(ctx, chromedp.WaitVisible(row("r2", "succeeded"))); err != nil {
		t.Fatalf("a run the CLI spawned, on the page: %v", err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	artefact(t, "meridian-ui-dashboard.png", png)
}
