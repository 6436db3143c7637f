// Package mcp serves a wrapped app's commands as MCP tools, from the same
// declarations its CLI is built from, on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// An app opts in with one built-in command:
//
//	urfave.Main(app, mcp.Command("serve"))
//
// and `app serve` is then an MCP server on stdin and stdout. Each command
// that agents see becomes a tool (see [schema.Command.IsTool] and
// schema.Meta.Tool): run.spawn is the tool run_spawn, described by the
// command's usage, taking the input schema --schema prints (less the CLI's own
// switches such as --format and --output), declaring the command's output schema, and
// hinting its danger level (readOnlyHint, destructiveHint, idempotentHint).
// `app describe --mcp` prints the same list, with the etag of `app describe`.
//
// A call runs the real command: the arguments are checked against the input
// schema — a bad one is refused before anything runs — and turned into a
// command line, which by default runs the app's own binary as a child
// process (see [Exec]) in agent mode. So a tool answers exactly as the CLI
// does. The answer is flat: the command's data is the structured content
// (a list as {"items": [...]}, with next_cursor when there is a next page),
// with a "warning" member only when the command warned; a failure is an
// isError result whose text is the envelope's error object with its
// exit_code.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/describe"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// Option configures a server.
type Option func(*config)

type config struct {
	runner  Runner
	version string
	grace   time.Duration
	usage   string
	env     []string // the default runner's environment; nil: this process's
	// progressive is how many tools are published one by one (WithProgressive).
	progressive int
	clients     *string // the name of the clients command (WithClientsCommand)
	// serving is Serve's context: a call ends when it does (SIGTERM, SIGINT),
	// its process group stopped, not when the call's own request ends.
	serving context.Context
	project string // where the tools' files lie (WithProject); "" until NewServer
}

// WithProject sets the project directory, where the files the tools read
// and write must lie (schema.InProject); by default it is the directory the
// server was started in. The server's own runner runs the commands there;
// a relative path is judged from there whatever runner WithRunner gives.
func WithProject(dir string) Option { return func(c *config) { c.project = dir } }

// WithRunner runs the commands with r instead of the app's own binary.
func WithRunner(r Runner) Option { return func(c *config) { c.runner = r } }

// WithVersion sets the version the server reports to clients.
func WithVersion(v string) Option { return func(c *config) { c.version = v } }

// WithGrace sets how long past its time limit a call may run before it is
// stopped: the command answers its own --timeout, and the server stops one
// that does not. The default is 5 seconds.
func WithGrace(d time.Duration) Option { return func(c *config) { c.grace = d } }

// WithUsage sets the usage line of the command [Command] adds.
func WithUsage(s string) Option { return func(c *config) { c.usage = s } }

// WithClientsCommand names the group [Command] adds beside the server,
// which registers it with MCP clients: `<tool> mcp install claude`. Its
// name is "mcp" unless the server's command is named so, when there is
// none unless this option names it; "" leaves it out.
func WithClientsCommand(name string) Option { return func(c *config) { c.clients = &name } }

