package urfavev2_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/internal/parsetest"
	"github.com/duet-cli/duet/adapters/urfavev2"
)

// parseApp is an app with the kinds of flags and commands v2 parses
// differently: booleans, values, slices, the app's flags and a command's,
// aliases, a group, a command that parses no flags. short turns on
// UseShortOptionHandling. ran receives what the action that runs saw.
func parseApp(short bool, ran *parsetest.Reading) *cli.App {
	record := func(c *cli.Context) error {
		var path []string
		ran.Flags = map[string]string{}
		for _, ctx := range c.Lineage() {
			if ctx.Command == nil {
				continue
			}
			path = append([]string{ctx.Command.Name}, path...)
			for _, f := range ctx.Command.Flags {
				name := f.Names()
				if len(name) == 0 || !ctx.IsSet(name[0]) {
					continue
				}
				if _, ok := f.(*cli.StringSliceFlag); ok {
					ran.Flags[name[0]] = strings.Join(ctx.StringSlice(name[0]), "|")
				} else {
					ran.Flags[name[0]] = fmt.Sprint(ctx.Value(name[0]))
				}
			}
		}
		ran.Path, ran.Args = strings.Join(path, " "), c.Args().Slice()
		return nil
	}
	return &cli.App{
		Name:                   "app",
		UseShortOptionHandling: short,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"V"}},
			&cli.StringFlag{Name: "config", Aliases: []string{"c"}},
		},
		Commands: []*cli.Command{
			{Name: "list", Aliases: []string{"ls"}, Action: record, Flags: []cli.Flag{
				&cli.BoolFlag{Name: "all", Aliases: []string{"a"}},
				&cli.BoolFlag{Name: "long", Aliases: []string{"l"}},
				&cli.IntFlag{Name: "limit", Aliases: []string{"n"}},
				&cli.StringFlag{Name: "sort", Aliases: []string{"s"}},
				&cli.StringSliceFlag{Name: "tag", Aliases: []string{"t"}},
			}},
			{Name: "get", Action: record, Flags: []cli.Flag{&cli.StringFlag{Name: "format", Aliases: []string{"f"}}}},
			{Name: "remote", Subcommands: []*cli.Command{
				{Name: "add", Action: record, Flags: []cli.Flag{&cli.BoolFlag{Name: "force", Aliases: []string{"f"}}}},
				{Name: "rm", Action: record},
			}},
			{Name: "raw", SkipFlagParsing: true, Action: record},
		},
	}
}

// check holds the adapter's Parse to v2, short options on or off.
func check(short bool) parsetest.Check {
	parsed := func(t testing.TB, args []string) adapters.Parsed {
		app, err := urfavev2.Wrap(parseApp(short, new(parsetest.Reading)))
		if err != nil {
			t.Fatal(err)
		}
		return app.Parse(args)
	}
	return parsetest.Check{
		Name: fmt.Sprintf("short options %v, ", short),
		Framework: func(args []string) parsetest.Reading {
			var r parsetest.Reading
			app := parseApp(short, &r)
			app.Writer, app.ErrWriter = io.Discard, io.Discard
			app.ExitErrHandler = func(*cli.Context, error) {}
			return parsetest.Ran(r, app.RunContext(context.Background(), append([]string{"app"}, args...)))
		},
		Parse: func(t testing.TB, args []string) (parsetest.Reading, bool) {
			return parsetest.Canonical(parsed(t, args), "app")
		},
		Parsed: parsed,
		Wrapped: parsetest.Wrapped(func(r *parsetest.Reading, args []string, opts ...adapters.Option) int {
			return urfavev2.Run(context.Background(), parseApp(short, r), args, opts...)
		}),
		// A value the flag refuses is the framework's to refuse when it runs.
		Late: func(err string) bool { return strings.HasPrefix(err, "invalid value") },
	}
}

// parseCases are command lines on which v2's rules differ from pflag's,
// from v3's, or from one another.
var parseCases = [][]string{
	{},
	{"list"},
	{"ls", "-a", "-l"},
	{"list", "-al"},
	{"list", "-an", "3"},
	{"list", "-n3"},
	{"list", "-n", "3", "x", "-a"}, // flags end at the first argument
	{"list", "x", "-a"},
	{"list", "-limit", "4"},
	{"list", "--limit=4", "--limit", "5"},
	{"list", "--limit=x"},
	{"list", "-n"},
	{"list", "-n", "-1"},
	{"list", "-t", "a,b", "--tag", "c"},
	{"list", "--all=false", "-a=true"}, // two forms of one flag
	{"list", "--limit=5", "-n", "5"},   // the same value twice
	{"list", "--all", "--all", "-t", "a", "-t", "b"},         // the same value twice; a list
	{"-c", "a", "-c", "b", "get"},                            // the app's flag given twice
	{"-c", "a", "-c", "b", "list", "--limit=1", "--limit=2"}, // two flags given two values
	{"get", "-f", "json", "-f=json"},                         // the same value twice
	{"list", "--", "-a"},
	{"list", "-", "-a"},
	{"list", "-z"},
	{"list", "-az"},
	{"list", "--bogus"},
	{"--verbose", "list"},
	{"-V", "list", "-a"},
	{"list", "--verbose"}, // the app's flag, after a command's name
	{"-c", "cfg", "get", "-f", "json", "name"},
	{"get", "-c"},
	{"get", "--format", "yaml", "x"}, // the app's own flag of a name Duet has
	{"--format"},                     // Duet's: the app unwrapped has none
	{"list", "--format", "json"},
	{"remote"},
	{"remote", "add", "-f", "origin"},
	{"remote", "nope"},
	{"remote", "rm", "x", "-f"},
	{"nope"},
	{"raw", "-a", "--bogus", "x"},
	{"help"},
	{"h", "list"},
	{"help", "nope"},
	{"list", "help"},
	{"list", "--help"},
	{"-h"},
	{"list", "-ah"},
	{"remote", "help", "add"},
}

// TestParseAgreesWithV2 holds Parse to v2's own parser: for every command
// line, the same command, flags and arguments, or the same refusal.
func TestParseAgreesWithV2(t *testing.T) {
	for _, short := range []bool{false, true} {
		for _, args := range parseCases {
			check(short).Agree(t, args)
		}
	}
}

// words are what FuzzParseAgreesWithV2 makes command lines of.
var words = []string{
	"list", "ls", "get", "remote", "add", "rm", "raw", "help", "h", "nope",
	"-a", "-l", "-al", "-la", "-an", "-n", "-n5", "5", "-1", "--limit", "--limit=3", "-limit",
	"-t", "x", "--tag", "a,b", "--all=false", "--verbose", "-V", "-c", "cfg", "--config=cfg",
	"--", "-", "--bogus", "-z", "--help", "-h", "-f", "--force", "json", "--format", "",
}

// FuzzParseAgreesWithV2: any command line made of words.
func FuzzParseAgreesWithV2(f *testing.F) {
	for _, args := range parseCases {
		f.Add(false, parsetest.Seed(args, words))
		f.Add(true, parsetest.Seed(args, words))
	}
	f.Fuzz(func(t *testing.T, short bool, b []byte) { check(short).Agree(t, parsetest.Words(b, words)) })
}
