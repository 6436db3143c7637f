package adapters

// The input area of the lifecycle: what a command reads beyond the flags and
// arguments it was given as they are — a payload on stdin or in a file
// (--input-file), all its inputs as one JSON object (--raw-payload), the
// JSON of flags declared JSON (JSON5 too, read by a JSONReader feature such
// as feature/json5), ids piped to an argument given as "-", the
// conditional rules between flags, and the options of directory walks
// (--no-follow-symlinks, --max-depth). Everything here happens in phase 1,
// before the command runs: a refusal changes nothing.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/input"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
	"github.com/duet-cli/duet/walk"
)

// stdinDrainLimit bounds how much of an oversized stdin is read (and
// discarded) to report its size: the writer is let finish rather than
// broken off, and an endless stream is not read for ever.
const stdinDrainLimit = 256 << 20

// inputFlags appends the built-in flags a command gets from what it declares it
// reads; json5 says a feature reads JSON5 where the command takes JSON.
func inputFlags(flags []schema.Flag, c *schema.Command, json5 bool) []schema.Flag {
	switch in := c.Stdin(); {
	case in == nil:
	case in.Mode == schema.StdinLines, in.Mode == schema.StdinRecords:
		flags = append(flags, schema.Flag{Name: flagname.InputFile, Type: schema.String, Path: schema.InProject,
			Usage: fmt.Sprintf("read the input from this file instead of stdin (- is stdin), line by line, each line at most %d bytes", in.MaxLineBytes)})
	default:
		flags = append(flags, schema.Flag{Name: flagname.InputFile, Type: schema.String, Path: schema.InProject,
			Usage: "read the input from this file instead of stdin (- is stdin); stdin takes at most 64 KiB, a file any size"})
	}
	if c.Meta.RawPayload {
		accepted := ""
		if json5 {
			accepted = " (JSON5 accepted)"
		}
		flags = append(flags, schema.Flag{Name: flagname.RawPayload, Type: schema.String, Format: schema.FormatJSON, Control: true,
			Usage: "every input as one JSON object" + accepted + " instead of flags and arguments; see raw_payload_schema in --schema"})
	}
	if c.Meta.Traverses {
		flags = append(flags,
			schema.Flag{Name: flagname.NoFollowSymlinks, Type: schema.Boolean, Default: false, Usage: "do not follow symlinks while walking directories"},
			schema.Flag{Name: flagname.MaxDepth, Type: schema.Integer, Default: walk.DefaultMaxDepth, Usage: "walk at most this many directory levels deep"})
	}
	return flags
}

