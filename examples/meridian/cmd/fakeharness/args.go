package main

import (
	"slices"
	"strings"
)

// argKind is how an option takes its value.
type argKind int

const (
	flagBool     argKind = iota // --verbose
	flagValue                   // --model <m>: always takes the next argument
	flagOptional                // --resume [id]: takes the next argument unless it is an option
	flagMulti                   // --add-dir <dirs...>: takes arguments until the next option
)

// option is one flag of a CLI, under all its names ("-p", "--print").
type option struct {
	names   []string
	kind    argKind
	choices []string
}

func (o option) key() string {
	for _, n := range o.names {
		if strings.HasPrefix(n, "--") {
			return strings.TrimPrefix(n, "--")
		}
	}
	return strings.TrimPrefix(o.names[0], "-")
}

// parsed is a command line split into option values and positionals.
type parsed struct {
	values     map[string][]string // by option key; a bool option holds "true"/"false"
	positional []string
}

func (p parsed) has(key string) bool {
	v, ok := p.values[key]
	return ok && (len(v) == 0 || v[len(v)-1] != "false")
}

// last is the last value given for key ("" when absent).
func (p parsed) last(key string) string {
	v := p.values[key]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// argError is a command line the CLI's parser refuses.
type argError struct {
	kind  string // "unknown", "missing", "choice", "extra"
	arg   string // the argument as given
	opt   option
	value string
}

// parseArgs parses args against opts. stop, when not nil, is asked about
// each positional; when it says yes, parsing stops there and the rest
// (that positional first) is returned, as clap does for a subcommand.
func parseArgs(args []string, opts []option, stop func(string) bool) (parsed, []string, *argError) {
	p := parsed{values: map[string][]string{}}
	find := func(name string) (option, bool) {
		for _, o := range opts {
			if slices.Contains(o.names, name) {
				return o, true
			}
		}
		return option{}, false
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			p.positional = append(p.positional, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if stop != nil && len(p.positional) == 0 && stop(a) {
				return p, args[i:], nil
			}
			p.positional = append(p.positional, a)
			continue
		}
		name, value, hasValue := strings.Cut(a, "=")
		if !strings.HasPrefix(a, "--") && len(a) > 2 && !hasValue {
			// -mVALUE, for a short option that takes a value
			if o, ok := find(a[:2]); ok && o.kind != flagBool {
				name, value, hasValue = a[:2], a[2:], true
			}
		}
		o, ok := find(name)
		if !ok && strings.HasPrefix(name, "--no-") {
			// yargs negation of a boolean
			if neg, found := find("--" + strings.TrimPrefix(name, "--no-")); found && neg.kind == flagBool {
				p.values[neg.key()] = append(p.values[neg.key()], "false")
				continue
			}
		}
		if !ok {
			return p, nil, &argError{kind: "unknown", arg: name}
		}
		switch o.kind {
		case flagBool:
			v := "true"
			if hasValue {
				v = value
			}
			p.values[o.key()] = append(p.values[o.key()], v)
			continue
		case flagValue:
			if !hasValue {
				if i+1 >= len(args) {
					return p, nil, &argError{kind: "missing", arg: name, opt: o}
				}
				i++
				value = args[i]
			}
		case flagOptional:
			if !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				value, hasValue = args[i], true
			}
			if !hasValue {
				value = ""
			}
		case flagMulti:
			vals := []string{}
			if hasValue {
				vals = append(vals, value)
			}
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				vals = append(vals, args[i])
			}
			if len(vals) == 0 {
				return p, nil, &argError{kind: "missing", arg: name, opt: o}
			}
			p.values[o.key()] = append(p.values[o.key()], vals...)
			continue
		}
		if len(o.choices) > 0 && !slices.Contains(o.choices, value) {
			return p, nil, &argError{kind: "choice", arg: name, opt: o, value: value}
		}
		p.values[o.key()] = append(p.values[o.key()], value)
	}
	return p, nil, nil
}

// opts builds options compactly: each spec is "names kind [choices]", as
// in "-m,--model value" or "--output-format value text|json|stream-json".
func opts(specs ...string) []option {
	var out []option
	for _, s := range specs {
		f := strings.Fields(s)
		o := option{names: strings.Split(f[0], ",")}
		if len(f) > 1 {
			switch f[1] {
			case "value":
				o.kind = flagValue
			case "optional":
				o.kind = flagOptional
			case "multi":
				o.kind = flagMulti
			}
		}
		if len(f) > 2 {
			o.choices = strings.Split(f[2], "|")
		}
		out = append(out, o)
	}
	return out
}
