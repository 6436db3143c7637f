package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
)

// Names the probes use for what cannot exist.
const (
	bogusFlag    = "--duet-check-no-such-flag-a"
	bogusFlag2   = "--duet-check-no-such-flag-b"
	bogusCommand = "duet-check-no-such-command"
	bogusValue   = "duet-check-bogus-value"
	hallucinated = "../../etc/passwd"
)

var (
	// versionLine is the spec's --version: `tool 1.2.3` or `1.2.3`, the
	// version the second field (`cut -d' ' -f2`) or the only one.
	versionLine = regexp.MustCompile(`^([\w.@/-]+ )?v?\d+(\.\d+)+[\w.+-]*$`)
	errorCode   = regexp.MustCompile(`^[A-Z][A-Z0-9_]+$`)
)

// probe runs every probe against the discovered tree.
func (c *checker) probe(ctx context.Context, t *tree) {
	c.helpAndVersion(ctx, t)
	c.manifest(ctx, t)
	c.askMadeUp(ctx, t)
	var safe []*Command // run without arguments: checked once more under variations
	// What the target does when it works comes first — the command lines
	// the caller named, and of a tree read from help the commands whose
	// names say they read: a budget that runs out then cuts the probes of
	// each command's bad input, not the only runs that see a pager, a
	// prompt, a browser or the network.
	for _, line := range c.opts.ReadOnly {
		if c.readOnly(ctx, line) && t.fromManifest() {
			safe = append(safe, &Command{Path: line, Runnable: true})
		}
	}
	if !t.fromManifest() {
		c.exercise(ctx, t)
	}
	for _, cmd := range t.commands {
		madeUp := c.refusesMadeUp(ctx, t, cmd, bogusFlag)
		// A command that runs gets two made-up flags below, which judges
		// all one would, and more.
		if madeUp && (!cmd.Runnable || cmd.Protocol != "") {
			c.unknownFlag(ctx, cmd)
		}
		if len(cmd.Subcommands) > 0 && c.refusesMadeUp(ctx, t, cmd, bogusCommand) {
			c.unknownCommand(ctx, cmd)
		}
		if !cmd.Runnable || cmd.Protocol != "" {
			continue
		}
		if t.fromManifest() {
			c.schema(ctx, cmd)
		}
		if madeUp {
			c.twoBad(ctx, cmd)
		}
		c.badEnum(ctx, cmd)
		c.hallucinatedID(ctx, cmd)
		c.validateOnly(ctx, cmd)
		c.destructive(ctx, cmd)
		if c.longRunning(cmd) {
			c.signals(ctx, cmd)
			continue
		}
		// The spec's audit-log (REQ-O-030) answers with the history of
		// invocations, which every run lengthens: it is never the same twice.
		history := len(cmd.Path) == 1 && cmd.Path[0] == "audit-log"
		if cmd.Danger == "safe" && !cmd.requiresInput() && t.fromManifest() && !history {
			if c.safeRun(ctx, cmd) {
				safe = append(safe, cmd)
			}
			c.listLimit(ctx, cmd)
		}
	}
	c.variations(ctx, safe)
	c.streams(ctx, safe)
	c.outputIsAPath(ctx, safe)
	c.overAll()
}

func (c *checker) longRunning(cmd *Command) bool {
	return cmd.LongRunning || slices.Contains(c.opts.LongRunning, cmd.DotPath())
}

// expectEnvelope checks that a run answered with one envelope and that its
// exit code agrees with it, recording the envelope requirements.
func (c *checker) expectEnvelope(probe string, inv invocationSpec, out runOutcome) (envelope, bool) {
	env, f := c.answer(probe, inv, out, "")
	return env, f == noFault
}

// answer reads a run's envelope and records what it shows: one envelope
// valid by ResponseEnvelope 2.x (F-004), the process's exit code equal to
// its meta.exit_code and in the spec's table (F-001), the error object of a
// failure (C-013), schema_version and duration_ms in meta (F-022, F-039).
// A run that did not answer with one envelope fails the requirement its
// fault breaks, or blame when the probe is about that requirement (a
// signal probe's two envelopes break the signal requirement). Checks that
// read the envelope then skip, rather than fail again for the same cause.
func (c *checker) answer(probe string, inv invocationSpec, out runOutcome, blame string) (envelope, fault) {
	var (
		env envelope
		f   fault
		why string
		id  string
	)
	switch {
	case out.Err != nil:
		f, why, id = notRun, "could not run: "+out.Err.Error(), "F-004"
	case out.TimedOut:
		f, why, id = hung, fmt.Sprintf("did not finish within %v: killed", inv.Timeout), "F-009"
	case inv.AnswerOnStderr:
		if len(out.Stdout) > 0 {
			f, why, id = besideText, "stdout, a protocol's, holds the answer: "+excerpt(out.Stdout), "C-032"
			break
		}
		trimmed := bytes.TrimSuffix(out.Stderr, []byte("\n"))
		last := trimmed[bytes.LastIndexByte(trimmed, '\n')+1:]
		env, f, why = parseEnvelope(last)
		why += "; the last line of stderr " + excerpt(last)
		id = "F-004"
	default:
		env, f, why = parseEnvelope(out.Stdout)
		why += "; stdout " + excerpt(out.Stdout)
		id = "F-004"
		if f == besideText {
			id = "F-006"
		}
	}
	if f != noFault {
		if blame != "" {
			id = blame
		}
		c.record(probe, &inv, &out, Fail, why, id)
		return env, f
	}
	c.record(probe, &inv, &out, Pass, "", "F-004")
	// The schema holds ok and error to meta.exit_code; the process's exit
	// code, which it cannot see, must be the same.
	if declared := env.exitCode(); declared != out.Exit {
		c.record(probe, &inv, &out, Fail, fmt.Sprintf("meta.exit_code is %d (ok %v) but the process exited %d", declared, env.OK, out.Exit), "F-001")
	} else if !standardExit(out.Exit) {
		c.record(probe, &inv, &out, Fail, fmt.Sprintf("exit code %d is outside 0–14, 79–125, 130 and 143", out.Exit), "F-001")
	} else {
		c.record(probe, &inv, &out, Pass, "", "F-001")
	}
	if out.Exit != 0 {
		switch e := env.Error; {
		case e == nil:
			c.record(probe, &inv, &out, Fail, "a failure without an error object", "C-013")
		case !errorCode.MatchString(e.Code) || e.Message == "" || e.Retryable == nil:
			c.record(probe, &inv, &out, Fail, fmt.Sprintf("error code %q, message %q, retryable %v", e.Code, e.Message, e.Retryable), "C-013")
		default:
			c.record(probe, &inv, &out, Pass, "", "C-013")
		}
	}
	if _, ok := env.Meta["schema_version"]; ok {
		c.record(probe, &inv, &out, Pass, "", "F-022")
	} else {
		c.record(probe, &inv, &out, Fail, "meta has no schema_version", "F-022")
	}
	if d, ok := env.Meta["duration_ms"].(float64); ok && d >= 0 {
		c.record(probe, &inv, &out, Pass, "", "F-039")
	} else {
		c.record(probe, &inv, &out, Fail, "meta has no duration_ms", "F-039")
	}
	return env, noFault
}