// completeInput applies a command's input declarations to its flags and
// checks them, when the app is wrapped.
func completeInput(c *schema.Command) []error {
	var errs []error
	for name, fm := range c.Meta.Flags {
		f := findOwn(c, name)
		if f == nil {
			continue // reported by complete
		}
		if fm.JSON {
			if f.Type != schema.String {
				errs = append(errs, fmt.Errorf("flag --%s is declared JSON, but takes a %s, not a string", name, f.Type))
			}
			f.Format = schema.FormatJSON
		}
		if fm.Schema != nil {
			errs = append(errs, objectFlag(f, fm.Schema)...)
		}
		if fm.Pipe {
			if !f.TakesValue() {
				errs = append(errs, fmt.Errorf("flag --%s is declared Pipe, but takes no value", name))
			}
			f.Pipe = true
		}
	}
	piped := slices.ContainsFunc(c.Args, func(a schema.Arg) bool { return a.Pipe }) ||
		slices.ContainsFunc(c.Flags, func(f schema.Flag) bool { return f.Pipe })
	if piped && c.Meta.Stdin != "" {
		errs = append(errs, errors.New("a command that reads a payload on stdin (Meta.Stdin) cannot also read values from it (Pipe)"))
	}
	lines := c.Meta.StdinLines || c.Meta.Records != nil
	switch {
	case lines && c.Meta.Stdin == "":
		errs = append(errs, errors.New("Meta.StdinLines and Meta.Records need Meta.Stdin, which says what each line is"))
	case c.Meta.MaxLineBytes < 0, c.Meta.MaxLineBytes > 0 && !lines:
		errs = append(errs, fmt.Errorf("Meta.MaxLineBytes %d: a line cap is a positive number of bytes, for a command that declares Meta.StdinLines", c.Meta.MaxLineBytes))
	}
	for _, r := range c.Meta.Requires {
		if err := r.Check(c); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// objectFlag makes f an object flag (FlagMeta.Schema): its value is JSON
// text checked against the schema src declares, which must be one Match
// can judge whole, so that no value the schema refuses gets through.
func objectFlag(f *schema.Flag, src schema.Source) []error {
	if f.Type != schema.String {
		return []error{fmt.Errorf("flag --%s declares a Schema, but its values are of type %s: an object flag takes its value as one string of JSON", f.Name, f.Type)}
	}
	s, err := src.Schema()
	if err == nil && s["type"] != "object" && s["type"] != schema.Object {
		err = errors.New(`an object flag's value is a JSON object: declare "type": "object"`)
	}
	if err == nil {
		err = errors.Join(s.Check(), s.Matchable())
	}
	if err != nil {
		return []error{fmt.Errorf("flag --%s: Schema: %w", f.Name, err)}
	}
	f.Format, f.Schema = schema.FormatJSON, s
	return nil
}

// rewrite reads what stands for other input on the command line, and
// returns the command line the framework is to run, read again: the
// --raw-payload object as the flags and arguments it names, ids read from
// stdin in place of "-", the values of JSON flags as strict JSON, and the
// defaults rules give. What is wrong is recorded on the call it returns.
// A command line that asks for help, the schema or the version is left as
// it is.
func (inv *invocation) rewrite(args []string, c *call) ([]string, *call) {
	if c.help || c.version || c.on(flagname.Schema) || c.on(flagname.ShowConfig) || !c.node.Runnable || c.refused != nil {
		return args, c
	}
	var problems []envelope.FieldError
	reread := func(next []string) {
		if slices.Equal(next, args) {
			return
		}
		args = next
		n := inv.parse(args)
		n.version = c.version
		c = n
		inv.call = c
	}
	var refused []error
	if v, ok := c.opt(flagname.RawPayload); ok {
		next, ps := c.expandPayload(args, v, inv.cfg.readJSON)
		if len(ps) > 0 {
			// As a refused command line is: what the payload was to carry
			// (required flags, arguments) cannot be judged without it.
			refused = append(refused, envelope.Invalid(ps))
		}
		reread(next)
	}
	if next, ps, err := inv.pipe(args, c); err != nil {
		inv.inputErr = err
	} else {
		problems = append(problems, ps...)
		reread(next)
	}
	next, ps := c.normalizeJSON(args, inv.cfg.readJSON)
	problems = append(problems, ps...)
	reread(next)
	reread(c.ruleDefaults(args, inv.cfg.lookupEnv, inv.profiles.valueOf))
	problems = append(problems, c.checkInputFlags()...)
	c.problems = append(c.problems, problems...)
	c.refused = append(c.refused, refused...)
	return args, c
}

// checkInputFlags checks the values of the input area's built-in flags.
func (c *call) checkInputFlags() []envelope.FieldError {
	var problems []envelope.FieldError
	if v, ok := c.opt(flagname.InputFile); ok && v != "-" {
		fi, err := os.Stat(v)
		switch {
		case err != nil:
			problems = append(problems, envelope.FieldError{Code: "INVALID_INPUT_FILE", Field: flagname.InputFile,
				Message: fmt.Sprintf("--input-file %s: %v", v, reason(err))})
		case fi.IsDir():
			problems = append(problems, envelope.FieldError{Code: "INVALID_INPUT_FILE", Field: flagname.InputFile,
				Message: fmt.Sprintf("--input-file %s is a directory, not a file", v)})
		case fi.Mode()&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeSocket) != 0:
			// /dev/zero would be read without end; a pipe (<(…)) is fine.
			problems = append(problems, envelope.FieldError{Code: "INVALID_INPUT_FILE", Field: flagname.InputFile,
				Message: fmt.Sprintf("--input-file %s is a device or a socket, not a file or a pipe", v)})
		}
	}
	if v, ok := c.opt(flagname.MaxDepth); ok {
		if n, err := strconv.Atoi(v); err == nil && n < 1 {
			problems = append(problems, envelope.FieldError{Code: errcode.InvalidFlagValue, Field: flagname.MaxDepth,
				Message: fmt.Sprintf("--max-depth must be 1 or more, not %d", n)})
		}
	}
	return problems
}

func reason(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}

// readPayload reads the payload of a command that declares Meta.Stdin, once
// the command line is known to be valid: the file --input-file names (read
// by the command, streaming), or stdin, whole and within its cap, now —
// before the command writes anything, so that a caller writing stdin
// before it reads stdout cannot deadlock with it.
func (inv *invocation) readPayload() {
	c := inv.call
	if inv.inputErr != nil || c.node.Meta.Stdin == "" || len(c.problems) > 0 || c.help || c.version ||
		c.on(flagname.Schema) || c.on(flagname.ShowConfig) || !c.node.Runnable {
		return
	}
	if c.node.Meta.StdinLines || c.node.Meta.Records != nil {
		inv.payload = inv.linesPayload()
		return
	}
	if v, ok := c.opt(flagname.InputFile); ok && v != "-" {
		inv.payload = input.FromFile(v)
		return
	}
	data, err := inv.readStdin("the input", "write the input to a file and use --input-file <path> instead")
	switch {
	case err != nil:
		inv.inputErr = err
	case len(data) == 0:
		inv.inputErr = envelope.Validationf("EMPTY_STDIN", "expected %s on stdin, but stdin was empty", c.node.Meta.Stdin).
			WithHint("pipe the input, or pass --input-file <path>")
	default:
		inv.digestStdin(data, nil)
		inv.payload = input.FromBytes(data)
	}
}

// linesPayload is the payload of a line-mode command (Meta.StdinLines):
// the file --input-file names, or stdin, read only as the command reads
// it, each line within the command's cap. <TOOL>_MAX_STDIN_BYTES, the cap
// of a payload read whole, does not apply.
func (inv *invocation) linesPayload() *input.Source {
	c := inv.call
	limit, record := c.node.Stdin().MaxLineBytes, c.node.Meta.Records
	if v, ok := c.opt(flagname.InputFile); ok && v != "-" {
		return input.FromFile(v).WithMaxLineBytes(limit).WithRecords(record)
	}
	if inv.cfg.tty.stdin && !inv.mode.Interactive {
		inv.inputErr = envelope.Errorf(exitcode.Precondition, "STDIN_REQUIRED", "the input is read from stdin, which is a terminal nobody is typing at").
			WithPhase(envelope.Validation).
			WithHint("pipe it in, or pass it in a file with --input-file <path>")
		return nil
	}
	if inv.cfg.tty.stdin {
		fmt.Fprintf(inv.cfg.stderr, "Reading %s from the terminal, a line at a time; end it with Ctrl-D.\n", c.node.Meta.Stdin)
	}
	if inv.cfg.stdin == nil {
		return input.FromBytes(nil).WithRecords(record)
	}
	return input.FromStream("stdin", inv.digestStdin(nil, inv.cfg.stdin)).WithMaxLineBytes(limit).WithRecords(record)
}

// readStdin reads all of stdin, up to the cap, under the command's time
// limit and signals. what names what is read, for messages; hint is what to
// do with a payload over the cap.
func (inv *invocation) readStdin(what, hint string) ([]byte, *envelope.Error) {
	limit := maxStdinBytes(inv.cfg.getenv(envelope.EnvName(inv.root.Name, "MAX_STDIN_BYTES")))
	if inv.cfg.tty.stdin && !inv.mode.Interactive {
		return nil, envelope.Errorf(exitcode.Precondition, "STDIN_REQUIRED", "%s is read from stdin, which is a terminal nobody is typing at", what).
			WithPhase(envelope.Validation).
			WithHint("pipe it in, or pass it in a file with --input-file <path>")
	}
	if inv.cfg.tty.stdin {
		fmt.Fprintf(inv.cfg.stderr, "Reading %s from the terminal; end it with Ctrl-D.\n", what)
	}
	type read struct {
		data  []byte
		total int64
		err   error
	}
	done := make(chan read, 1)
	go func() {
		r := inv.cfg.stdin
		if r == nil {
			done <- read{}
			return
		}
		data, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
		total := int64(len(data))
		if err == nil && total > int64(limit) {
			var n int64
			n, err = io.Copy(io.Discard, io.LimitReader(r, stdinDrainLimit))
			total += n
		}
		done <- read{data, total, err}
	}()
	var timeout <-chan time.Time
	if d := inv.timeout(); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	for {
		select {
		case got := <-done:
			switch {
			case got.err != nil:
				return nil, envelope.Errorf(exitcode.GeneralError, "STDIN_UNREADABLE", "reading %s from stdin: %v", what, got.err).
					WithPhase(envelope.Validation)
			case got.total > int64(limit):
				more := ""
				if got.total >= int64(limit)+1+stdinDrainLimit {
					more = " at least"
				}
				return nil, envelope.Validationf("STDIN_TOO_LARGE", "stdin payload exceeds %d-byte limit (received%s %d bytes)", limit, more, got.total).
					WithHint(hint).
					WithContext("received_bytes", got.total).
					WithContext("limit_bytes", limit)
			}
			return got.data, nil
		case <-timeout:
			return nil, envelope.Errorf(exitcode.Timeout, "STDIN_TIMEOUT", "stdin was not closed within %s: %s is read whole before the command runs", inv.timeout(), what).
				WithPhase(envelope.Validation).
				WithHint("close stdin after writing the input, or pass it in a file with --input-file <path>")
		case s := <-inv.sigs:
			if s == syscall.SIGPIPE {
				continue
			}
			return nil, cancelled(s)
		}
	}
}

func maxStdinBytes(env string) int {
	n, err := strconv.Atoi(env)
	if err != nil || n <= 0 {
		return schema.DefaultMaxStdinBytes
	}
	return n
}

// inputContext gives the command what it reads through package input and
// package walk.
func (inv *invocation) inputContext(ctx context.Context) context.Context {
	c := inv.call
	if inv.payload != nil {
		ctx = input.NewContext(ctx, inv.payload)
	}
	if c.node.Meta.Traverses {
		o := walk.Options{NoFollow: c.on(flagname.NoFollowSymlinks)}
		if v, ok := c.opt(flagname.MaxDepth); ok {
			o.MaxDepth, _ = strconv.Atoi(v)
		}
		ctx = walk.WithOptions(ctx, o)
	}
	return ctx
}

// ---------------------------------------------------------------------------
// Rewriting the command line.

// withFlags returns args with flags added before the end of options ("--"),
// and the positional arguments after it.
func withFlags(args, flags, positional []string) []string {
	end := slices.Index(args, "--")
	out := make([]string, 0, len(args)+len(flags)+len(positional)+1)
	if end < 0 {
		out = append(append(out, args...), flags...)
		if len(positional) > 0 {
			out = append(append(out, "--"), positional...)
		}
		return out
	}
	out = append(append(out, args[:end]...), flags...)
	return append(append(out, args[end:]...), positional...)
}

// flagWord reports whether arg is one of the names of f on the command line
// (--name, -s), and the value it carries (--name=value) if any.
func flagWord(arg string, f *schema.Flag) (value string, inline, ok bool) {
	if !strings.HasPrefix(arg, "-") || arg == "-" || arg == "--" {
		return "", false, false
	}
	name, value, inline := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	if name == f.Short || slices.Contains(f.Names(), name) {
		return value, inline, true
	}
	return "", false, false
}

// replaceValues rewrites the values of the flag f on the command line with
// fn (each occurrence: --name=v, --name v, -s v, -sv), before the end of
// options.
func (c *call) replaceValues(args []string, f *schema.Flag, fn func(string) string) []string {
	out := slices.Clone(args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			break
		}
		if v, inline, ok := flagWord(a, f); ok {
			switch {
			case inline:
				name, _, _ := strings.Cut(a, "=")
				out[i] = name + "=" + fn(v)
			case i+1 < len(out):
				out[i+1] = fn(out[i+1])
				i++
			}
			continue
		}
		// pflag reads -sVALUE as -s VALUE.
		if f.Short != "" && strings.HasPrefix(a, "-"+f.Short) && !strings.HasPrefix(a, "--") && len(a) > 2 {
			out[i] = "-" + f.Short + fn(a[2:])
		}
	}
	return out
}

