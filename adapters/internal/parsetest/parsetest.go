// Package parsetest holds an adapter's Parse to its framework's own
// parser, the way each adapter's TestParseAgrees and FuzzParseAgrees do: a
// command line read three ways — by the framework running the app, by
// Parse, and by the app wrapped with Duet — must come to the same reading.
package parsetest

import (
	"bytes"
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
	// Wrapped runs args through the app wrapped with Duet, for a script or
	// (agent) for an agent, and returns what the action that ran saw.
	Wrapped func(agent bool, args []string) Reading
	// Late reports a refusal the framework makes after parsing (a flag's
	// value, an argument count), which Parse leaves to it.
	Late func(err string) bool
	// Name says which app, in failures.
	Name string
}

// Agree fails the test unless Parse reads args as the framework does, and
// the app's action, when the framework runs it, sees the same flags and
// arguments wrapped — for a script and for an agent — as unwrapped.
func (c Check) Agree(t testing.TB, args []string) {
	t.Helper()
	want := c.Framework(args)
	if want.Path != "" {
		for _, agent := range []bool{false, true} {
			if diff := cmp.Diff(want, c.Wrapped(agent, args), emptyArgs); diff != "" {
				t.Errorf("%s%q, wrapped (agent %v): the action saw (-unwrapped +wrapped):\n%s", c.Name, args, agent, diff)
			}
		}
	}
	got, ok := c.Parse(t, args)
	if !ok || c.Late != nil && c.Late(want.Err) {
		return
	}
	if diff := cmp.Diff(want, got, emptyArgs); diff != "" {
		t.Errorf("%s%q (-framework +Parse):\n%s", c.Name, args, diff)
	}
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
// Duet, with opts, on args, its actions recording what they saw in r.
func Wrapped(run func(r *Reading, args []string, opts ...adapters.Option)) func(agent bool, args []string) Reading {
	return func(agent bool, args []string) Reading {
		var r Reading
		var out bytes.Buffer
		opts := []adapters.Option{adapters.WithStdio(strings.NewReader(""), &out, &out), adapters.WithEnv(nil), adapters.WithTerminal(adapters.Piped)}
		if agent {
			opts = append(opts, adapters.WithSpecStrict())
		}
		run(&r, args, opts...)
		return r
	}
}
