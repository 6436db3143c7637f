package adapters

import (
	"fmt"
	"hash/fnv"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/internal/suggest"
	"github.com/duet-cli/duet/schema"
)

// call is the lifecycle's reading of a command line: what the framework
// parses ([Framework.Parse]), with the problems found in it. The framework
// reads the command line; the lifecycle checks what it read against what the
// app declared, and Duet's built-in flags, before anything runs.
type call struct {
	node     *schema.Command
	flags    map[string]*schema.Flag // long name → the flag given under it
	values   map[string][]string     // long name → values given on the command line
	args     []string
	problems []envelope.FieldError
	refused  []error     // the framework's own refusals of the command line (see Parsed.Err)
	warnings [][3]string // code, message, next: what is ignored rather than refused
	help     bool        // the framework shows help
	version  bool        // the framework prints the version
}

// newCall reads p. A value that fails its flag's type is a problem, found
// here for every flag at once; the framework finds only the first.
func newCall(p Parsed) *call {
	c := &call{node: p.Node, flags: map[string]*schema.Flag{}, values: map[string][]string{},
		args: p.Args, help: p.Help, version: p.Version}
	if p.Err != nil {
		c.refused = []error{p.Err}
	}
	for _, v := range p.Values {
		c.set(v.Flag, v.Value)
	}
	return c
}

// has reports whether the command line gave the flag called name.
func (c *call) has(name string) bool { _, ok := c.values[name]; return ok }

