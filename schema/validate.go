package schema

// Input is what a command was given, as its [Meta.Validate] hook sees it:
// each flag's values — from the command line, else the environment, a saved
// profile or the flag's default — and the positional arguments. Values are
// the text given; the declared checks have already judged their types.
type Input struct {
	values map[string][]string
	given  map[string]bool
	args   []string
}

// NewInput returns an Input; given names the flags set on the command line,
// the environment or a profile rather than by default. For tests of a
// Validate hook, and for adapters.
func NewInput(values map[string][]string, given map[string]bool, args []string) Input {
	return Input{values: values, given: given, args: args}
}

// String is the flag's value: the last one given, or "".
func (in Input) String(name string) string {
	v := in.values[name]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// Strings is every value of the flag, for a flag given more than once or a list.
func (in Input) Strings(name string) []string { return in.values[name] }

// Has reports whether the flag was given, not left to its default.
func (in Input) Has(name string) bool { return in.given[name] }

// Args are the positional arguments.
func (in Input) Args() []string { return in.args }