// normalizeJSON makes the values of flags declared JSON strict JSON, or
// records why one cannot be.
func (c *call) normalizeJSON(args []string, readJSON func([]byte) ([]byte, error)) ([]string, []envelope.FieldError) {
	var problems []envelope.FieldError
	for _, name := range slices.Sorted(maps.Keys(c.values)) {
		f := c.flags[name]
		if f == nil || f.Format != schema.FormatJSON || f.Name == flagname.RawPayload && f.Builtin {
			continue
		}
		normal := map[string]string{}
		for _, v := range c.values[name] {
			out, err := readJSON([]byte(v))
			if err != nil {
				p := jsonProblem(f.Name, err)
				if f.Schema != nil && p.CorrectedInput != "" && f.Schema.Match([]byte(p.CorrectedInput)) != nil {
					// The repair ("status=open" quoted) is no value of the
					// flag's schema: retrying with it would fail again.
					p.CorrectedInput, p.Suggestion = "", fmt.Sprintf("give --%s one JSON object that matches its schema (the flag's schema in --schema)", f.Name)
				}
				problems = append(problems, p)
				continue
			}
			if f.Schema != nil {
				// An object flag's value, held to its schema here, in phase
				// 1: the command gets a value of the shape it declared.
				if err := f.Schema.Match(out); err != nil {
					problems = append(problems, envelope.FieldError{Code: errcode.InvalidFlagValue, Field: f.Name,
						Message:    fmt.Sprintf("--%s: %s", f.Name, strings.TrimPrefix(err.Error(), "schema: ")),
						Suggestion: fmt.Sprintf("give --%s one JSON object that matches its schema (the flag's schema in --schema)", f.Name)})
					continue
				}
			}
			if string(out) != v {
				normal[v] = string(out)
			}
		}
		if len(normal) > 0 {
			args = c.replaceValues(args, f, func(v string) string {
				if n, ok := normal[v]; ok {
					return n
				}
				return v
			})
		}
	}
	return args, problems
}