// skip records that ids could not be judged on a run that left nothing to
// judge them by; the run's own failure is recorded already.
func (c *checker) skip(probe string, inv invocationSpec, out runOutcome, f fault, ids ...string) {
	why := map[fault]string{notRun: "the target did not run", hung: "the run hung"}[f]
	if why == "" {
		why = "no envelope to read"
	}
	c.record(probe, &inv, &out, NotJudged, why, ids...)
}

// standardExit reports whether code is one the spec's exit code table
// allows: the framework's 0–14 (14 INCOMPLETE since ExitCode 1.1), a
// command's own 79–125, and the signal exits 130 and 143.
func standardExit(code int) bool {
	return code >= 0 && code <= 14 || code >= 79 && code <= 125 || code == 130 || code == 143
}

// stackTraceMarkers begin the stack trace of a crash in Go and Python.
var stackTraceMarkers = []string{"panic: ", "goroutine 1 [", "Traceback (most recent call last)"}

func hasStackTrace(b []byte) bool {
	return slices.ContainsFunc(stackTraceMarkers, func(m string) bool { return bytes.Contains(b, []byte(m)) })
}

// madeUpStem is what every made-up word of the probes holds.
const madeUpStem = "duet-check-no-such"

// namesMadeUp reports whether a run's output names a made-up word: what
// attributes its failure to the word, whatever the wording around it.
func namesMadeUp(out runOutcome) bool {
	return bytes.Contains(out.Stderr, []byte(madeUpStem)) || bytes.Contains(out.Stdout, []byte(madeUpStem))
}

// expectRefused checks a run given bad input. Its exit code must be 2, the
// code reserved for validation (F-002); ids, the requirements the probe is
// about, pass when the run was refused with an envelope whose error is in
// the validation phase. It returns that envelope and whether it has one.
func (c *checker) expectRefused(probe string, inv invocationSpec, out runOutcome, ids ...string) (envelope, bool) {
	env, f := c.answer(probe, inv, out, "")
	madeUp := slices.ContainsFunc(inv.Args, func(a string) bool { return strings.Contains(a, madeUpStem) })
	switch {
	case f == hung:
		c.record(probe, &inv, &out, Fail, "hung instead of refusing", append([]string{"F-002"}, ids...)...)
		return env, false
	case f == notRun:
		return env, false
	case madeUp && out.Exit != 0 && out.Exit != 2 && !namesMadeUp(out):
		// It failed, but not for the made-up word: not a verdict on it.
		c.record(probe, &inv, &out, NotJudged, fmt.Sprintf("exit %d without naming the made-up input: it failed for another reason", out.Exit), append([]string{"F-002"}, ids...)...)
		return env, false
	case out.Exit == 2 && hasStackTrace(out.Stderr):
		c.record(probe, &inv, &out, Fail, "crashed with exit 2 instead of refusing: stderr "+excerpt(out.Stderr), "F-002")
	case out.Exit == 2:
		c.record(probe, &inv, &out, Pass, "", "F-002")
	default:
		c.record(probe, &inv, &out, Fail, fmt.Sprintf("exit %d, want 2", out.Exit), "F-002")
	}
	switch {
	case len(ids) == 0:
	case out.Exit == 0:
		c.record(probe, &inv, &out, Fail, "accepted: exit 0", ids...)
	case f != noFault:
		c.record(probe, &inv, &out, Fail, fmt.Sprintf("refused with exit %d and no envelope to say why; stderr %s", out.Exit, excerpt(out.Stderr)), ids...)
	case env.Error == nil || env.Error.Phase != "validation":
		c.record(probe, &inv, &out, Fail, "the error is not in the validation phase", ids...)
	default:
		c.record(probe, &inv, &out, Pass, "", ids...)
	}
	return env, f == noFault && out.Exit != 0 && env.Error != nil
}

// helpAndVersion runs --help and --version on a pipe and on a terminal:
// they must succeed and, with discovery before them, change nothing; piped
// help goes to stderr with a stub envelope on stdout.
func (c *checker) helpAndVersion(ctx context.Context, t *tree) {
	// The bare invocation, what a person types first: usage or the
	// default command, exit 0, with nothing to read.
	inv := c.invoke()
	inv.Stdin = stdinEOF
	out := c.run(ctx, inv)
	switch {
	case out.Err != nil || out.TimedOut:
		c.record("bare", &inv, &out, Fail, "the bare invocation did not finish with nothing to read", "F-068")
	case out.Exit != 0:
		c.record("bare", &inv, &out, Fail, fmt.Sprintf("the bare invocation exits %d; stderr %s", out.Exit, excerpt(out.Stderr)), "F-068")
	default:
		c.record("bare", &inv, &out, Pass, "", "F-068")
	}

	inv = c.invoke("--help")
	out = c.run(ctx, inv)
	env, f, why := parseEnvelope(out.Stdout)
	switch {
	case out.TimedOut || out.Err != nil || out.Exit != 0:
		c.record("help-piped", &inv, &out, Fail, fmt.Sprintf("exit %d", out.Exit), "F-048", "F-068")
	case f != noFault:
		c.record("help-piped", &inv, &out, Fail, "piped help is not an envelope on stdout: "+why+"; stdout "+excerpt(out.Stdout), "F-048")
		c.record("help-piped", &inv, &out, Pass, "", "F-068")
	case env.Meta["help"] != true || len(bytes.TrimSpace(out.Stderr)) == 0:
		c.record("help-piped", &inv, &out, Fail, "the envelope lacks meta.help, or stderr has no help text", "F-048")
		c.record("help-piped", &inv, &out, Pass, "", "F-068")
	default:
		c.record("help-piped", &inv, &out, Pass, "", "F-048", "F-068")
	}

	for _, pty := range []bool{false, true} {
		inv := c.invoke("--version")
		inv.PTY = pty
		out := c.run(ctx, inv)
		line := strings.TrimSpace(string(out.Stdout))
		name := map[bool]string{false: "version-piped", true: "version-terminal"}[pty]
		if out.Exit != 0 || out.TimedOut || !versionLine.MatchString(line) || strings.Contains(line, "\n") {
			c.record(name, &inv, &out, Fail, "want one line such as `tool 1.2.3`, exit 0; got "+excerpt(out.Stdout), "F-068")
		} else {
			c.record(name, &inv, &out, Pass, "", "F-068")
		}
	}

	// -V is the spec's short --version: the same line. To a CLI that
	// does not know it, it is a made-up flag.
	vInv, sInv := c.invoke("--version"), c.invoke("-V")
	if !c.refusesMadeUp(ctx, t, t.root(), bogusFlag) {
		c.record("version-short", &sInv, nil, NotJudged, "not run: -V may be a flag the target does not know, and it takes those", "F-068")
	} else if long, short := c.run(ctx, vInv), c.run(ctx, sInv); short.Exit != 0 || short.TimedOut || strings.TrimSpace(string(short.Stdout)) != strings.TrimSpace(string(long.Stdout)) {
		c.record("version-short", &sInv, &short, Fail, "-V must print what --version prints, exit 0; got "+excerpt(short.Stdout), "F-068")
	} else {
		c.record("version-short", &sInv, &short, Pass, "", "F-068")
	}

	inv = c.invoke("--help")
	inv.PTY = true
	out = c.run(ctx, inv)
	if out.Exit != 0 || out.TimedOut || len(bytes.TrimSpace(out.Stdout)) == 0 {
		c.record("help-terminal", &inv, &out, Fail, fmt.Sprintf("exit %d, output %s", out.Exit, excerpt(out.Stdout)), "F-068")
	} else {
		c.record("help-terminal", &inv, &out, Pass, "", "F-068")
	}

	// Since before discovery: a first run that sets itself up (a config
	// directory, an id) does so on the first --help.
	after, _ := c.sandbox.Snapshot()
	if diff := c.pristine.Diff(after); len(diff) > 0 {
		c.record("help-purity", nil, nil, Fail, "help, version and discovery changed the sandbox: "+strings.Join(diff, ", "), "F-068")
	}
}

