package conformance

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// maxHashed is the largest regular file a fsSnapshot hashes; a bigger one is
// compared by size and time alone.
const maxHashed = 1 << 20

// proxyTimeout bounds every read and write of the network sentinel, so a
// target that opens a connection and says nothing costs the run nothing.
const proxyTimeout = 5 * time.Second

// sentinels are the programs a target may be pointed at through its
// environment, by the name sentinelCall reports.
var sentinels = []string{"pager", "editor", "visual", "browser"}

// installers and openers are programs a target may run by name: to
// install or update itself, or to open a browser. The sandbox puts a
// sentinel of each name first on PATH, which records the call and refuses
// it, so that a probe never installs anything or opens a window.
var (
	installers = []string{"npm", "npx", "pnpm", "yarn", "bun", "pip", "pip3", "pipx", "uv", "gem", "cargo", "go",
		"brew", "apt", "apt-get", "dnf", "yum", "pacman", "apk", "snap", "flatpak", "sudo", "curl", "wget"}
	openers = []string{"xdg-open", "open", "sensible-browser", "x-www-browser", "www-browser", "gnome-open", "kde-open", "gio", "wslview"}
)

// probeSandbox is the private world one check run happens in.
type probeSandbox struct {
	Dir             string // root temp dir; everything below is removed by Close
	Home, Work, Tmp string // HOME; the working directory; TMPDIR
	// XDG base directories, under Dir but not under Home, so that a target
	// that ignores them (writing ~/.config) can be told from one that
	// honours them.
	ConfigHome, DataHome, CacheHome, StateHome string
	RuntimeDir                                 string // mode 0700, as the spec requires

	bin      string // the sentinels, under Dir/.sentinel
	path     string // the sentinels of installers and openers, first on PATH
	callsLog string // where the sentinels record their calls
	proxyURL string

	srv    *http.Server
	served chan struct{} // closed when the proxy's Serve returns

	// id prefixes the tags of the check's runs, by which the DNS recorder
	// knows whose question it heard.
	id string

	mu       sync.Mutex
	requests []string
}

// sentinelCall is one run of a sentinel program.
type sentinelCall struct {
	Name string // "pager", "editor", "visual", "browser", or the installer or opener run ("npm", "xdg-open" ...)
	Args []string
	Run  string // the DUET_CHECK_RUN of the run that started it, if it kept it
}

// fsSnapshot is the state of a sandbox's files, by path relative to its Dir
// in slash form.
type fsSnapshot map[string]fileStat

// fileStat is one file's state. Hash is the SHA-256 (hex) of a regular
// file of at most 1 MiB, the target of a symbolic link, "" otherwise.
type fileStat struct {
	Mode    fs.FileMode
	Size    int64
	ModTime time.Time
	Hash    string
}

