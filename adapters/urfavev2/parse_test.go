package urfavev2_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfavev2"
	"github.com/duet-cli/duet/schema"
)

// reading is what a command line came to: the command that ran, with the
// flags the command line set (by name, in canonical text) and its
// arguments; or help; or a refusal.
type reading struct {
	Path  string
	Flags map[string]string
	Args  []string
	Help  bool
	Err   string
}

// parseApp is an app with the kinds of flags and commands v2 parses
// differently: booleans, values, slices, the app's flags and a command's,
// aliases, a group, a command that parses no flags. short turns on
// UseShortOptionHandling. ran receives what the action that runs saw.
func parseApp(short bool, ran *reading) *cli.App {
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

// v2Reads runs args through urfave/cli v2 itself.
func v2Reads(short bool, args []string) reading {
	var r reading
	app := parseApp(short, &r)
	var out bytes.Buffer
	app.Writer, app.ErrWriter = &out, &out
	app.ExitErrHandler = func(*cli.Context, error) {}
	err := app.RunContext(context.Background(), append([]string{"app"}, args...))
	switch {
	case err != nil:
		return reading{Err: err.Error()}
	case r.Path == "":
		return reading{Help: true}
	}
	return r
}

// duetReads is what Parse says v2 will do with args; false when a value
// is one the flag refuses when it is set.
func duetReads(t testing.TB, short bool, args []string) (reading, bool) {
	var unused reading
	app, err := urfavev2.Wrap(parseApp(short, &unused))
	if err != nil {
		t.Fatal(err)
	}
	p := app.Parse(args)
	if p.Err != nil {
		return reading{Err: p.Err.Error()}, true
	}
	if p.Help || !p.Node.Runnable {
		return reading{Help: true}, true
	}
	r := reading{Path: strings.Join(append([]string{"app"}, p.Node.Path...), " "), Flags: map[string]string{}, Args: p.Args}
	given := map[string][]string{}
	types := map[string]schema.Type{}
	for _, v := range p.Values {
		given[v.Flag.Name] = append(given[v.Flag.Name], v.Value)
		types[v.Flag.Name] = v.Flag.Type
	}
	for name, values := range given {
		last := values[len(values)-1]
		switch types[name] {
		case schema.Boolean:
			b, err := strconv.ParseBool(last)
			if err != nil {
				return reading{}, false
			}
			r.Flags[name] = fmt.Sprint(b)
		case schema.Array:
			var all []string
			for _, v := range values {
				all = append(all, strings.Split(v, ",")...)
			}
			r.Flags[name] = strings.Join(all, "|")
		default:
			r.Flags[name] = last
		}
	}
	return r, true
}

// wrappedRuns runs args through the app wrapped with Duet, for a script or
// (agent) for an agent, and returns what its action saw, if one ran.
func wrappedRuns(short, agent bool, args []string) reading {
	var r reading
	var out bytes.Buffer
	opts := []adapters.Option{adapters.WithStdio(strings.NewReader(""), &out, &out), adapters.WithEnv(nil), adapters.WithTerminal(adapters.Piped)}
	if agent {
		opts = append(opts, adapters.WithSpecStrict())
	}
	urfavev2.Run(context.Background(), parseApp(short, &r), args, opts...)
	return r
}

// agree fails the test unless Parse reads args as v2 does, and the app's
// action, when v2 runs it, sees the same flags and arguments wrapped — for
// a script and for an agent — as unwrapped.
func agree(t testing.TB, short bool, args []string) {
	t.Helper()
	want := v2Reads(short, args)
	if want.Path != "" {
		for _, agent := range []bool{false, true} {
			if got := wrappedRuns(short, agent, args); !cmp.Equal(want, got, cmpEmpty) {
				t.Errorf("short options %v, %q, wrapped (agent %v): the action saw (-unwrapped +wrapped):\n%s", short, args, agent, cmp.Diff(want, got, cmpEmpty))
			}
		}
	}
	got, comparable := duetReads(t, short, args)
	if !comparable || strings.HasPrefix(want.Err, "invalid value") {
		return // a value the flag refuses is the framework's to refuse when it runs
	}
	if diff := cmp.Diff(want, got, cmpEmpty); diff != "" {
		t.Errorf("short options %v, %q (-v2 +Parse):\n%s", short, args, diff)
	}
}

// cmpEmpty equates no arguments and an empty list of them.
var cmpEmpty = cmp.FilterValues(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 }, cmp.Comparer(func(_, _ []string) bool { return true }))

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
			agree(t, short, args)
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
		var seed []byte
		for _, a := range args {
			if i := slices.Index(words, a); i >= 0 {
				seed = append(seed, byte(i))
			}
		}
		f.Add(false, seed)
		f.Add(true, seed)
	}
	f.Fuzz(func(t *testing.T, short bool, b []byte) {
		args := []string{}
		for _, c := range b[:min(len(b), 12)] {
			args = append(args, words[int(c)%len(words)])
		}
		agree(t, short, args)
	})
}
