package conformance

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Isolate runs the calling program again inside namespaces of its own,
// where the kernel allows an unprivileged user to make them: a user
// namespace, a network namespace whose only interface is loopback (so the
// sandbox's proxy and DNS see every attempt to reach out, and nothing gets
// through), a process namespace (so a target can signal no process outside
// it, and whatever it leaves running ends with the copy), and a mount
// namespace in which every file system is read-only but one temporary
// directory, the copy's TMPDIR. The directories named in own, where the
// program keeps its own state (its audit log, its profiles), made if
// missing, stay writable for the copy but out of the targets' sight: they
// see an empty read-only directory there, and the copy reaches its own
// through OwnDir. Each target then runs in a further user namespace, as
// the user who started the check and without privilege over the others.
// Call it first in main:
//
//	if code, done := conformance.Isolate(); done {
//		os.Exit(code)
//	}
//
// In the calling program it returns done once the copy has exited, with the
// copy's exit code; it passes SIGTERM and SIGHUP on to the copy (SIGINT
// and SIGQUIT from a terminal reach the copy itself). In the copy, and
// where namespaces cannot be made, it returns done false and the program
// goes on; every report then says how its runs were isolated, and why no
// further (Report.Isolation).
func Isolate(own ...string) (code int, done bool) {
	if _, ok := os.LookupEnv(nestProbeEnv); ok {
		os.Exit(0) // enter's question: can a target get a user namespace?
	}
	if _, ok := os.LookupEnv(isolationEnv); ok {
		if iso := currentIsolation(); iso.Work != "" && !iso.Users && iso.Missing == "" {
			// The copy, just started.
			iso, err := enter(iso)
			if err != nil {
				// Nothing can be served on loopback: the program that
				// started the copy runs the check itself.
				_ = os.WriteFile(filepath.Join(iso.Work, unisolatedFile), []byte(err.Error()), 0o600)
				os.Exit(unisolatedExit)
			}
			os.Setenv(isolationEnv, iso.encode())
		}
		return 0, false
	}
	work, err := os.MkdirTemp("", "duet-check-isolated-")
	if err != nil {
		os.Setenv(isolationEnv, isolation{Missing: err.Error()}.encode())
		return 0, false
	}
	iso := isolation{Work: work, UID: os.Getuid(), GID: os.Getgid(), Own: map[string]string{}}
	for _, dir := range own {
		if dir, err := filepath.Abs(dir); err == nil && os.MkdirAll(dir, 0o700) == nil {
			iso.Own[dir] = ""
		}
	}
	cmd := &exec.Cmd{
		Path:   "/proc/self/exe",
		Args:   os.Args,
		Env:    append(os.Environ(), isolationEnv+"="+iso.encode(), "TMPDIR="+work),
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{
			Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: iso.UID, Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: iso.GID, Size: 1}},
		},
	}
	// Caught before the copy starts, so that it starts with them at their
	// defaults, and this program outlives the copy to clean up after it.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		os.RemoveAll(work)
		os.Setenv(isolationEnv, isolation{Missing: "user namespaces are not available: " + unwrapExec(err)}.encode())
		return 0, false
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	for {
		select {
		case s := <-sigs:
			if s == syscall.SIGTERM || s == syscall.SIGHUP {
				_ = cmd.Process.Signal(s)
			}
		case err := <-waited:
			why, readErr := os.ReadFile(filepath.Join(work, unisolatedFile))
			os.RemoveAll(work)
			if code := exitCode(cmd.ProcessState, err); code != unisolatedExit || readErr != nil {
				return code, true
			}
			os.Setenv(isolationEnv, isolation{Missing: string(why)}.encode())
			return 0, false
		}
	}
}

