package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// limitCommands are the commands that take time: ones stuck on an upstream,
// a network sync, a backup that runs as a job, and a lookup with an exit
// code table of its own.
func limitCommands() []*cli.Command {
	stall := urfave.Annotate(&cli.Command{
		Name:  "stall",
		Usage: "Wait on an upstream that never answers (it ignores its context: only Duet's limit ends it)",
		Action: func(ctx context.Context, _ *cli.Command) error {
			time.Sleep(24 * time.Hour)
			return envelope.From(ctx).Result(map[string]bool{"answered": true})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, Timeout: time.Second})

	waitReady := urfave.Annotate(&cli.Command{
		Name:  "wait-ready",
		Usage: "Wait until a service writes to its readiness pipe (blocked in a read, ignoring its context)",
		Flags: []cli.Flag{&cli.StringFlag{Name: "pipe", Usage: "the service's named pipe", Required: true}},
		Action: func(ctx context.Context, c *cli.Command) error {
			f, err := os.Open(c.String("pipe")) // blocks until a writer opens it
			if err != nil {
				return err
			}
			defer f.Close()
			raw, err := io.ReadAll(f)
			if err != nil {
				return err
			}
			return envelope.From(ctx).Result(map[string]string{"ready": string(raw)})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, Timeout: time.Second})

	sync := urfave.Annotate(&cli.Command{
		Name:  "sync",
		Usage: "Fetch the service's status over HTTP with the API key",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "url", Usage: "the service's status URL", Required: true},
			&cli.StringFlag{Name: "api-key", Usage: "the API key"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			key := c.String("api-key")
			r, err := httpDo(ctx, http.MethodGet, c.String("url"), nil,
				http.Header{"Authorization": {"Bearer " + key}, "X-Api-Key": {key}, "Accept": {"text/plain"}})
			if err != nil {
				return err
			}
			return envelope.From(ctx).Result(map[string]any{"http_status": r.Status, "body": string(r.Body)})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, Network: true, Timeout: 2 * time.Second,
		Flags: map[string]schema.FlagMeta{"api-key": {Sensitive: true, Env: []string{"E2EAPP_API_KEY"}}}})

	backup := urfave.Annotate(&cli.Command{
		Name:  "backup",
		Usage: "Back up a directory, as a job: answers at once with the job to follow",
		Flags: []cli.Flag{&cli.StringFlag{Name: "source", Usage: "the directory", Required: true}},
		Action: func(ctx context.Context, c *cli.Command) error {
			return backupDir(ctx, c.String("source"))
		},
	}, schema.Meta{Danger: schema.Mutating, NoArgs: true, Async: true, Timeout: 10 * time.Minute})

	lookup := urfave.Annotate(&cli.Command{
		Name:      "lookup",
		Usage:     "Look a setting up in the service's registry",
		ArgsUsage: "<key>",
		Action: func(ctx context.Context, c *cli.Command) error {
			switch key := c.Args().First(); key {
			case "region":
				return envelope.From(ctx).Result(map[string]string{"key": key, "value": "eu-west-1"})
			case "legacy-endpoint":
				return envelope.Errorf(codeStale, "STALE_VALUE", "%s was last refreshed a year ago", key).
					WithSuggestion("refresh it in the registry, then look it up again")
			default:
				return envelope.Errorf(exitcode.NotFound, "KEY_NOT_FOUND", "no setting %q", key).
					WithSuggestion("run 'e2eapp lookup region' for a key that exists")
			}
		},
	}, schema.Meta{Danger: schema.Safe, ExitCodes: LookupExitCodes(),
		Args: []schema.Arg{{Name: "key", Required: true, Type: schema.String, Usage: "the setting"}}})

	// quota asks the service how much of its quota is left. A service that
	// answers 429 is rate limiting: quota says so (RATE_LIMITED, exit 11)
	// with the wait its Retry-After gives, or none, for Duet to fill.
	quota := urfave.Annotate(&cli.Command{
		Name:  "quota",
		Usage: "Ask the service how much of the quota is left",
		Flags: []cli.Flag{&cli.StringFlag{Name: "url", Usage: "the service's quota URL", Required: true}},
		Action: func(ctx context.Context, c *cli.Command) error {
			r, err := httpDo(ctx, http.MethodGet, c.String("url"), nil, nil)
			if err != nil {
				return err
			}
			if r.Status == http.StatusTooManyRequests {
				e := envelope.Errorf(exitcode.RateLimited, "RATE_LIMITED", "the service is rate limiting calls (%s)", statusLine(r.Status))
				if secs, err := strconv.Atoi(r.Header.Get("Retry-After")); err == nil && secs > 0 {
					e = e.WithRetry(time.Duration(secs)*time.Second, envelope.RetryLinear)
				}
				return e
			}
			return envelope.From(ctx).Result(map[string]any{"http_status": r.Status, "remaining": strings.TrimSpace(string(r.Body))})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, Network: true, Timeout: 2 * time.Second})

	return []*cli.Command{stall, waitReady, sync, backup, lookup, quota}
}

// codeStale is lookup's own exit code: the value is stale.
const codeStale exitcode.Code = 80

// LookupExitCodes is lookup's exit code table, over the standard one: each
// entry names the error codes it answers with (ExitCodeEntry 1.1).
func LookupExitCodes() exitcode.Table {
	return exitcode.Table{
		exitcode.Success:  {ErrorCodes: []string{}}, // a success carries no error.code
		exitcode.NotFound: {Description: "No setting has that key; nothing was changed.", ErrorCodes: []string{"KEY_NOT_FOUND"}},
		codeStale:         {Name: "STALE", Description: "The setting's value is stale; refresh it in the registry.", SideEffects: exitcode.None, ErrorCodes: []string{"STALE_VALUE"}},
	}
}

// backupDir reads every file under dir and answers with their digest, in
// an output file the caller reads after the job ends. A named pipe under
// dir holds it until someone writes to the pipe.
func backupDir(ctx context.Context, dir string) error {
	out := envelope.From(ctx)
	if _, err := os.Stat(dir); err != nil {
		return envelope.Errorf(exitcode.NotFound, "SOURCE_NOT_FOUND", "cannot back up %s: %v", dir, err)
	}
	h := sha256.New()
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		files++
		_, err = io.Copy(h, f)
		return err
	})
	if err != nil {
		return err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	f, cleanup, err := out.OutputFile("backup.json")
	if err != nil {
		return err
	}
	defer f.Close()
	if err := json.NewEncoder(f).Encode(map[string]any{"source": dir, "files": files, "sha256": sum}); err != nil {
		return err
	}
	if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	out.Effect(envelope.Created)
	return out.Result(map[string]any{"files": files, "sha256": sum, "output_file": f.Name(), "cleanup": cleanup})
}
