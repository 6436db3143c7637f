// Package parsetest holds an adapter's Parse to its framework's own
// parser, the way each adapter's TestParseAgrees and FuzzParseAgrees do: a
// command line read three ways — by the framework running the app, by
// Parse, and by the app wrapped with Duet — must come to the same reading.
// The one place they may not: a flag that takes one value given two
// different ones, which the wrapped app refuses an agent (REQ-F-067).
package parsetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/schema"
)

// Reading is what a command line came to: the command that ran, with the
// flags the command line set (by name, in canonical text) and its
// arguments; or help; or a refusal.
type Reading struct {
	Path  string
	Flags map[string]string
	Args  []string
	Help  bool
	Err   string
}

// Check is one adapter's agreement, for one app.
type Check struct {
	// Framework runs args through the framework itself, and returns what
	// the action that ran saw.
	Framework func(args []string) Reading
	// Parse is what the adapter's Parse says the framework will do; false
	// when it reads a value the framework refuses only once it sets it.
	Parse func(t testing.TB, args []string) (Reading, bool)
	// Parsed is the adapter's Parse of args itself: the flags given, in
	// order, with the text each was given.
	Parsed func(t testing.TB, args []string) adapters.Parsed
	// Wrapped runs args through the app wrapped with Duet, for a script or
	// (agent) for an agent, and returns what the action that ran saw, or
	// (when none ran) the refusal the wrapped app answered with.
	Wrapped func(agent bool, args []string) Reading
	// Late reports a refusal the framework makes after parsing (a flag's
	// value, an argument count), which Parse leaves to it.
	Late func(err string) bool
	// Name says which app, in failures.
	Name string
}

// Agree fails the test unless Parse reads args as the framework does, and
// the app's action, when the framework runs it, sees the same flags and
// arguments wrapped — for a script and for an agent — as unwrapped; except
// that an agent who gives a flag that takes one value two different values
// is refused, exit 2 CONFLICTING_VALUES, where the framework keeps one.
func (c Check) Agree(t testing.TB, args []string) {
	t.Helper()
	want := c.Framework(args)
	parsed := c.Parsed(t, args)
	if want.Path != "" {
		conflicts := Conflicting(parsed)
		for _, agent := range []bool{false, true} {
			want := want
			if agent && len(conflicts) > 0 {
				want = Reading{Err: refusedConflicts(conflicts)}
			}
			if diff := cmp.Diff(want, c.Wrapped(agent, args), emptyArgs); diff != "" {
				t.Errorf("%s%q, wrapped (agent %v, conflicting values for %q): the action saw (-unwrapped +wrapped):\n%s", c.Name, args, agent, conflicts, diff)
			}
		}
	}
	got, ok := c.Parse(t, args)
	if !ok || c.Late != nil && c.Late(want.Err) || Builtin(parsed, args, want.Err) {
		return
	}
	if diff := cmp.Diff(want, got, emptyArgs); diff != "" {
		t.Errorf("%s%q (-framework +Parse):\n%s", c.Name, args, diff)
	}
}

// Conflicting is the flags, in order, to which p gives two different
// values, as given on the command line, and that take one value: not a
// list, not a counter. An agent is refused them (REQ-F-067), since which
// value wins is the parser's accident; the same value twice is no conflict.
func Conflicting(p adapters.Parsed) []string {
	var conflicts []string
	first := map[string]string{}
	for _, v := range p.Values {
		if v.Flag.Type == schema.Array || v.Flag.Count {
			continue
		}
		if was, ok := first[v.Flag.Name]; !ok {
			first[v.Flag.Name] = v.Value
		} else if was != v.Value && !slices.Contains(conflicts, v.Flag.Name) {
			conflicts = append(conflicts, v.Flag.Name)
		}
	}
	return conflicts
}

// Builtin reports whether p, a Parse of args, reads a flag Duet adds to
// the app (--format, --output, --timeout ...), which the framework running
// the app unwrapped does not know, and refuses as unknown (err): Parse and
// the framework each read such a command line rightly, and differently. An
// app's own flag of a built-in's name (get --format) is the app's, and no
// such flag.
func Builtin(p adapters.Parsed, args []string, err string) bool {
	for _, v := range p.Values {
		if v.Flag.Builtin {
			return true
		}
	}
	if err == "" || p.Node == nil {
		return false
	}
	// No stop at "--": it ends the flags of one command only, and urfave
	// reads a subcommand's flags after a "--" given to its parent.
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if f := p.Node.Flag(name); strings.HasPrefix(a, "-") && f != nil && f.Builtin && (strings.HasSuffix(err, " -"+name) || strings.HasSuffix(err, " --"+name)) {
			return true
		}
	}
	return false
}

// Problem is one problem of a refusal: its code, and the flag or argument
// it is about.
type Problem struct{ Code, Field string }

