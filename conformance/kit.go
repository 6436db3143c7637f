package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ConformanceResult is the spec's report of a kit run
// (schemas/conformance-result.md, schema_version 1.0): the levels the
// checks support, a tally and every check. Each check also lists, beyond
// the kit's fields, every run it rests on (Runs), passes included.
type ConformanceResult struct {
	SchemaVersion string             `json:"schema_version"`
	Tool          string             `json:"tool"`
	Levels        Levels             `json:"levels"`
	Summary       CheckTally         `json:"summary"`
	Checks        []ConformanceCheck `json:"checks"`
}

// Levels are the verdicts on the spec's three conformance levels: "pass"
// when every check up to the level passed, "fail" when one failed, and
// "incomplete" when one was skipped (the profile lacked a probe it needs).
type Levels struct {
	Level1 string `json:"level_1"`
	Level2 string `json:"level_2"`
	Level3 string `json:"level_3"`
}

// CheckTally counts the checks by status.
type CheckTally struct {
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
}

// The statuses of a kit check.
const (
	CheckPass = "pass"
	CheckFail = "fail"
	CheckSkip = "skip"
)

// ConformanceCheck is one of the kit's checks, and its verdict.
type ConformanceCheck struct {
	ID            string     `json:"id"`
	Title         string     `json:"title"`
	Status        string     `json:"status"`
	Level         int        `json:"level"`
	FailureModes  []string   `json:"failure_modes"`
	Requirements  []string   `json:"requirements"`
	RunsChecked   int        `json:"runs_checked"`
	Failures      []Evidence `json:"failures"`
	SkippedReason string     `json:"skipped_reason,omitempty"`
	// Runs are the runs the check looked at, in order, each once.
	Runs []Evidence `json:"runs"`
}

// Evidence is one run as a check saw it.
type Evidence struct {
	Probe      string   `json:"probe"`
	Argv       []string `json:"argv"`
	Stdin      string   `json:"stdin"`         // "closed" (/dev/null) or "open" (a pipe never written)
	Env        []string `json:"env,omitempty"` // set beyond the caller's environment
	ExitCode   *int     `json:"exit_code"`     // null when killed at the time limit; -N when killed by signal N
	TimedOut   bool     `json:"timed_out"`
	DurationMS int64    `json:"duration_ms"`
	Detail     string   `json:"detail,omitempty"`
}

// kitCheck is one check of the kit: its id, what it verifies, and the
// level that first requires it (requirements/levels.md).
type kitCheck struct {
	id, title    string
	level        int
	failureModes []int
	requirements []string
}

// kitChecks are conformance/run.py's checks, in its order.
var kitChecks = []kitCheck{
	{"no_hang_stdin_closed", "Completes with stdin closed", 1, []int{10, 11}, []string{"REQ-F-009", "REQ-F-010"}},
	{"no_hang_stdin_open", "Completes with an open, silent stdin pipe", 1, []int{50, 10}, []string{"REQ-F-009"}},
	{"json_envelope", "Non-TTY stdout is exactly one valid ResponseEnvelope without flags", 1, []int{2, 3, 18}, []string{"REQ-F-003", "REQ-F-004", "REQ-F-006", "REQ-C-013"}},
	{"exit_code_contract", "Exit codes come from the table and match meta.exit_code", 1, []int{1}, []string{"REQ-F-001"}},
	{"stdout_no_ansi", "No ANSI escape sequences on stdout in a non-TTY", 1, []int{8}, []string{"REQ-F-007"}},
	{"no_color_honored", "NO_COLOR=1 removes ANSI from stdout and stderr", 1, []int{8}, []string{"REQ-F-008"}},
	{"help_off_stdout", "--help keeps stdout free of prose and exits 0", 1, []int{3}, []string{"REQ-F-048"}},
	{"invalid_input_exit_2", "Invalid input exits 2 before side effects", 1, []int{14, 1}, []string{"REQ-F-002"}},
	{"dry_run_preview", "Destructive commands preview with their dry-run flag", 1, []int{23}, []string{"REQ-C-004"}},
	{"destructive_refuses_unconfirmed", "Destructive commands refuse with exit 2, before side effects, without confirmation", 2, []int{23, 10}, []string{"REQ-C-005", "REQ-O-021"}},
	{"manifest_valid", "tool manifest returns a valid ManifestResponse", 3, []int{52, 21}, []string{"REQ-O-041"}},
	{"argument_order", "A global option means the same before and after the command path; conflicting repeats exit 2", 3, []int{69}, []string{"REQ-F-067", "REQ-F-079"}},
	{"stream_contract", "Every stream line is a JSON object and the stream ends on exactly one terminal line that matches the exit code", 3, []int{5, 76}, []string{"REQ-O-004"}},
	{"stream_sigint", "SIGINT mid-stream ends the stream on a CANCELLED error envelope with data.partial true and exit 130, as REQ-F-069 defines", 3, []int{16}, []string{"REQ-O-004"}},
}