func newConfig(opts []Option) *config {
	c := &config{version: "dev", grace: 5 * time.Second, usage: "Serve the commands as MCP tools over stdin and stdout", progressive: defaultProgressive}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Command returns the option that adds the built-in command name to an app
// (give it to the adapter's Wrap, Run or Main). The command serves the app's
// tools over stdin and stdout until the client closes stdin or the process is
// interrupted; each call runs this process's own executable, with its
// environment, unless WithRunner says otherwise. With --http ADDR it
// serves them over streamable HTTP at http://ADDR/mcp instead, stateless,
// until interrupted.
//
// Beside it, the group `mcp` (see [WithClientsCommand]) registers the
// server with the MCP clients people use — Claude Code, Codex, Gemini CLI,
// OpenCode, Cursor, VS Code, Claude Desktop — in one command: `mcp install
// <client>`, `mcp uninstall <client>`, `mcp list`. Install writes this
// executable by its absolute path, with the serve command, into the
// client's project configuration (in the working directory) or its user's
// (--scope user), with the environment --env names; it changes no byte of
// the file but the server's own entry, leaves a file that does not parse
// as it is, and changes nothing when run again. --dry-run prints the edit
// as a diff. Uninstall undoes it: a configuration install added to comes
// back as it was. The group is for people: agents do not see it, and it is
// never a tool.
func Command(name string, opts ...Option) adapters.Option {
	cfg := newConfig(opts)
	serve := adapters.WithExtension(adapters.Extension{
		Command: schema.Command{
			Name:  name,
			Usage: cfg.usage,
			Flags: []schema.Flag{{Name: flagHTTP, Type: schema.String,
				Usage: "serve over streamable HTTP at this address (127.0.0.1:8080; port 0 picks one) instead of stdin and stdout: loopback needs no token; any other address wants $<TOOL>_MCP_TOKEN"}},
			Meta: schema.Meta{
				Danger:      schema.Safe,
				Timeout:     schema.NoTimeout,
				LongRunning: true,
				Protocol:    "mcp",
				Examples: []schema.Example{
					{Description: "list the tools a client would be served", Command: "describe --mcp"},
				},
			},
		},
		Run: func(ctx context.Context, h *adapters.Host) int { return serveHost(ctx, h, opts) },
	})
	// An app that serves MCP can check a server's tools against its own.
	joined := []adapters.Option{serve, adapters.WithFeatures(driftCheck{})}
	group := "mcp"
	if cfg.clients != nil {
		group = *cfg.clients
	} else if name == group {
		group = ""
	}
	if group != "" {
		joined = append(joined, clientsCommand(group, name))
	}
	return adapters.Join(joined...)
}

func serveHost(ctx context.Context, h *adapters.Host, opts []Option) int {
	opts = append([]Option{WithVersion(h.Version), func(c *config) { c.env = h.Environ() }}, opts...)
	if addr, ok := h.Flag(flagHTTP); ok {
		return serveHTTP(ctx, h, addr, opts)
	}
	d := newDrain(ctx)
	out := &lockedWriter{w: d.Writer(h.Stdout)}
	t := &sdk.IOTransport{Reader: d.Reader(newLineFilter(h.Stdin, out)), Writer: out, MaxLineLength: -1}
	if err := Serve(ctx, h.App, t, opts...); err != nil && ctx.Err() == nil {
		return h.Fail(envelope.Errorf(exitcode.GeneralError, "SERVE_FAILED", "mcp: %v", err))
	}
	return int(exitcode.Success)
}

// Serve serves app's tools on t until the client disconnects or ctx is done.
func Serve(ctx context.Context, app adapters.Framework, t sdk.Transport, opts ...Option) error {
	s, err := NewServer(app, append(slices.Clip(opts), func(c *config) { c.serving = ctx })...)
	if err != nil {
		return err
	}
	err = s.Run(ctx, t)
	if errors.Is(err, io.EOF) || ctx.Err() != nil {
		return nil // the client went away, or we were told to stop
	}
	return err
}

// NewServer returns an MCP server with app's tools, to run on any transport
// or to add more to. Without WithRunner, calls run this process's own
// executable.
func NewServer(app adapters.Framework, opts ...Option) (*sdk.Server, error) {
	cfg := newConfig(opts)
	// Without its project, no file could be confined to it: no server.
	project, err := projectRoot(cfg.project)
	if err != nil {
		return nil, fmt.Errorf("mcp: the project directory: %w", err)
	}
	cfg.project = project
	if cfg.runner == nil {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("mcp: cannot find this program to run its commands: %w", err)
		}
		r := Exec(exe)
		// The child answers an agent, which a pipe alone does not say.
		env := cfg.env
		if env == nil {
			env = os.Environ()
		}
		r.Env = append(slices.Clip(env), envelope.EnvName(app.Tree().Name, "FORMAT")+"=json")
		r.Dir = cfg.project // relative files are the project's
		cfg.runner = r
	}
	root := app.Tree()
	tools, err := describe.Tools(root, cfg.version)
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	s := sdk.NewServer(&sdk.Implementation{Name: root.Name, Version: cfg.version}, nil)
	if cfg.progressively(len(tools.Tools)) {
		addProgressive(s, cfg, root.Name, tools.Tools)
		return s, nil
	}
	for i := range tools.Tools {
		t := &tools.Tools[i]
		s.AddTool(sdkTool(t), handler(cfg, t))
	}
	return s, nil
}