// manifest checks `tool manifest`, the spec's name for the whole tree: its
// data must be the spec's ManifestResponse exactly (the schema as
// published, closed), and its etag must round-trip. A tool whose tree was
// discovered from describe alone has no manifest.
func (c *checker) manifest(ctx context.Context, t *tree) {
	if !c.documented["manifest"] {
		if errors.Is(c.rootHelp.Err, errOverBudget) {
			c.record("manifest", nil, &c.rootHelp, NotJudged, "", "O-041")
			return
		}
		c.record("manifest", nil, nil, Fail, "the help lists no manifest command (not run: an undocumented word may be a command that acts)", "O-041")
		return
	}
	inv := c.invoke("manifest")
	out := c.run(ctx, inv)
	env, f, why := parseEnvelope(out.Stdout)
	if f != noFault || out.Exit != 0 {
		detail := "`manifest` does not answer with an envelope: " + why
		if f == noFault {
			detail = fmt.Sprintf("`manifest` failed with exit %d", out.Exit)
		}
		if !t.fromManifest() {
			detail += "; the commands were read from --help"
		}
		c.record("manifest", &inv, &out, Fail, detail, "O-041")
		return
	}
	if problem := validManifest(env.Data); problem != "" {
		c.record("manifest", &inv, &out, Fail, "the manifest does not match the spec's schema: "+problem, "O-041")
		return
	}
	var m struct {
		Etag string `json:"etag"`
	}
	_ = json.Unmarshal(env.Data, &m)
	inv = c.invoke("manifest", "--etag", m.Etag)
	out = c.run(ctx, inv)
	env, f, _ = parseEnvelope(out.Stdout)
	if f != noFault || out.Exit != 0 || env.Meta["not_modified"] != true || string(env.Data) != "null" {
		c.record("manifest-etag", &inv, &out, Fail, "the current etag must answer exit 0, data null, meta.not_modified; stdout "+excerpt(out.Stdout), "O-041")
		return
	}
	c.record("manifest", &inv, &out, Pass, "", "O-041")
}

// refusesMadeUp reports whether cmd may be given word, a made-up flag or
// command, without running: a CLI that ignores unknown flags would run the
// command (`upgrade --no-such-flag` upgrades), and one that takes any word
// as an argument would run it with that word. A target that speaks the
// manifest protocol refuses unknown input before anything runs, by the
// protocol's contract; any other must show it: `<cmd> <word> --help`, which
// at worst shows help, must fail. Otherwise the probes with made-up input
// are not judged.
func (c *checker) refusesMadeUp(ctx context.Context, t *tree, cmd *Command, word string) bool {
	if t.fromManifest() {
		return true
	}
	key := cmd.DotPath() + " " + word
	if refused, asked := c.refused[key]; asked {
		return refused
	}
	inv := c.madeUpHelp(cmd, word)
	return c.refusal(key, word, inv, c.run(ctx, inv))
}

// askMadeUp asks every command of a tree crawled from help whether it
// refuses a made-up flag (and a group a made-up command), several at once:
// the runs are help, and a check of a CLI that takes a second to start
// would spend most of its budget on them one by one. refusesMadeUp then
// answers from what they said, recorded in the tree's order.
func (c *checker) askMadeUp(ctx context.Context, t *tree) {
	if t.fromManifest() {
		return
	}
	type ask struct {
		key, word string
		inv       invocationSpec
	}
	var asks []ask
	for _, cmd := range t.commands {
		words := []string{bogusFlag}
		if len(cmd.Subcommands) > 0 {
			words = append(words, bogusCommand)
		}
		for _, w := range words {
			asks = append(asks, ask{cmd.DotPath() + " " + w, w, c.madeUpHelp(cmd, w)})
		}
	}
	outs := make([]runOutcome, len(asks))
	parallel(len(asks), func(i int) { outs[i] = c.run(ctx, asks[i].inv) })
	for i, a := range asks {
		c.refusal(a.key, a.word, a.inv, outs[i])
	}
}

// madeUpHelp is `<cmd> <word> --help`.
func (c *checker) madeUpHelp(cmd *Command, word string) invocationSpec {
	return c.invoke(append(slices.Clone(cmd.Path), word, "--help")...)
}

// refusal judges what `<cmd> <word> --help` did (out) and remembers it
// under key.
func (c *checker) refusal(key, word string, inv invocationSpec, out runOutcome) bool {
	// Refused: it failed, and said the made-up word was why. A failure
	// for another reason (outside a project, no network, a crash) says
	// nothing of what it does with a word it does not know.
	refused := out.Err == nil && !out.TimedOut && out.Exit != 0 && namesMadeUp(out)
	c.refused[key] = refused
	if refused {
		return true
	}
	why := fmt.Sprintf("not run: %s exits %d, so the target may take %s, and it alone could run the command", inv.CommandLine(), out.Exit, word)
	switch {
	case out.Err != nil || out.TimedOut:
		why = "not run: the target did not answer " + inv.CommandLine()
	case out.Exit != 0:
		why = fmt.Sprintf("not run: %s exits %d without naming %s (it failed for another reason: %s), so what it does with a made-up word is not known", inv.CommandLine(), out.Exit, word, excerpt(bytes.TrimSpace(out.Stderr)))
	}
	ids := []string{"F-002"}
	if word == bogusFlag {
		ids = append(ids, "F-015")
	}
	c.record("made-up-input", &inv, &out, NotJudged, why, ids...)
	return false
}

func (c *checker) unknownFlag(ctx context.Context, cmd *Command) {
	inv := c.invoke(append(slices.Clone(cmd.Path), bogusFlag)...)
	inv.AnswerOnStderr = cmd.Protocol != ""
	c.expectRefused("unknown-flag", inv, c.run(ctx, inv))
}

func (c *checker) unknownCommand(ctx context.Context, cmd *Command) {
	inv := c.invoke(append(slices.Clone(cmd.Path), bogusCommand)...)
	c.expectRefused("unknown-command", inv, c.run(ctx, inv))
}

