package conformance

import (
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func newSandbox(t *testing.T) *probeSandbox {
	t.Helper()
	s, err := makeSandbox()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// envMap is env as a map, failing the test on a key that appears twice.
func envMap(t *testing.T, env []string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if _, dup := m[k]; dup {
			t.Errorf("%s appears twice in %q", k, env)
		}
		m[k] = v
	}
	return m
}

func TestSandboxEnv(t *testing.T) {
	s := newSandbox(t)
	proxy := s.proxyURL
	base := []string{
		"PATH=/usr/bin:/bin",
		"HOME=/home/someone",
		"LANG=C.UTF-8",
		"NO_PROXY=localhost",
		"no_proxy=*",
		"PAGER=less",
		"LANG=en_US.UTF-8",
		"EDITOR=vim",
	}
	got := envMap(t, s.Env(base))
	want := map[string]string{
		"PATH":            s.path + ":/usr/bin:/bin", // installers and openers are the sandbox's sentinels
		"LANG":            "en_US.UTF-8",
		"HOME":            s.Home,
		"USERPROFILE":     s.Home,
		"TMPDIR":          s.Tmp,
		"XDG_CONFIG_HOME": s.ConfigHome,
		"XDG_DATA_HOME":   s.DataHome,
		"XDG_CACHE_HOME":  s.CacheHome,
		"XDG_STATE_HOME":  s.StateHome,
		"XDG_RUNTIME_DIR": s.RuntimeDir,
		"PAGER":           filepath.Join(s.bin, "pager"),
		"GIT_PAGER":       filepath.Join(s.bin, "pager"),
		"MANPAGER":        filepath.Join(s.bin, "pager"),
		"EDITOR":          filepath.Join(s.bin, "editor"),
		"VISUAL":          filepath.Join(s.bin, "visual"),
		"BROWSER":         filepath.Join(s.bin, "browser"),
		"HTTP_PROXY":      proxy,
		"HTTPS_PROXY":     proxy,
		"http_proxy":      proxy,
		"https_proxy":     proxy,
		"ALL_PROXY":       proxy,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Env (-want +got):\n%s", diff)
	}
	if u, err := url.Parse(proxy); err != nil || u.Hostname() != "127.0.0.1" || u.Port() == "" {
		t.Errorf("proxy URL %q: %v", proxy, err)
	}
	// Base's order is kept; the sandbox's own keys follow.
	env := s.Env(base)
	if !strings.HasPrefix(env[0], "PATH=") || !strings.HasPrefix(env[1], "HOME=") {
		t.Errorf("Env starts %q", env[:2])
	}
	if got := envMap(t, s.Env(nil)); got["HOME"] != s.Home || got["PATH"] != s.path {
		t.Errorf("Env(nil) = %q", s.Env(nil))
	}
}

func TestSandboxDirs(t *testing.T) {
	s := newSandbox(t)
	for _, d := range s.roots() {
		info, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if !info.IsDir() || !strings.HasPrefix(d, s.Dir+string(filepath.Separator)) {
			t.Errorf("%s is not a directory under %s", d, s.Dir)
		}
	}
	if info, err := os.Stat(s.RuntimeDir); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("XDG_RUNTIME_DIR: %v, %v", info.Mode(), err)
	}
}