// makeSandbox creates a sandbox under the system's temporary directory,
// with its sentinel programs written and its network sentinel listening.
func makeSandbox() (_ *probeSandbox, err error) {
	dir, err := os.MkdirTemp("", "duet-check-")
	if err != nil {
		return nil, fmt.Errorf("create the sandbox: %w", err)
	}
	// A target may be handed these paths in arguments and compare them with
	// what it sees (its working directory, $HOME): they must not go
	// through a symbolic link such as macOS's /tmp.
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	s := &probeSandbox{
		id:         newRunTag(),
		Dir:        dir,
		Home:       filepath.Join(dir, "home"),
		Work:       filepath.Join(dir, "work"),
		Tmp:        filepath.Join(dir, "tmp"),
		ConfigHome: filepath.Join(dir, "xdg", "config"),
		DataHome:   filepath.Join(dir, "xdg", "data"),
		CacheHome:  filepath.Join(dir, "xdg", "cache"),
		StateHome:  filepath.Join(dir, "xdg", "state"),
		RuntimeDir: filepath.Join(dir, "xdg", "runtime"),
		bin:        filepath.Join(dir, ".sentinel", "bin"),
		path:       filepath.Join(dir, ".sentinel", "path"),
		callsLog:   filepath.Join(dir, ".sentinel", "calls.log"),
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	for _, d := range append(s.roots(), s.bin, s.path) {
		mode := fs.FileMode(0o755)
		if d == s.RuntimeDir {
			mode = 0o700
		}
		if err := os.MkdirAll(d, mode); err != nil {
			return nil, fmt.Errorf("create the sandbox: %w", err)
		}
		// MkdirAll's mode passes through the umask; XDG_RUNTIME_DIR's
		// must be exactly 0700.
		if err := os.Chmod(d, mode); err != nil {
			return nil, fmt.Errorf("create the sandbox: %w", err)
		}
	}
	if err := s.writeSentinels(); err != nil {
		return nil, err
	}
	if err := s.startProxy(); err != nil {
		return nil, err
	}
	s.startDNS()
	return s, nil
}

// roots are the directories a target may legitimately touch, which
// Snapshot looks at.
func (s *probeSandbox) roots() []string {
	return []string{s.Home, s.Work, s.Tmp, s.ConfigHome, s.DataHome, s.CacheHome, s.StateHome, s.RuntimeDir}
}

// writeSentinels writes one shell script per sentinel. Each appends a
// record to the calls log with a single printf, so concurrent calls do not
// interleave: its name, the run's tag prefixed with "=", each argument
// prefixed with "+", every field ended by a NUL (which no argument can
// hold), and an empty field to end the record.
func (s *probeSandbox) writeSentinels() error {
	// A pager reads what it is given, or a target writing to it would
	// block once the pipe is full; but not from a terminal, which nobody
	// types into. It passes it on, as less does when its output is no
	// terminal: the pager is the finding, and what the target paged is
	// still judged as its answer. cat is far quicker than a read loop,
	// where there is one.
	drain := "while IFS= read -r l; do printf '%s\\n' \"$l\"; done"
	if cat, err := exec.LookPath("cat"); err == nil {
		drain = shellQuote(cat) + " 2>/dev/null"
	}
	record := func(name string) string {
		return "#!/bin/sh\n" +
			"n=$#\n" +
			"for a do set -- \"$@\" \"+$a\"; done\n" +
			"shift $n\n" +
			"printf '%s\\000' " + name + " \"=${" + runTagEnv + ":-}\" \"$@\" '' >>" + shellQuote(s.callsLog) + "\n"
	}
	for _, name := range sentinels {
		body := record(name)
		if name == "pager" {
			body += "[ -t 0 ] || " + drain + "\n"
		}
		body += "exit 0\n"
		if err := os.WriteFile(filepath.Join(s.bin, name), []byte(body), 0o755); err != nil {
			return fmt.Errorf("write the %s sentinel: %w", name, err)
		}
	}
	for _, name := range slices.Concat(installers, openers) {
		body := record(name) + "echo " + shellQuote("duet-check: "+name+" is not available in the sandbox") + " >&2\nexit 1\n"
		if err := os.WriteFile(filepath.Join(s.path, name), []byte(body), 0o755); err != nil {
			return fmt.Errorf("write the %s sentinel: %w", name, err)
		}
	}
	return nil
}

// startProxy starts the network sentinel: an HTTP proxy that records every
// request and forwards none.
func (s *probeSandbox) startProxy() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("start the network sentinel: %w", err)
	}
	s.proxyURL = "http://" + ln.Addr().String()
	s.srv = &http.Server{
		Handler:           http.HandlerFunc(s.serveProxy),
		ReadHeaderTimeout: proxyTimeout,
		ReadTimeout:       proxyTimeout,
		WriteTimeout:      proxyTimeout,
		IdleTimeout:       proxyTimeout,
		// Whatever a target sends is its business, not the checker's log.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	s.served = make(chan struct{})
	go func() {
		defer close(s.served)
		_ = s.srv.Serve(ln) // ErrServerClosed once Close stops it
	}()
	return nil
}

// serveProxy records r and refuses it. RequestURI is the request line's
// target as sent: "host:443" for CONNECT, an absolute URL for a proxied
// request.
func (s *probeSandbox) serveProxy(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r.Method+" "+r.RequestURI)
	s.mu.Unlock()
	w.Header().Set("Connection", "close")
	http.Error(w, "duet check: the network is not available in the sandbox", http.StatusBadGateway)
}