// CheckIDs are the ids of the kit's checks, in the order it reports them.
func CheckIDs() []string {
	ids := make([]string, len(kitChecks))
	for i, c := range kitChecks {
		ids[i] = c.id
	}
	return ids
}

// ansi is an escape sequence as the kit finds one.
var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// allowedExit is the spec's exit code table as the kit reads it: 0–13,
// 79–125, and 130 and 143 for SIGINT and SIGTERM.
func allowedExit(code int) bool {
	return code >= 0 && code <= 13 || code >= 79 && code <= 125 || code == 130 || code == 143
}

// RunProfile runs the probes p directs, as the spec's own kit
// (conformance/run.py, v1.16) runs them, and returns its verdicts, check
// for check: the same runs, in the same order, judged by the same rules.
// Like the kit, it runs the command in this process's environment and
// working directory (without FORCE_COLOR and CLICOLOR_FORCE), one run at a
// time; a profile points its command at a sandbox of its own. Unlike the
// kit, it ends what a run leaves running once it has exited (after a
// second's grace), as every run of the checker does. only, when
// given, are the checks to report (the levels are of those alone), as the
// kit's --only.
func RunProfile(ctx context.Context, p *Profile, only ...string) *ConformanceResult {
	k := &kit{ctx: ctx, profile: p, outcomes: map[string]*ConformanceCheck{}}
	for _, c := range kitChecks {
		k.outcomes[c.id] = &ConformanceCheck{ID: c.id}
	}
	for _, probe := range p.Probes {
		if probe.Kind == StreamProbe {
			k.stream(probe)
		} else {
			k.probe(probe)
		}
	}
	k.help()
	k.manifest()
	k.argumentOrder()
	k.skipWithout(p.Probes)

	res := &ConformanceResult{SchemaVersion: "1.0", Tool: p.Tool, Checks: []ConformanceCheck{}}
	for _, c := range kitChecks {
		if len(only) > 0 && !slices.Contains(only, c.id) {
			continue
		}
		out := k.outcomes[c.id]
		out.Title, out.Level, out.Requirements, out.RunsChecked = c.title, c.level, c.requirements, len(out.Runs)
		for _, m := range c.failureModes {
			out.FailureModes = append(out.FailureModes, fmt.Sprintf("§%d", m))
		}
		if out.Failures == nil {
			out.Failures = []Evidence{}
		}
		if out.Runs == nil {
			out.Runs = []Evidence{}
		}
		switch {
		case out.SkippedReason != "":
			out.Status = CheckSkip
			res.Summary.Skipped++
		case len(out.Failures) > 0:
			out.Status = CheckFail
			res.Summary.Failed++
		default:
			out.Status = CheckPass
			res.Summary.Passed++
		}
		res.Checks = append(res.Checks, *out)
	}
	res.Levels = Levels{levelOf(res.Checks, 1), levelOf(res.Checks, 2), levelOf(res.Checks, 3)}
	return res
}

// OK reports whether every check that ran passed.
func (r *ConformanceResult) OK() bool { return r.Summary.Failed == 0 }

// levelOf is the verdict on one level: fail when a check it requires
// failed, incomplete when one was skipped, pass otherwise.
func levelOf(checks []ConformanceCheck, level int) string {
	status := CheckPass
	for _, c := range checks {
		switch {
		case c.Level > level:
		case c.Status == CheckFail:
			return "fail"
		case c.Status == CheckSkip:
			status = "incomplete"
		}
	}
	return status
}

// kit is one run of a profile.
type kit struct {
	ctx      context.Context
	profile  *Profile
	outcomes map[string]*ConformanceCheck
}

// kitRun is one run of the profile's command.
type kitRun struct {
	label string
	argv  []string // the whole command line
	stdin stdinMode
	env   []string // beyond the caller's
	out   runOutcome
}

func (r *kitRun) timedOut() bool { return r.out.TimedOut || r.out.Err != nil }

