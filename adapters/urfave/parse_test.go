package urfave_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/internal/parsetest"
	"github.com/duet-cli/duet/adapters/urfave"
)

// parseApp is an app with the kinds of flags and commands urfave parses
// differently: booleans, values, slices, persistent and local flags,
// aliases, a group, a command that parses no flags. short turns on
// UseShortOptionHandling. ran receives what the action that runs saw.
func parseApp(short bool, ran *parsetest.Reading) *cli.Command {
	record := func(_ context.Context, cmd *cli.Command) error {
		ran.Path = strings.Join(cmd.Path(), " ")
		ran.Flags = map[string]string{}
		for _, c := range cmd.Lineage() {
			for _, f := range c.Flags {
				if f.IsSet() {
					ran.Flags[f.Names()[0]] = canonical(f.Get())
				}
			}
		}
		ran.Args = cmd.Args().Slice()
		return nil
	}
	return &cli.Command{
		Name:                   "app",
		UseShortOptionHandling: short,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"V"}},
			&cli.StringFlag{Name: "config", Aliases: []string{"c"}},
			&cli.StringFlag{Name: "local", Local: true},
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
			{Name: "remote", Commands: []*cli.Command{
				{Name: "add", Action: record, Flags: []cli.Flag{&cli.BoolFlag{Name: "force", Aliases: []string{"f"}}}},
				{Name: "rm", Action: record},
			}},
			{Name: "raw", SkipFlagParsing: true, Action: record},
		},
	}
}

// canonical is a flag's value as text, the same whichever side read it.
func canonical(v any) string {
	if s, ok := v.([]string); ok {
		return strings.Join(s, "|")
	}
	return fmt.Sprint(v)
}

// check holds the adapter's Parse to urfave, short options on or off.
func check(short bool) parsetest.Check {
	parsed := func(t testing.TB, args []string) adapters.Parsed {
		app, err := urfave.Wrap(parseApp(short, new(parsetest.Reading)))
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
			app.ExitErrHandler = func(context.Context, *cli.Command, error) {}
			return parsetest.Ran(r, app.Run(context.Background(), append([]string{"app"}, args...)))
		},
		Parse: func(t testing.TB, args []string) (parsetest.Reading, bool) {
			return parsetest.Canonical(parsed(t, args), "app")
		},
		Parsed: parsed,
		Wrapped: parsetest.Wrapped(func(r *parsetest.Reading, args []string, opts ...adapters.Option) int {
			return urfave.Run(context.Background(), parseApp(short, r), args, opts...)
		}),
		// A flag refused its value as urfave set it: Parse sets no flag,
		// and leaves values to the framework when it runs (and to Duet's
		// own checks of declared types, for an agent).
		Late: func(err string) bool { return strings.HasPrefix(err, "invalid value") },
	}
}

// parseCases are command lines on which urfave's rules differ from
// pflag's, or from one another.
var parseCases = [][]string{
	{},
	{"list"},
	{"ls", "-a", "-l"},
	{"list", "-al"},
	{"list", "-an", "3"},
	{"list", "-na", "3"},
	{"list", "-n3"},
	{"list", "-n", "3", "x", "-a"},
	{"list", "x", "-a"},
	{"list", "-limit", "4"},
	{"list", "--limit=4", "--limit", "5"},
	{"list", "--limit="},
	{"list", "-n"},
	{"list", "-n", "-1"},
	{"list", "-1", "-a"},
	{"list", "-t", "a,b", "--tag", "c"},
	{"list", "--all=false", "-a=true"},
	{"list", "--limit=5", "-n", "5"},
	{"list", "-a", "--all", "-t", "a", "-t", "b"},
	{"-c", "a", "list", "-c", "b"},
	{"-c", "a", "list", "-c", "b", "-n", "1", "--limit=2"}, // two flags given two values
	{"--local", "a", "--local", "b", "list"},
	{"get", "-f", "json", "-f=json"},
	{"list", "-al=false"},
	{"list", "--", "-a"},
	{"--", "list", "--format"}, // found by the fuzzer: urfave reads flags after a leading "--"
	{"list", "-", "-a"},
	{"list", "-z"},
	{"list", "-az"},
	{"list", "--bogus"},
	{"--verbose", "list"},
	{"-V", "list", "-a"},
	{"list", "--verbose", "-V"},
	{"--local", "x", "list"},
	{"list", "--local", "x"},
	{"-c", "cfg", "get", "-f", "json", "name"},
	{"get", "--config=cfg", "--format", "yaml"},
	{"get", "-c"},
	{"get", "--format", "yaml", "x"}, // the app's own flag of a name Duet has
	{"--format"},                     // Duet's: the app unwrapped has none
	{"list", "--format", "json"},
	{"remote"},
	{"remote", "add", "-f", "origin"},
	{"remote", "--verbose", "add", "origin", "--force"},
	{"remote", "nope"},
	{"remote", "rm", "x", "-f"},
	{"nope"},
	{"raw", "-a", "--bogus", "x"},
	{"help"},
	{"h", "list"},
	{"list", "help"},
	{"list", "--help"},
	{"-h"},
	{"list", "-ah"},
	{"remote", "help", "add"},
	{"  ", "list"},
	{"list", " -a "},
}

// TestParseAgreesWithUrfave holds Parse to urfave's own parser: for every
// command line, the same command, flags and arguments, or the same refusal.
func TestParseAgreesWithUrfave(t *testing.T) {
	for _, short := range []bool{false, true} {
		for _, args := range parseCases {
			check(short).Agree(t, args)
		}
	}
}

// words are what FuzzParseAgreesWithUrfave makes command lines of.
var words = []string{
	"list", "ls", "get", "remote", "add", "rm", "raw", "help", "h", "nope",
	"-a", "-l", "-al", "-la", "-an", "-n", "-n5", "5", "-1", "--limit", "--limit=3", "-limit",
	"-t", "x", "--tag", "a,b", "--all=false", "--verbose", "-V", "-c", "cfg", "--config=cfg",
	"--local", "--", "-", "--bogus", "-z", "--help", "-h", "-f", "--force", "json", "--format", "",
}

// FuzzParseAgreesWithUrfave: any command line made of words.
func FuzzParseAgreesWithUrfave(f *testing.F) {
	for _, args := range parseCases {
		f.Add(false, parsetest.Seed(args, words))
		f.Add(true, parsetest.Seed(args, words))
	}
	f.Fuzz(func(t *testing.T, short bool, b []byte) { check(short).Agree(t, parsetest.Words(b, words)) })
}
