package adapters

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/suggest"
	"github.com/duet-cli/duet/schema"
)

// call is the lifecycle's own reading of the command line against the neutral
// tree. It runs before the framework parses, so that every validation failure
// is found at once, identically for every framework, and nothing runs until
// the whole input is known to be good.
type call struct {
	node     *schema.Command
	values   map[string][]string // flag long name → values given on the command line
	args     []string
	forward  []string // the command line without Duet's built-in flags, for the framework
	problems []envelope.FieldError
	unknown  string // an unknown subcommand, if any
	help     bool   // -h, --help or the help command
	version  bool   // --version on the root
}

func (c *call) has(flag string) bool { _, ok := c.values[flag]; return ok }

func (c *call) last(flag string) string {
	v := c.values[flag]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

func (c *call) bool(flag string) bool {
	b, _ := strconv.ParseBool(c.last(flag))
	return c.has(flag) && b
}

func (c *call) problem(code, field, format string, args ...any) {
	c.problems = append(c.problems, envelope.FieldError{Code: code, Field: field, Message: fmt.Sprintf(format, args...)})
}

// parseCall walks args from the root: subcommand names descend, flags are
// looked up among the flags the current command accepts, everything else is a
// positional argument.
//
// Duet's built-in flags are the lifecycle's alone: they are left out of the
// command line the framework parses, which then need not know them.
func parseCall(root *schema.Command, args []string) *call {
	c := &call{node: root, values: map[string][]string{}, forward: make([]string, 0, len(args))}
	onlyArgs := false
	for i := 0; i < len(args); i++ {
		tok := args[i]
		switch {
		case onlyArgs || tok == "-" || !strings.HasPrefix(tok, "-"):
			c.forward = append(c.forward, tok)
			if !onlyArgs && len(c.args) == 0 && c.descend(tok) {
				if c.node.Passthrough { // the rest is the framework's alone
					c.forward = append(c.forward, args[i+1:]...)
					return c
				}
				continue
			}
			if c.unknown != "" || c.help {
				continue
			}
			c.args = append(c.args, tok)
		case tok == "--":
			c.forward = append(c.forward, tok)
			onlyArgs = true
		default:
			f, used := c.flag(tok, args[i+1:])
			if f == nil || !f.Builtin {
				c.forward = append(c.forward, args[i:i+1+used]...)
			}
			i += used
		}
	}
	return c
}

// descend moves to the subcommand tok names, and reports whether tok was a
// command word rather than an argument.
func (c *call) descend(tok string) bool {
	if c.unknown != "" {
		return true
	}
	if sub := c.node.Sub(tok); sub != nil {
		c.node = sub
		return true
	}
	if len(c.node.Commands) == 0 {
		return false
	}
	if tok == "help" {
		c.help = true
		return true
	}
	if c.node.Runnable {
		return false // a runnable group takes unknown words as arguments
	}
	c.unknown = tok
	return true
}

// flag reads one flag token and, when it takes a separate value, the next
// token; it returns the flag, when tok names one, and how many extra tokens
// it consumed.
func (c *call) flag(tok string, rest []string) (*schema.Flag, int) {
	name, value, inline := strings.Cut(strings.TrimLeft(tok, "-"), "=")
	f := c.node.Flag(name)
	if f == nil && !strings.HasPrefix(tok, "--") && len(name) > 1 && !inline {
		if ok := c.shortGroup(name); ok {
			return nil, 0
		}
	}
	if f == nil {
		switch {
		case name == "help" || name == "h":
			c.help = true
		case name == "version" && c.node.Parent == nil:
			c.version = true
		default:
			c.problem("UNKNOWN_FLAG", name, "unknown flag %s for %q", tok, c.node.DotPath())
			if s := suggest.Closest(name, flagNames(c.node)); s != "" {
				c.problems[len(c.problems)-1].Suggestion = "did you mean --" + s + "?"
			}
		}
		return nil, 0
	}
	used := 0
	if !inline {
		if f.TakesValue() {
			if len(rest) == 0 {
				c.problem("MISSING_FLAG_VALUE", f.Name, "flag --%s needs a value", f.Name)
				return f, 0
			}
			value, used = rest[0], 1
		} else {
			value = presence(f)
		}
	}
	c.set(f, value)
	return f, used
}

// presence is the value of a flag given without one: true, or one more for a
// counting flag (-vvv).
func presence(f *schema.Flag) string {
	if f.Count {
		return "1"
	}
	return "true"
}

// shortGroup accepts -abc as -a -b -c when every letter is a boolean flag.
func (c *call) shortGroup(name string) bool {
	var flags []*schema.Flag
	for _, r := range name {
		f := c.node.Flag(string(r))
		if f == nil || f.TakesValue() {
			return false
		}
		flags = append(flags, f)
	}
	for _, f := range flags {
		c.set(f, presence(f))
	}
	return true
}

// set records a value after checking that it parses as the flag's type.
func (c *call) set(f *schema.Flag, value string) {
	values := []string{value}
	if f.Type == schema.Array {
		values = splitList(value)
	}
	for _, v := range values {
		if err := checkType(f, v); err != nil {
			c.problem("INVALID_FLAG_VALUE", f.Name, "invalid value %q for flag --%s: %v", v, f.Name, err)
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

// check finishes phase 1 on a parsed call: required flags and arguments,
// declared enums, patterns and ids, flag groups and the built-in flags.
//
// fromProfile returns the value a saved profile gives a flag, or "".
func (c *call) check(lookupEnv func(string) (string, bool), fromProfile func(*schema.Flag) string) {
	if c.unknown != "" {
		c.problem("UNKNOWN_COMMAND", "", "unknown command %q for %q", c.unknown, c.node.DotPath())
		p := &c.problems[len(c.problems)-1]
		var names []string
		for _, s := range c.node.Commands {
			if !s.Hidden {
				names = append(names, s.Name)
			}
		}
		p.ValidValues = names
		if s := suggest.Closest(c.unknown, names); s != "" {
			p.Suggestion = "did you mean " + strings.TrimSpace(strings.Join(append(c.node.Path, s), " ")) + "?"
		}
		return
	}
	if c.help || c.version || c.bool(FlagSchema) {
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
		if f.Required && len(given) == 0 && !fromEnv(f) {
			c.problem("MISSING_REQUIRED_FLAG", f.Name, "required flag --%s is missing", f.Name)
		}
		for _, v := range given {
			c.constrain(f.Name, what, v, f.Enum, f.Pattern, f.ID)
		}
	}
	c.checkArgs()
	c.checkGroups()
	c.checkBuiltins()
}

func (c *call) checkArgs() {
	declared := c.node.Args
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
	if len(enum) > 0 && !slices.Contains(enum, v) {
		c.problem("INVALID_ENUM_VALUE", field, "%s must be one of %s, not %q", what, strings.Join(enum, ", "), v)
		c.problems[len(c.problems)-1].ValidValues = enum
	}
	if pattern != "" {
		if !regexp.MustCompile(pattern).MatchString(v) { // checked by Prepare
			c.problem("PATTERN_MISMATCH", field, "%s %q does not match %s", what, v, pattern)
		}
	}
	if id {
		if reason := hallucinated(v); reason != "" {
			c.problem("INVALID_ID", field, "%s %q is not a resource id: %s", what, v, reason)
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

func (c *call) checkBuiltins() {
	if c.has(FlagTimeout) {
		if d, err := time.ParseDuration(c.last(FlagTimeout)); err == nil && d < 0 {
			c.problem("INVALID_FLAG_VALUE", FlagTimeout, "--timeout must not be negative")
		}
	}
	if c.has(FlagLimit) {
		if n, err := strconv.Atoi(c.last(FlagLimit)); err == nil && n < 0 {
			c.problem("INVALID_FLAG_VALUE", FlagLimit, "--limit must be 0 (all) or more, not %d", n)
		}
	}
	if c.has(FlagCursor) {
		if _, err := envelope.DecodeCursor(c.last(FlagCursor)); err != nil {
			e := envelope.As(err)
			c.problems = append(c.problems, envelope.FieldError{Code: e.Code, Field: FlagCursor, Message: e.Message, Suggestion: e.Suggestion})
		}
	}
	if fields := c.values[FlagFields]; len(fields) > 0 && c.node.Meta.Output != nil {
		// An output schema that cannot be built names no fields to check
		// against; --schema and describe report it.
		s, _ := c.node.OutputSchema()
		known := s.Properties()
		for _, f := range fields {
			if len(known) > 0 && !slices.Contains(known, f) {
				c.problem("UNKNOWN_FIELD", FlagFields, "--fields: %q is not a field of this command's output", f)
				c.problems[len(c.problems)-1].ValidValues = known
			}
		}
	}
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