// schema checks `<command> --schema`: danger level, exit codes, input schema.
func (c *checker) schema(ctx context.Context, cmd *Command) {
	inv := c.invoke(append(slices.Clone(cmd.Path), "--schema")...)
	out := c.run(ctx, inv)
	env, f := c.answer("schema", inv, out, "")
	if f != noFault {
		c.skip("schema", inv, out, f, "C-001", "C-002", "C-015")
		return
	}
	if out.Exit != 0 {
		c.record("schema", &inv, &out, Fail, fmt.Sprintf("--schema failed with exit %d", out.Exit), "C-001", "C-002", "C-015")
		return
	}
	var doc struct {
		Danger      string                     `json:"danger_level"`
		ExitCodes   map[string]json.RawMessage `json:"exit_codes"`
		InputSchema map[string]any             `json:"input_schema"`
		Parameters  map[string]any             `json:"parameters"`
		Output      json.RawMessage            `json:"output_schema"`
		SideEffects []SideEffect               `json:"filesystem_side_effects"`
	}
	_ = json.Unmarshal(env.Data, &doc)
	cmd.SideEffects = append(cmd.SideEffects, doc.SideEffects...)
	if slices.Contains([]string{"safe", "mutating", "destructive"}, doc.Danger) {
		c.record("schema", &inv, &out, Pass, "", "C-002")
	} else {
		c.record("schema", &inv, &out, Fail, fmt.Sprintf("danger_level %q", doc.Danger), "C-002")
	}
	codes := ""
	if _, ok := doc.ExitCodes["0"]; !ok {
		codes = "exit_codes has no \"0\""
	}
	for _, code := range slices.Sorted(maps.Keys(doc.ExitCodes)) {
		if problem := validExitCode(doc.ExitCodes[code]); problem != "" && codes == "" {
			codes = fmt.Sprintf("exit_codes[%q] does not match the spec's schema: %s", code, problem)
		}
	}
	if codes == "" {
		c.record("schema", &inv, &out, Pass, "", "C-001")
	} else {
		c.record("schema", &inv, &out, Fail, codes, "C-001")
	}
	// The spec's --schema has parameters (its CommandEntry flags) and
	// output_schema, a JSON Schema object. A command that declares no shape
	// of its data (many do not: a built-in answering a map, an app's
	// command without an output type) is not failed for it here: the
	// output_schema it has must be an object.
	switch {
	case doc.Parameters == nil:
		c.record("schema", &inv, &out, Fail, "no parameters object (the spec's name for the command's flags)", "C-015")
	case len(doc.Output) > 0 && doc.Output[0] != '{':
		c.record("schema", &inv, &out, Fail, "output_schema is not a JSON Schema object: "+excerpt(doc.Output), "C-015")
	default:
		c.record("schema", &inv, &out, Pass, "", "C-015")
	}
}

// twoBad gives a command two bad inputs at once: both must be reported.
func (c *checker) twoBad(ctx context.Context, cmd *Command) {
	inv := c.invoke(append(slices.Clone(cmd.Path), bogusFlag, bogusFlag2)...)
	out := c.run(ctx, inv)
	env, ok := c.expectRefused("two-bad-inputs", inv, out, "F-015")
	if !ok {
		return
	}
	all, _ := json.Marshal(env.Error)
	names := func(flag string) bool { return bytes.Contains(all, []byte(strings.TrimLeft(flag, "-"))) }
	if !names(bogusFlag2) || !names(bogusFlag) && len(env.Error.Errors) < 2 {
		c.record("two-bad-inputs", &inv, &out, Fail, "the error does not name both bad inputs: "+excerpt(all), "F-015")
	}
}

// badEnum gives an enum flag a value outside its list.
func (c *checker) badEnum(ctx context.Context, cmd *Command) {
	name := ""
	for _, n := range slices.Sorted(maps.Keys(cmd.Flags)) {
		if len(cmd.Flags[n].EnumValues) > 0 {
			name = n
			break
		}
	}
	if name == "" {
		return
	}
	inv := c.invoke(append(slices.Clone(cmd.Path), "--"+name+"="+bogusValue)...)
	out := c.run(ctx, inv)
	env, ok := c.expectRefused("bad-enum", inv, out)
	if ok && !mentionsValidValues(env.Error, cmd.Flags[name].EnumValues) {
		c.record("bad-enum", &inv, &out, Fail, "the error does not list the valid values", "F-002")
	}
}

func mentionsValidValues(e *wireError, values []string) bool {
	all, _ := json.Marshal(e)
	for _, v := range values {
		if !bytes.Contains(all, []byte(`"`+v+`"`)) && !bytes.Contains(all, []byte(v)) {
			return false
		}
	}
	return true
}

// hallucinatedID passes a path-like id where the manifest says an id goes.
func (c *checker) hallucinatedID(ctx context.Context, cmd *Command) {
	var args []string
	found := false
	for _, a := range cmd.Args {
		switch {
		case a.ID && !found:
			args, found = append(args, hallucinated), true
		case a.Required:
			args = append(args, "x")
		}
	}
	if !found {
		return
	}
	inv := c.invoke(append(append(slices.Clone(cmd.Path), "--"), args...)...)
	c.expectRefused("hallucinated-id", inv, c.run(ctx, inv), "F-045")
}

func (c *checker) validateOnly(ctx context.Context, cmd *Command) {
	if _, ok := cmd.Flags["validate-only"]; !ok || cmd.requiresInput() {
		return
	}
	inv := c.invoke(append(slices.Clone(cmd.Path), "--validate-only")...)
	out, diff := c.watched(ctx, inv)
	env, f := c.answer("validate-only", inv, out, "")
	if len(diff) > 0 {
		c.record("validate-only", &inv, &out, Fail, "--validate-only changed the sandbox: "+strings.Join(diff, ", "), "O-009")
		return
	}
	if f != noFault {
		c.skip("validate-only", inv, out, f, "O-009")
		return
	}
	if out.Exit != 0 || env.Meta["validation_only"] != true {
		c.record("validate-only", &inv, &out, Fail, "want exit 0 and meta.validation_only; stdout "+excerpt(out.Stdout), "O-009")
		return
	}
	c.record("validate-only", &inv, &out, Pass, "", "O-009")
}

// destructive checks a command that needs confirmation: refused on a pipe
// without --yes, and --dry-run changes nothing.
func (c *checker) destructive(ctx context.Context, cmd *Command) {
	if cmd.Danger != "destructive" && !cmd.RequiresConfirmation {
		return
	}
	if cmd.requiresInput() {
		c.record("destructive", nil, nil, NotApplicable, cmd.DotPath()+" needs arguments the checker cannot make up", "O-021", "C-004")
		return
	}
	inv := c.invoke(cmd.Path...)
	out, diff := c.watched(ctx, inv)
	env, f := c.answer("no-confirmation", inv, out, "")
	_, affects := env.preview()
	switch {
	case f == hung || f == notRun:
		c.skip("no-confirmation", inv, out, f, "O-021")
	case out.Exit == 0:
		c.record("no-confirmation", &inv, &out, Fail, "ran without --yes where nobody can be asked: exit 0", "O-021")
	case len(diff) > 0:
		c.record("no-confirmation", &inv, &out, Fail, "refused, yet changed the sandbox: "+strings.Join(diff, ", "), "O-021")
	case out.Exit != 2:
		c.record("no-confirmation", &inv, &out, Fail, fmt.Sprintf("refused with exit %d, want 2", out.Exit), "O-021")
	case cmd.Danger == "destructive" && !affects:
		c.record("no-confirmation", &inv, &out, Fail, "the refusal does not say what a confirmed run would affect (would_affect)", "O-021")
	default:
		c.record("no-confirmation", &inv, &out, Pass, "", "O-021")
	}
	if cmd.Danger != "destructive" {
		return
	}
	if _, ok := cmd.Flags["dry-run"]; !ok {
		c.record("dry-run", nil, nil, Fail, cmd.DotPath()+" is destructive and has no --dry-run", "C-004")
		return
	}
	inv = c.invoke(append(slices.Clone(cmd.Path), "--dry-run")...)
	out, diff = c.watched(ctx, inv)
	env, f = c.answer("dry-run", inv, out, "")
	effect, affects := env.preview()
	switch {
	case len(diff) > 0:
		c.record("dry-run", &inv, &out, Fail, "--dry-run changed the sandbox: "+strings.Join(diff, ", "), "C-004")
	case f != noFault:
		c.skip("dry-run", inv, out, f, "C-004")
	case out.Exit != 0 || env.Meta["dry_run"] != true:
		c.record("dry-run", &inv, &out, Fail, "want exit 0 and meta.dry_run; stdout "+excerpt(out.Stdout), "C-004")
	case !strings.HasPrefix(effect, "would_") || !affects:
		c.record("dry-run", &inv, &out, Fail, fmt.Sprintf("want an effect starting would_ and would_affect; effect %q, would_affect present %v", effect, affects), "C-004")
	default:
		c.record("dry-run", &inv, &out, Pass, "", "C-004")
	}
}

