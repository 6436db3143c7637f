package adapters

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// streamOutput is the --format an invocation asks for once --stream and
// --no-stream are read: --stream is --format jsonl, --no-stream --format
// json. A --format given as well wins.
func (inv *invocation) streamOutput(output string) string {
	c := inv.call
	switch {
	case output != "":
		return output
	case c.on(flagname.Stream):
		return string(envelope.JSONL)
	case c.on(flagname.NoStream):
		return string(envelope.JSON)
	}
	return output
}

// checkDiscovery finishes phase 1 for the discovery declarations: options
// after a strict command's first argument, --schema-version's range, and
// values longer than their field holds. It also chooses JSONL for an agent
// of a command that streams by default, and warns of --stream on a command
// that does not stream.
func (inv *invocation) checkDiscovery(args []string) {
	c := inv.call
	if c.help || c.version || c.on(flagname.Schema) || c.on(flagname.PrintSchema) || c.on(flagname.OutputSchema) {
		return
	}
	n := c.node
	if n.Placement() == schema.Strict {
		// The framework forwards what follows the first argument when every
		// token from the option on reached the command as an argument.
		if at, arg := optionAfterArgument(n, args); at >= 0 && !hasSuffix(c.args, args[at:]) {
			c.problems = append(c.problems, envelope.FieldError{Code: "OPTION_AFTER_ARGUMENT", Field: strings.TrimLeft(arg, "-"),
				Message:    fmt.Sprintf("%s takes its options before its arguments, and %q comes after one", n.DotPath(), arg),
				Suggestion: "put the options before the first argument; what is for the program it runs goes after --"})
		}
	}
	if v, ok := c.opt(flagname.SchemaVersion); ok {
		want, err := strconv.Atoi(v)
		if err == nil && (want < n.MinDataVersion() || want > n.DataVersion()) {
			valid := make([]string, 0, n.DataVersion()-n.MinDataVersion()+1)
			for i := n.MinDataVersion(); i <= n.DataVersion(); i++ {
				valid = append(valid, strconv.Itoa(i))
			}
			c.problems = append(c.problems, envelope.FieldError{Code: "SCHEMA_VERSION_UNSUPPORTED", Field: flagname.SchemaVersion, ValidValues: valid,
				Message:    fmt.Sprintf("%s answers in schema versions %d to %d, not %d", n.DotPath(), n.MinDataVersion(), n.DataVersion(), want),
				Suggestion: fmt.Sprintf("pass --schema-version %d, the current one", n.DataVersion())})
		}
	}
	for f := range n.Accepted() {
		if f.MaxBytes <= 0 {
			continue
		}
		for _, v := range c.values[f.Name] {
			if len(v) > f.MaxBytes {
				c.problems = append(c.problems, envelope.FieldError{Code: "FIELD_TOO_LARGE", Field: f.Name,
					Message:    fmt.Sprintf("--%s is %d bytes, and the field it writes holds at most %d", f.Name, len(v), f.MaxBytes),
					Suggestion: fmt.Sprintf("shorten --%s to %d bytes or fewer", f.Name, f.MaxBytes)})
			}
		}
	}
	if inv.mode.Agent && n.Meta.StreamingDefault && inv.format == "" && !c.on(flagname.NoStream) && !c.on(flagname.Stream) {
		inv.mode.Format = envelope.JSONL
	}
	if c.on(flagname.Stream) && n.Runnable && !n.Meta.Streaming && !n.Meta.StreamingDefault {
		inv.warn("STREAMING_NOT_SUPPORTED", fmt.Sprintf("%s does not stream: its answer comes as JSONL when it finishes", n.DotPath()),
			"drop --stream; the answer is the same without it")
	}
}

// hasSuffix reports whether s ends with suffix.
func hasSuffix(s, suffix []string) bool {
	return len(s) >= len(suffix) && slices.Equal(s[len(s)-len(suffix):], suffix)
}

