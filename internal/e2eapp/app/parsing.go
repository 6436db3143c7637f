package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
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

	return []*cli.Command{quote, runx}
}

// parsingOptions are the Duet options the parsing commands need.
func parsingOptions() []urfave.Option { return nil }