// Env returns base with the sandbox's directories, sentinels and proxy set
// in it, and NO_PROXY taken out so that the proxy sees every request. Each
// key appears once, where it first appeared in base, with its last value.
func (s *probeSandbox) Env(base []string) []string {
	pager := filepath.Join(s.bin, "pager")
	proxy := s.proxyURL
	set := []string{
		"HOME=" + s.Home,
		"USERPROFILE=" + s.Home,
		"TMPDIR=" + s.Tmp,
		"XDG_CONFIG_HOME=" + s.ConfigHome,
		"XDG_DATA_HOME=" + s.DataHome,
		"XDG_CACHE_HOME=" + s.CacheHome,
		"XDG_STATE_HOME=" + s.StateHome,
		"XDG_RUNTIME_DIR=" + s.RuntimeDir,
		"PAGER=" + pager,
		"GIT_PAGER=" + pager,
		"MANPAGER=" + pager,
		"EDITOR=" + filepath.Join(s.bin, "editor"),
		"VISUAL=" + filepath.Join(s.bin, "visual"),
		"BROWSER=" + filepath.Join(s.bin, "browser"),
		"HTTP_PROXY=" + proxy,
		"HTTPS_PROXY=" + proxy,
		"http_proxy=" + proxy,
		"https_proxy=" + proxy,
		"ALL_PROXY=" + proxy,
	}
	path := s.path
	for _, kv := range base {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok && v != "" {
			path = s.path + string(filepath.ListSeparator) + v
		}
	}
	set = append(set, "PATH="+path)
	var env []string
	at := map[string]int{} // key -> index in env
	for _, kv := range slices.Concat(base, set) {
		k := envKey(kv)
		if k == "NO_PROXY" || k == "no_proxy" {
			continue
		}
		if i, ok := at[k]; ok {
			env[i] = kv
			continue
		}
		at[k] = len(env)
		env = append(env, kv)
	}
	return env
}

// envKey is the name in a KEY=value entry; an entry without "=" is its own
// key.
func envKey(kv string) string {
	k, _, _ := strings.Cut(kv, "=")
	return k
}

// Calls returns the sentinel programs run so far, in order. A record still
// being written is left out.
func (s *probeSandbox) Calls() []sentinelCall {
	data, err := os.ReadFile(s.callsLog)
	if err != nil {
		return nil // no sentinel has run (or the target removed the log)
	}
	var calls []sentinelCall
	var cur *sentinelCall
	for {
		field, rest, ok := bytes.Cut(data, []byte{0})
		if !ok {
			return calls // an unfinished field
		}
		data = rest
		switch {
		case cur == nil:
			cur = &sentinelCall{Name: string(field)}
		case len(field) == 0:
			calls = append(calls, *cur)
			cur = nil
		case field[0] == '=':
			cur.Run = string(field[1:])
		default:
			cur.Args = append(cur.Args, string(field[1:])) // drop the "+"
		}
	}
}

// ProxyRequests returns the requests the network sentinel saw, in order:
// "CONNECT host:443", "GET http://host/path", and where the check is
// isolated the DNS questions asked, "DNS host.".
func (s *probeSandbox) ProxyRequests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Snapshot records the state of Home, Work, Tmp and the XDG directories,
// themselves included. Symbolic links are recorded, not followed. A file
// that vanishes while it is being looked at is left out, and so is what is
// inside a directory the target made unreadable; a regular file it made
// unreadable has no Hash. Whatever a target does to its sandbox is
// evidence, not a reason for the check to fail.
func (s *probeSandbox) Snapshot() (fsSnapshot, error) {
	snap := fsSnapshot{}
	var logDirs []string // directories that held an audit log, relative
	for _, root := range s.roots() {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				// The second call for a directory that could not be
				// read, or the root gone.
				if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
					return nil
				}
				return err
			}
			st, err := fileState(path, d)
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(s.Dir, path)
			if err != nil {
				return err
			}
			if s.auditLog(path) {
				logDirs = append(logDirs, filepath.Dir(filepath.ToSlash(rel)))
				return nil
			}
			snap[filepath.ToSlash(rel)] = st
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("snapshot the sandbox: %w", err)
		}
	}
	// The directories made to hold an audit log are part of it, up to the
	// first that holds anything else.
	roots := map[string]bool{}
	for _, root := range s.roots() {
		if rel, err := filepath.Rel(s.Dir, root); err == nil {
			roots[filepath.ToSlash(rel)] = true
		}
	}
	for _, dir := range logDirs {
		for ; dir != "." && !roots[dir] && onlyItself(snap, dir); dir = path.Dir(dir) {
			delete(snap, dir)
		}
	}
	return snap, nil
}