// sdkTool is t in the SDK's type; it encodes as t does.
func sdkTool(t *describe.Tool) *sdk.Tool {
	out := &sdk.Tool{
		Name:        t.Name,
		Description: t.Description,
		InputSchema: t.InputSchema,
		Annotations: &sdk.ToolAnnotations{
			ReadOnlyHint:    t.Annotations.ReadOnlyHint,
			DestructiveHint: t.Annotations.DestructiveHint,
			IdempotentHint:  t.Annotations.IdempotentHint,
		},
	}
	if t.OutputSchema != nil {
		out.OutputSchema = t.OutputSchema
	}
	return out
}

func handler(cfg *config, t *describe.Tool) sdk.ToolHandler {
	c := t.Command()
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		args, bad := commandLine(c, req.Params.Arguments, cfg.project)
		if bad != nil {
			return failure(bad, int(exitcode.ArgError)), nil
		}
		// The answer is read as one JSON envelope: Duet's --format json
		// says so, unless the command has a --format of its own, which is
		// the app's to read (and the caller's to give); the runner also
		// sets <TOOL>_FORMAT=json, which only Duet reads.
		if f := c.Flag(flagname.Format); f != nil && f.Builtin {
			args = slices.Insert(args[:len(args):len(args)], len(c.Path), "--"+flagname.Format+"=json")
		}
		if cfg.serving != nil { // the server stopping stops the call, and what it started
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(cfg.serving, cancel)()
		}
		ctx = withEnv(ctx, formatEnv(c))
		if limit := callLimit(c, args); limit > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, limit+cfg.grace)
			defer cancel()
		}
		if tok := req.Params.GetProgressToken(); tok != nil {
			ctx = withProgress(ctx, notifier(ctx, req.Session, tok))
		}
		answered, asked := confirmation(req)
		if answered {
			args = slices.Insert(args, len(c.Path), "--"+flagname.Yes)
		}
		stdout, exit, err := cfg.runner.Run(ctx, args)
		if err == nil && !asked && exit == int(exitcode.ArgError) && c.NeedsConfirmation() {
			if ask := askConfirmation(req.Session, t, stdout); ask != nil {
				return ask, nil
			}
		}
		if err != nil {
			return failure(envelope.Errorf(exitcode.GeneralError, "RUN_FAILED", "%v", err), int(exitcode.GeneralError)), nil
		}
		return answer(t, stdout, exit, ctx.Err()), nil
	}
}

// formatEnv is the variable that has c's tool answer in JSON:
// <TOOL>_FORMAT=json.
func formatEnv(c *schema.Command) string {
	for c.Parent != nil {
		c = c.Parent
	}
	return envelope.EnvName(c.Name, "FORMAT") + "=json"
}

// callLimit is how long a call may take: its --timeout, else the command's.
func callLimit(c *schema.Command, args []string) time.Duration {
	limit := c.Timeout()
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+flagname.Timeout+"="); ok {
			limit, _ = time.ParseDuration(v)
		}
		if a == "--" {
			break
		}
	}
	return limit
}

// notifier sends the client a progress notification for each progress
// event of a call: done of total where the command counts, else how many
// events so far, which grows as the protocol wants.
func notifier(ctx context.Context, session *sdk.ServerSession, token any) func(envelope.ProgressEvent) {
	var events int
	return func(ev envelope.ProgressEvent) {
		events++
		p := &sdk.ProgressNotificationParams{ProgressToken: token, Message: ev.Message, Progress: float64(events)}
		if ev.Total > 0 {
			p.Progress, p.Total = float64(ev.Done), float64(ev.Total)
		}
		session.NotifyProgress(ctx, p)
	}
}

// A command that needs confirmation and was refused for want of it
// (CONFIRMATION_REQUIRED) is put to the person behind a client that can ask
// (elicitation): the result asks for its input — a multi round-trip result
// — and the client calls again with the answer, or the SDK asks for a
// client of an older protocol and calls the handler again. Accepted, the
// command runs with --yes; otherwise the refusal stands.
const confirmKey = "confirm"

