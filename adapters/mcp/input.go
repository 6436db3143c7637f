package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strings"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/suggest"
	"github.com/duet-cli/duet/schema"
)

// commandLine checks a tool call's arguments against the command's tool input
// schema and turns them into the command line that runs it: the command's
// path, a --name=value per flag value, then `--` and the positional
// arguments. It reports every violation at once, in the codes the CLI's own
// validation uses, and builds nothing when there is one.
//
// It checks exactly what [schema.Command.ToolInputSchema] declares — types,
// enums, patterns, required members, no unknown members — and
// TestInputAgreesWithJSONSchema holds it to a JSON Schema validator on the
// same document. Beyond the schema, a file the command reads or writes
// (schema.InProject) must lie in project.
func commandLine(c *schema.Command, raw json.RawMessage, project string) ([]string, *envelope.Error) {
	var in map[string]json.RawMessage
	if len(bytes.TrimSpace(raw)) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, envelope.Validationf(errcode.InvalidArguments, "the arguments are not a JSON object: %v", err).
				WithSuggestion("send the arguments as one object, as the tool's inputSchema describes")
		}
	}
	r := reader{project: project}
	flags := c.ToolFlags()
	for _, name := range slices.Sorted(maps.Keys(in)) {
		// An argument named like a flag hides it, as in the schema.
		if a := findArg(c.Args, name); a != nil {
			r.arg(a, in[name])
		} else if f := findFlag(flags, name); f != nil {
			r.flag(f, in[name])
		} else {
			r.problem(errcode.UnknownFlag, name, "unknown input %q", name)
			if s := suggest.Closest(name, inputNames(flags, c.Args)); s != "" {
				r.problems[len(r.problems)-1].Suggestion = fmt.Sprintf("did you mean %q?", s)
			}
		}
	}
	for _, f := range flags {
		if _, ok := in[f.Name]; f.Required && !ok {
			r.problem(errcode.MissingRequiredFlag, f.Name, "%q is required", f.Name)
		}
	}
	var positional []string
	for _, a := range c.Args {
		v, ok := r.args[a.Name]
		if !ok && a.Required {
			r.problem("MISSING_ARGUMENT", a.Name, "%q is required", a.Name)
		}
		positional = append(positional, v...)
	}
	if len(r.problems) > 0 {
		return nil, envelope.Invalid(r.problems)
	}
	argv := append(slices.Clone(c.Path), r.argv...)
	if len(positional) > 0 {
		argv = append(append(argv, "--"), positional...)
	}
	return argv, nil
}

// reader collects the command line and the problems of one call's arguments.
type reader struct {
	project  string // where files of schema.InProject flags must lie
	argv     []string
	args     map[string][]string
	problems []envelope.FieldError
}