// exit is the run's exit code as the kit has it: nil when it was killed at
// its time limit, minus the signal's number when a signal ended it.
func (r *kitRun) exit() *int {
	if r.timedOut() {
		return nil
	}
	code := r.out.Exit
	if r.out.Signal != 0 {
		code = -int(r.out.Signal)
	}
	return &code
}

// exitIs reports whether the run exited with code.
func (r *kitRun) exitIs(code int) bool { e := r.exit(); return e != nil && *e == code }

// exitText is the exit code for a detail: a number, or None as the kit says.
func (r *kitRun) exitText() string {
	if e := r.exit(); e != nil {
		return fmt.Sprint(*e)
	}
	return "None"
}

func (r *kitRun) evidence(detail string) Evidence {
	stdin := "closed"
	if r.stdin == stdinOpen {
		stdin = "open"
	}
	return Evidence{
		Probe: r.label, Argv: r.argv, Stdin: stdin, Env: r.env, ExitCode: r.exit(),
		TimedOut: r.timedOut(), DurationMS: r.out.Duration.Milliseconds(), Detail: detail,
	}
}

// run runs the profile's command with argv after it.
func (k *kit) run(label string, argv []string, stdin stdinMode, env ...string) *kitRun {
	return k.runWith(label, argv, stdin, k.profile.timeout(), 0, env...)
}

func (k *kit) runWith(label string, argv []string, stdin stdinMode, timeout time.Duration, interruptAfter int, env ...string) *kitRun {
	whole := append(slices.Clone(k.profile.Command), argv...)
	inv := invocationSpec{
		Path: whole[0], Args: whole[1:], Env: kitEnv(env), Stdin: stdin, Timeout: timeout,
		MaxOutput: kitMaxOutput, InterruptAfter: interruptAfter,
	}
	return &kitRun{label: label, argv: whole, stdin: stdin, env: env, out: runInvocation(k.ctx, inv)}
}

// kitMaxOutput is what a kit run keeps of each stream: the kit reads all
// of it, so an envelope must not be cut into an invalid one; none is near
// 16 MiB, and a command that writes without end costs no more.
const kitMaxOutput = 16 << 20

// kitEnv is the environment of a kit run: this process's, without what
// forces colour on a pipe (or the checker's own note), with env on top.
func kitEnv(env []string) []string {
	base := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		switch envKey(kv) {
		case "FORCE_COLOR", "CLICOLOR_FORCE", isolationEnv:
			return true
		}
		return false
	})
	return append(base, env...)
}

// note counts a run toward check id.
func (k *kit) note(id string, r *kitRun) {
	out := k.outcomes[id]
	out.Runs = append(out.Runs, r.evidence(""))
}

// fail records a failure of check id on run r.
func (k *kit) fail(id string, r *kitRun, format string, a ...any) {
	out := k.outcomes[id]
	out.Failures = append(out.Failures, r.evidence(fmt.Sprintf(format, a...)))
}

// completed counts r toward check id, and fails it if r was killed at its
// time limit; it reports whether r ran to its end.
func (k *kit) completed(id string, r *kitRun) bool {
	k.note(id, r)
	if r.timedOut() {
		k.fail(id, r, "no exit within %gs; killed", k.profile.TimeoutSeconds)
		return false
	}
	return true
}

// envelope reads stdout as the kit does: exactly one JSON document, an
// object, valid against ResponseEnvelope. It returns the document, or why
// stdout is not one.
func kitEnvelope(stdout []byte) (map[string]any, string) {
	text := bytes.TrimSpace(stdout)
	if len(text) == 0 {
		return nil, "stdout is empty"
	}
	var doc any
	if err := json.Unmarshal(text, &doc); err != nil {
		return nil, fmt.Sprintf("stdout is not a single JSON document (%v)", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, "stdout JSON is not an object"
	}
	s, err := schemas()
	if err != nil {
		return nil, "checker: " + err.Error()
	}
	// The validator reads numbers exactly, as json.Number.
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		return nil, fmt.Sprintf("stdout is not a single JSON document (%v)", err)
	}
	if err := s.envelope.Validate(v); err != nil {
		return nil, "envelope invalid: " + oneLine(err)
	}
	return obj, ""
}