// confirmation reads the person's answer of a call made again: asked is
// true when the call carries one, answered when it confirms.
func confirmation(req *sdk.CallToolRequest) (answered, asked bool) {
	r, ok := req.Params.InputResponses[confirmKey]
	if !ok {
		return false, false
	}
	res, ok := r.(*sdk.ElicitResult)
	return ok && res.Action == "accept" && res.Content[confirmKey] == true, true
}

// askConfirmation is the result that asks the person to confirm, when the
// command's answer stdout is the refusal a confirmation lifts and the
// client can ask; nil otherwise.
func askConfirmation(session *sdk.ServerSession, t *describe.Tool, stdout []byte) *sdk.CallToolResult {
	var env struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(stdout, &env) != nil || env.Error.Code != "CONFIRMATION_REQUIRED" {
		return nil
	}
	if p := session.InitializeParams(); p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return nil
	}
	return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{confirmKey: &sdk.ElicitParams{
		Message: fmt.Sprintf("%s: %s. Run it?", t.Name, env.Error.Message),
		RequestedSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{confirmKey: map[string]any{"type": "boolean", "title": "Run " + t.Name, "description": t.Description}},
			"required":   []string{confirmKey},
		},
	}}}
}

// answer turns the command's envelope into the tool's result.
func answer(t *describe.Tool, stdout []byte, exit int, stopped error) *sdk.CallToolResult {
	// What the result needs of the envelope; the error object is passed on
	// as the command wrote it.
	var env struct {
		OK       bool               `json:"ok"`
		Data     json.RawMessage    `json:"data"`
		Error    json.RawMessage    `json:"error"`
		Warnings []envelope.Warning `json:"warnings"`
		Meta     struct {
			Pagination *envelope.Pagination `json:"pagination"`
		} `json:"meta"`
	}
	if errors.Is(stopped, context.DeadlineExceeded) {
		// The command outlived its own time limit and the server's grace:
		// whatever it said when stopped, it timed out.
		e := envelope.Errorf(exitcode.Timeout, errcode.Timeout, "the command did not answer within its time limit and was stopped").
			WithSuggestion("raise timeout, or narrow the work")
		e.Detail = excerpt(stdout)
		return failure(e, int(e.Exit))
	}
	if json.Unmarshal(stdout, &env) != nil {
		e := envelope.Errorf(exitcode.GeneralError, "INVALID_ANSWER", "the command did not answer with one JSON envelope (exit %d)", exit).
			WithSuggestion("this is a bug in the tool; run the command in a shell to see what it printed")
		e.Detail = excerpt(stdout)
		return failure(e, int(e.Exit))
	}
	if !env.OK || exit != 0 {
		if len(env.Error) == 0 || string(env.Error) == "null" {
			e := envelope.Errorf(exitcode.GeneralError, "INVALID_ANSWER", "the command failed (exit %d) without an error object", exit)
			return failure(e, exit)
		}
		return errorResult(env.Error, exit)
	}
	var next string
	if p := env.Meta.Pagination; p != nil && p.HasMore && p.NextCursor != nil {
		next = *p.NextCursor
	}
	content := t.Content(env.Data, warning(env.Warnings), next)
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: string(content)}},
		StructuredContent: content,
	}
}

// warning joins an envelope's warnings, one per line, as a person reads
// them: "WARNING [CODE]: what. Next: step".
func warning(ws []envelope.Warning) string {
	lines := make([]string, len(ws))
	for i, w := range ws {
		lines[i] = w.String()
	}
	return strings.Join(lines, "\n")
}

// failure is an error result made here, not by the command.
func failure(e *envelope.Error, exit int) *sdk.CallToolResult {
	raw, _ := json.Marshal(e)
	return errorResult(raw, exit)
}

// errorResult carries an envelope's error object, with the exit code the
// process would have ended with, as an isError result. It has no structured
// content: that would have to match the tool's output schema.
func errorResult(obj json.RawMessage, exit int) *sdk.CallToolResult {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		m = map[string]json.RawMessage{"message": obj}
	}
	m["exit_code"], _ = json.Marshal(exit)
	text, _ := json.Marshal(m)
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: string(text)}}}
}

func excerpt(b []byte) string {
	const max = 200
	if len(b) > max {
		return strings.ToValidUTF8(string(b[:max]), "") + "…"
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