// onlyItself reports whether nothing in snap is under dir.
func onlyItself(snap fsSnapshot, dir string) bool {
	for p := range snap {
		if strings.HasPrefix(p, dir+"/") {
			return false
		}
	}
	return true
}

// auditLog reports whether path is a tool's audit log where the CLI Agent
// Spec keeps it (REQ-O-030: <state home>/<tool>/audit.jsonl; before it,
// REQ-F-026 kept it under the data home): one line appended for every
// invocation, refusals included, it is the record of what ran, not a side
// effect of running it.
func (s *probeSandbox) auditLog(path string) bool {
	if filepath.Base(path) != "audit.jsonl" {
		return false
	}
	switch filepath.Dir(filepath.Dir(path)) {
	case s.StateHome, filepath.Join(s.Home, ".local", "state"), s.DataHome, filepath.Join(s.Home, ".local", "share"):
		return true
	}
	return false
}

func fileState(path string, d fs.DirEntry) (fileStat, error) {
	info, err := d.Info()
	if err != nil {
		return fileStat{}, err
	}
	st := fileStat{Mode: info.Mode(), Size: info.Size(), ModTime: info.ModTime()}
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		st.Hash, err = os.Readlink(path)
	case info.Mode().IsRegular() && info.Size() <= maxHashed:
		st.Hash, err = hashFile(path)
	}
	return st, err
}

// hashFile hashes the regular file at path, or returns "" when it is no
// longer one of at most maxHashed bytes or cannot be read. It opens without following a link
// and without blocking, in case the target swapped in a link or a FIFO.
func hashFile(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, fs.ErrPermission) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return "", err
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, maxHashed+1))
	if err != nil {
		return "", err
	}
	if n > maxHashed {
		return "", nil
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Diff lists how b differs from a, sorted by path: "+ path" for a file
// created, "- path" for one removed, "~ path" for one changed. A directory
// is changed only in its mode: its size and time change with its entries,
// which have lines of their own.
func (a fsSnapshot) Diff(b fsSnapshot) []string {
	var lines []string
	for p, was := range a {
		is, ok := b[p]
		switch {
		case !ok:
			lines = append(lines, "- "+p)
		case changed(was, is):
			lines = append(lines, "~ "+p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			lines = append(lines, "+ "+p)
		}
	}
	slices.SortFunc(lines, func(x, y string) int { return strings.Compare(x[2:], y[2:]) })
	return lines
}

func changed(was, is fileStat) bool {
	if was.Mode != is.Mode {
		return true
	}
	if is.Mode.IsDir() {
		return false
	}
	return was.Size != is.Size || was.Hash != is.Hash || !was.ModTime.Equal(is.ModTime)
}

// Close stops the network sentinel and removes the sandbox, even where the
// target took away its own permission to write.
func (s *probeSandbox) Close() error {
	var errs []error
	if s.srv != nil {
		errs = append(errs, s.srv.Close())
		<-s.served
	}
	recorder.leave(s)
	if err := os.RemoveAll(s.Dir); err != nil {
		// Make every directory writable again, then try once more.
		_ = filepath.WalkDir(s.Dir, func(path string, d fs.DirEntry, err error) error {
			if d != nil && d.IsDir() {
				_ = os.Chmod(path, 0o700)
			}
			return nil
		})
		errs = append(errs, os.RemoveAll(s.Dir))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close the sandbox: %w", err)
	}
	return nil
}
