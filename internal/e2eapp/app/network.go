package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// networkCommands are the commands that show the network, credential and declaration contracts: proxies, network error context, credential expiry, truncation, redaction, subprocess argument schemas, editor and GUI declarations, subcommand stability.
//
// They are `api ...`: calls to the service's JSON API made with nethttp's
// client and not a line of proxy, certificate or timeout code (REQ-F-036):
// what the proxy and the CA bundle are is Duet's business.
func networkCommands() []*cli.Command {
	urlFlag := func() cli.Flag { return &cli.StringFlag{Name: "url", Usage: "the API endpoint", Required: true} }
	tokenFlag := func() cli.Flag {
		return &cli.StringFlag{Name: "api-token", Usage: "the API token (none: not logged in)"}
	}
	tokenMeta := map[string]schema.FlagMeta{"api-token": {Sensitive: true}}

	get := urfave.Annotate(&cli.Command{
		Name:   "get",
		Usage:  "GET a JSON object from the service's API with the API token, and answer it",
		Flags:  []cli.Flag{urlFlag(), tokenFlag()},
		Action: func(ctx context.Context, c *cli.Command) error { return apiGet(ctx, c) },
	}, apiMeta(schema.Meta{Danger: schema.Safe, NoArgs: true, Flags: tokenMeta}))

	// status is get's name in 0.9.0: deprecated in 1.0.0, it still runs
	// (REQ-F-075).
	status := urfave.Annotate(&cli.Command{
		Name:   "status",
		Usage:  "GET a JSON object from the service's API (the old name of api get)",
		Flags:  []cli.Flag{urlFlag(), tokenFlag()},
		Action: func(ctx context.Context, c *cli.Command) error { return apiGet(ctx, c) },
	}, apiMeta(schema.Meta{Danger: schema.Safe, NoArgs: true, Flags: tokenMeta,
		DeprecatedIn: "1.0.0", Replacement: "e2eapp api get", RemovedIn: "2.0.0"}))

	putNote := urfave.Annotate(&cli.Command{
		Name:  "put-note",
		Usage: "Store a note in the service (its notes hold 255 bytes)",
		Flags: []cli.Flag{urlFlag(), &cli.StringFlag{Name: "body", Usage: "the note", Required: true}},
		Action: func(ctx context.Context, c *cli.Command) error {
			r, err := httpDo(ctx, http.MethodPut, c.String("url"), strings.NewReader(c.String("body")), nil)
			if err != nil {
				return err
			}
			if r.Status/100 != 2 {
				return envelope.Errorf(exitcode.GeneralError, "UPSTREAM_ERROR", "the service answered %s", statusLine(r.Status))
			}
			out := envelope.From(ctx)
			out.Effect(envelope.Updated)
			return out.Result(map[string]int{"bytes": len(c.String("body"))})
		},
	}, apiMeta(schema.Meta{Danger: schema.Mutating, NoArgs: true, Flags: map[string]schema.FlagMeta{"body": {MaxBytes: 255}}}))

	getNote := urfave.Annotate(&cli.Command{
		Name:  "get-note",
		Usage: "Read a note from the service, which may cut a long one short (and says so)",
		Flags: []cli.Flag{urlFlag()},
		Action: func(ctx context.Context, c *cli.Command) error {
			var note struct {
				Body          string `json:"body"`
				Truncated     bool   `json:"truncated"`
				OriginalBytes int    `json:"original_bytes"`
			}
			if err := apiCall(ctx, c.String("url"), "", &note); err != nil {
				return err
			}
			out := envelope.From(ctx)
			if note.Truncated {
				out.Truncated(envelope.Truncation{Field: "data.body", OriginalBytes: note.OriginalBytes, ReturnedBytes: len(note.Body)})
			}
			return out.Result(map[string]string{"body": note.Body})
		},
	}, apiMeta(schema.Meta{Danger: schema.Safe, NoArgs: true}))

	refresh := urfave.Annotate(&cli.Command{
		Name:  "refresh-token",
		Usage: "Renew an expired API token with the service's refresh grant",
		Flags: []cli.Flag{&cli.StringFlag{Name: "url", Usage: "the service's token endpoint", Sources: cli.EnvVars("E2EAPP_AUTH_URL")}},
		Action: func(ctx context.Context, c *cli.Command) error {
			var token struct {
				ExpiresAt string `json:"expires_at"`
			}
			if err := apiCall(ctx, c.String("url"), "", &token); err != nil {
				return err
			}
			out := envelope.From(ctx)
			out.Effect(envelope.Updated)
			return out.Result(map[string]any{"refreshed": true, "expires_at": token.ExpiresAt})
		},
	}, apiMeta(schema.Meta{Danger: schema.Mutating, NoArgs: true, Scopes: []string{}, Auth: &schema.Auth{Headless: true, Refresh: true}}))

	api := urfave.Annotate(&cli.Command{
		Name:     "api",
		Usage:    "Call the service's JSON API",
		Commands: []*cli.Command{get, status, putNote, getNote, refresh},
	}, schema.Meta{})
	return []*cli.Command{api}
}

// apiMeta is meta for a command that calls the API: network I/O (so it
// gets --proxy and --no-proxy) with a time limit.
func apiMeta(m schema.Meta) schema.Meta {
	m.Network, m.Timeout = true, 5*time.Second
	return m
}

