package app

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/lock"
	"github.com/duet-cli/duet/proc"
	"github.com/duet-cli/duet/runenv"
	"github.com/duet-cli/duet/schema"
)

// UpdateURLEnv is where e2eapp's own update checker asks for the latest
// version (a plain-text body), when runenv says it may check (REQ-O-020).
// Unset, it checks nothing.
const UpdateURLEnv = "E2EAPP_UPDATE_URL"

// bundledNotifierQuiet is set by the app's WithUpdateNotifierSuppression
// hook: it stands for an update notifier of a library e2eapp uses
// in-process, which no environment variable reaches (REQ-F-050).
var bundledNotifierQuiet atomic.Bool

// sessionCommands are the commands that show what Duet does with the processes and files of one invocation: children it tracks and stops, its temporary directory, atomic writes, locale, update notices, instances.
func sessionCommands() []*cli.Command {
	programs := []schema.Arg{{Name: "program", Required: true, Variadic: true, Type: schema.String, Usage: "the programs to run"}}

	spawn := urfave.Annotate(&cli.Command{
		Name:      "spawn",
		Usage:     "Run programs side by side (through package proc) and report what they printed",
		ArgsUsage: "<program>...",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "leave", Usage: "return once each program has printed its first line, leaving them running"},
			&cli.BoolFlag{Name: "background", Usage: "start them as background processes (which this command does not declare)"},
			&cli.BoolFlag{Name: "hold-resources", Usage: "hold a session temp file and a lock while they run"},
		},
		Action: func(ctx context.Context, c *cli.Command) error { return spawnPrograms(ctx, c) },
	}, schema.Meta{Danger: schema.Safe, Args: programs})

	// The same, keeping the caller's locale for the programs (REQ-F-066).
	spawnKept := urfave.Annotate(&cli.Command{
		Name:      "spawn-keep-locale",
		Usage:     "Run programs as spawn does, in the caller's locale",
		ArgsUsage: "<program>...",
		Action:    func(ctx context.Context, c *cli.Command) error { return spawnPrograms(ctx, c) },
	}, schema.Meta{Danger: schema.Safe, PreserveLocale: true, Args: programs})

	scratch := urfave.Annotate(&cli.Command{
		Name:  "scratch",
		Usage: "Write a text to a file in the invocation's temp directory and read it back",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "text", Usage: "what to write", Required: true},
			&cli.StringFlag{Name: "hold", Usage: "a named pipe: read it to its end before reading the text back"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			f, err := out.TempFile("work-*.txt")
			if err != nil {
				return err
			}
			defer f.Close()
			if _, err := f.WriteString(c.String("text")); err != nil {
				return err
			}
			if err := drain(c.String("hold")); err != nil {
				return err
			}
			raw, err := os.ReadFile(f.Name())
			if err != nil {
				return err
			}
			dir, _ := out.TempDir()
			return out.Result(map[string]string{"temp_dir": dir, "temp_file": f.Name(), "content": string(raw)})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true})

	hold := urfave.Annotate(&cli.Command{
		Name:  "hold-lock",
		Usage: "Take a lock (package lock) and hold it until a named pipe is read to its end",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "lock", Usage: "the lock file"},
			&cli.StringFlag{Name: "log", Usage: "a file each cleanup appends a line to", Required: true},
			&cli.StringFlag{Name: "hold", Usage: "a named pipe: read it to its end, whatever happens meanwhile"},
			&cli.DurationFlag{Name: "wait", Usage: "how long to wait for the lock", Value: lock.DefaultWait},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			path, log := c.String("lock"), c.String("log")
			// Registered first, so it runs last: after the lock's own hook.
			// Without --lock it has nothing to release: a no-op hook.
			out.OnCleanup(func(context.Context) error {
				line := "cleanup"
				if path != "" {
					line += " lock_free=" + strconv.FormatBool(lock.Free(path))
				}
				return appendLine(log, line)
			})
			if path != "" {
				if _, err := lock.Acquire(ctx, path, c.Duration("wait")); err != nil {
					return err
				}
			}
			if err := drain(c.String("hold")); err != nil {
				return err
			}
			out.Effect(envelope.Updated)
			return out.Result(map[string]any{"held": path != ""})
		},
	}, schema.Meta{Danger: schema.Mutating, NoArgs: true})

	notify := urfave.Annotate(&cli.Command{
		Name:      "notify",
		Usage:     "Run code that announces updates: two bundled libraries, e2eapp's own checker and the given programs",
		ArgsUsage: "[program]...",
		Action: func(ctx context.Context, c *cli.Command) error {
			env := runenv.From(ctx)
			// A library whose notifier reads the environment, as npm's
			// update-notifier does.
			if os.Getenv("NO_UPDATE_NOTIFIER") == "" && !proc.Truthy(os.Getenv("CI")) {
				fmt.Fprintln(os.Stderr, "envlib: envlib 2.0.0 is available (you have 1.0.0)")
			}
			// A library that checks its own way (WithUpdateNotifierSuppression).
			if !bundledNotifierQuiet.Load() {
				fmt.Fprintln(os.Stderr, "hooklib: hooklib 3.0.0 is available (you have 1.0.0)")
			}
			checked := false
			if url := env.Getenv(UpdateURLEnv); url != "" && env.UpdateCheck {
				checked = true
				latest, err := fetchLatest(ctx, url)
				if err != nil {
					return err
				}
				if latest != Version {
					fmt.Fprintf(os.Stderr, "e2eapp %s is available (you have %s)\n", latest, Version)
				}
			}
			for _, p := range c.Args().Slice() {
				cmd := proc.Command(ctx, p)
				cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
				if err := cmd.Run(); err != nil {
					return hookFailed(p, err)
				}
			}
			return envelope.From(ctx).Result(map[string]bool{"update_checked": checked})
		},
	}, schema.Meta{Danger: schema.Safe, Network: true,
		Args: []schema.Arg{{Name: "program", Variadic: true, Type: schema.String, Usage: "programs to run"}}})

	daemonStart := urfave.Annotate(&cli.Command{
		Name:  "daemon-start",
		Usage: "Start a watcher that outlives this command (a background process)",
		Action: func(ctx context.Context, c *cli.Command) error {
			cmd := proc.Command(ctx, "sleep", "600")
			cmd.Background = true
			if err := cmd.Start(); err != nil {
				return err
			}
			if err := appendLine(filepath.Join(dataDir(c), "watchers"), strconv.Itoa(cmd.Process.Pid)); err != nil {
				return err
			}
			out := envelope.From(ctx)
			out.Effect(envelope.Created)
			return out.Result(map[string]int{"watcher_pid": cmd.Process.Pid})
		},
	}, schema.Meta{Danger: schema.Mutating, NoArgs: true,
		Background: &schema.Background{CleanupCommand: "e2eapp daemon-stop", MaxLifetime: 10 * time.Minute}})

	daemonStop := urfave.Annotate(&cli.Command{
		Name:  "daemon-stop",
		Usage: "Stop the watchers daemon-start started",
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			file := filepath.Join(dataDir(c), "watchers")
			raw, err := os.ReadFile(file)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			stopped := []int{}
			for _, f := range strings.Fields(string(raw)) {
				if pid, err := strconv.Atoi(f); err == nil && syscall.Kill(pid, syscall.SIGTERM) == nil {
					stopped = append(stopped, pid)
				}
			}
			if err := os.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			if len(stopped) > 0 {
				out.Effect(envelope.Deleted)
			}
			return out.Result(map[string][]int{"stopped": stopped})
		},
	}, schema.Meta{Danger: schema.Mutating, NoArgs: true})

	return []*cli.Command{spawn, spawnKept, scratch, hold, notify, daemonStart, daemonStop}
}

