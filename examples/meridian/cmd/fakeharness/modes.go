package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// mode is how one run behaves.
type mode struct {
	name  string
	sleep time.Duration // sleep=DURATION
}

func (m mode) String() string {
	if m.name == "sleep" {
		return "sleep=" + m.sleep.String()
	}
	return m.name
}

var directive = regexp.MustCompile(`\[fake:([^\]]*)\]`)

// edit is a change the fake makes in its working directory, as an agent
// edits a project: [fake-write:PATH=TEXT] writes TEXT (\n for a newline)
// to PATH, [fake-delete:PATH] removes it.
var edit = regexp.MustCompile(`\[fake-(write|delete):([^=\]]+)(?:=([^\]]*))?\]`)

// applyEdits makes the prompt's edits, in order.
func applyEdits(prompt string) error {
	for _, m := range edit.FindAllStringSubmatch(prompt, -1) {
		var err error
		if m[1] == "delete" {
			err = os.Remove(m[2])
		} else {
			if dir := filepath.Dir(m[2]); dir != "." {
				os.MkdirAll(dir, 0o755)
			}
			err = os.WriteFile(m[2], []byte(strings.ReplaceAll(m[3], `\n`, "\n")), 0o644)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// chooseMode reads the [fake:MODE] directive in the prompt, else envMode,
// else success.
func chooseMode(prompt, envMode string) (mode, error) {
	spec := envMode
	if m := directive.FindStringSubmatch(prompt); m != nil {
		spec = m[1]
	}
	spec = strings.TrimSpace(spec)
	switch spec {
	case "", "success":
		return mode{name: "success"}, nil
	case "fail", "hang", "crash", "huge", "stderr":
		return mode{name: spec}, nil
	}
	if d, ok := strings.CutPrefix(spec, "sleep="); ok {
		dur, err := time.ParseDuration(d)
		if err != nil {
			return mode{}, fmt.Errorf("mode %q: %w", spec, err)
		}
		return mode{name: "sleep", sleep: dur}, nil
	}
	return mode{}, fmt.Errorf("unknown mode %q (success, fail, hang, crash, huge, sleep=DURATION, stderr)", spec)
}

// firstLine is the first non-blank line of the prompt, directives removed.
func firstLine(prompt string) string {
	for _, l := range strings.Split(edit.ReplaceAllString(directive.ReplaceAllString(prompt, ""), ""), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// usage is what a run "cost"; see the package doc for the formula.
type usage struct {
	input, cached, output int64
	costUSD               float64
}

func usageFor(prompt, report string) usage {
	in, out := int64(len(prompt)), int64(len(report))
	return usage{input: in, cached: in / 2, output: out, costUSD: float64(3*in+15*out) / 1e6}
}

// stream prints one CLI's events.
type stream interface {
	begin()                         // the events up to the one revealing the session id
	bulk(n int, payload string)     // a valid event carrying payload, not part of the report
	progress(text string)           // assistant text before the final answer
	succeed(report string, u usage) // the final answer and the terminal success event
	fail(msg string, u usage) int   // the CLI's failure events; returns its exit code
	tornEnd(report string, u usage) // the first half of the terminal event, no newline
}

const defaultHugeBytes = 10 << 20

// perform runs mode m on stream s.
func perform(h host, m mode, s stream, prompt, name string, inv *invocation) int {
	report := fmt.Sprintf("fake %s report: %s", name, firstLine(prompt))
	if strings.Contains(prompt, reviewAsked) {
		report = fakeReview(prompt)
	}
	u := usageFor(prompt, report)
	if m.name == "stderr" {
		fmt.Fprintf(h.stderr, "Error: fake %s failed as asked ([fake:stderr])\n    at Session.run (fake/%s.js:42:7)\n    at main (fake/%s.js:7:3)\nCaused by: the prompt asked for it\n", name, name, name)
		return 1
	}
	s.begin()
	if err := applyEdits(prompt); err != nil {
		return s.fail(fmt.Sprintf("fake %s could not edit: %v", name, err), usage{})
	}
	switch m.name {
	case "fail":
		return s.fail(fmt.Sprintf("fake %s failure: %s", name, firstLine(prompt)), usage{})
	case "hang":
		for {
			time.Sleep(time.Hour)
		}
	case "crash":
		s.progress("Working on it.")
		s.tornEnd(report, u)
		return 70
	case "sleep":
		time.Sleep(m.sleep)
	case "huge":
		total := defaultHugeBytes
		if v := h.getenv("FAKE_HARNESS_HUGE_BYTES"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				fmt.Fprintf(h.stderr, "fakeharness: FAKE_HARNESS_HUGE_BYTES=%q is not a byte count\n", v)
				return 2
			}
			total = n
		}
		const bigLine, chunk = 2<<20 + 1024, 64 << 10
		s.bulk(0, strings.Repeat("x", bigLine))
		for i, sent := 1, bigLine; sent < total; i++ {
			s.bulk(i, strings.Repeat(string(rune('a'+i%26)), chunk))
			sent += chunk
		}
	}
	if inv.reportFile != "" {
		if err := writeReport(inv.reportFile, report); err != nil {
			fmt.Fprintf(h.stderr, "Failed to write last message file %q: %v\n", inv.reportFile, err)
		}
	}
	s.succeed(report, u)
	return 0
}

// lineWriter writes one event a line and flushes it, so a reader sees each
// event as it is printed (a hanging run's first event must get out).
type lineWriter struct {
	w interface {
		io.Writer
		Flush() error
	}
}

func (l *lineWriter) event(o obj) {
	b := o.marshal()
	l.w.Write(append(b, '\n'))
	l.w.Flush()
}

// raw writes s as it is (text formats, a torn line).
func (l *lineWriter) raw(s string) {
	io.WriteString(l.w, s)
	l.w.Flush()
}

// reviewAsked marks a reviewer's prompt (meridian's run review).
const reviewAsked = "Answer with one JSON object and nothing else"

var (
	reviewDirective = regexp.MustCompile(`\[fake-review:([a-z_]+)\]`)
	changedLine     = regexp.MustCompile(`(?m)^- (added|modified|deleted|renamed|copied|type_changed) (.+)$`)
)

// fakeReview is a reviewer's answer: one low issue per file the prompt
// lists, verdict approve — or what [fake-review:VERDICT] in the task says;
// [fake-review:garbage] answers prose instead of the object.
func fakeReview(prompt string) string {
	verdict := "approve"
	if m := reviewDirective.FindStringSubmatch(prompt); m != nil {
		if m[1] == "garbage" {
			return "Looks fine to me, ship it."
		}
		verdict = m[1]
	}
	type issue struct {
		Severity string `json:"severity"`
		File     string `json:"file"`
		Line     int    `json:"line"`
		Message  string `json:"message"`
	}
	issues := []issue{}
	for _, m := range changedLine.FindAllStringSubmatch(prompt, -1) {
		issues = append(issues, issue{Severity: "low", File: m[2], Line: 1, Message: "fake review: " + m[1] + " " + m[2]})
	}
	raw, _ := json.Marshal(map[string]any{"verdict": verdict, "summary": fmt.Sprintf("fake review of %d file(s)", len(issues)), "issues": issues})
	return "```json\n" + string(raw) + "\n```"
}