// safeRun runs a safe command with nothing on stdin but its end: it must
// finish (F-009) and answer in JSON on a pipe (F-003). It reports whether
// the command answered, for the variations.
func (c *checker) safeRun(ctx context.Context, cmd *Command) bool {
	inv := c.invoke(cmd.Path...)
	inv.Stdin = stdinEOF
	out, diff := c.watched(ctx, inv)
	c.sideEffects(cmd, inv, out, diff)
	_, f := c.answer("safe-run", inv, out, "")
	switch f {
	case hung, notRun:
		return false
	case noJSON:
		c.record("safe-run", &inv, &out, Fail, "a piped run does not answer in JSON: stdout "+excerpt(out.Stdout), "F-003")
	default:
		c.record("safe-run", &inv, &out, Pass, "", "F-003")
	}
	c.record("safe-run", &inv, &out, Pass, "", "F-009")
	return f == noFault && out.Exit == 0
}

// watched runs inv alone and returns, with its outcome, what it changed in
// the sandbox (fsSnapshot.Diff).
func (c *checker) watched(ctx context.Context, inv invocationSpec) (runOutcome, []string) {
	before, _ := c.sandbox.Snapshot()
	out := c.run(ctx, inv)
	after, _ := c.sandbox.Snapshot()
	return out, before.Diff(after)
}

// sideEffects judges what a command's first plain run wrote to the sandbox
// (diff) against the files it declares it may write (REQ-C-011): a cache,
// a log, a config it sets up must be declared, so that an agent knows
// what it leaves behind and how to clear it. What it removed is another
// matter (a destructive command's, judged elsewhere).
func (c *checker) sideEffects(cmd *Command, inv invocationSpec, out runOutcome, diff []string) {
	if out.Err != nil || out.TimedOut {
		return
	}
	var undeclared []string
	for _, line := range diff {
		if line[0] != '-' && !c.sandbox.declared(line[2:], cmd.SideEffects) {
			undeclared = append(undeclared, line[2:])
		}
	}
	if len(undeclared) > 0 {
		c.record("side-effects", &inv, &out, Fail, "wrote what it does not declare in filesystem_side_effects: "+strings.Join(undeclared, ", "), "C-011")
		return
	}
	c.record("side-effects", &inv, &out, Pass, "", "C-011")
}

// declared reports whether rel, a path in the sandbox as fsSnapshot names
// it, is one of effects, under one (a file in a declared directory), or a
// directory made to hold one.
func (s *probeSandbox) declared(rel string, effects []SideEffect) bool {
	for _, e := range effects {
		pattern, ok := s.pattern(e.Path)
		if !ok {
			continue
		}
		for r := rel; r != "."; r = path.Dir(r) { // rel, or a directory it is under
			if ok, _ := path.Match(pattern, r); ok {
				return true
			}
		}
		for p := path.Dir(pattern); p != "."; p = path.Dir(p) { // a directory made to hold it
			if ok, _ := path.Match(p, rel); ok {
				return true
			}
		}
	}
	return false
}

// pattern is a declared path as fsSnapshot would name what it matches: ~,
// $HOME, the XDG variables and $TMPDIR are the sandbox's directories of
// those names, a relative path is under its working directory, and
// placeholders ({name}) match any one name. An absolute path, which is
// outside the sandbox, does not map.
func (s *probeSandbox) pattern(declared string) (string, bool) {
	rel := func(dir string) string {
		r, _ := filepath.Rel(s.Dir, dir)
		return filepath.ToSlash(r)
	}
	for _, v := range []struct{ name, dir string }{
		{"HOME", s.Home}, {"XDG_CONFIG_HOME", s.ConfigHome}, {"XDG_DATA_HOME", s.DataHome}, {"XDG_CACHE_HOME", s.CacheHome},
		{"XDG_STATE_HOME", s.StateHome}, {"XDG_RUNTIME_DIR", s.RuntimeDir}, {"TMPDIR", s.Tmp},
	} {
		for _, from := range []string{"$" + v.name, "${" + v.name + "}"} {
			if rest, ok := strings.CutPrefix(declared, from); ok && (rest == "" || rest[0] == '/') {
				return path.Clean(rel(v.dir) + placeholders.ReplaceAllString(rest, "*")), true
			}
		}
	}
	if rest, ok := strings.CutPrefix(declared, "~"); ok && (rest == "" || rest[0] == '/') {
		return path.Clean(rel(s.Home) + placeholders.ReplaceAllString(rest, "*")), true
	}
	if declared != "" && !path.IsAbs(declared) {
		return path.Clean(rel(s.Work) + "/" + placeholders.ReplaceAllString(declared, "*")), true
	}
	return "", false
}

// placeholders are the {name} parts of a declared path.
var placeholders = regexp.MustCompile(`\{[^{}/]*\}`)

// readVerbs are the last words of the commands of a tree read from help
// that a check runs unasked, safest first: what they say is that they
// read. The riskier (open, login) come last: what they would start — a
// browser, a prompt, the network — is what the sandbox's sentinels see.
var readVerbs = []string{"list", "ls", "show", "get", "status", "view", "info", "whoami", "search", "open", "login"}

// maxExercised bounds the commands exercise runs: each takes six runs.
const maxExercised = 6

// exercise runs the commands of a tree read from help whose names say they
// only read, as readOnly runs a line the caller names, at a terminal where
// the environment says no colour (F-008), and once more with stdin open
// and never written: a command that waits on it for an answer nobody gives
// hangs (F-009). A command the caller named is not run twice.
func (c *checker) exercise(ctx context.Context, t *tree) {
	var picked []*Command
	for _, verb := range readVerbs {
		for _, cmd := range t.commands {
			if len(picked) < maxExercised && cmd.Runnable && len(cmd.Path) > 0 && cmd.Path[len(cmd.Path)-1] == verb &&
				!slices.ContainsFunc(c.opts.ReadOnly, func(line []string) bool { return slices.Equal(line, cmd.Path) }) {
				picked = append(picked, cmd)
			}
		}
	}
	for _, cmd := range picked {
		c.readRun(ctx, cmd.Path, false)
		c.colour(ctx, cmd.Path)
		inv := c.invoke(cmd.Path...)
		inv.Stdin = stdinOpen
		out := c.run(ctx, inv)
		switch {
		case errors.Is(out.Err, errOverBudget):
			c.record("open-stdin", &inv, &out, NotJudged, "", "F-009")
		case out.TimedOut:
			c.record("open-stdin", &inv, &out, Fail, fmt.Sprintf("with stdin open and nothing written to it, did not finish within %v: it waits for input nobody gives: %s", inv.Timeout, excerpt(append(out.Stdout, out.Stderr...))), "F-009")
		case out.Err == nil:
			c.record("open-stdin", &inv, &out, Pass, "", "F-009")
		}
	}
}

