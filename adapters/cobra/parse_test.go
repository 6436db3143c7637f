package cobra_test

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/duet-cli/duet/adapters"
	duetcobra "github.com/duet-cli/duet/adapters/cobra"
	"github.com/duet-cli/duet/adapters/internal/parsetest"
)

// parseApp is an app with the kinds of flags and commands pflag and cobra
// parse differently: booleans, counts, values, slices, optional values,
// persistent flags, aliases, a group, a root that runs, a command that
// parses no flags and one that stops at its first argument. ran receives
// what the command that runs saw.
func parseApp(ran *parsetest.Reading) *cobra.Command {
	record := func(cmd *cobra.Command, args []string) {
		ran.Path = cmd.CommandPath()
		ran.Flags = map[string]string{}
		cmd.Flags().Visit(func(f *pflag.Flag) { ran.Flags[f.Name] = f.Value.String() })
		ran.Args = slices.Clip(args)
	}
	root := &cobra.Command{Use: "app", Run: record}
	root.PersistentFlags().BoolP("verbose", "V", false, "")
	root.PersistentFlags().StringP("config", "c", "", "")
	root.Flags().String("local", "", "")

	list := &cobra.Command{Use: "list", Aliases: []string{"ls"}, Run: record}
	list.Flags().BoolP("all", "a", false, "")
	list.Flags().CountP("loud", "l", "")
	list.Flags().IntP("limit", "n", 0, "")
	list.Flags().StringP("sort", "s", "", "")
	list.Flags().StringSliceP("tag", "t", nil, "")
	list.Flags().StringP("color", "C", "auto", "")
	list.Flags().Lookup("color").NoOptDefVal = "always"

	get := &cobra.Command{Use: "get", Run: record, Args: cobra.MaximumNArgs(1)}
	get.Flags().StringP("format", "f", "", "")

	remote := &cobra.Command{Use: "remote"}
	add := &cobra.Command{Use: "add", Run: record}
	add.Flags().BoolP("force", "f", false, "")
	remote.AddCommand(add, &cobra.Command{Use: "rm", Run: record})

	raw := &cobra.Command{Use: "raw", DisableFlagParsing: true, Run: record}
	first := &cobra.Command{Use: "first", Run: record}
	first.Flags().SetInterspersed(false)
	first.Flags().BoolP("all", "a", false, "")

	root.AddCommand(list, get, remote, raw, first)
	return root
}

// cobraReads runs args through cobra itself.
func cobraReads(args []string) parsetest.Reading {
	var r parsetest.Reading
	app := parseApp(&r)
	app.SetOut(io.Discard)
	app.SetErr(io.Discard)
	app.SilenceErrors, app.SilenceUsage = true, true
	app.SetArgs(args)
	return parsetest.Ran(r, app.Execute())
}

// duetParses is the adapter's Parse of args.
func duetParses(t testing.TB, args []string) adapters.Parsed {
	app, err := duetcobra.Wrap(parseApp(new(parsetest.Reading)))
	if err != nil {
		t.Fatal(err)
	}
	return app.Parse(args)
}

// duetReads is what Parse says cobra will do with args: the flags it reads
// are set on a fresh app's own, for pflag to print as it does.
func duetReads(t testing.TB, args []string) (parsetest.Reading, bool) {
	var unused parsetest.Reading
	p := duetParses(t, args)
	if p.Err != nil {
		return parsetest.Reading{Err: strings.SplitN(p.Err.Error(), "\n", 2)[0]}, true
	}
	if p.Help || !p.Node.Runnable {
		return parsetest.Reading{Help: true}, true
	}
	fresh := parseApp(&unused)
	cmd, _, err := fresh.Find(p.Node.Path)
	if err != nil {
		t.Fatalf("Parse chose %q, which cobra cannot find: %v", p.Node.DotPath(), err)
	}
	cmd.InitDefaultHelpFlag() // merges the persistent flags
	r := parsetest.Reading{Path: cmd.CommandPath(), Flags: map[string]string{}, Args: p.Args}
	for _, v := range p.Values {
		if err := cmd.Flags().Set(v.Flag.Name, v.Value); err != nil {
			return parsetest.Reading{}, false // pflag refuses it as it sets it
		}
	}
	cmd.Flags().Visit(func(f *pflag.Flag) { r.Flags[f.Name] = f.Value.String() })
	if r.Args == nil {
		r.Args = []string{}
	}
	return r, true
}