func jsonProblem(flag string, err error) envelope.FieldError {
	e := envelope.As(err)
	return envelope.FieldError{Code: e.Code, Field: flag, Message: "--" + flag + ": " + e.Message,
		Suggestion: e.Suggestion, CorrectedInput: e.CorrectedInput}
}

// ---------------------------------------------------------------------------
// --raw-payload

// expandPayload returns the command line with --raw-payload replaced by the
// flags and arguments its object names, and the problems with it.
func (c *call) expandPayload(args []string, raw string, readJSON func([]byte) ([]byte, error)) ([]string, []envelope.FieldError) {
	fail := func(code, format string, a ...any) ([]string, []envelope.FieldError) {
		return args, []envelope.FieldError{{Code: code, Field: flagname.RawPayload, Message: fmt.Sprintf(format, a...)}}
	}
	var given []string
	for name := range c.values {
		if f := c.flags[name]; f != nil && !f.Builtin {
			given = append(given, "--"+name)
		}
	}
	slices.Sort(given)
	if len(c.args) > 0 {
		given = append(given, fmt.Sprintf("argument %q", c.args[0]))
	}
	if len(given) > 0 {
		return fail("RAW_PAYLOAD_CONFLICT", "cannot combine --raw-payload with individual flags or arguments (%s): the payload carries every input", strings.Join(given, ", "))
	}
	strict, err := readJSON([]byte(raw))
	if err != nil {
		return args, []envelope.FieldError{jsonProblem(flagname.RawPayload, err)}
	}
	dec := json.NewDecoder(bytes.NewReader(strict))
	dec.UseNumber()
	var payload map[string]json.RawMessage
	if err := dec.Decode(&payload); err != nil || payload == nil {
		return fail("INVALID_RAW_PAYLOAD", "--raw-payload must be a JSON object of the command's inputs")
	}
	flagsOf := map[string]*schema.Flag{}
	var names []string
	for f := range c.node.Accepted() {
		if !f.Builtin && !f.Hidden {
			flagsOf[f.Name] = f
			names = append(names, f.Name)
		}
	}
	// By name: cobra and urfave keep flags in different orders, and the
	// answer must not depend on which an app uses.
	slices.Sort(names)
	for _, a := range c.node.Args {
		names = append(names, a.Name)
	}
	var flags []string
	var problems []envelope.FieldError
	positional := map[string][]string{}
	for _, key := range slices.Sorted(maps.Keys(payload)) {
		value := payload[key]
		if string(value) == "null" {
			continue // absent
		}
		name := key
		if flagsOf[name] == nil && argNamed(c.node, name) == nil {
			name = strings.ReplaceAll(key, "_", "-") // an API's snake_case
		}
		if f := flagsOf[name]; f != nil {
			texts, err := flagTexts(f, value)
			if err != nil {
				problems = append(problems, envelope.FieldError{Code: "INVALID_FIELD_TYPE", Field: key, Message: fmt.Sprintf("--raw-payload: %q %v", key, err)})
				continue
			}
			for _, t := range texts {
				flags = append(flags, "--"+f.Name+"="+t)
			}
			continue
		}
		if a := argNamed(c.node, key); a != nil {
			texts, err := argTexts(a, value)
			if err != nil {
				problems = append(problems, envelope.FieldError{Code: "INVALID_FIELD_TYPE", Field: key, Message: fmt.Sprintf("--raw-payload: %q %v", key, err)})
				continue
			}
			positional[a.Name] = texts
			continue
		}
		problems = append(problems, envelope.FieldError{Code: "UNKNOWN_FIELD", Field: key,
			Message: fmt.Sprintf("--raw-payload: %q is not an input of %q", key, c.node.DotPath()), ValidValues: names})
	}
	var rest []string
	for _, a := range c.node.Args { // in their declared order
		rest = append(rest, positional[a.Name]...)
	}
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--" {
			out = append(out, args[i:]...)
			break
		}
		if v, inline, ok := flagWord(args[i], c.flags[flagname.RawPayload]); ok {
			if _ = v; !inline {
				i++ // its value
			}
			continue
		}
		out = append(out, args[i])
	}
	// With problems, the fields that are fine are still given, so that
	// what is wrong with their values is found now too.
	return withFlags(out, flags, rest), problems
}

