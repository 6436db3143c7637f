package adapters

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	osexec "os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// maxDispatchLine bounds one line of an exec batch.
const maxDispatchLine = 16 << 20

// isDispatchCmd reports whether cmd matches the spec's pattern of a
// DispatchRequest's _cmd, ^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)*$ — by hand:
// a package-level regexp would be compiled at every start of every app.
func isDispatchCmd(cmd string) bool {
	for _, part := range strings.Split(cmd, ".") {
		if part == "" || part[0] < 'a' || part[0] > 'z' {
			return false
		}
		for i := 1; i < len(part); i++ {
			if c := part[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// WithNewApp gives Duet a way to make the app anew, wrapped as the running
// one is: `tool exec` then runs every line of a batch in this process, each
// on an app of its own (REQ-O-050: no process per line). Without it only
// the first line can: a framework run once keeps state no lifecycle can
// clear (urfave reads a flag's environment once; cobra keeps a
// subcommand's first context), so a later line runs in a fresh process of
// this binary.
//
//	opts = append(opts, adapters.WithNewApp(func() (adapters.Framework, error) {
//		return urfave.Wrap(newRoot(), opts...)
//	}))
func WithNewApp(newApp func() (Framework, error)) Option {
	return func(c *config) { c.newApp = newApp }
}

// batchEffect is what a batch changed, from its lines' meta.effect: exec
// is as mutating as what it runs, and reports an effect as every mutating
// command does (REQ-C-003).
type batchEffect struct{ kinds map[envelope.Effect]bool }

// add reads one line's answer.
func (b batchEffect) add(answer json.RawMessage) batchEffect {
	var a struct {
		Meta struct {
			Effect envelope.Effect `json:"effect"`
		} `json:"meta"`
	}
	if json.Unmarshal(answer, &a) == nil && a.Meta.Effect != "" {
		if b.kinds == nil {
			b.kinds = map[envelope.Effect]bool{}
		}
		e := a.Meta.Effect
		if verb, would := strings.CutPrefix(string(e), "would_"); would && verb != string(envelope.Noop) {
			e = envelope.Effect(verb + "d") // would_delete → deleted, as Would made it
		} else if would {
			e = envelope.Noop
		}
		b.kinds[e] = true
	}
	return b
}

// effect is the batch's: noop when no line changed anything, the one kind
// of change when all that changed changed alike, else updated; would_…
// in a dry run.
func (b batchEffect) effect(dryRun bool) envelope.Effect {
	delete(b.kinds, envelope.Noop)
	e := envelope.Noop
	switch len(b.kinds) {
	case 0:
	case 1:
		for k := range b.kinds {
			e = k
		}
	default:
		e = envelope.Updated
	}
	if dryRun {
		return e.Would()
	}
	return e
}

// execDanger gives exec the danger of what it can dispatch (REQ-C-002): a
// batch that can add, purge or run an undeclared command is no read-only
// tool, and describe, the manifest and an MCP client must not say it is.
// It is mutating, not destructive, even when a line can destroy: each line
// is confirmed as its command alone would be (a destructive one's
// "yes": true), so running exec destroys nothing no line confirmed.
func execDanger(root *schema.Command, cfg *config) {
	exec := root.Sub(execCommand)
	if exec == nil || !dispatches(exec) {
		return
	}
	exec.Meta.Danger = schema.Safe
	root.Walk(func(n *schema.Command) {
		if dispatchable(n, cfg) && n.Danger() != schema.Safe {
			exec.Meta.Danger = schema.Mutating
		}
	})
	exec.Meta.DryRun = exec.Meta.Danger == schema.Mutating // its --dry-run passes to the lines
}

// dispatches reports whether n is Duet's exec.
func dispatches(n *schema.Command) bool {
	return n.Builtin && n.Name == execCommand && n.Parent != nil && n.Parent.Parent == nil
}

// dispatchable reports whether exec runs n as a line: a command that
// answers with one envelope, not exec itself, a protocol server or an
// extension's command.
func dispatchable(n *schema.Command, cfg *config) bool {
	return n.Runnable && !n.Passthrough && n.Meta.Protocol == "" && !dispatches(n) &&
		!underExtension(n, cfg.extensions)
}

// underExtension reports whether n is an extension's command, or one of its
// group's.
func underExtension(n *schema.Command, exts []Extension) bool {
	for n.Parent != nil && n.Parent.Parent != nil {
		n = n.Parent
	}
	for _, e := range exts {
		if n.Parent != nil && n.Builtin && e.Command.Name == n.Name {
			return true
		}
	}
	return false
}

// exec answers `tool exec`: it reads the spec's DispatchRequests, one JSON
// object per line of stdin, and runs each through the lifecycle — the first
// in this process, a later one too when the app can be made anew
// (WithNewApp), else in a fresh process of this binary — as an agent would
// run it — `{"_cmd":"run.spawn","_opts":{...},
// "name":"x"}` is `tool run spawn --name=x`, with _opts' members as flags
// too and a member named like a positional argument as that argument. Each
// line's answer is one envelope with meta._cmd and meta._line, emitted as
// an item: with --format jsonl one line as each finishes, then exec's own
// summary line. It stops at the first failed line unless --ignore-errors,
// exits 1 when a line failed, and 2 when no line could be read.
//
// A line is isolated as far as one process allows: its own flags, stdin
// empty, its own time limit; what a command writes directly to the process's
// stdout rather than through its framework or envelope.Output cannot be
// told apart per line, and is reported on stderr.
func (inv *invocation) exec(ctx context.Context) error {
	ignore, dryRun := inv.call.bool(flagname.IgnoreErrors), inv.call.bool(flagname.DryRun) || inv.out.DryRun()
	sc := bufio.NewScanner(inv.cfg.stdin)
	sc.Buffer(make([]byte, 0, 64<<10), maxDispatchLine)
	lines, read, failed, ran := 0, 0, 0, 0
	var batch batchEffect
	defer func() {
		inv.out.Effect(batch.effect(dryRun))
		if dryRun { // a preview says what it would touch (REQ-C-004)
			inv.out.WouldAffect(map[string]any{"lines": lines, "previewed": ran})
		}
	}()
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		lines++
		answer, exit, parsed := inv.dispatchLine(ctx, line, n, dryRun, ran)
		if parsed {
			read++
		}
		if exit >= 0 {
			ran++
		}
		if err := inv.out.Item(answer); err != nil {
			return err
		}
		batch = batch.add(answer)
		if exit != 0 {
			failed++
			if !ignore {
				break
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if err := sc.Err(); err != nil {
		return envelope.Validationf("DISPATCH_PARSE_ERROR", "stdin could not be read as JSONL: %v", err).
			WithSuggestion(fmt.Sprintf("send one JSON object per line, each under %d bytes", maxDispatchLine)).WithResult()
	}
	switch {
	case lines > 0 && read == 0:
		return envelope.Validationf("DISPATCH_PARSE_ERROR", "no line of stdin is a dispatch request: a JSON object with a _cmd").
			WithSuggestion(`send one object per line, such as {"_cmd":"list"}`).WithResult()
	case failed > 0:
		return envelope.Errorf(exitcode.GeneralError, "DISPATCH_FAILED", "%d of %d lines failed", failed, lines).
			WithPhase(envelope.Execution).
			WithSuggestion("read each line's error in its answer; lines after the first failure ran only with --ignore-errors").WithResult()
	}
	return nil
}

// dispatchLine runs one line and returns its answer, its exit code (-1 when
// nothing ran: the line was refused) and whether it was a request at all.
func (inv *invocation) dispatchLine(ctx context.Context, line []byte, n int, dryRun bool, ran int) (json.RawMessage, int, bool) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil || fields == nil {
		msg := "line is not a JSON object"
		if err != nil {
			msg += ": " + err.Error()
		}
		return inv.refusedLine("", n, envelope.Validationf("DISPATCH_PARSE_ERROR", "%s", msg).
			WithSuggestion(`send one object per line, such as {"_cmd":"list"}`)), 2, false
	}
	var cmd string
	if err := json.Unmarshal(fields["_cmd"], &cmd); err != nil || !isDispatchCmd(cmd) {
		return inv.refusedLine("", n, envelope.Validationf("DISPATCH_PARSE_ERROR", "_cmd must be a command's dot path, such as \"run.spawn\"").
			WithField("_cmd")), 2, false
	}
	node := inv.root.Find(cmd)
	if node == nil || node == inv.root && cmd != inv.root.Name {
		return inv.refusedLine(cmd, n, envelope.Invalid([]envelope.FieldError{{Code: errcode.UnknownCommand, Field: "_cmd",
			Message: fmt.Sprintf("no command %q", cmd), Suggestion: fmt.Sprintf("run '%s manifest' for the commands", inv.root.Name)}})), 2, true
	}
	if !dispatchable(node, inv.cfg) {
		return inv.refusedLine(cmd, n, envelope.Validationf("NOT_DISPATCHABLE", "%q cannot run in a batch: it answers with no single envelope", cmd).
			WithField("_cmd")), 2, true
	}
	args, err := dispatchArgs(node, fields)
	if err != nil {
		return inv.refusedLine(cmd, n, err), 2, true
	}
	if dryRun && node.Danger() != schema.Safe {
		if node.Flag(flagname.DryRun) == nil {
			return inv.refusedLine(cmd, n, envelope.Validationf("DRY_RUN_UNSUPPORTED", "%q is %s and has no --dry-run: it was not run", cmd, node.Danger()).
				WithSuggestion("run the batch without this line, or without --dry-run")), 2, true
		}
		args = withFlag(args, "--"+flagname.DryRun)
	}
	if f := node.Flag(flagname.Format); f != nil && f.Builtin {
		args = withFlag(args, "--"+flagname.Format+"="+string(envelope.JSON))
	}
	var raw []byte
	var exit int
	switch {
	case ran == 0:
		raw, exit = inv.dispatch(ctx, inv.fw, args)
	case inv.cfg.newApp != nil:
		fw, err := inv.cfg.newApp()
		if err != nil {
			return inv.refusedLine(cmd, n, envelope.Errorf(exitcode.GeneralError, "DISPATCH_NO_APP", "the app could not be made anew for this line: %v", err).
				WithPhase(envelope.Execution)), int(exitcode.GeneralError), true
		}
		raw, exit = inv.dispatch(ctx, fw, args)
	default:
		// The framework, run once, keeps state (see WithNewApp).
		raw, exit = inv.dispatchChild(ctx, args)
	}
	answer, err2 := withLine(raw, cmd, n)
	if err2 != nil {
		return inv.refusedLine(cmd, n, envelope.Errorf(exitcode.GeneralError, "DISPATCH_NO_ANSWER", "%q did not answer with one envelope", cmd).
			WithDetail(strings.TrimSpace(string(raw)))), max(exit, 1), true
	}
	return answer, exit, true
}

// extensionNamed reports whether node is an extension's command, which owns
// the process's streams.
func (inv *invocation) extensionNamed(node *schema.Command) bool {
	return underExtension(node, inv.cfg.extensions)
}

// withFlag puts a flag before the -- that ends the options.
func withFlag(args []string, flag string) []string {
	if i := slices.Index(args, "--"); i >= 0 {
		return slices.Insert(slices.Clone(args), i, flag)
	}
	return append(args, flag)
}

// dispatch runs one command line in this process on fw, as an agent
// reading a pipe: stdin empty, stdout collected, the signals exec's (a line
// is stopped through ctx).
func (inv *invocation) dispatch(ctx context.Context, fw Framework, args []string) ([]byte, int) {
	var stdout bytes.Buffer
	cfg := *inv.cfg
	cfg.stdin, cfg.stdout = strings.NewReader(""), &stdout
	cfg.tty = &ttys{}
	cfg.strict = true
	cfg.signals = make(chan os.Signal)
	line := &invocation{cfg: &cfg, fw: fw, start: time.Now()}
	defer line.restoreCapture()
	exit := line.run(ctx, args)
	return stdout.Bytes(), exit
}

// dispatchChild runs one command line in a fresh process of this binary, as
// an agent reading a pipe: stdin empty, stdout collected, stderr shared; a
// cancelled batch stops it with SIGTERM, as a signal stops a line run here.
func (inv *invocation) dispatchChild(ctx context.Context, args []string) ([]byte, int) {
	self, err := os.Executable()
	if err != nil {
		return nil, int(exitcode.GeneralError)
	}
	var stdout bytes.Buffer
	//duetvet:allow rawexec -- re-runs this very binary with the lifecycle's own arguments
	cmd := osexec.CommandContext(ctx, self, args...)
	cmd.Stdout, cmd.Stderr = &stdout, inv.cfg.stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	err = cmd.Run()
	var exit *osexec.ExitError
	switch {
	case err == nil:
		return stdout.Bytes(), 0
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return stdout.Bytes(), exit.ExitCode()
	}
	return stdout.Bytes(), int(exitcode.GeneralError)
}

// refusedLine is the answer of a line that did not run.
func (inv *invocation) refusedLine(cmd string, n int, e *envelope.Error) json.RawMessage {
	var buf bytes.Buffer
	out := envelope.New(&envelope.Settings{Mode: envelope.Mode{Agent: true, Format: envelope.JSON}, Stdout: &buf})
	out.Finish(envelope.Meta{SchemaVersion: envelope.SchemaVersion, ToolVersion: inv.cfg.version, Command: cmd, RequestID: inv.cfg.requestID(), ConfigSources: []string{}}, e)
	answer, err := withLine(buf.Bytes(), cmd, n)
	if err != nil {
		return json.RawMessage(buf.Bytes())
	}
	return answer
}

// withLine adds _cmd and _line to the meta of an envelope, and writes it
// again in the envelope's key order.
func withLine(raw []byte, cmd string, n int) (json.RawMessage, error) {
	var env struct {
		OK       json.RawMessage `json:"ok"`
		Data     json.RawMessage `json:"data"`
		Error    json.RawMessage `json:"error"`
		Warnings json.RawMessage `json:"warnings"`
		Meta     json.RawMessage `json:"meta"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&env); err != nil {
		return nil, err
	}
	if dec.More() || len(env.Meta) < 2 || env.Meta[0] != '{' || env.OK == nil {
		return nil, errors.New("not one envelope")
	}
	name, _ := json.Marshal(cmd)
	var b bytes.Buffer
	// _cmd and _line go last in meta: exit_code stays its first member.
	meta := bytes.TrimSpace(env.Meta)
	fmt.Fprintf(&b, `{"ok":%s,"data":%s,"error":%s,"warnings":%s,"meta":`, env.OK, env.Data, env.Error, env.Warnings)
	b.Write(meta[:len(meta)-1])
	if rest := bytes.TrimSpace(meta[1 : len(meta)-1]); len(rest) > 0 {
		b.WriteByte(',')
	}
	fmt.Fprintf(&b, `"_cmd":%s,"_line":%d}}`, name, n)
	return b.Bytes(), nil
}

// dispatchArgs turns a request's members into the command line that runs
// node: its path, a flag per member of _opts and per member that is not an
// argument, then -- and the positional arguments in their declared order.
// A member the command does not have becomes a flag it does not have,
// which validation refuses with the rest.
func dispatchArgs(node *schema.Command, fields map[string]json.RawMessage) ([]string, *envelope.Error) {
	args := slices.Clone(node.Path)
	var problems []envelope.FieldError
	if raw, ok := fields["_opts"]; ok {
		var opts map[string]json.RawMessage
		if err := json.Unmarshal(raw, &opts); err != nil {
			return nil, envelope.Validationf("DISPATCH_PARSE_ERROR", "_opts must be an object of flag values: %v", err).WithField("_opts")
		}
		for _, name := range slices.Sorted(maps.Keys(opts)) {
			vals, err := flagValues(opts[name])
			if err != nil {
				problems = append(problems, envelope.FieldError{Code: errcode.InvalidFlagValue, Field: name, Message: fmt.Sprintf("_opts.%s: %v", name, err)})
				continue
			}
			args = append(args, flagArgs(node, name, vals)...)
		}
	}
	positional := map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if name == "_cmd" || name == "_opts" {
			continue
		}
		vals, err := flagValues(fields[name])
		if err != nil {
			problems = append(problems, envelope.FieldError{Code: errcode.InvalidFlagValue, Field: name, Message: fmt.Sprintf("%s: %v", name, err)})
			continue
		}
		if slices.ContainsFunc(node.Args, func(a schema.Arg) bool { return a.Name == name }) {
			positional[name] = vals
			continue
		}
		args = append(args, flagArgs(node, name, vals)...)
	}
	if len(problems) > 0 {
		return nil, envelope.Invalid(problems)
	}
	var rest []string
	for _, a := range node.Args {
		rest = append(rest, positional[a.Name]...)
	}
	if len(rest) > 0 {
		args = append(append(args, "--"), rest...)
	}
	return args, nil
}

// flagValues reads a member's value as the command-line values it stands
// for: a scalar is one, an array one per item, null none, an object one
// key=value per member.
func flagValues(raw json.RawMessage) ([]string, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	scalar := func(x any) (string, error) {
		switch t := x.(type) {
		case string:
			return t, nil
		case json.Number:
			return t.String(), nil
		case bool:
			return strconv.FormatBool(t), nil
		}
		return "", fmt.Errorf("want a string, number or boolean")
	}
	switch t := v.(type) {
	case nil:
		return nil, nil
	case []any:
		out := make([]string, 0, len(t))
		for _, x := range t {
			s, err := scalar(x)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	case map[string]any:
		var out []string
		for _, k := range slices.Sorted(maps.Keys(t)) {
			s, err := scalar(t[k])
			if err != nil {
				return nil, err
			}
			out = append(out, k+"="+s)
		}
		return out, nil
	}
	s, err := scalar(v)
	if err != nil {
		return nil, err
	}
	return []string{s}, nil
}

// flagArgs writes a flag's values: true for a boolean flag is the bare
// flag, as the spec's _opts wants.
func flagArgs(node *schema.Command, name string, vals []string) []string {
	if f := node.Flag(name); len(vals) == 1 && vals[0] == "true" && f != nil && !f.TakesValue() {
		return []string{"--" + name}
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = "--" + name + "=" + v
	}
	return out
}