// apiGet answers the JSON object at --url, fetched with --api-token, and
// turns the service's refusals into credential errors: no token at all is
// UNAUTHENTICATED; a 401 for a token that expired CREDENTIALS_EXPIRED; a
// 403 PERMISSION_DENIED with the permission the service asked for.
func apiGet(ctx context.Context, c *cli.Command) error {
	token := c.String("api-token")
	if token == "" {
		return envelope.Unauthenticated("no API token: give --api-token")
	}
	var obj map[string]any
	if err := apiCall(ctx, c.String("url"), token, &obj); err != nil {
		return err
	}
	return envelope.From(ctx).Result(obj)
}

// apiCall GETs url (with token as a bearer token, when given) and decodes
// the JSON answer into v.
func apiCall(ctx context.Context, url, token string, v any) error {
	header := http.Header{"Accept": {"application/json"}}
	if token != "" {
		header.Set("Authorization", "Bearer "+token)
	}
	r, err := httpDo(ctx, http.MethodGet, url, nil, header)
	status, raw := r.Status, r.Body
	if err != nil {
		return err
	}
	var refusal struct {
		Error              string `json:"error"`
		ExpiredAt          string `json:"expired_at"`
		RequiredPermission string `json:"required_permission"`
	}
	switch status {
	case http.StatusOK:
		if err := json.Unmarshal(raw, v); err != nil {
			return envelope.Errorf(exitcode.GeneralError, "UPSTREAM_ERROR", "the service answered no JSON object: %v", err)
		}
		return nil
	case http.StatusUnauthorized:
		json.Unmarshal(raw, &refusal)
		if refusal.Error == "token_expired" {
			at, _ := time.Parse(time.RFC3339, refusal.ExpiredAt)
			return envelope.CredentialsExpired(at)
		}
		return envelope.Unauthenticated("the service refused the API token")
	case http.StatusForbidden:
		json.Unmarshal(raw, &refusal)
		return envelope.PermissionDenied(refusal.RequiredPermission)
	case http.StatusNotFound:
		return envelope.Errorf(exitcode.NotFound, "NOT_FOUND", "the service has nothing at %s", url)
	}
	return envelope.Errorf(exitcode.GeneralError, "UPSTREAM_ERROR", "the service answered %s: %s", statusLine(status), bytes.TrimSpace(raw))
}

// networkOptions are the Duet options the network commands need.
func networkOptions() []urfave.Option {
	return []urfave.Option{adapters.WithHistory(previousRelease)}
}

// previousRelease is what `e2eapp describe --full` answered in e2eapp
// 0.9.0, the release before this one (its commands, their flags and exit
// codes; the rest of the document is left out): 1.0.0 must keep every
// command, flag and exit code it had, unless 0.9.0 deprecated it
// (REQ-F-075). 0.9.0 had `api status` (1.0.0 deprecates it for `api get`)
// and `api ping`, which 0.9.0 deprecated and 1.0.0 removed; the commands it
// does not list are new in 1.0.0.
var previousRelease = release090(nil)

// release090 is 0.9.0's describe document with more commands.
func release090(more map[string]any) []byte {
	codes := map[string]any{}
	for _, c := range []exitcode.Code{exitcode.Success, exitcode.GeneralError, exitcode.ArgError, exitcode.NotFound,
		exitcode.PermissionDenied, exitcode.AuthRequired, exitcode.Timeout, exitcode.Unavailable} {
		codes[fmt.Sprint(int(c))] = map[string]any{"name": c.String()}
	}
	flags := func(names ...string) map[string]any {
		m := map[string]any{}
		for _, n := range names {
			m[n] = map[string]any{"type": "string"}
		}
		return m
	}
	commands := map[string]any{
		"e2eapp":     map[string]any{"introduced_in": "0.8.0", "flags": flags("data-dir"), "exit_codes": codes},
		"lookup":     map[string]any{"introduced_in": "0.8.0", "flags": flags(), "exit_codes": codes},
		"sync":       map[string]any{"introduced_in": "0.8.0", "flags": flags("url", "api-key"), "exit_codes": codes},
		"api":        map[string]any{"introduced_in": "0.9.0", "flags": flags(), "exit_codes": codes},
		"api.status": map[string]any{"introduced_in": "0.9.0", "flags": flags("url", "api-token"), "exit_codes": codes},
		"api.ping":   map[string]any{"introduced_in": "0.8.0", "deprecated_in": "0.9.0", "replacement": "e2eapp api status", "removed_in": "1.0.0", "flags": flags("url"), "exit_codes": codes},
	}
	for k, v := range more {
		commands[k] = v
	}
	raw, err := json.Marshal(map[string]any{"framework_version": "0.9.0", "commands": commands})
	if err != nil {
		panic(err)
	}
	return raw
}

// apiExportRemoved is e2eapp-misdeclared's case "command-removed": 1.0.0
// built without 0.9.0's `api export`, which 0.9.0 never deprecated — the
// case swaps the previous release for one that had it (the case runs
// before the options are made), and adds `api-export-v2`, the command
// that was meant to replace it.
func apiExportRemoved() *cli.Command {
	previousRelease = release090(map[string]any{
		"api.export": map[string]any{"introduced_in": "0.9.0", "flags": map[string]any{"url": map[string]any{"type": "string"}}},
	})
	return broken("api-export-v2", schema.Meta{Danger: schema.Safe, NoArgs: true})
}