// readOnly runs a command line the caller named read-only (Options.ReadOnly)
// as an agent and as a person would: on a pipe with stdin at its end, and
// at a terminal where nobody types. Each must finish (F-009); the piped run
// must answer in JSON (F-003). What it starts on the way (a pager, an
// editor, a browser, an installer, the network) the sentinels see. It
// reports whether the piped run answered with an envelope and exit 0.
func (c *checker) readOnly(ctx context.Context, line []string) bool {
	return c.readRun(ctx, line, true)
}

// readRun is readOnly; named says the caller named line read-only. A
// command picked for its name only may ask a person at a terminal — a
// login does — which is no fault (F-009 is about a pipe).
func (c *checker) readRun(ctx context.Context, line []string, named bool) bool {
	ok := c.safeRun(ctx, &Command{Path: line, Runnable: true})
	inv := c.invoke(line...)
	inv.PTY, inv.Stdin = true, stdinEOF
	out := c.run(ctx, inv)
	switch {
	case errors.Is(out.Err, errOverBudget):
		c.record("read-only-terminal", &inv, &out, NotJudged, "", "F-009")
	case out.Err != nil:
		c.record("read-only-terminal", &inv, &out, Fail, "could not run: "+out.Err.Error(), "F-009")
	case out.TimedOut && !named:
		c.record("read-only-terminal", &inv, &out, NotJudged, fmt.Sprintf("at a terminal where nobody types it waited for more than %v, as a person's tool may: %s", inv.Timeout, excerpt(out.Stdout)), "F-009")
	case out.TimedOut:
		c.record("read-only-terminal", &inv, &out, Fail, fmt.Sprintf("at a terminal where nobody types, did not finish within %v: %s", inv.Timeout, excerpt(out.Stdout)), "F-009")
	default:
		c.record("read-only-terminal", &inv, &out, Pass, "", "F-009")
	}
	return ok
}