// envelopeChecks judges a completed run's stdout as an envelope: one
// valid envelope, an exit code from the table that meta.exit_code
// matches, no ANSI.
func (k *kit) envelopeChecks(r *kitRun) map[string]any {
	k.note("json_envelope", r)
	env, why := kitEnvelope(r.out.Stdout)
	if env == nil {
		k.fail("json_envelope", r, "%s", why)
	}
	k.note("exit_code_contract", r)
	code := *r.exit()
	if !allowedExit(code) {
		k.fail("exit_code_contract", r, "exit code %d is outside 0–13, 79–125, and signal codes 130/143", code)
	} else if env != nil {
		meta, _ := env["meta"].(map[string]any)
		if declared, _ := meta["exit_code"].(float64); declared != float64(code) {
			k.fail("exit_code_contract", r, "meta.exit_code is %v but the process exited %d", meta["exit_code"], code)
		}
	}
	k.note("stdout_no_ansi", r)
	if ansi.Match(r.out.Stdout) {
		k.fail("stdout_no_ansi", r, "stdout contains ANSI escape sequences")
	}
	return env
}

// probe runs one read, destructive or invalid probe: with stdin closed
// and open, under NO_COLOR, and for a destructive one with its dry-run
// flag.
func (k *kit) probe(p Probe) {
	closed := k.run(p.Name, p.Argv, stdinNull)
	if !k.completed("no_hang_stdin_closed", closed) {
		return
	}
	k.completed("no_hang_stdin_open", k.run(p.Name, p.Argv, stdinOpen))
	k.envelopeChecks(closed)

	noColor := k.run(p.Name, p.Argv, stdinNull, "NO_COLOR=1")
	if k.completed("no_color_honored", noColor) && (ansi.Match(noColor.out.Stdout) || ansi.Match(noColor.out.Stderr)) {
		k.fail("no_color_honored", noColor, "ANSI escape sequences present with NO_COLOR=1")
	}

	switch p.Kind {
	case InvalidProbe:
		k.note("invalid_input_exit_2", closed)
		if !closed.exitIs(2) {
			k.fail("invalid_input_exit_2", closed, "expected exit 2 for invalid input, got %s", closed.exitText())
		}
	case DestructiveProbe:
		k.note("destructive_refuses_unconfirmed", closed)
		if !closed.exitIs(2) {
			k.fail("destructive_refuses_unconfirmed", closed, "expected exit 2 (refused before side effects) without confirmation, got %s", closed.exitText())
		}
		preview := k.run(p.Name+" "+p.DryRunFlag, append(slices.Clone(p.Argv), p.DryRunFlag), stdinNull)
		if k.completed("dry_run_preview", preview) {
			env := k.envelopeChecks(preview)
			switch {
			case !preview.exitIs(0):
				k.fail("dry_run_preview", preview, "dry-run exited %s, expected 0", preview.exitText())
			case env == nil:
				k.fail("dry_run_preview", preview, "dry-run output is not a valid envelope")
			}
		}
	}
}

// help checks that --help exits 0 and keeps prose off stdout.
func (k *kit) help() {
	r := k.run("--help", []string{"--help"}, stdinNull)
	if !k.completed("help_off_stdout", r) {
		return
	}
	switch {
	case !r.exitIs(0):
		k.fail("help_off_stdout", r, "--help exited %s, expected 0", r.exitText())
	case len(bytes.TrimSpace(r.out.Stdout)) > 0:
		if env, _ := kitEnvelope(r.out.Stdout); env == nil {
			k.fail("help_off_stdout", r, "--help wrote prose to stdout in a non-TTY; route it to stderr")
		}
	}
}

// manifest checks the profile's manifest command against ManifestResponse.
func (k *kit) manifest() {
	if k.profile.Manifest == nil {
		k.outcomes["manifest_valid"].SkippedReason = "profile declares no manifest command"
		return
	}
	r := k.run("manifest", k.profile.Manifest, stdinNull)
	if !k.completed("manifest_valid", r) {
		return
	}
	env, why := kitEnvelope(r.out.Stdout)
	if env == nil {
		k.fail("manifest_valid", r, "%s", why)
		return
	}
	data, _ := json.Marshal(env["data"])
	if why := validManifest(data); why != "" {
		k.fail("manifest_valid", r, "data is not a valid ManifestResponse: %s", why)
	}
}

// The three places argumentOrder puts the global option.
const (
	beforePath = "before the command path"
	beforeArgs = "between path and local option"
	afterArgs  = "after the local option"
)