// unwrapExec is err without exec's "fork/exec /proc/self/exe: " prefix.
func unwrapExec(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// exitCode is the code a shell would report for a process that ended as
// ps says: its exit status, or 128 and the signal that killed it.
func exitCode(ps *os.ProcessState, err error) int {
	if ps == nil {
		fmt.Fprintln(os.Stderr, "duet-check: the isolated run failed:", err)
		return 1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// enter sets up the namespaces the copy was started in: loopback up, a
// /proc of the process namespace, the file systems read-only but iso.Work,
// with /etc/resolv.conf pointing at the sandbox's DNS recorder, and the
// program's own state hidden. A part the kernel refuses is left out and
// named in Missing; the copy still runs, as isolated as it could be made.
// Without loopback it cannot (the proxy listens there): that is the error.
func enter(iso isolation) (isolation, error) {
	if err := loopbackUp(); err != nil {
		return iso, fmt.Errorf("a network namespace without loopback: %w", err)
	}
	iso.Network = true
	var missing []string
	if os.Getpid() == 1 {
		iso.Processes = true
		// A /proc of this namespace shows the targets only its processes.
		// Without it they still cannot signal outside, but can see there.
		if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			missing = append(missing, "a /proc of the check's own processes: "+err.Error())
		}
	} else {
		missing = append(missing, "a process namespace: the kernel started the copy outside one")
	}
	var own []string
	for dir := range iso.Own {
		own = append(own, dir)
	}
	slices.Sort(own)
	if err := readOnly(iso.Work, own); err != nil {
		missing = append(missing, "read-only file systems: "+err.Error())
	} else {
		iso.ReadOnly = true
	}
	if err := hide(iso.Own); err != nil {
		missing = append(missing, "the checker's own state out of the targets' sight: "+err.Error())
	} else {
		iso.Hidden = len(iso.Own) > 0
	}
	// Each target gets a user namespace of its own, if the kernel (or a
	// read-only /proc) allows it here.
	probe := &exec.Cmd{Path: "/proc/self/exe", Env: []string{nestProbeEnv + "=1"}, SysProcAttr: &syscall.SysProcAttr{}}
	iso.Users = true
	nestIn(probe.SysProcAttr, iso)
	if err := probe.Run(); err != nil {
		iso.Users = false
		missing = append(missing, "a user namespace for each target: "+unwrapExec(err))
	}
	iso.Missing = strings.Join(missing, "; ")
	return iso, nil
}

const (
	// nestProbeEnv asks a copy started by enter to exit at once.
	nestProbeEnv = "DUET_CHECK_NEST_PROBE"
	// unisolatedFile, in Work, says why a copy could not be isolated, and
	// unisolatedExit is the copy's exit code then.
	unisolatedFile = "unisolated"
	unisolatedExit = 125
)

// loopbackUp brings up lo, the one interface of a new network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// readOnly makes every mount read-only but work, the directories in own
// and /proc (where the targets' user namespaces are mapped), after
// pointing /etc/resolv.conf at loopback, where the sandbox answers DNS.
// work is the copy's TMPDIR. A mount that will not turn read-only is an
// error, once the others have.
func readOnly(work string, own []string) error {
	writable := append([]string{work}, own...)
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if resolv, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil {
		ours := filepath.Join(writable[0], "resolv.conf")
		if err := os.WriteFile(ours, []byte("nameserver 127.0.0.1\noptions attempts:1 timeout:1\n"), 0o644); err != nil {
			return err
		}
		if err := unix.Mount(ours, resolv, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind %s: %w", resolv, err)
		}
	}
	// Each writable directory becomes a mount of its own, left as it is.
	keep := map[string]bool{}
	for _, dir := range writable {
		if err := unix.Mount(dir, dir, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind %s: %w", dir, err)
		}
		keep[dir] = true
	}
	info, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	var errs []error
	ro := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	for _, line := range strings.Split(string(info), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 5 {
			continue
		}
		mp := unescapeMount(fields[4])
		if keep[mp] || mp == "/proc" || strings.HasPrefix(mp, "/proc/") {
			continue
		}
		if err := unix.MountSetattr(-1, mp, unix.AT_SYMLINK_NOFOLLOW, ro); err != nil && !errors.Is(err, unix.ENOENT) {
			errs = append(errs, fmt.Errorf("%s: %w", mp, err))
		}
	}
	return errors.Join(errs...)
}

// hide puts each of the program's own directories out of the targets'
// sight, once readOnly has left it writable: the copy opens it, then mounts
// an empty read-only file system over it, and from then on reaches it
// through the descriptor (own[dir] is set to that path). The copy is made
// undumpable, so that no target can borrow the descriptor through
// /proc/<pid>/fd; a target's own mount namespace inherits the cover locked
// in place.
func hide(own map[string]string) error {
	if len(own) == 0 {
		return nil
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("make the checker undumpable: %w", err)
	}
	var errs []error
	for dir := range own {
		fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0500"); err != nil {
			unix.Close(fd)
			errs = append(errs, fmt.Errorf("cover %s: %w", dir, err))
			continue
		}
		own[dir] = "/proc/self/fd/" + strconv.Itoa(fd)
	}
	return errors.Join(errs...)
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// nest puts a run of the target in a user namespace of its own, as the user
// outside, where the check is isolated.
func nest(attr *syscall.SysProcAttr) { nestIn(attr, currentIsolation()) }

func nestIn(attr *syscall.SysProcAttr, iso isolation) {
	if !iso.Users {
		return
	}
	attr.Cloneflags |= syscall.CLONE_NEWUSER
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: iso.UID, HostID: 0, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: iso.GID, HostID: 0, Size: 1}}
}