func argNamed(c *schema.Command, name string) *schema.Arg {
	for i := range c.Args {
		if c.Args[i].Name == name {
			return &c.Args[i]
		}
	}
	return nil
}

// flagTexts turns one payload value into what the command line gives the
// flag, checking it against the flag's type.
func flagTexts(f *schema.Flag, v json.RawMessage) ([]string, error) {
	switch {
	case f.Format == schema.FormatJSON:
		var s string
		if json.Unmarshal(v, &s) == nil {
			return []string{s}, nil // JSON given as a string of JSON
		}
		return []string{string(v)}, nil
	case f.Count:
		return scalarText(schema.Integer, v)
	case f.Type == schema.Array:
		var items []json.RawMessage
		if err := json.Unmarshal(v, &items); err != nil {
			if one, err := scalarText(orString(f.Items), v); err == nil {
				return one, nil // one value for a list
			}
			return nil, fmt.Errorf("must be an array of %ss", orString(f.Items))
		}
		var out []string
		for _, it := range items {
			t, err := scalarText(orString(f.Items), it)
			if err != nil {
				return nil, fmt.Errorf("must be an array of %ss", orString(f.Items))
			}
			out = append(out, t...)
		}
		return out, nil
	case f.Type == schema.Object:
		var m map[string]json.RawMessage
		if err := json.Unmarshal(v, &m); err != nil {
			return nil, errors.New("must be an object")
		}
		var out []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			t, err := scalarText(orString(f.Items), m[k])
			if err != nil {
				return nil, fmt.Errorf("must be an object of %ss", orString(f.Items))
			}
			out = append(out, k+"="+t[0])
		}
		return out, nil
	}
	return scalarText(f.Type, v)
}