// optionAfterArgument returns where in args, and which, the first option
// after the command's first positional argument is, or -1. The command's
// own words and the values of its options are not arguments; nothing after
// -- is an option.
func optionAfterArgument(n *schema.Command, args []string) (int, string) {
	words, seen := n.Path, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return -1, ""
		case strings.HasPrefix(a, "-") && a != "-":
			if seen {
				return i, a
			}
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if f := n.Flag(name); f != nil && f.TakesValue() && !hasValue {
				i++ // its value
			}
		case len(words) > 0 && a == words[0]:
			words = words[1:]
		default:
			seen = true
		}
	}
	return -1, ""
}

// announceDeprecation tells who calls a deprecated command so: an agent in
// a structured line on stderr, the spec's
// {"level":"warn","code":"DEPRECATED",...}, beside the envelope's warning;
// a person in a warning on stderr, when the framework does not tell them.
func (inv *invocation) announceDeprecation() {
	n := inv.call.node
	m := n.Meta
	if m.DeprecatedIn == "" {
		return
	}
	line := inv.root.Name + " " + strings.Join(n.Path, " ")
	msg := fmt.Sprintf("%s is deprecated since %s", line, m.DeprecatedIn)
	if m.Replacement != "" {
		msg += "; use " + m.Replacement + " instead"
	}
	if m.RemovedIn != "" {
		msg += "; it is removed in " + m.RemovedIn
	}
	if n.Deprecated == "" || !inv.mode.Agent { // the framework's own deprecation is already warned of, to an agent
		inv.warn("DEPRECATED", msg, m.Replacement)
	}
	if !inv.mode.Agent || inv.call.on(flagname.Quiet) { // --quiet: not a byte on stderr (REQ-O-008)
		return
	}
	rec := struct {
		Level       string `json:"level"`
		Code        string `json:"code"`
		Message     string `json:"message"`
		Replacement string `json:"replacement,omitempty"`
		RemovedIn   string `json:"removed_in,omitempty"`
	}{"warn", "DEPRECATED", msg, m.Replacement, m.RemovedIn}
	raw, _ := json.Marshal(rec)
	fmt.Fprintf(inv.cfg.stderr, "%s\n", raw)
}

// discoverySettings adds the token budget and the next-page command line
// to an answer's settings.
func (inv *invocation) discoverySettings(s *envelope.Settings) {
	c := inv.call
	var limit, offset int
	if v, ok := c.opt(flagname.TokenLimit); ok {
		limit, _ = strconv.Atoi(v)
	}
	if v, ok := c.opt(flagname.TokenOffset); ok {
		offset, _ = strconv.Atoi(v)
	}
	if count := c.on(flagname.TokenCount); count || limit > 0 || offset > 0 {
		name, _ := c.opt(flagname.Tokenizer)
		s.Budget = &envelope.Budget{Tokenizer: inv.cfg.tokenizerNamed(name), Limit: max(limit, 0), Offset: max(offset, 0), Count: count}
	}
	// A hint names only the flags the command takes (REQ-F-052): --limit
	// and --cursor are Duet's paging only on a list command (an app's own
	// --cursor would not read Duet's next_cursor); --fields where the
	// command has it.
	node := c.node
	s.Accepts = func(name string) bool {
		switch name {
		case flagname.Limit, flagname.Cursor:
			return node.Meta.List && node.Flag(name) != nil
		}
		return node.Flag(name) != nil
	}
	if c.node.Meta.List {
		s.NextPage = func(limit int, cursor string) string {
			return inv.root.Name + " " + commandLine(append(withoutPaging(inv.args), "--"+flagname.Limit, strconv.Itoa(limit), "--"+flagname.Cursor, cursor))
		}
	}
}

