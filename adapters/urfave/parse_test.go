package urfave_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
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

// parseApp is an app with the kinds of flags and commands urfave parses
// differently: booleans, values, slices, persistent and local flags,
// aliases, a group, a command that parses no flags. short turns on
// UseShortOptionHandling. ran receives what the action that runs saw.
func parseApp(short bool, ran *reading) *cli.Command {
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

// urfaveReads runs args through urfave itself.
func urfaveReads(short bool, args []string) reading {
	var r reading
	app := parseApp(short, &r)
	var out bytes.Buffer
	app.Writer, app.ErrWriter = &out, &out
	app.ExitErrHandler = func(context.Context, *cli.Command, error) {}
	err := app.Run(context.Background(), append([]string{"app"}, args...))
	switch {
	case err != nil:
		return reading{Err: err.Error()}
	case r.Path == "":
		return reading{Help: true}
	}
	return r
}

// duetReads is what Parse says urfave will do with args.
func duetReads(t testing.TB, short bool, args []string) (reading, bool) {
	var unused reading
	app, err := urfave.Wrap(parseApp(short, &unused))
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
	types := map[string]*schema.Flag{}
	for _, v := range p.Values {
		given[v.Flag.Name] = append(given[v.Flag.Name], v.Value)
		types[v.Flag.Name] = v.Flag
	}
	for name, values := range given {
		last := values[len(values)-1]
		switch f := types[name]; f.Type {
		case schema.Boolean:
			b, err := strconv.ParseBool(last)
			if err != nil {
				return reading{}, false // urfave refuses it when it sets the flag
			}
			r.Flags[name] = canonical(b)
		case schema.Integer:
			n, err := strconv.ParseInt(last, 0, 64)
			if err != nil {
				return reading{}, false
			}
			r.Flags[name] = canonical(n)
		case schema.Array:
			var all []string
			for _, v := range values {
				all = append(all, strings.Split(v, ",")...)
			}
			r.Flags[name] = canonical(all)
		default:
			r.Flags[name] = last
		}
	}
	if r.Args == nil {
		r.Args = []string{}
	}
	return r, true
}

// wrappedRuns runs args through the app wrapped with Duet, for a script or
// (agent) for an agent, and returns what its action saw, if one ran.
func wrappedRuns(short, agent bool, args []string) reading {
	var r reading
	var out bytes.Buffer
	opts := []urfave.Option{adapters.WithStdio(strings.NewReader(""), &out, &out), adapters.WithEnv(nil), adapters.WithTerminal(adapters.Piped)}
	if agent {
		opts = append(opts, adapters.WithSpecStrict())
	}
	urfave.Run(context.Background(), parseApp(short, &r), args, opts...)
	return r
}

// agree fails the test unless Parse reads args as urfave does, and the
// app's action, when urfave runs it, sees the same flags and arguments
// wrapped — for a script and for an agent — as unwrapped.
func agree(t testing.TB, short bool, args []string) {
	t.Helper()
	want := urfaveReads(short, args)
	if want.Path != "" {
		for _, agent := range []bool{false, true} {
			got := wrappedRuns(short, agent, args)
			if got.Args == nil && got.Path != "" {
				got.Args = []string{}
			}
			w := want
			if w.Args == nil {
				w.Args = []string{}
			}
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("short options %v, %q, wrapped (agent %v): the action saw (-unwrapped +wrapped):\n%s", short, args, agent, diff)
			}
		}
	}
	got, comparable := duetReads(t, short, args)
	if !comparable {
		return
	}
	if want.Args == nil && want.Path != "" {
		want.Args = []string{}
	}
	if strings.HasPrefix(want.Err, "invalid value") {
		// A flag refused its value as urfave set it: Parse sets no flag,
		// and leaves values to the framework when it runs (and to Duet's
		// own checks of declared types, for an agent).
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("short options %v, %q (-urfave +Parse):\n%s", short, args, diff)
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
	{"list", "-al=false"},
	{"list", "--", "-a"},
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
			agree(t, short, args)
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
		if len(b) > 12 {
			b = b[:12]
		}
		args := []string{}
		for _, c := range b {
			args = append(args, words[int(c)%len(words)])
		}
		agree(t, short, args)
	})
}