func argTexts(a *schema.Arg, v json.RawMessage) ([]string, error) {
	if a.Variadic {
		var items []json.RawMessage
		if json.Unmarshal(v, &items) == nil {
			var out []string
			for _, it := range items {
				t, err := scalarText(orString(a.Type), it)
				if err != nil {
					return nil, fmt.Errorf("must be an array of %ss", orString(a.Type))
				}
				out = append(out, t...)
			}
			return out, nil
		}
	}
	return scalarText(orString(a.Type), v)
}

// scalarText checks that v is a JSON value of type t and returns its text.
func scalarText(t schema.Type, v json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	switch x := x.(type) {
	case string:
		if t == schema.String {
			return []string{x}, nil
		}
	case bool:
		if t == schema.Boolean {
			return []string{strconv.FormatBool(x)}, nil
		}
	case json.Number:
		if t == schema.Number {
			return []string{x.String()}, nil
		}
		if _, err := x.Int64(); err == nil && t == schema.Integer {
			return []string{x.String()}, nil
		}
	}
	return nil, fmt.Errorf("must be a%s %s", article(string(t)), t)
}

func article(word string) string {
	if strings.ContainsAny(word[:1], "aeiou") {
		return "n"
	}
	return ""
}

func orString(t schema.Type) schema.Type {
	if t == "" {
		return schema.String
	}
	return t
}

