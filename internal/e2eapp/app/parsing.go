package app

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/proc"
	"github.com/duet-cli/duet/schema"
)

// FuzzyEnv sets quote's --fuzzy.
const FuzzyEnv = "E2EAPP_FUZZY"

// parsingCommands are the commands that show how a command line is read:
// conditional rules between flags (quote) and strict option placement
// (runx).
func parsingCommands() []*cli.Command {
	// quote records a quote request in the data directory's "quotes" file,
	// so that a refused call is seen to have written nothing. It takes one
	// identifier of three, one match mode of two, and a layout whose csv
	// needs a separator; --to and --print-only exclude each other.
	quote := urfave.Annotate(&cli.Command{
		Name:  "quote",
		Usage: "Record a quote request for an instrument",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "isin", Usage: "the instrument's ISIN"},
			&cli.StringFlag{Name: "figi", Usage: "the instrument's FIGI"},
			&cli.StringFlag{Name: "symbol", Usage: "the instrument's ticker symbol"},
			&cli.BoolFlag{Name: "exact", Usage: "match the identifier exactly"},
			&cli.BoolFlag{Name: "fuzzy", Usage: "match the identifier loosely", Sources: cli.EnvVars(FuzzyEnv)},
			&cli.StringFlag{Name: "layout", Value: "json", Usage: "how the quote is laid out"},
			&cli.StringFlag{Name: "separator", Usage: "the field separator of a csv layout"},
			&cli.StringFlag{Name: "to", Usage: "a desk to send the quote to"},
			&cli.BoolFlag{Name: "print-only", Usage: "only print the quote, sending it nowhere"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			req := map[string]any{}
			for _, name := range []string{"isin", "figi", "symbol", "layout", "separator", "to"} {
				if v := c.String(name); v != "" {
					req[name] = v
				}
			}
			req["exact"], req["fuzzy"], req["print_only"] = c.Bool("exact"), c.Bool("fuzzy"), c.Bool("print-only")
			line, err := json.Marshal(req)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(dataDir(c), 0o700); err != nil {
				return err
			}
			f, err := os.OpenFile(filepath.Join(dataDir(c), "quotes"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
			if err != nil {
				return err
			}
			defer f.Close()
			if _, err := f.Write(append(line, '\n')); err != nil {
				return err
			}
			out := envelope.From(ctx)
			out.Effect(envelope.Created)
			return out.Result(req)
		},
	}, schema.Meta{Danger: schema.Mutating, NoArgs: true,
		Flags: map[string]schema.FlagMeta{"layout": {Enum: []string{"json", "csv"}}},
		Requires: []schema.Rule{
			schema.AnyOf("isin", "figi", "symbol"),
			schema.OneOf("exact", "fuzzy"),
			schema.IfValue("layout", "csv", "separator"),
			schema.IfPresent("to", "print-only"),
		}})

	// runx runs a program with the arguments that follow it, verbatim:
	// options for runx come before the program, everything after it is
	// the program's (strict placement). urfave stops reading flags at the
	// first argument, as such a command must have it.
	first := 1
	runx := urfave.Annotate(&cli.Command{
		Name:         "runx",
		Usage:        "Run a program with the arguments that follow it, and report what it printed",
		ArgsUsage:    "<program> [argument]...",
		StopOnNthArg: &first,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "label", Usage: "a label to report the run under"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			args := c.Args().Slice()
			printed, err := proc.Command(ctx, args[0], args[1:]...).Output()
			if err != nil {
				return hookFailed(args[0], err)
			}
			return envelope.From(ctx).Result(map[string]any{
				"label": c.String("label"), "program": args[0],
				"child_argv": strings.Split(strings.TrimSuffix(string(printed), "\n"), "\n"),
			})
		},
	}, schema.Meta{Danger: schema.Safe, OptionPlacement: schema.Strict,
		Args: []schema.Arg{
			{Name: "program", Required: true, Type: schema.String, Usage: "the program to run"},
			{Name: "argument", Variadic: true, Type: schema.String, Usage: "what the program is given, verbatim"},
		}})

	// rpc is a protocol server of the app's own (REQ-C-032): it reads its
	// greeting from a file before serving (a missing one is NOT_FOUND, exit
	// 5, the server never started), then answers JSON-RPC 2.0 requests,
	// one a line on stdin, one a line on stdout, until stdin ends. It
	// writes to the process's stdout itself, which no capture may take.
	// Its one-second declared timeout shows that a server idle past it is
	// not stopped.
	rpc := urfave.Annotate(&cli.Command{
		Name:  "rpc",
		Usage: "Answer JSON-RPC requests, one a line, on stdin and stdout until stdin ends",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "greeting-file", Usage: "a file holding the greeting the server loads before serving"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			greeting := "hello"
			if path := c.String("greeting-file"); path != "" {
				b, err := os.ReadFile(path)
				if err != nil {
					return envelope.Errorf(exitcode.NotFound, "GREETING_NOT_FOUND", "cannot load the greeting %s: %v", path, err)
				}
				greeting = strings.TrimSpace(string(b))
			}
			return serveRPC(ctx, os.Stdin, os.Stdout, greeting)
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, Protocol: "json-rpc-lines", Timeout: time.Second,
		ExitCodes: exitcode.Table{
			exitcode.Success:  {Description: "The client closed stdin and the server shut down cleanly."},
			exitcode.NotFound: {Description: "The greeting file does not exist; the server did not start.", ErrorCodes: []string{"GREETING_NOT_FOUND"}},
		}})

	return []*cli.Command{quote, runx, rpc}
}

// serveRPC answers JSON-RPC 2.0 requests, one a line on in, one a line on
// out, until in ends (nil) or ctx is done: "greet" with greeting, "echo"
// with its params; an unknown method or a line that is no request is
// answered with the protocol's error, and the server goes on.
func serveRPC(ctx context.Context, in io.Reader, out io.Writer, greeting string) error {
	lines := make(chan []byte)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			select {
			case lines <- slices.Clone(sc.Bytes()):
			case <-ctx.Done():
				return
			}
		}
	}()
	for {
		var line []byte
		select {
		case <-ctx.Done():
			return ctx.Err()
		case l, ok := <-lines:
			if !ok {
				return nil
			}
			line = l
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		resp := map[string]any{"jsonrpc": "2.0", "id": nil}
		switch err := json.Unmarshal(line, &req); {
		case err != nil:
			resp["error"] = map[string]any{"code": -32700, "message": "parse error: " + err.Error()}
		case req.Method == "greet":
			resp["id"], resp["result"] = req.ID, greeting
		case req.Method == "echo":
			resp["id"], resp["result"] = req.ID, req.Params
		default:
			resp["id"], resp["error"] = req.ID, map[string]any{"code": -32601, "message": "method not found: " + req.Method}
		}
		b, err := json.Marshal(resp)
		if err != nil {
			return err
		}
		if _, err := out.Write(append(b, '\n')); err != nil {
			return err
		}
	}
}

// parsingOptions are the Duet options the parsing commands need.
func parsingOptions() []urfave.Option { return nil }