// argumentOrder checks that a global option means the same wherever it
// goes, and that two different values of it are refused.
func (k *kit) argumentOrder() {
	const id = "argument_order"
	o := k.profile.ArgumentOrder
	if o == nil {
		k.outcomes[id].SkippedReason = "profile declares no argument_order"
		return
	}
	flag, path, local := o.GlobalFlag, o.CommandPath, o.LocalArgs
	placements := func(value string) map[string][]string {
		return map[string][]string{
			beforePath: slices.Concat([]string{flag, value}, path, local),
			beforeArgs: slices.Concat(path, []string{flag, value}, local),
			afterArgs:  slices.Concat(path, local, []string{flag, value}),
		}
	}
	order := []string{beforePath, beforeArgs, afterArgs}
	type key struct{ value, where string }
	runs := map[key]*kitRun{}
	for _, value := range []string{o.Value, o.AlternateValue} {
		argvs := placements(value)
		for _, where := range order {
			r := k.run(fmt.Sprintf("argument_order %s %s %s", flag, value, where), argvs[where], stdinNull)
			if !k.completed(id, r) {
				return
			}
			if !r.exitIs(0) {
				k.fail(id, r, "%s %s %s exited %s, expected 0", flag, value, where, r.exitText())
				return
			}
			runs[key{value, where}] = r
		}
	}
	reference, _ := kitEnvelope(runs[key{o.Value, afterArgs}].out.Stdout)
	for _, where := range order {
		r := runs[key{o.Value, where}]
		env, why := kitEnvelope(r.out.Stdout)
		switch {
		case env == nil:
			k.fail(id, r, "%s %s %s: %s", flag, o.Value, where, why)
		case reference != nil && !reflect.DeepEqual(env["data"], reference["data"]):
			k.fail(id, r, "data differs from the run with %s %s after the local option", flag, o.Value)
		}
		alternate := runs[key{o.AlternateValue, where}]
		if bytes.Equal(alternate.out.Stdout, r.out.Stdout) {
			k.fail(id, alternate, "%s %s %s printed the same stdout as %s %s: the value was ignored or overwritten by a default", flag, o.AlternateValue, where, flag, o.Value)
		}
		if !bytes.Equal(alternate.out.Stdout, runs[key{o.AlternateValue, afterArgs}].out.Stdout) {
			k.fail(id, alternate, "stdout differs from the run with %s %s after the local option", flag, o.AlternateValue)
		}
	}
	conflict := k.run("argument_order conflicting "+flag, slices.Concat([]string{flag, o.Value}, path, local, []string{flag, o.AlternateValue}), stdinNull)
	if k.completed(id, conflict) && !conflict.exitIs(2) {
		k.fail(id, conflict, "%s given twice with different values exited %s, expected 2", flag, conflict.exitText())
	}
	if o.Positional != "" {
		k.optionAfterPositional(o)
	}
}

// optionAfterPositional checks that a local option after a positional
// takes effect, rather than being read as another positional.
func (k *kit) optionAfterPositional(o *ArgumentOrder) {
	const id = "argument_order"
	const (
		after   = "local option after the positional"
		before  = "local option before the positional"
		without = "positional without the local option"
	)
	path, local, positional := o.CommandPath, o.LocalArgs, o.Positional
	argvs := map[string][]string{
		after:   slices.Concat(path, []string{positional}, local),
		before:  slices.Concat(path, local, []string{positional}),
		without: slices.Concat(path, []string{positional}),
	}
	data := map[string]any{}
	runs := map[string]*kitRun{}
	for _, where := range []string{after, before, without} {
		r := k.run("argument_order "+where, argvs[where], stdinNull)
		if !k.completed(id, r) {
			return
		}
		env, why := kitEnvelope(r.out.Stdout)
		if !r.exitIs(0) || env == nil {
			if why == "" {
				why = "envelope reports failure"
			}
			k.fail(id, r, "%s: exit %s, %s", where, r.exitText(), why)
			return
		}
		data[where], runs[where] = env["data"], r
	}
	words := strings.Join(local, " ")
	if !reflect.DeepEqual(data[after], data[before]) {
		k.fail(id, runs[after], "%s after %q gives different data than before it", words, positional)
	}
	if reflect.DeepEqual(data[after], data[without]) {
		k.fail(id, runs[after], "%s after %q had no effect: read as a positional or ignored", words, positional)
	}
}