func (c *checker) listLimit(ctx context.Context, cmd *Command) {
	if _, ok := cmd.Flags["limit"]; !ok && !cmd.List {
		return
	}
	inv := c.invoke(append(slices.Clone(cmd.Path), "--limit", "1")...)
	out := c.run(ctx, inv)
	env, f := c.answer("list-limit", inv, out, "")
	if f != noFault {
		c.skip("list-limit", inv, out, f, "O-003", "F-018")
		return
	}
	switch {
	case out.Exit == 2:
		c.record("list-limit", &inv, &out, Fail, "--limit 1 was refused: "+excerpt(out.Stdout), "O-003", "F-018")
		return
	case out.Exit != 0:
		// A list that needs what the empty sandbox lacks (a project, a
		// login) cannot show its paging here.
		code := ""
		if env.Error != nil {
			code = env.Error.Code
		}
		c.record("list-limit", &inv, &out, NotJudged, fmt.Sprintf("could not list in the empty sandbox: exit %d %s", out.Exit, code), "O-003", "F-018")
		return
	}
	var items []json.RawMessage
	if json.Unmarshal(env.Data, &items) != nil || len(items) > 1 {
		c.record("list-limit", &inv, &out, Fail, "data is not a list of at most one item: "+excerpt(env.Data), "O-003")
	} else {
		c.record("list-limit", &inv, &out, Pass, "", "O-003")
	}
	p, _ := env.Meta["pagination"].(map[string]any)
	missing := []string{}
	for _, k := range []string{"total", "returned", "truncated", "has_more", "next_cursor"} {
		if _, ok := p[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		c.record("list-limit", &inv, &out, Fail, "meta.pagination lacks "+strings.Join(missing, ", "), "F-018")
	} else {
		c.record("list-limit", &inv, &out, Pass, "", "F-018")
	}
}

// signals interrupts, terminates and times out a long-running command:
// each must end it with one envelope and the signal's exit code, the error
// CANCELLED and data.partial true; SIGINT's names the signal in
// error.context.signal (REQ-F-069). What the run printed is judged against
// the signal's requirement alone: a second envelope after SIGTERM is a
// broken SIGTERM handler.
func (c *checker) signals(ctx context.Context, cmd *Command) {
	for _, s := range []struct {
		sig  syscall.Signal
		exit int
		id   string
		name string // what error.context.signal must say; empty: not judged
	}{{syscall.SIGINT, 130, "F-069", "SIGINT"}, {syscall.SIGTERM, 143, "F-013", ""}} {
		inv := c.invoke(cmd.Path...)
		inv.Signals = []timedSignal{{After: 700 * time.Millisecond, Idle: 150 * time.Millisecond, Signal: s.sig}}
		out := c.run(ctx, inv)
		probe := "signal-" + strings.ToLower(s.sig.String())
		env, f := c.answer(probe, inv, out, s.id)
		switch {
		case f != noFault:
		case out.Exit != s.exit || env.Error == nil || env.Error.Code != "CANCELLED":
			c.record(probe, &inv, &out, Fail, fmt.Sprintf("exit %d, want %d with error CANCELLED", out.Exit, s.exit), s.id)
		case !env.partial():
			c.record(probe, &inv, &out, Fail, "the CANCELLED envelope's data is "+excerpt(env.Data)+", want data.partial true", s.id)
		case s.name != "" && env.signal() != s.name:
			c.record(probe, &inv, &out, Fail, fmt.Sprintf("error.context.signal is %q, want %q", env.signal(), s.name), s.id)
		default:
			c.record(probe, &inv, &out, Pass, "", s.id)
		}
	}
	if _, ok := cmd.Flags["timeout"]; !ok {
		return
	}
	inv := c.invoke(append(slices.Clone(cmd.Path), "--timeout", "1s")...)
	out := c.run(ctx, inv)
	env, f := c.answer("timeout", inv, out, "F-012")
	switch {
	case f != noFault:
	case out.Exit != 10 || env.Error == nil || env.Error.Code != "TIMEOUT":
		c.record("timeout", &inv, &out, Fail, fmt.Sprintf("exit %d, want 10 with error TIMEOUT", out.Exit), "F-012")
	default:
		c.record("timeout", &inv, &out, Pass, "", "F-012")
	}
}

// variations runs the safe commands again where only the presentation
// may differ: colour at a terminal, width, locale, a reader that is gone.
func (c *checker) variations(ctx context.Context, safe []*Command) {
	for _, cmd := range safe {
		data := func(probe string, env ...string) (json.RawMessage, bool) {
			inv := with(c.invoke(cmd.Path...), env...)
			out := c.run(ctx, inv)
			e, ok := c.expectEnvelope(probe, inv, out)
			return e.Data, ok
		}
		ref, ok := data("width", "COLUMNS=500")
		narrow, ok2 := data("width", "COLUMNS=40")
		if ok && ok2 {
			c.compare("width", cmd, ref, narrow, "COLUMNS=40 against COLUMNS=500", "F-056")
		}
		de, ok3 := data("locale", "LC_ALL=de_DE.UTF-8", "LANG=de_DE.UTF-8")
		if ok && ok3 {
			c.compare("locale", cmd, ref, de, "LC_ALL=de_DE.UTF-8 against C.UTF-8", "F-005")
		}
		c.colour(ctx, cmd.Path)
		if asJSON := formatArgs(cmd, "json"); asJSON != nil {
			inv := with(c.invoke(append(slices.Clone(cmd.Path), asJSON...)...), "FORCE_COLOR=1", "CLICOLOR_FORCE=1")
			inv.PTY, inv.Stdin = true, stdinEOF
			out := c.run(ctx, inv)
			if bytes.IndexByte(out.Stdout, 0x1b) >= 0 {
				c.record("json-at-terminal", &inv, &out, Fail, "escape codes in JSON: "+excerpt(out.Stdout), "F-007")
			} else {
				c.record("json-at-terminal", &inv, &out, Pass, "", "F-007")
			}
		}
		inv := c.invoke(cmd.Path...)
		inv.CloseStdout = true
		out := c.run(ctx, inv)
		if out.Exit != 0 || out.TimedOut || len(bytes.TrimSpace(out.Stderr)) > 0 {
			c.record("closed-stdout", &inv, &out, Fail, fmt.Sprintf("exit %d, stderr %s", out.Exit, excerpt(out.Stderr)), "F-014")
		} else {
			c.record("closed-stdout", &inv, &out, Pass, "", "F-014")
		}
	}
}

// colour runs line at a terminal under NO_COLOR=1, CI=1 and TERM=dumb,
// each of which says: no colour (F-008).
func (c *checker) colour(ctx context.Context, line []string) {
	for _, env := range []string{"NO_COLOR=1", "CI=1", "TERM=dumb"} {
		inv := with(c.invoke(line...), env)
		inv.PTY, inv.Stdin = true, stdinEOF // nothing typed: a command that reads its input ends
		out := c.run(ctx, inv)
		switch {
		case errors.Is(out.Err, errOverBudget):
			c.record("colour", &inv, &out, NotJudged, "", "F-008")
		case hasColour(out.Stdout):
			c.record("colour", &inv, &out, Fail, env+" at a terminal, yet colour codes: "+excerpt(out.Stdout), "F-008")
		default:
			c.record("colour", &inv, &out, Pass, "", "F-008")
		}
	}
}

// sgr is an escape sequence that sets how text is drawn (SGR), its
// parameters the first group.
var sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// hasColour reports whether b sets a colour: an SGR sequence with a
// foreground or background colour (30–38, 40–48, 90–97, 100–107). Moving
// the cursor, clearing a line or bold text is no colour.
func hasColour(b []byte) bool {
	for _, m := range sgr.FindAllSubmatch(b, -1) {
		for _, p := range strings.FieldsFunc(string(m[1]), func(r rune) bool { return r == ';' || r == ':' }) {
			n, err := strconv.Atoi(p)
			if err == nil && (n >= 30 && n <= 38 || n >= 40 && n <= 48 || n >= 90 && n <= 97 || n >= 100 && n <= 107) {
				return true
			}
		}
	}
	return false
}

// formatArgs are the words that ask cmd for its answer in format: --format
// <format> where it takes --format (REQ-O-001) with that value (json, which
// every format flag has, where it lists none), or else --output <format>
// where its --output is the format flag of a CLI older than the spec's
// 1.8, which renamed it: an enum listing that value. A path-typed --output
// never gets a format's name, which would write a file of that name
// (§78). Nil when cmd has neither.
func formatArgs(cmd *Command, format string) []string {
	if f, ok := cmd.Flags["format"]; ok && (slices.Contains(f.EnumValues, format) || format == "json" && len(f.EnumValues) == 0) {
		return []string{"--format", format}
	}
	if f, ok := cmd.Flags["output"]; ok && slices.Contains(f.EnumValues, format) {
		return []string{"--output", format}
	}
	return nil
}

// streams runs each safe command that can answer in JSONL as a stream
// (REQ-O-004), and the first of them given a made-up flag as well: each
// stream must be JSON objects, one a line, ending on exactly one terminal
// line — the summary line ("_summary": true) of a run that exits 0, or a
// valid error envelope, whose meta.exit_code must be the process's (F-001).
func (c *checker) streams(ctx context.Context, safe []*Command) {
	refused := false
	for _, cmd := range safe {
		asJSONL := formatArgs(cmd, "jsonl")
		if asJSONL == nil {
			continue
		}
		lines := [][]string{append(slices.Clone(cmd.Path), asJSONL...)}
		if !refused {
			lines, refused = append(lines, append(slices.Clone(lines[0]), bogusFlag)), true
		}
		for _, line := range lines {
			inv := c.invoke(line...)
			inv.Stdin = stdinEOF
			out := c.run(ctx, inv)
			c.stream(inv, out)
		}
	}
}

// stream judges one run of a stream by REQ-O-004's line contract.
func (c *checker) stream(inv invocationSpec, out runOutcome) {
	const probe = "stream"
	if out.Err != nil {
		c.record(probe, &inv, &out, Fail, "could not run: "+out.Err.Error(), "O-004")
		return
	}
	p := parseStream(out.Stdout)
	problem := ""
	switch {
	case out.TimedOut:
		problem = fmt.Sprintf("did not finish within %v after %d lines: killed", inv.Timeout, p.lines)
	case len(p.problems) > 0:
		problem = p.problems[0]
		if p.broken > 1 {
			problem += fmt.Sprintf(" (and %d more)", p.broken-1)
		}
	case p.terminal == 0:
		problem = fmt.Sprintf(`stdout ended after %d lines without a terminal line ("_summary": true or an error envelope)`, p.lines)
	case p.summary && out.Exit != 0:
		problem = fmt.Sprintf("the stream ended on its summary line but exited %d, want 0", out.Exit)
	}
	if problem != "" {
		c.record(probe, &inv, &out, Fail, problem+"; stdout "+excerpt(out.Stdout), "O-004")
		return
	}
	c.record(probe, &inv, &out, Pass, "", "O-004")
	// An error envelope ends a stream as it answers a run: its exit code
	// is the process's (F-001, as answer holds every envelope to it).
	if !p.summary {
		if declared := p.failure.exitCode(); declared != out.Exit {
			c.record(probe, &inv, &out, Fail, fmt.Sprintf("the terminal error envelope's meta.exit_code is %d but the process exited %d", declared, out.Exit), "F-001")
		} else {
			c.record(probe, &inv, &out, Pass, "", "F-001")
		}
	}
}

// outputIsAPath gives each safe command whose --output takes a path a
// format's name instead, as an agent used to other CLIs does (§78): it
// must be refused, exit 2, in the validation phase, with nothing written
// and a way out that names --format json (REQ-O-001).
func (c *checker) outputIsAPath(ctx context.Context, safe []*Command) {
	for _, cmd := range safe {
		if f, ok := cmd.Flags["output"]; !ok || f.Type != "string" {
			continue
		}
		inv := c.invoke(append(slices.Clone(cmd.Path), "--output", "json")...)
		inv.Stdin = stdinEOF
		out, diff := c.watched(ctx, inv)
		env, ok := c.expectRefused("output-is-a-path", inv, out, "O-001")
		switch {
		case len(diff) > 0:
			c.record("output-is-a-path", &inv, &out, Fail, "--output json changed the sandbox: "+strings.Join(diff, ", "), "O-001")
		case !ok:
		case !bytes.Contains(mustJSON(env.Error), []byte("--format json")):
			c.record("output-is-a-path", &inv, &out, Fail, "the refusal does not name --format json: "+excerpt(mustJSON(env.Error)), "O-001")
		}
	}
}

// mustJSON is v as JSON, or nothing.
func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func (c *checker) compare(probe string, cmd *Command, a, b json.RawMessage, what string, id string) {
	inv := c.invoke(cmd.Path...)
	if !bytes.Equal(a, b) {
		c.record(probe, &inv, nil, Fail, what+": data differs: "+excerpt(a)+" against "+excerpt(b), id)
		return
	}
	c.record(probe, &inv, nil, Pass, "", id)
}

// overAll checks what every run together shows: line endings, stack traces
// on stdout, the sentinels and the network. Until some run of the target
// worked (exit 0), what it does when it works has not been seen: a program
// that fails at once opens no pager. Those requirements are then not
// judged, and the target's failures are what the report shows.
func (c *checker) overAll() {
	c.mu.Lock()
	cr, trace, prompt, worked := c.carriageReturn, c.stackTrace, c.prompt, slices.Clone(c.worked)
	c.mu.Unlock()
	// A pass rests on the runs that worked: it names them.
	seen := fmt.Sprintf("none of the %d runs that did work and exited 0 did", len(worked))
	if len(worked) > 0 {
		seen += ", among them " + strings.Join(quoteRuns(worked, 3), ", ")
	}
	verdict := func(probe, problem, id string) {
		if problem != "" {
			c.record(probe, nil, nil, Fail, problem, id)
		} else {
			c.record(probe, nil, nil, Pass, seen, id)
		}
	}
	// Each sentinel call is told with the run that made it, where the
	// program kept the run's tag in its environment. A pager or an editor
	// started at a terminal is a person's to use: only one started on a
	// pipe counts (F-010, F-055). A browser counts anywhere: the sandbox has
	// no display (F-057).
	called := map[string][]sentinelCall{}
	for _, call := range c.sandbox.Calls() {
		c.mu.Lock()
		run, known := c.byTag[call.Run]
		c.mu.Unlock()
		if known && run.terminal && (call.Name == "pager" || call.Name == "editor" || call.Name == "visual") {
			continue
		}
		called[call.Name] = append(called[call.Name], call)
	}
	by := func(call sentinelCall) string {
		c.mu.Lock()
		defer c.mu.Unlock()
		if run, ok := c.byTag[call.Run]; ok {
			return ", by `" + run.line + "`"
		}
		return ""
	}
	sentinel := func(names ...string) string {
		for _, n := range names {
			if len(called[n]) == 0 {
				continue
			}
			call := called[n][0]
			if slices.Contains(sentinels, n) {
				return fmt.Sprintf("$%s was run: %q%s", strings.ToUpper(n), strings.Join(call.Args, " "), by(call))
			}
			return fmt.Sprintf("%s was run (and refused by the sandbox): %q%s", n, strings.TrimSpace(n+" "+strings.Join(call.Args, " ")), by(call))
		}
		return ""
	}
	installs := ""
	for _, n := range installers {
		for _, call := range called[n] {
			if args := strings.Join(call.Args, " "); installs == "" && installing(n, args) {
				installs = fmt.Sprintf("%s was run (and refused by the sandbox): %q%s", n, strings.TrimSpace(n+" "+args), by(call))
			}
		}
	}
	// F-029 is about checks for updates and telemetry, not every network
	// attempt: a login or an API call on a read command is the command's
	// work. What each attempt was is read from where it went.
	var phoned, other []string
	for _, r := range c.sandbox.ProxyRequests() {
		if kind := phoneHome(r); kind != "" {
			phoned = append(phoned, kind+": "+r)
		} else {
			other = append(other, r)
		}
	}
	if len(phoned) > 0 && installs == "" {
		installs = fmt.Sprintf("%d attempts to check for updates or send telemetry, the first %q", len(phoned), phoned[0])
	}
	if len(other) > 0 {
		seen += fmt.Sprintf("; it reached for the network %d times otherwise, which F-029 allows (an API, a login: the command's work), the first %q", len(other), other[0])
	}
	for _, v := range []struct{ probe, problem, id string }{
		{"line-endings", cr, "F-072"},
		{"prompt-on-a-pipe", prompt, "F-009"},
		{"stack-trace", trace, "F-006"},
		{"pager", sentinel("pager"), "F-010"},
		{"editor", sentinel("editor", "visual"), "F-055"},
		{"browser", sentinel(append([]string{"browser"}, openers...)...), "F-057"},
		{"network", installs, "F-029"},
	} {
		if v.problem == "" && len(worked) == 0 {
			c.record(v.probe, nil, nil, NotJudged, "no run of the target did any work and exited 0 (help and version are no work): what it does when it works was never seen", v.id)
			continue
		}
		verdict(v.probe, v.problem, v.id)
	}
}

// phoneHome says what a network attempt ("GET http://host/path", "CONNECT
// host:443", "DNS host.") was, when where it went says it: "update check"
// or "telemetry"; "" for anything else. A word of the host or the path
// says it (telemetry.example.com, /v1/releases/latest), or a service that
// does nothing else (sentry.io, registry.npmjs.org).
func phoneHome(request string) string {
	target := strings.ToLower(request)
	if _, rest, ok := strings.Cut(target, " "); ok {
		target = rest
	}
	for _, host := range telemetryHosts {
		if strings.Contains(target, host) {
			return "telemetry"
		}
	}
	for _, host := range updateHosts {
		if strings.Contains(target, host) {
			return "update check"
		}
	}
	for _, w := range strings.FieldsFunc(target, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		switch w {
		case "telemetry", "analytics", "metrics", "events", "track", "tracking", "beacon":
			return "telemetry"
		case "update", "updates", "updater", "release", "releases", "latest", "version", "versions":
			return "update check"
		}
	}
	return ""
}

// The services that only take telemetry, or only serve updates.
var (
	telemetryHosts = []string{"segment.io", "segment.com", "sentry.io", "posthog.com", "mixpanel.com", "amplitude.com", "datadoghq", "honeycomb.io", "statsig", "rudderstack", "heapanalytics", "bugsnag", "rollbar"}
	updateHosts    = []string{"registry.npmjs.org", "registry.yarnpkg.com", "pypi.org/pypi", "proxy.golang.org", "formulae.brew.sh"}
)

// quoteRuns is the first n command lines, quoted, and how many more.
func quoteRuns(runs []string, n int) []string {
	var out []string
	for _, r := range runs[:min(n, len(runs))] {
		out = append(out, "`"+r+"`")
	}
	if len(runs) > n {
		out = append(out, fmt.Sprintf("and %d more", len(runs)-n))
	}
	return out
}

// installing reports whether a run of the installer name with args
// installs or updates something, or reaches the network: what a probe must
// never cause. A package manager asked for its version, or what is
// installed (`npm list -g`), does not: a verb says it, not --global.
func installing(name, args string) bool {
	if name == "curl" || name == "wget" || name == "sudo" {
		return true
	}
	for _, a := range strings.Fields(args) {
		switch a {
		case "install", "i", "add", "update", "upgrade", "self-update", "selfupdate", "get":
			return true
		}
	}
	return false
}