// ---------------------------------------------------------------------------
// "-": values read from stdin

// pipe replaces the "-" given to an argument or flag declared Pipe with the
// values read from stdin, one per line.
func (inv *invocation) pipe(args []string, c *call) ([]string, []envelope.FieldError, *envelope.Error) {
	type use struct {
		at       int    // index in args of the "-"
		name     string // the argument's or flag's
		variadic bool
	}
	if !slices.ContainsFunc(c.node.Args, func(a schema.Arg) bool { return a.Pipe }) && !acceptsPipe(c.node) {
		return args, nil, nil
	}
	var uses []use
	positional := func(at, index int) {
		if d := declaredAt(c.node.Args, c.args, index); d != nil && d.Pipe && args[at] == "-" {
			uses = append(uses, use{at, "<" + d.Name + ">", d.Variadic})
		}
	}
	index := -len(c.node.Path) // among positional arguments: the command's own words come first
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			for j := i + 1; j < len(args); j++ {
				positional(j, index)
				index++
			}
			i = len(args)
		case strings.HasPrefix(a, "-") && a != "-":
			f := c.node.Flag(flagName(a))
			if f == nil || !f.TakesValue() || strings.Contains(a, "=") || i+1 >= len(args) {
				continue
			}
			if args[i+1] == "-" && f.Pipe {
				uses = append(uses, use{i + 1, "--" + f.Name, f.Type == schema.Array})
			}
			i++ // the flag's value
		default:
			if index >= 0 {
				positional(i, index)
			}
			index++
		}
	}
	if len(uses) == 0 {
		return args, nil, nil
	}
	if len(uses) > 1 {
		return args, []envelope.FieldError{{Code: "STDIN_READ_TWICE", Field: uses[1].name,
			Message: fmt.Sprintf("only one input can be read from stdin, and %s and %s both ask for it (-)", uses[0].name, uses[1].name)}}, nil
	}
	u := uses[0]
	data, err := inv.readStdin("the value of "+u.name, "give the values on the command line, or fewer of them at once")
	if err != nil {
		return args, nil, err
	}
	var values []string
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			values = append(values, line)
		}
	}
	switch {
	case len(values) == 0:
		return args, []envelope.FieldError{{Code: "EMPTY_STDIN", Field: strings.Trim(u.name, "<>-"),
			Message: fmt.Sprintf("expected %s from stdin (-), but stdin was empty", u.name)}}, nil
	case len(values) > 1 && !u.variadic:
		return args, []envelope.FieldError{{Code: "TOO_MANY_VALUES", Field: strings.Trim(u.name, "<>-"),
			Message: fmt.Sprintf("%s takes one value, and stdin gave %d", u.name, len(values))}}, nil
	}
	if strings.HasPrefix(u.name, "--") {
		values = []string{strings.Join(values, ",")} // a list flag splits at commas
	}
	return slices.Concat(args[:u.at], values, args[u.at+1:]), nil, nil
}

func acceptsPipe(n *schema.Command) bool {
	for f := range n.Accepted() {
		if f.Pipe {
			return true
		}
	}
	return false
}

// declaredAt is the declared argument that the positional argument at index
// i takes, or nil.
func declaredAt(declared []schema.Arg, given []string, i int) *schema.Arg {
	if len(declared) == 0 || i >= len(given) {
		return nil
	}
	d := &declared[min(i, len(declared)-1)]
	if i >= len(declared) && !d.Variadic {
		return nil
	}
	return d
}

func flagName(arg string) string {
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	return name
}

// ---------------------------------------------------------------------------
// Conditional rules (Meta.Requires)

// given reports whether the flag called name has a value from the command
// line, the environment or the applied profile. A boolean flag is given
// only when that value is true (REQ-C-026): --exact=false says "not
// exact", and must not count as choosing --exact.
func (c *call) given(name string, lookupEnv func(string) (string, bool), fromProfile func(*schema.Flag) string) bool {
	f := c.node.Flag(name)
	if f != nil && f.Type == schema.Boolean && !f.Count {
		return (c.has(name) || envSet(f, lookupEnv) || fromProfile(f) != "") &&
			isTrue(c.effective(name, lookupEnv, fromProfile))
	}
	if c.has(name) {
		return true
	}
	return f != nil && (envSet(f, lookupEnv) || fromProfile(f) != "")
}