// check holds the adapter's Parse to cobra.
var check = parsetest.Check{
	Framework: cobraReads,
	Parse:     duetReads,
	Parsed:    duetParses,
	Wrapped: parsetest.Wrapped(func(r *parsetest.Reading, args []string, opts ...adapters.Option) int {
		return duetcobra.Run(context.Background(), parseApp(r), args, opts...)
	}),
	// A flag refused its value, or the command its arguments, after
	// parsing: Parse sets no flag and validates no argument count.
	Late: func(err string) bool {
		return strings.HasPrefix(err, "invalid argument") || strings.Contains(err, "arg(s)")
	},
}

var parseCases = [][]string{
	{},
	{"x", "y"},
	{"--local", "v", "x"},
	{"list"},
	{"ls", "-al"},
	{"list", "-lll", "-a"},
	{"list", "-n3", "x"},
	{"list", "-an3"},
	{"list", "-n", "-3"},
	{"list", "--limit=4", "--limit", "5"},
	{"list", "-t", "a,b", "--tag", "c"},
	{"list", "-C"},
	{"list", "-C", "never"},
	{"list", "--color=never"},
	{"list", "-Cnever"},
	{"list", "--all=false", "-a=true"},
	{"list", "--limit=5", "-n", "5"}, // the same value twice
	{"list", "-a", "--all", "-lll"},  // the same value twice; a count
	{"-c", "a", "list", "-c", "b"},   // a persistent flag given twice
	{"-c", "a", "list", "-c", "b", "-n", "1", "--limit=2"}, // two flags given two values
	{"get", "-f", "json", "-f=json"},                       // the same value twice
	{"list", "--", "-a"},
	{"list", "x", "-a", "y"},
	{"list", "-z"},
	{"list", "-az"},
	{"list", "--bogus"},
	{"list", "-n"},
	{"--verbose", "list"},
	{"-V", "ls", "-a"},
	{"-c", "cfg", "get", "-f", "json", "name"},
	{"get", "--config=cfg"},
	{"get", "--format", "yaml", "x"}, // the app's own flag of a name Duet has
	{"--format"},                     // Duet's: the app unwrapped has none
	{"list", "--format", "json"},
	{"get", "-c"},
	{"remote"},
	{"remote", "add", "-f", "origin"},
	{"remote", "-V", "add", "origin", "--force"},
	{"remote", "nope"},
	{"nope"},
	{"raw", "-a", "--bogus", "x"},
	{"first", "x", "-a"},
	{"first", "-a", "x", "-a"},
	{"help"},
	{"help", "list"},
	{"list", "--help"},
	{"-h"},
	{"list", "-ah"},
	{"remote", "add", "-h"},
	{"--config", "list", "list"},
}

// TestParseAgreesWithCobra holds Parse to cobra's own parsing: for every
// command line, the same command, flags and arguments, or the same refusal.
func TestParseAgreesWithCobra(t *testing.T) {
	for _, args := range parseCases {
		check.Agree(t, args)
	}
}

var words = []string{
	"list", "ls", "get", "remote", "add", "rm", "raw", "first", "help", "nope", "x",
	"-a", "-l", "-al", "-lll", "-n", "-n3", "3", "-3", "--limit", "--limit=3", "-C", "never", "--color=never",
	"-t", "a,b", "--tag", "--all=false", "--verbose", "-V", "-c", "cfg", "--config=cfg", "--local",
	"--", "-", "--bogus", "-z", "--help", "-h", "-f", "--force", "json", "--format", "",
}

// FuzzParseAgreesWithCobra: any command line made of words.
func FuzzParseAgreesWithCobra(f *testing.F) {
	for _, args := range parseCases {
		f.Add(parsetest.Seed(args, words))
	}
	f.Fuzz(func(t *testing.T, b []byte) { check.Agree(t, parsetest.Words(b, words)) })
}