func TestSandboxSentinels(t *testing.T) {
	tests := []struct {
		name   string
		script string
		stdin  string
		want   []sentinelCall
	}{
		{"none", "true", "", nil},
		{"pager", `$PAGER a b`, "", []sentinelCall{{Name: "pager", Args: []string{"a", "b"}}}},
		{"pager without args", `$GIT_PAGER`, "", []sentinelCall{{Name: "pager"}}},
		{"pager reads its input", `yes | head -c 1000000 | $MANPAGER`, "", []sentinelCall{{Name: "pager"}}},
		{"awkward args", `$EDITOR "a b" "" "x
y" "-n" '%s\' "$(printf 'tab\there')"`, "", []sentinelCall{
			{Name: "editor", Args: []string{"a b", "", "x\ny", "-n", `%s\`, "tab\there"}},
		}},
		{"in order", `$EDITOR f; $VISUAL g; $BROWSER https://example.com/; $PAGER`, "", []sentinelCall{
			{Name: "editor", Args: []string{"f"}},
			{Name: "visual", Args: []string{"g"}},
			{Name: "browser", Args: []string{"https://example.com/"}},
			{Name: "pager"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			cmd := exec.Command("/bin/sh", "-c", tt.script)
			cmd.Env = s.Env(os.Environ())
			cmd.Dir = s.Work
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", tt.script, err, out)
			}
			if diff := cmp.Diff(tt.want, s.Calls()); diff != "" {
				t.Errorf("Calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSandboxSentinelsConcurrent(t *testing.T) {
	s := newSandbox(t)
	env := s.Env(os.Environ())
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			cmd := exec.Command("/bin/sh", "-c", `for i in 1 2 3 4 5; do $EDITOR "$0" "$i"; done`, strings.Repeat("x", i*100))
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%v\n%s", err, out)
			}
		})
	}
	wg.Wait()
	calls := s.Calls()
	if len(calls) != 40 {
		t.Fatalf("%d calls, want 40", len(calls))
	}
	for _, c := range calls {
		if c.Name != "editor" || len(c.Args) != 2 || strings.Trim(c.Args[0], "x") != "" {
			t.Errorf("garbled call %q", c)
		}
	}
}

func TestSandboxProxy(t *testing.T) {
	s := newSandbox(t)
	proxy, err := url.Parse(s.proxyURL)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{
		Transport: &http.Transport{Proxy: http.ProxyURL(proxy)},
		Timeout:   30 * time.Second,
	}
	resp, err := client.Get("http://example.invalid/x?y=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("proxied GET: status %d, want 502", resp.StatusCode)
	}
	if _, err := client.Get("https://example.invalid/secure"); err == nil {
		t.Errorf("proxied HTTPS GET succeeded")
	}
	want := []string{"GET http://example.invalid/x?y=1", "CONNECT example.invalid:443"}
	got := s.ProxyRequests()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ProxyRequests (-want +got):\n%s", diff)
	}
	got[0] = "changed"
	if s.ProxyRequests()[0] == "changed" {
		t.Errorf("ProxyRequests returned its own slice")
	}
}

func TestSnapshotDiff(t *testing.T) {
	write := func(path, content string) func(*testing.T, *probeSandbox) {
		return func(t *testing.T, s *probeSandbox) {
			t.Helper()
			p := filepath.Join(s.Dir, path)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	do := func(f func(s *probeSandbox) error) func(*testing.T, *probeSandbox) {
		return func(t *testing.T, s *probeSandbox) {
			t.Helper()
			if err := f(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	nothing := func(*testing.T, *probeSandbox) {}
	tests := []struct {
		name          string
		before, after func(*testing.T, *probeSandbox)
		want          []string
	}{
		{"untouched", nothing, nothing, nil},
		{"untouched with files", write("work/a", "a"), nothing, nil},
		{"created under home", nothing, write("home/.config/x", "x"), []string{"+ home/.config", "+ home/.config/x"}},
		{"created under XDG_CONFIG_HOME", nothing, write("xdg/config/tool/c.toml", "c"), []string{"+ xdg/config/tool", "+ xdg/config/tool/c.toml"}},
		{"removed", write("tmp/t", "t"), do(func(s *probeSandbox) error { return os.Remove(filepath.Join(s.Tmp, "t")) }), []string{"- tmp/t"}},
		{"content changed", write("work/a", "a"), write("work/a", "b"), []string{"~ work/a"}},
		{"mode changed", write("work/a", "a"), do(func(s *probeSandbox) error { return os.Chmod(filepath.Join(s.Work, "a"), 0o600) }), []string{"~ work/a"}},
		{"touched", write("work/a", "a"), do(func(s *probeSandbox) error {
			return os.Chtimes(filepath.Join(s.Work, "a"), time.Time{}, time.Unix(1, 0))
		}), []string{"~ work/a"}},
		{"symlink retargeted", do(func(s *probeSandbox) error { return os.Symlink("one", filepath.Join(s.Home, "l")) }), do(func(s *probeSandbox) error {
			if err := os.Remove(filepath.Join(s.Home, "l")); err != nil {
				return err
			}
			return os.Symlink("two", filepath.Join(s.Home, "l"))
		}), []string{"~ home/l"}},
		{"home removed", write("home/h", "h"), do(func(s *probeSandbox) error { return os.RemoveAll(s.Home) }), []string{"- home", "- home/h"}},
		{"sentinel calls ignored", nothing, do(func(s *probeSandbox) error {
			return exec.Command(filepath.Join(s.bin, "editor"), "x").Run()
		}), nil},
		{"an audit log and its directories", nothing, write("home/.local/share/tool/audit.jsonl", "{}\n"), nil},
		{"an audit log under XDG_DATA_HOME", nothing, write("xdg/data/tool/audit.jsonl", "{}\n"), nil},
		{"an audit log where REQ-O-030 keeps it", nothing, write("home/.local/state/tool/audit.jsonl", "{}\n"), nil},
		{"an audit log under XDG_STATE_HOME", nothing, write("xdg/state/tool/audit.jsonl", "{}\n"), nil},
		{"beside an audit log", nothing, func(t *testing.T, s *probeSandbox) {
			write("xdg/data/tool/audit.jsonl", "{}\n")(t, s)
			write("xdg/data/tool/state", "s")(t, s)
		}, []string{"+ xdg/data/tool", "+ xdg/data/tool/state"}},
		{"large file", write("work/big", strings.Repeat("a", maxHashed+1)), write("work/big", strings.Repeat("b", maxHashed+2)), []string{"~ work/big"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSandbox(t)
			tt.before(t, s)
			a, err := s.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			tt.after(t, s)
			b, err := s.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, a.Diff(b)); diff != "" {
				t.Errorf("Diff (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSnapshotState(t *testing.T) {
	s := newSandbox(t)
	big := strings.Repeat("z", maxHashed+1)
	for name, content := range map[string]string{"small": "hello\n", "big": big} {
		if err := os.WriteFile(filepath.Join(s.Work, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(s.Work, "link")); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for p := range snap {
		got = append(got, p)
	}
	slices.Sort(got)
	want := []string{"home", "tmp", "work", "work/big", "work/link", "work/small",
		"xdg/cache", "xdg/config", "xdg/data", "xdg/runtime", "xdg/state"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	hashes := map[string]string{}
	for _, p := range []string{"work/small", "work/big", "work/link", "work"} {
		hashes[p] = snap[p].Hash
	}
	wantHashes := map[string]string{
		"work/small": "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03", // sha256 of "hello\n"
		"work/big":   "",
		"work/link":  "/etc/passwd",
		"work":       "",
	}
	if diff := cmp.Diff(wantHashes, hashes); diff != "" {
		t.Errorf("hashes (-want +got):\n%s", diff)
	}
	if st := snap["work/link"]; st.Mode&os.ModeSymlink == 0 {
		t.Errorf("work/link mode %v, want a symlink", st.Mode)
	}
}

func TestSnapshotUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads everything")
	}
	s := newSandbox(t)
	dir := filepath.Join(s.Home, "locked")
	for _, p := range []string{dir, filepath.Join(dir, "inner")} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(s.Work, "secret"), []byte("s"), 0o000); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o000); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := snap["home/locked"]; !ok {
		t.Errorf("the unreadable directory is missing from %v", snap)
	}
	if _, ok := snap["work/secret"]; !ok {
		t.Errorf("the unreadable file is missing from %v", snap)
	}
	// Close (in the cleanup) must remove it all the same.
}

func TestSandboxClose(t *testing.T) {
	s, err := makeSandbox()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(s.Home, "ro", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Home, "ro", "deeper", "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A target that took away its own right to write.
	for _, d := range []string{filepath.Join(s.Home, "ro", "deeper"), filepath.Join(s.Home, "ro")} {
		if err := os.Chmod(d, 0o500); err != nil {
			t.Fatal(err)
		}
	}
	addr := strings.TrimPrefix(s.proxyURL, "http://")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(s.Dir); !os.IsNotExist(err) {
		t.Errorf("%s still exists after Close: %v", s.Dir, err)
	}
	if _, err := http.Get("http://" + addr + "/"); err == nil {
		t.Errorf("the proxy still answers after Close")
	}
	if err := s.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}