// stream runs a stream probe once, interrupting it when the probe asks,
// and checks REQ-O-004's line contract.
func (k *kit) stream(p Probe) {
	const id = "stream_contract"
	deadline := p.DeadlineSeconds
	if deadline == 0 {
		deadline = k.profile.TimeoutSeconds
	}
	label := p.Name
	if p.Signal != "" {
		label = fmt.Sprintf("%s (SIGINT after %d lines)", p.Name, p.AfterLines)
	}
	r := k.runWith(label, p.Argv, stdinNull, seconds(deadline), p.AfterLines)
	parsed := parseStream(r.out.Stdout)

	k.note(id, r)
	for _, problem := range parsed.problems {
		k.fail(id, r, "%s", problem)
	}
	if more := parsed.broken - len(parsed.problems); more > 0 {
		k.fail(id, r, "%d more stream lines break the contract", more)
	}
	switch {
	case r.timedOut():
		seen := fmt.Sprintf("%d lines and no terminal line", parsed.lines)
		if parsed.terminal != 0 {
			seen = "its terminal line"
		}
		k.fail(id, r, "still running at the %gs deadline after %s; killed", deadline, seen)
	case parsed.terminal == 0:
		k.fail(id, r, "stdout ended after %d lines without a terminal line (\"_summary\": true or an error envelope)", parsed.lines)
	case parsed.summary:
		if !r.exitIs(0) {
			k.fail(id, r, "stream ended on its summary line but exited %s, expected 0", r.exitText())
		}
	case parsed.valid:
		if declared := parsed.failure.exitCode(); !r.exitIs(declared) {
			k.fail(id, r, "terminal error envelope declares meta.exit_code %d but the process exited %s", declared, r.exitText())
		}
	}
	if p.Signal != "" {
		k.sigint(p.AfterLines, r, parsed, deadline)
	}
}

// sigint checks how a stream ended after SIGINT: exit 130, on an error
// envelope whose code is CANCELLED and whose data says partial.
func (k *kit) sigint(after int, r *kitRun, parsed streamParse, deadline float64) {
	const id = "stream_sigint"
	k.note(id, r)
	if r.out.Interrupted == 0 {
		if r.timedOut() {
			k.fail(id, r, "only %d of %d lines before the %gs deadline; SIGINT never sent", parsed.lines, after, deadline)
		} else {
			k.fail(id, r, "stream ended after %d lines, before after_lines %d; SIGINT never sent, lower after_lines", parsed.lines, after)
		}
		return
	}
	if r.timedOut() {
		k.fail(id, r, "no exit within the %gs deadline after SIGINT; killed", deadline)
		return
	}
	if !r.exitIs(130) {
		k.fail(id, r, "exited %s after SIGINT, expected 130", r.exitText())
	}
	switch {
	case parsed.terminal == 0:
		k.fail(id, r, "no terminal line after SIGINT; expected an error envelope with error.code CANCELLED")
	case parsed.summary:
		k.fail(id, r, "stream ended on its summary line after SIGINT; expected an error envelope with error.code CANCELLED")
	default:
		var terminal struct {
			Error any `json:"error"`
			Data  any `json:"data"`
		}
		_ = json.Unmarshal(parsed.terminalText, &terminal)
		code := any(nil)
		if e, ok := terminal.Error.(map[string]any); ok {
			code = e["code"]
		}
		if code != "CANCELLED" {
			k.fail(id, r, "terminal error envelope after SIGINT has error.code %v, expected 'CANCELLED'", code)
		}
		if d, ok := terminal.Data.(map[string]any); !ok || d["partial"] != true {
			data, _ := json.Marshal(terminal.Data)
			k.fail(id, r, "terminal error envelope after SIGINT has data %s, expected data.partial true", data)
		}
	}
}

// skipWithout skips the checks the profile declared no probe for.
func (k *kit) skipWithout(probes []Probe) {
	has := func(f func(Probe) bool) bool { return slices.ContainsFunc(probes, f) }
	if !has(func(p Probe) bool { return p.Kind == InvalidProbe }) {
		k.outcomes["invalid_input_exit_2"].SkippedReason = "profile declares no invalid probe"
	}
	if !has(func(p Probe) bool { return p.Kind == DestructiveProbe }) {
		k.outcomes["dry_run_preview"].SkippedReason = "profile declares no destructive probe"
		k.outcomes["destructive_refuses_unconfirmed"].SkippedReason = "profile declares no destructive probe"
	}
	if !has(func(p Probe) bool { return p.Kind == StreamProbe }) {
		k.outcomes["stream_contract"].SkippedReason = "profile declares no stream probe"
	}
	if !has(func(p Probe) bool { return p.Kind == StreamProbe && p.Signal != "" }) {
		k.outcomes["stream_sigint"].SkippedReason = "profile declares no stream probe with signal"
	}
}