// Refused is the Err of a Reading of the wrapped app's refusal: the exit
// code, the error's code, and the problems it lists (in any order).
func Refused(exit int, code string, problems ...Problem) string {
	var each []string
	for _, p := range problems {
		each = append(each, p.Code+" "+p.Field)
	}
	slices.Sort(each)
	return fmt.Sprintf("exit %d: %s [%s]", exit, code, strings.Join(each, ", "))
}

// refusedConflicts is the refusal of an agent's command line that gives
// each of flags two values: exit 2, CONFLICTING_VALUES for each, and
// VALIDATION_FAILED above them when there are more than one.
func refusedConflicts(flags []string) string {
	code := "CONFLICTING_VALUES"
	if len(flags) > 1 {
		code = "VALIDATION_FAILED"
	}
	var problems []Problem
	for _, f := range flags {
		problems = append(problems, Problem{"CONFLICTING_VALUES", f})
	}
	return Refused(2, code, problems...)
}

// emptyArgs equates no arguments with an empty list of them.
var emptyArgs = cmp.FilterValues(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 }, cmp.Comparer(func(_, _ []string) bool { return true }))

// Canonical is a Reading of p, a Parse of a command line of the app named
// root, with each flag's value as the urfave frameworks hand it over: the
// last given, or every item of a slice flag's; false when a value is one
// the flag refuses when it is set.
func Canonical(p adapters.Parsed, root string) (Reading, bool) {
	if p.Err != nil {
		return Reading{Err: p.Err.Error()}, true
	}
	if p.Help || !p.Node.Runnable {
		return Reading{Help: true}, true
	}
	r := Reading{Path: strings.Join(append([]string{root}, p.Node.Path...), " "), Flags: map[string]string{}, Args: p.Args}
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
				return Reading{}, false
			}
			r.Flags[name] = fmt.Sprint(b)
		case schema.Integer:
			n, err := strconv.ParseInt(last, 0, 64)
			if err != nil {
				return Reading{}, false
			}
			r.Flags[name] = fmt.Sprint(n)
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

// Seed is args as the bytes Words makes them of again, for f.Add.
func Seed(args, words []string) []byte {
	var seed []byte
	for _, a := range args {
		if i := slices.Index(words, a); i >= 0 {
			seed = append(seed, byte(i))
		}
	}
	return seed
}

// Words is the command line a fuzzer's bytes make of words: at most
// twelve of them.
func Words(b []byte, words []string) []string {
	args := []string{}
	for _, c := range b[:min(len(b), 12)] {
		args = append(args, words[int(c)%len(words)])
	}
	return args
}

// Ran is what a run of the framework came to: its refusal, err; or help,
// when no action ran; or r, what the action that ran saw.
func Ran(r Reading, err error) Reading {
	switch {
	case err != nil:
		return Reading{Err: strings.SplitN(err.Error(), "\n", 2)[0]}
	case r.Path == "":
		return Reading{Help: true}
	}
	return r
}

// Wrapped makes a Check's Wrapped of run, which runs the app wrapped with
// Duet, with opts, on args, its actions recording what they saw in r, and
// returns the exit code. When no action ran and the wrapped app answered an
// agent with an error envelope, the Reading is that refusal (see Refused):
// its exit code and error code, and the envelope's meta.exit_code should it
// say another.
func Wrapped(run func(r *Reading, args []string, opts ...adapters.Option) int) func(agent bool, args []string) Reading {
	return func(agent bool, args []string) Reading {
		var r Reading
		var stdout, stderr bytes.Buffer
		opts := []adapters.Option{adapters.WithStdio(strings.NewReader(""), &stdout, &stderr), adapters.WithEnv(nil), adapters.WithTerminal(adapters.Piped)}
		if agent {
			opts = append(opts, adapters.WithSpecStrict())
		}
		exit := run(&r, args, opts...)
		if r.Path != "" || !agent {
			return r
		}
		type problem struct{ Code, Field string }
		var env struct {
			OK    bool
			Error *struct {
				problem
				Errors []problem
			}
			Meta struct {
				ExitCode *int `json:"exit_code"`
			}
		}
		if json.Unmarshal(stdout.Bytes(), &env) != nil || env.OK || env.Error == nil {
			return r
		}
		problems := []Problem{{env.Error.Code, env.Error.Field}}
		if len(env.Error.Errors) > 0 {
			problems = problems[:0]
			for _, p := range env.Error.Errors {
				problems = append(problems, Problem(p))
			}
		}
		r.Err = Refused(exit, env.Error.Code, problems...)
		switch {
		case env.Meta.ExitCode == nil:
			r.Err += " (no meta.exit_code)"
		case *env.Meta.ExitCode != exit:
			r.Err += fmt.Sprintf(" (meta.exit_code %d)", *env.Meta.ExitCode)
		}
		return r
	}
}
