package app

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/proc"
	"github.com/duet-cli/duet/schema"
)

// externalCommands are the commands whose answers hold other people's
// words: a file's contents, an API's response, a program's output — in
// data, or, when they fail, in error.context (REQ-F-035, REQ-F-058).
func externalCommands() []*cli.Command {
	readNote := urfave.Annotate(&cli.Command{
		Name:      "read-note",
		Usage:     "Return a text file's contents (someone else's words: untrusted)",
		ArgsUsage: "<file>",
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			raw, err := os.ReadFile(string(out.Abs(c.Args().First())))
			if err != nil {
				return err
			}
			return out.Result(map[string]string{"filename": c.Args().First(), "content": string(raw)})
		},
	}, schema.Meta{Danger: schema.Safe, Untrusted: true,
		Args: []schema.Arg{{Name: "file", Required: true, Type: schema.String, Usage: "the file"}}})

	// playbook returns the program's failure as proc gives it: the
	// SUBPROCESS_FAILED context, its stderr tagged and masked, is the
	// framework's, with nothing of the command's own.
	playbook := urfave.Annotate(&cli.Command{
		Name:      "playbook",
		Usage:     "Run a playbook program and return what it printed (its words: untrusted)",
		ArgsUsage: "<program>",
		Action: func(ctx context.Context, c *cli.Command) error {
			printed, err := proc.Command(ctx, c.Args().First()).Output()
			if err != nil {
				return err
			}
			return envelope.From(ctx).Result(map[string]string{"program": c.Args().First(), "output": string(printed)})
		},
	}, schema.Meta{Danger: schema.Safe, Untrusted: true,
		Args: []schema.Arg{{Name: "program", Required: true, Type: schema.String, Usage: "the playbook program"}}})

	// inspect GETs an API's record. Its secret field is declared
	// high-entropy (masked whatever it looks like); a failure's context
	// holds the upstream's error body, marked external by the command.
	inspect := urfave.Annotate(&cli.Command{
		Name:  "inspect",
		Usage: "GET a record from an API and return it (the API's words: untrusted)",
		Flags: []cli.Flag{&cli.StringFlag{Name: "url", Usage: "the record's URL", Required: true}},
		Action: func(ctx context.Context, c *cli.Command) error {
			r, err := httpDo(ctx, http.MethodGet, c.String("url"), nil, nil)
			if err != nil {
				return err
			}
			raw := r.Body
			if r.Status >= 300 {
				return upstreamRefused(r.Status, raw)
			}
			var record map[string]any
			if err := json.Unmarshal(raw, &record); err != nil {
				return envelope.Errorf(exitcode.GeneralError, "BAD_RESPONSE", "the API answered no JSON object: %v", err)
			}
			return envelope.From(ctx).Result(record)
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, Network: true, Untrusted: true, Timeout: 5 * time.Second,
		HighEntropy: []string{"api_secret"}})

	return []*cli.Command{readNote, playbook, inspect}
}

// upstreamRefused is the failure of an API that answered an error: its
// body's code and line are the API's facts, its message the API's words,
// and the whole context is the API's, so external.
func upstreamRefused(status int, body []byte) error {
	var refusal struct {
		Code    string `json:"code"`
		Line    int    `json:"line"`
		Message string `json:"message"`
	}
	e := envelope.Errorf(exitcode.GeneralError, "UPSTREAM_REFUSED", "the API answered HTTP %d", status).
		WithContext("http_status", status)
	if json.Unmarshal(body, &refusal) == nil && refusal.Code != "" {
		e = e.WithContext("code", refusal.Code).WithContext("line", refusal.Line).WithContext("upstream_message", refusal.Message)
	} else {
		e = e.WithContext("body", string(body))
	}
	return e.WithExternalContext()
}

// externalOptions are the Duet options the external commands need.
func externalOptions() []urfave.Option { return nil }