// effective is the value the flag called name has: from the command line,
// the environment, the applied profile, or its default.
func (c *call) effective(name string, lookupEnv func(string) (string, bool), fromProfile func(*schema.Flag) string) string {
	if c.has(name) {
		return c.last(name)
	}
	f := c.node.Flag(name)
	if f == nil {
		return ""
	}
	for _, e := range f.Env {
		if v, ok := lookupEnv(e); ok {
			return v
		}
	}
	if v := fromProfile(f); v != "" {
		return v
	}
	if f.Default == nil {
		return ""
	}
	return fmt.Sprint(f.Default)
}

// checkRequires holds the call to the command's conditional rules.
func (c *call) checkRequires(lookupEnv func(string) (string, bool), fromProfile func(*schema.Flag) string) {
	for _, r := range c.node.Meta.Requires {
		if r.Absent() {
			continue // a default, given by ruleDefaults
		}
		if group, ok := r.Group(); ok {
			c.checkGroup(r, group, lookupEnv, fromProfile)
			continue
		}
		var cond string
		switch {
		case r.IfValue == "" && c.given(r.IfFlag, lookupEnv, fromProfile):
			cond = "--" + r.IfFlag
		case r.IfValue != "" && c.effective(r.IfFlag, lookupEnv, fromProfile) == r.IfValue:
			cond = "--" + r.IfFlag + " " + r.IfValue
		default:
			continue
		}
		for _, name := range r.ThenRequired {
			if !c.given(name, lookupEnv, fromProfile) {
				c.problem(errcode.MissingRequiredFlag, name, "%s requires --%s", cond, name)
			}
		}
		for _, name := range r.Prohibited {
			if c.given(name, lookupEnv, fromProfile) {
				c.problem("MUTUALLY_EXCLUSIVE_FLAGS", name, "%s cannot be used with --%s", cond, name)
			}
		}
	}
}

// checkGroup holds the call to an any_of or one_of rule. The problem names
// every flag of the group, in its message and its valid values, so that an
// agent can choose without reading the schema again.
func (c *call) checkGroup(r schema.Rule, group []string, lookupEnv func(string) (string, bool), fromProfile func(*schema.Flag) string) {
	var given []string
	for _, name := range group {
		if c.given(name, lookupEnv, fromProfile) {
			given = append(given, name)
		}
	}
	flags := make([]string, len(group))
	for i, name := range group {
		flags[i] = "--" + name
	}
	all := strings.Join(flags, ", ")
	switch {
	case len(given) == 0:
		kind := "at least one"
		if r.OneOf != nil {
			kind = "exactly one"
		}
		c.problems = append(c.problems, envelope.FieldError{Code: errcode.MissingRequiredFlag, Field: group[0], ValidValues: group,
			Message:    fmt.Sprintf("%s of %s is required", kind, all),
			Suggestion: fmt.Sprintf("give %s of %s", kind, all)})
	case r.OneOf != nil && len(given) > 1:
		c.problems = append(c.problems, envelope.FieldError{Code: "MUTUALLY_EXCLUSIVE_FLAGS", Field: given[1], ValidValues: group,
			Message:    fmt.Sprintf("exactly one of %s may be given, and %d are: --%s", all, len(given), strings.Join(given, ", --")),
			Suggestion: fmt.Sprintf("keep one of %s", all)})
	}
}

// ruleDefaults returns the command line with the defaults of the
// default_when_absent rules whose flag is not given.
func (c *call) ruleDefaults(args []string, lookupEnv func(string) (string, bool), fromProfile func(*schema.Flag) string) []string {
	var flags []string
	for _, r := range c.node.Meta.Requires {
		if r.Absent() && !c.given(r.IfFlag, lookupEnv, fromProfile) && !c.given(r.TargetFlag, lookupEnv, fromProfile) {
			flags = append(flags, "--"+r.TargetFlag+"="+fmt.Sprint(r.Default))
		}
	}
	if len(flags) == 0 {
		return args
	}
	return withFlags(args, flags, nil)
}