// last is the last value the command line gave the flag called name.
func (c *call) last(name string) string {
	v := c.values[name]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

func (c *call) bool(name string) bool {
	return c.has(name) && isTrue(c.last(name))
}

// opt is the value of Duet's own flag called name, and whether it was given:
// an app flag of that name is the app's, never Duet's (an app's --output or
// --fields means what the app says).
func (c *call) opt(name string) (string, bool) {
	if f := c.flags[name]; f == nil || !f.Builtin {
		return "", false
	}
	return c.last(name), true
}

// on reports whether Duet's own boolean flag called name is set.
func (c *call) on(name string) bool {
	v, ok := c.opt(name)
	return ok && isTrue(v)
}

// isTrue reports whether v is a true strconv.ParseBool reads, without the
// error ParseBool allocates for every other value (most often "": a flag
// nobody gave, read on every start).
func isTrue(v string) bool {
	switch v {
	case "1", "t", "T", "true", "TRUE", "True":
		return true
	}
	return false
}

func (c *call) problem(code, field, format string, args ...any) {
	c.problems = append(c.problems, envelope.FieldError{Code: code, Field: field, Message: fmt.Sprintf(format, args...)})
}

// set records a value after checking that it parses as the flag's type.
func (c *call) set(f *schema.Flag, value string) {
	c.flags[f.Name] = f
	values := []string{value}
	if f.Type == schema.Array {
		values = splitList(value)
	}
	for _, v := range values {
		if err := checkType(f, v); err != nil {
			c.problem(errcode.InvalidFlagValue, f.Name, "invalid value %q for flag --%s: %v", v, f.Name, err)
			return
		}
	}
	c.values[f.Name] = append(c.values[f.Name], values...)
}

func splitList(v string) []string {
	parts := strings.Split(v, ",")
	out := parts[:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func checkType(f *schema.Flag, v string) error {
	t := f.Type
	if t == schema.Array || t == schema.Object {
		t = f.Items
	}
	if f.Type == schema.Object {
		if _, _, ok := strings.Cut(v, "="); !ok {
			return fmt.Errorf("want key=value")
		}
		return nil
	}
	var err error
	switch {
	case f.Format == "duration":
		_, err = time.ParseDuration(v)
	case t == schema.Integer:
		_, err = strconv.ParseInt(v, 0, 64)
	case t == schema.Number:
		_, err = strconv.ParseFloat(v, 64)
	case t == schema.Boolean:
		_, err = strconv.ParseBool(v)
	}
	if err != nil {
		return fmt.Errorf("want %s", describeType(f))
	}
	return nil
}

func describeType(f *schema.Flag) string {
	if f.Format == "duration" {
		return "a duration such as 30s or 5m"
	}
	t := f.Type
	if t == schema.Array {
		t = f.Items
	}
	switch t {
	case schema.Integer:
		return "an integer"
	case schema.Number:
		return "a number"
	case schema.Boolean:
		return "true or false"
	}
	return "a " + string(t)
}

// check finishes phase 1 on a parsed call: the framework's refusal of the
// command line, required flags and arguments, declared enums, patterns and
// ids, flag groups and the built-in flags.
//
// classify words the framework's refusal; fromProfile returns the value a
// saved profile gives a flag, or "".
func (c *call) check(classify func(error) *envelope.Error, lookupEnv func(string) (string, bool), fromProfile func(*schema.Flag) string) {
	if c.refused == nil && !c.node.Runnable && len(c.args) > 0 && !c.help {
		// cobra shows a group's help for a word that names none of its
		// commands, and exits 0: an agent would take that for success.
		c.refusal(envelope.Invalid([]envelope.FieldError{{Code: errcode.UnknownCommand, Field: c.args[0]}}))
	}
	for _, err := range c.refused {
		c.refusal(classify(err))
	}
	if c.help || c.version || c.on(flagname.Schema) || c.on(flagname.PrintSchema) || c.on(flagname.OutputSchema) {
		return // help, version and schema answer whatever else is wrong
	}
	fromEnv := func(f *schema.Flag) bool {
		for _, e := range f.Env {
			if _, ok := lookupEnv(e); ok {
				return true
			}
		}
		return false
	}
	for f := range c.node.Accepted() {
		given, what := c.values[f.Name], "flag --"+f.Name
		if len(given) == 0 && !fromEnv(f) {
			if v := fromProfile(f); v != "" {
				given, what = splitFor(f, v), what+" (from a saved profile)"
			}
		}
		if f.Required && len(given) == 0 && !fromEnv(f) && c.refused == nil {
			c.problem(errcode.MissingRequiredFlag, f.Name, "required flag --%s is missing", f.Name)
		}
		for _, v := range given {
			c.constrain(f.Name, what, v, f.Enum, f.Pattern, f.ID)
		}
		c.checkRepeated(f)
	}
	// A parent's own flag given before the command's name (urfave's Local,
	// a v2 app's flag) is not among the command's, and repeats all the same.
	for _, name := range slices.Sorted(maps.Keys(c.flags)) {
		if c.node.Flag(name) == nil {
			c.checkRepeated(c.flags[name])
		}
	}
	if c.refused == nil {
		c.checkArgs()
	} else { // the arguments read are not all there are: judge each alone
		c.checkArgValues()
	}
	c.checkGroups()
	c.checkRequires(lookupEnv, fromProfile) // input: Meta.Requires
	c.checkBuiltins()
	c.checkSubprocess(lookupEnv, fromProfile)
}

// cursorQuery names the list a call asks for — the command, and the values
// of its own flags and its arguments, less Duet's, which shape the answer
// rather than choose the list — so that a cursor is honoured only by the
// query it came from (REQ-O-003); --limit may change between pages.
func (c *call) cursorQuery() string {
	h := fnv.New32a()
	h.Write([]byte(c.node.DotPath()))
	for _, name := range slices.Sorted(maps.Keys(c.values)) {
		// Duet's own flags (--limit, --format ...) do not change the list;
		// a built-in command's own filters (audit-log --command) do.
		if f := c.flags[name]; f == nil || f.Builtin && (!c.node.Builtin || isBuiltinFlag(name)) {
			continue
		}
		fmt.Fprintf(h, "\x00%s=%s", name, strings.Join(c.values[name], "\x01"))
	}
	for _, a := range c.args {
		fmt.Fprintf(h, "\x00%s", a)
	}
	return strconv.FormatUint(uint64(h.Sum32()), 36)
}

// checkRepeated refuses a flag that takes one value given twice with two
// values (--format json … --format tsv): which one wins is the parser's
// accident, and an agent would not know it lost (REQ-F-067). The same value
// twice is harmless; a list or a counter takes every one.
func (c *call) checkRepeated(f *schema.Flag) {
	given := c.values[f.Name]
	if f.Type == schema.Array || f.Count || len(given) < 2 {
		return
	}
	for _, v := range given[1:] {
		if v != given[0] {
			c.problems = append(c.problems, envelope.FieldError{Code: "CONFLICTING_VALUES", Field: f.Name,
				Message:    fmt.Sprintf("--%s is given %d times with different values (%s); it takes one", f.Name, len(given), strings.Join(quoted(given), ", ")),
				Suggestion: fmt.Sprintf("give --%s once", f.Name)})
			return
		}
	}
}

func quoted(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strconv.Quote(v)
	}
	return out
}

// refusal records the framework's refusal as problems, with what Duet adds:
// the commands or flags there are, and the closest one to what was typed.
func (c *call) refusal(e *envelope.Error) {
	problems := e.Errors
	if len(problems) == 0 {
		problems = []envelope.FieldError{{Code: e.Code, Field: e.Field, Message: e.Message, ValidValues: e.ValidValues}}
	}
	for _, p := range problems {
		p.Message, _, _ = strings.Cut(p.Message, "\n") // cobra appends its own suggestions
		// The same words whichever framework refused it: an agent's answer
		// does not depend on the framework beneath.
		switch name := dashed(p.Field); p.Code {
		case errcode.UnknownFlag:
			if p.Field != "" {
				p.Message = fmt.Sprintf("unknown flag %s for %q", name, c.node.DotPath())
			}
		case errcode.MissingFlagValue:
			if f := c.node.Flag(p.Field); f != nil {
				p.Field, p.Message = f.Name, fmt.Sprintf("flag --%s needs a value", f.Name)
			}
		case errcode.InvalidFlagValue:
			quoted, _ := strconv.QuotedPrefix(strings.TrimPrefix(p.Message, "invalid value "))
			v, err := strconv.Unquote(quoted)
			if f := c.node.Flag(p.Field); f != nil && err == nil {
				if err := checkType(f, v); err != nil {
					p.Field, p.Message = f.Name, fmt.Sprintf("invalid value %q for flag --%s: %v", v, f.Name, err)
				}
			}
		}
		switch p.Code {
		case errcode.UnknownCommand:
			if p.Field != "" { // the same words whichever framework refused it
				p.Message = fmt.Sprintf("unknown command %q for %q", p.Field, c.node.DotPath())
			}
			var names []string
			for _, s := range c.node.Commands {
				if !s.Hidden {
					names = append(names, s.Name)
				}
			}
			p.ValidValues = names
			if s := suggest.Closest(p.Field, names); s != "" && p.Suggestion == "" {
				p.Suggestion = "did you mean " + strings.TrimSpace(strings.Join(append(slices.Clone(c.node.Path), s), " ")) + "?"
			}
		case errcode.UnknownFlag:
			if s := suggest.Closest(strings.TrimLeft(p.Field, "-"), flagNames(c.node)); s != "" && p.Suggestion == "" {
				p.Suggestion = "did you mean --" + s + "?"
			}
		}
		c.problems = append(c.problems, p)
	}
}

// dashed writes a flag's name as it is typed: -x, --name.
func dashed(name string) string {
	name = strings.TrimLeft(name, "-")
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// checkArgValues holds each positional argument read to what the command
// declares of the argument in its place.
func (c *call) checkArgValues() {
	declared := c.node.Args
	for i, v := range c.args {
		if len(declared) == 0 {
			return
		}
		a := declared[min(i, len(declared)-1)]
		if i >= len(declared) && !a.Variadic {
			return
		}
		c.constrain(a.Name, "argument <"+a.Name+">", v, a.Enum, a.Pattern, a.ID)
	}
}

// checkArgs holds the positional arguments to those the command declares.
// A command that declares none is not known to take none: the framework, or
// the command itself, is left to judge them.
func (c *call) checkArgs() {
	declared := c.node.Args
	if len(declared) == 0 && !c.node.NoArgs {
		return
	}
	i := 0
	for _, a := range declared {
		if a.Variadic {
			if a.Required && i >= len(c.args) {
				c.problem("MISSING_ARGUMENT", a.Name, "required argument <%s> is missing", a.Name)
			}
			for ; i < len(c.args); i++ {
				c.constrain(a.Name, "argument <"+a.Name+">", c.args[i], a.Enum, a.Pattern, a.ID)
			}
			return
		}
		if i >= len(c.args) {
			if a.Required {
				c.problem("MISSING_ARGUMENT", a.Name, "required argument <%s> is missing", a.Name)
			}
			continue
		}
		c.constrain(a.Name, "argument <"+a.Name+">", c.args[i], a.Enum, a.Pattern, a.ID)
		i++
	}
	if i < len(c.args) {
		c.problem("UNEXPECTED_ARGUMENT", "", "unexpected argument %q: %q takes %s", c.args[i], c.node.DotPath(), argCount(len(declared)))
	}
}

func (c *call) constrain(field, what, v string, enum []string, pattern string, id bool) {
	// An input already refused (stdin gave no value for it, say) is one
	// problem, not also the placeholder's.
	if slices.ContainsFunc(c.problems, func(p envelope.FieldError) bool { return p.Field == field }) {
		return
	}
	if len(enum) > 0 && !slices.Contains(enum, v) {
		c.problem(errcode.InvalidEnumValue, field, "%s must be one of %s, not %q", what, strings.Join(enum, ", "), v)
		c.problems[len(c.problems)-1].ValidValues = enum
	}
	// A made-up id is one problem, named for what it is, not also a
	// pattern it misses.
	if id {
		if reason := hallucinated(v); reason != "" {
			c.problem("INVALID_ID", field, "%s %q is not a resource id: %s", what, v, reason)
			return
		}
	}
	if pattern != "" {
		if !regexp.MustCompile(pattern).MatchString(v) { // checked by Prepare
			c.problem("PATTERN_MISMATCH", field, "%s %q does not match %s", what, v, pattern)
		}
	}
}

// hallucinated explains why v cannot be a real resource id, or returns "".
// It refuses what agents invent or smuggle: placeholders such as <id> or
// {id}, path traversal, percent-encoding, query and fragment characters.
func hallucinated(v string) string {
	lower := strings.ToLower(v)
	switch {
	case v == "":
		return "it is empty"
	case v == ".":
		return "it names the current directory, not a resource"
	case strings.Contains(v, ".."):
		return "it contains a path traversal (..)"
	case strings.ContainsAny(v, "/\\"):
		return "it contains a path separator"
	case strings.Contains(v, "%"):
		return "it contains percent-encoding"
	case strings.ContainsAny(v, "<>{}$"):
		return "it looks like a placeholder, not a value"
	case strings.ContainsAny(v, "?&#"):
		return "it contains a query or fragment character"
	case strings.IndexFunc(v, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0:
		return "it contains whitespace or a control character"
	case lower == "id" || lower == "your-id" || lower == "xxx":
		return "it looks like a placeholder, not a value"
	}
	return ""
}

func (c *call) checkGroups() {
	for _, g := range c.node.Meta.Groups {
		var set []string
		for _, name := range g.Flags {
			if c.has(name) {
				set = append(set, "--"+name)
			}
		}
		all := "--" + strings.Join(g.Flags, ", --")
		switch {
		case g.Kind == schema.MutuallyExclusive && len(set) > 1:
			c.problem("MUTUALLY_EXCLUSIVE_FLAGS", g.Flags[0], "flags %s cannot be used together", strings.Join(set, " and "))
		case g.Kind == schema.RequiredTogether && len(set) > 0 && len(set) < len(g.Flags):
			c.problem("FLAGS_REQUIRED_TOGETHER", g.Flags[0], "flags %s must be given together (got %s)", all, strings.Join(set, ", "))
		case g.Kind == schema.OneRequired && len(set) == 0:
			c.problem("ONE_FLAG_REQUIRED", g.Flags[0], "one of the flags %s is required", all)
		}
	}
}

// checkBuiltins checks the values of Duet's own flags; an app flag of the
// same name is the app's to check.
func (c *call) checkBuiltins() {
	if v, ok := c.opt(flagname.Timeout); ok {
		if d, err := time.ParseDuration(v); err == nil && d < 0 {
			c.problem(errcode.InvalidFlagValue, flagname.Timeout, "--timeout must not be negative")
		}
	}
	if v, ok := c.opt(flagname.Limit); ok {
		if n, err := strconv.Atoi(v); err == nil && n < 0 {
			c.problem(errcode.InvalidFlagValue, flagname.Limit, "--limit must be 0 (all) or more, not %d", n)
		}
	}
	if v, ok := c.opt(flagname.Cursor); ok {
		if _, _, err := envelope.ReadCursor(v, c.cursorQuery()); err != nil {
			e := envelope.As(err)
			c.problems = append(c.problems, envelope.FieldError{Code: e.Code, Field: flagname.Cursor, Message: e.Message, Suggestion: e.Suggestion})
		}
	}
	if _, ok := c.opt(flagname.Fields); ok && c.node.Meta.Output != nil {
		// An output schema that cannot be built names no fields to check
		// against; --schema and describe report it.
		s, _ := c.node.OutputSchema()
		known := s.Properties()
		// The spec has an unknown name ignored, as a projection would; the
		// warning says so, so a misspelling is not silent.
		for _, f := range c.values[flagname.Fields] {
			if len(known) > 0 && !slices.Contains(known, f) {
				c.warnings = append(c.warnings, [3]string{"UNKNOWN_FIELD",
					fmt.Sprintf("--fields: %q is not a field of this command's output, and was ignored", f),
					"use one of: " + strings.Join(known, ", ")})
			}
		}
	}
	c.checkWorkFlags()
}

func flagNames(c *schema.Command) []string {
	var names []string
	for f := range c.Accepted() {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	return names
}

func argCount(n int) string {
	switch n {
	case 0:
		return "no arguments"
	case 1:
		return "one argument"
	}
	return strconv.Itoa(n) + " arguments"
}