// withoutPaging returns args without --limit and --cursor and their values.
func withoutPaging(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && (name == flagname.Limit || name == flagname.Cursor) {
			if !hasValue {
				i++
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// dataVersion is the schema version the answer's data is in: the one
// --schema-version asks for, else the command's current one. A command
// that declares no versions answers in the envelope's.
func (inv *invocation) dataVersion() string {
	n := inv.call.node
	if !n.Versioned() {
		return envelope.SchemaVersion
	}
	if v, ok := inv.call.opt(flagname.SchemaVersion); ok {
		if want, err := strconv.Atoi(v); err == nil {
			return schema.VersionString(want)
		}
	}
	return schema.VersionString(n.DataVersion())
}

// reshape turns the recorded result into the answer asked for, before it is
// written: an older version's shape (--schema-version), arrays in a stable
// order (a declared sort key, --stable-output), and meta without its
// volatile members (--stable-output).
func (inv *invocation) reshape(fail *envelope.Error) *envelope.Error {
	c, n := inv.call, inv.call.node
	if inv.out == nil {
		return fail
	}
	stable := c.on(flagname.StableOutput)
	if stable {
		inv.meta.Stable, inv.meta.DurationMS, inv.meta.Timestamp = true, 0, ""
	}
	if fail != nil || !inv.ran.Load() {
		return fail
	}
	inv.meta.SchemaVersion = inv.dataVersion()
	result, ok := inv.out.Recorded()
	if !ok || result == nil {
		return fail
	}
	if n.Versioned() && inv.meta.SchemaVersion != schema.VersionString(n.DataVersion()) {
		want, _ := strconv.Atoi(strings.TrimSuffix(inv.meta.SchemaVersion, ".0"))
		older, err := n.Meta.Compat(want, result)
		if err != nil {
			return envelope.Errorf(exitcode.GeneralError, "SCHEMA_COMPAT_FAILED", "%s could not answer in schema version %d: %v", n.DotPath(), want, err).
				WithPhase(envelope.Execution).
				WithSuggestion(fmt.Sprintf("pass --schema-version %d, the current one", n.DataVersion()))
		}
		result = older
		inv.out.Result(result)
		inv.out.Warn("SCHEMA_DEPRECATED", fmt.Sprintf("schema version %d is deprecated; current is %d (current_version=%d requested_version=%d)", want, n.DataVersion(), n.DataVersion(), want),
			fmt.Sprintf("move to --schema-version %d", n.DataVersion()))
	}
	if stable || n.Meta.SortKey != "" { // a declared sort key opts into F-020: every array sorted
		if sorted, err := sortedResult(result, n.Meta.SortKey, true); err == nil {
			inv.out.Result(sorted)
		}
	}
	return fail
}

// sortedResult encodes result with its arrays in a stable order: a list of
// objects by key, when one is declared; with all, every array, at any
// depth, by its items' encodings (numbers by value). Objects encode with
// their keys sorted.
func sortedResult(result any, key string, all bool) (json.RawMessage, error) {
	raw, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if all {
		v = sortAll(v, key)
	} else if list, ok := v.([]any); ok && key != "" {
		slices.SortStableFunc(list, func(a, b any) int { return compareValues(member(a, key), member(b, key)) })
	}
	return json.Marshal(v)
}

func member(v any, key string) any {
	if m, ok := v.(map[string]any); ok {
		return m[key]
	}
	return v
}

// sortAll sorts every array in v, depth first: an array of objects that
// all have the member key by it, any other by its items' encodings.
func sortAll(v any, key string) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = sortAll(x, key)
		}
	case []any:
		for i, x := range t {
			t[i] = sortAll(x, key)
		}
		if key != "" && allHave(t, key) {
			slices.SortStableFunc(t, func(a, b any) int { return compareValues(member(a, key), member(b, key)) })
		} else {
			slices.SortStableFunc(t, compareValues)
		}
	}
	return v
}

// compareValues orders JSON values: numbers by value, strings
// lexicographically, anything else by its encoding; values of different
// kinds by kind.
func compareValues(a, b any) int {
	an, aNum := a.(json.Number)
	bn, bNum := b.(json.Number)
	if aNum && bNum {
		x, _ := an.Float64()
		y, _ := bn.Float64()
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return strings.Compare(an.String(), bn.String())
	}
	as, aStr := a.(string)
	bs, bStr := b.(string)
	if aStr && bStr {
		return strings.Compare(as, bs)
	}
	if k := kind(a) - kind(b); k != 0 {
		return k
	}
	ea, _ := json.Marshal(a)
	eb, _ := json.Marshal(b)
	return strings.Compare(string(ea), string(eb))
}

func kind(v any) int {
	switch v.(type) {
	case nil:
		return 0
	case bool:
		return 1
	case json.Number:
		return 2
	case string:
		return 3
	case []any:
		return 4
	}
	return 5
}