// sessionOptions are the Duet options the session commands need.
func sessionOptions() []urfave.Option {
	return []urfave.Option{adapters.WithUpdateNotifierSuppression(func() { bundledNotifierQuiet.Store(true) })}
}

func init() {
	// REQ-C-010: a background process declared without how it is stopped,
	// or without how long it may live.
	misdeclarations["background-no-cleanup"] = func() *cli.Command {
		return broken("watch", schema.Meta{Danger: schema.Mutating, Background: &schema.Background{MaxLifetime: time.Hour}})
	}
	misdeclarations["background-no-lifetime"] = func() *cli.Command {
		return broken("watch", schema.Meta{Danger: schema.Mutating, Background: &schema.Background{CleanupCommand: "e2eapp watch stop"}})
	}
}

// spawnPrograms runs spawn's programs through proc: all started, then
// waited for, or with --leave left running once each printed a line.
func spawnPrograms(ctx context.Context, c *cli.Command) error {
	out := envelope.From(ctx)
	if c.Bool("hold-resources") {
		f, err := out.TempFile("held-*")
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := lock.Acquire(ctx, filepath.Join(filepath.Dir(f.Name()), "spawn.lock"), 0); err != nil {
			return err
		}
	}
	leave := c.Bool("leave")
	var cmds []*proc.Cmd
	var outputs []*bytes.Buffer
	var firsts []*bufio.Reader
	for _, p := range c.Args().Slice() {
		cmd := proc.Command(ctx, p)
		cmd.Background = c.Bool("background")
		buf := &bytes.Buffer{}
		if leave {
			r, err := cmd.StdoutPipe()
			if err != nil {
				return err
			}
			firsts = append(firsts, bufio.NewReader(r))
		} else {
			cmd.Stdout = buf
		}
		if err := cmd.Start(); err != nil {
			return hookFailed(p, err)
		}
		cmds, outputs = append(cmds, cmd), append(outputs, buf)
	}
	pids, printed := make([]int, len(cmds)), make([]string, len(cmds))
	for i, cmd := range cmds {
		pids[i] = cmd.Process.Pid
		if leave {
			line, _ := firsts[i].ReadString('\n')
			printed[i] = line
			continue
		}
		err := cmd.Wait()
		if ctx.Err() != nil {
			return ctx.Err() // stopped: by a signal or the time limit
		}
		if err != nil {
			return hookFailed(cmd.Args[0], err)
		}
		printed[i] = outputs[i].String()
	}
	return out.Result(map[string]any{"pids": pids, "printed": printed})
}

// drain reads the named pipe path to its end; "" reads nothing.
func drain(path string) error {
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return envelope.Errorf(exitcode.NotFound, "HOLD_NOT_FOUND", "cannot open %s: %v", path, err)
	}
	defer f.Close()
	_, err = io.Copy(io.Discard, f)
	return err
}

// fetchLatest asks url for e2eapp's latest version.
func fetchLatest(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64))
	return strings.TrimSpace(string(body)), err
}