func (r *reader) problem(code, field, format string, args ...any) {
	r.problems = append(r.problems, envelope.FieldError{Code: code, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (r *reader) flag(f *schema.Flag, raw json.RawMessage) {
	switch f.Type {
	case schema.Array:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			r.mismatch(f.Name, "an array", raw)
			return
		}
		for _, item := range items {
			if v, ok := r.scalar(f.Name, orString(f.Items), f.Enum, f.Pattern, item); ok && r.confined(f, v) {
				r.argv = append(r.argv, "--"+f.Name+"="+v)
			}
		}
	case schema.Object:
		var members map[string]json.RawMessage
		if json.Unmarshal(raw, &members) != nil || members == nil {
			r.mismatch(f.Name, "an object", raw)
			return
		}
		for _, k := range slices.Sorted(maps.Keys(members)) {
			if v, ok := r.scalar(f.Name, orString(f.Items), f.Enum, f.Pattern, members[k]); ok {
				r.argv = append(r.argv, "--"+f.Name+"="+k+"="+v)
			}
		}
	default:
		if v, ok := r.scalar(f.Name, f.Type, f.Enum, f.Pattern, raw); ok && r.confined(f, v) {
			r.argv = append(r.argv, "--"+f.Name+"="+v)
		}
	}
}

// confined reports whether the file v of f may be used, noting the problem
// when it lies outside the project.
func (r *reader) confined(f *schema.Flag, v string) bool {
	why := outside(r.project, f.Path, v)
	if why == "" {
		return true
	}
	r.problem(PathOutsideProject, f.Name, "%q: %s", v, why)
	r.problems[len(r.problems)-1].Suggestion = "name a file inside " + r.project + "; a tool reads and writes the files of the project its server was started in"
	return false
}

func (r *reader) arg(a *schema.Arg, raw json.RawMessage) {
	if r.args == nil {
		r.args = map[string][]string{}
	}
	r.args[a.Name] = nil // given, even if not valid: not also missing
	if !a.Variadic {
		if v, ok := r.scalar(a.Name, orString(a.Type), a.Enum, a.Pattern, raw); ok {
			r.args[a.Name] = []string{v}
		}
		return
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		r.mismatch(a.Name, "an array", raw)
		return
	}
	if len(items) == 0 && a.Required {
		r.problem("MISSING_ARGUMENT", a.Name, "%q needs at least one value", a.Name)
	}
	values := []string{}
	for _, item := range items {
		if v, ok := r.scalar(a.Name, orString(a.Type), a.Enum, a.Pattern, item); ok {
			values = append(values, v)
		}
	}
	r.args[a.Name] = values
}

// scalar checks one JSON value against a type, enum and pattern, and returns
// it as the command line writes it.
func (r *reader) scalar(field string, t schema.Type, enum []string, pattern string, raw json.RawMessage) (string, bool) {
	var v string
	switch t {
	case schema.String:
		if json.Unmarshal(raw, &v) != nil || !isJSONString(raw) {
			r.mismatch(field, "a string", raw)
			return "", false
		}
	case schema.Boolean:
		var b bool
		if json.Unmarshal(raw, &b) != nil || !isJSONBool(raw) {
			r.mismatch(field, "true or false", raw)
			return "", false
		}
		v = fmt.Sprint(b)
	case schema.Integer, schema.Number:
		n, ok := number(raw)
		if !ok || t == schema.Integer && !n.IsInt() {
			r.mismatch(field, map[schema.Type]string{schema.Integer: "an integer", schema.Number: "a number"}[t], raw)
			return "", false
		}
		v = n.RatString()
		if !n.IsInt() {
			f, _ := n.Float64()
			v = fmt.Sprint(f)
		}
	default:
		r.mismatch(field, string(t), raw)
		return "", false
	}
	if len(enum) > 0 && (t != schema.String || !slices.Contains(enum, v)) {
		r.problems = append(r.problems, envelope.FieldError{
			Code: errcode.InvalidEnumValue, Field: field, ValidValues: enum,
			Message: fmt.Sprintf("%q is not a valid value of %q; use one of %s", v, field, strings.Join(enum, ", ")),
		})
		return "", false
	}
	if pattern != "" && t == schema.String {
		if re, err := regexp.Compile(pattern); err == nil && !re.MatchString(v) {
			r.problem("PATTERN_MISMATCH", field, "%q does not match the pattern %s of %q", v, pattern, field)
			return "", false
		}
	}
	return v, true
}

func (r *reader) mismatch(field, want string, raw json.RawMessage) {
	got := string(raw)
	if len(got) > 40 {
		got = got[:40] + "…"
	}
	r.problem(errcode.InvalidFlagValue, field, "%q must be %s, not %s", field, want, got)
}

// number reads a JSON number exactly: 3.0 is an integer, as JSON Schema has it.
func number(raw json.RawMessage) (*big.Rat, bool) {
	if b := bytes.TrimSpace(raw); len(b) == 0 || b[0] != '-' && (b[0] < '0' || b[0] > '9') {
		return nil, false // encoding/json reads "3", a string, as a json.Number
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&n) != nil {
		return nil, false
	}
	return new(big.Rat).SetString(n.String())
}

func isJSONString(raw json.RawMessage) bool {
	b := bytes.TrimSpace(raw)
	return len(b) > 0 && b[0] == '"'
}

func isJSONBool(raw json.RawMessage) bool {
	b := string(bytes.TrimSpace(raw))
	return b == "true" || b == "false"
}

func findFlag(flags []*schema.Flag, name string) *schema.Flag {
	for _, f := range flags {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func findArg(args []schema.Arg, name string) *schema.Arg {
	for i := range args {
		if args[i].Name == name {
			return &args[i]
		}
	}
	return nil
}

func inputNames(flags []*schema.Flag, args []schema.Arg) []string {
	var names []string
	for _, f := range flags {
		names = append(names, f.Name)
	}
	for _, a := range args {
		names = append(names, a.Name)
	}
	return names
}

func orString(t schema.Type) schema.Type {
	if t == "" {
		return schema.String
	}
	return t
}
