package conformance

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"charm.land/lipgloss/v2/table"

	"github.com/duet-cli/duet/internal/spec"
)

// Report is what a check found: a verdict on every requirement of the
// spec, with evidence, and a score for each failure mode.
type Report struct {
	Target     Target              `json:"target"`
	Discovery  string              `json:"discovery"`            // describe, manifest, help or none
	Isolation  string              `json:"isolation"`            // what kept the runs from the world (see Isolate)
	Incomplete string              `json:"incomplete,omitempty"` // what the time budget left out
	Commands   []string            `json:"commands"`             // dot paths; "" is the root
	DurationMS int64               `json:"duration_ms"`
	Score      Score               `json:"score"`
	Results    []RequirementResult `json:"requirements"` // every requirement, in the spec's order
	Modes      []ModeScore         `json:"failure_modes"`
}

// ModeScore is the score of one failure mode of the spec.
type ModeScore struct {
	Number       int      `json:"number"` // its §
	Name         string   `json:"name"`
	Severity     string   `json:"severity"`
	Score        *int     `json:"score"`        // 0–3; null when no requirement mapped to it was judged
	Requirements []string `json:"requirements"` // the requirements the spec maps to it
}

// ModeTally sums the failure modes' scores.
type ModeTally struct {
	Points int `json:"points"` // the sum of the scores
	Scored int `json:"scored"` // the modes scored, each out of 3
	Modes  int `json:"modes"`  // the spec's failure modes
}

// Percent is the points over the most the scored modes could have.
func (t ModeTally) Percent() float64 {
	if t.Scored == 0 {
		return 0
	}
	return 100 * float64(t.Points) / float64(3*t.Scored)
}

// RequirementResult is the verdict on one requirement: it fails when any
// check of it failed, passes when at least one passed and none failed.
type RequirementResult struct {
	Requirement
	Tier     string    `json:"tier"`
	Required bool      `json:"required"`
	Status   Status    `json:"status"`
	Checks   int       `json:"checks"`             // how many checks judged it
	Failures []Finding `json:"failures,omitempty"` // the first few, with their evidence
	Example  *Finding  `json:"example,omitempty"`  // a passing check when it passed; why it was not judged
}

// Score counts the requirements that passed among those that applied, and
// the failure modes' scores.
type Score struct {
	Passed     int              `json:"passed"`
	Applicable int              `json:"applicable"`
	Tiers      map[string]Tally `json:"tiers"` // F, C and O
	Modes      ModeTally        `json:"failure_modes"`
}

// Tally is a score for one tier.
type Tally struct {
	Passed     int `json:"passed"`
	Applicable int `json:"applicable"`
}

// maxFailures bounds the evidence kept per requirement.
const maxFailures = 5

func (c *checker) report(t *tree, took time.Duration) *Report {
	r := &Report{Target: c.target, Discovery: t.source, Isolation: c.iso.String(), DurationMS: took.Milliseconds(), Score: Score{Tiers: map[string]Tally{}}}
	for _, cmd := range t.commands {
		r.Commands = append(r.Commands, cmd.DotPath())
	}
	var left []string
	if c.crawlCut {
		left = append(left, fmt.Sprintf("the crawl of --help stopped at %d commands, half the budget", len(t.commands)))
	}
	if c.unrun > 0 {
		// What a longer budget would add: these runs, at the pace of those
		// made, and the verdicts that rest on them.
		more := ""
		if c.made > 0 {
			more = fmt.Sprintf("; at the pace of the %d made, about %v more would make them", c.made, (c.runTime / time.Duration(c.made) * time.Duration(c.unrun)).Round(time.Second))
		}
		left = append(left, fmt.Sprintf("%d runs were not made, among them %s%s, and what they would judge is not judged", c.unrun, strings.Join(c.unrunLines, ", "), more))
	}
	if len(left) > 0 {
		r.Incomplete = fmt.Sprintf("the time budget of %v ran out: %s", c.opts.Budget, strings.Join(left, "; "))
	}
	reqs, modes, err := theSpec()
	if err != nil {
		panic("conformance: the spec's tables: " + err.Error()) // embedded, held by the spec package's tests
	}
	byID := map[string]*RequirementResult{}
	for _, req := range reqs {
		res := &RequirementResult{Requirement: req, Tier: req.Tier(), Required: req.Required(), Status: NotApplicable}
		if !slices.Contains(probed, req.ID) {
			res.Status = NotJudged
			res.Example = &Finding{Requirement: req.ID, Status: NotJudged, Evidence: "no probe of this checker judges it"}
		}
		byID[req.ID] = res
	}
	for _, f := range c.findings {
		res := byID[f.Requirement]
		if res == nil {
			continue // not a requirement of the spec: a probe's mistake, held by the tests
		}
		res.Checks++
		switch f.Status {
		case Fail:
			res.Status = Fail
			if len(res.Failures) < maxFailures {
				res.Failures = append(res.Failures, f)
			}
		case Pass:
			if res.Status != Fail {
				res.Status = Pass
			}
			if res.Example == nil || res.Example.Status != Pass {
				res.Example = &f
			}
		case NotJudged:
			if res.Status == NotApplicable {
				res.Status = NotJudged
			}
			if res.Example == nil {
				res.Example = &f
			}
		}
	}
	for _, req := range reqs {
		res := byID[req.ID]
		if res.Status == Fail {
			res.Example = nil
		}
		r.Results = append(r.Results, *res)
		tally := r.Score.Tiers[res.Tier]
		if res.Status == Pass || res.Status == Fail {
			r.Score.Applicable++
			tally.Applicable++
		}
		if res.Status == Pass {
			r.Score.Passed++
			tally.Passed++
		}
		r.Score.Tiers[res.Tier] = tally
	}
	r.Modes, r.Score.Modes = scoreModes(modes, r.Results)
	return r
}

// scoreModes scores each failure mode 0–3 by the verdicts on the
// requirements the spec maps to it: 3 when every one passed, 2 when those
// judged passed and some were not judged, 1 when some passed and some
// failed, 0 when none passed; not scored when none was judged. The overall
// score is the scored modes' sum over its most.
func scoreModes(modes []spec.Mode, results []RequirementResult) ([]ModeScore, ModeTally) {
	var out []ModeScore
	var tally ModeTally
	for _, m := range modes {
		ms := ModeScore{Number: m.Number, Name: m.Name, Severity: m.Severity}
		var passed, failed, unjudged int
		for _, res := range results {
			if !slices.Contains(res.Modes, m.Number) {
				continue
			}
			ms.Requirements = append(ms.Requirements, res.ID)
			switch res.Status {
			case Pass:
				passed++
			case Fail:
				failed++
			case NotJudged:
				unjudged++
			}
		}
		score := -1
		switch {
		case passed+failed == 0:
		case failed == 0 && unjudged == 0:
			score = 3
		case failed == 0:
			score = 2
		case passed > 0:
			score = 1
		default:
			score = 0
		}
		if score >= 0 {
			ms.Score = &score
			tally.Scored++
			tally.Points += score
		}
		out = append(out, ms)
	}
	tally.Modes = len(modes)
	return out, tally
}

// OK reports whether every applicable required requirement passed.
func (r *Report) OK() bool {
	for _, res := range r.Results {
		if res.Required && res.Status == Fail {
			return false
		}
	}
	return true
}

// Failed returns the ids of the requirements that failed, sorted.
func (r *Report) Failed() []string {
	var ids []string
	for _, res := range r.Results {
		if res.Status == Fail {
			ids = append(ids, res.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// WriteTable writes the report as a table for a person: one row per
// requirement, the failures' evidence under it, and the score. Colour is
// used only when color is true.
func (r *Report) WriteTable(w io.Writer, color bool) error {
	mark := map[Status]string{Pass: "pass", Fail: "FAIL", NotApplicable: "n/a", NotJudged: "not judged"}
	styles := map[Status]lipgloss.Style{}
	if color {
		styles[Pass] = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
		styles[Fail] = lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Bold(true)
		styles[NotApplicable] = lipgloss.NewStyle().Faint(true)
	}
	rows := make([][]string, 0, len(r.Results))
	shown := make([]RequirementResult, 0, len(r.Results))
	unprobed := 0
	for _, res := range r.Results {
		if !slices.Contains(probed, res.ID) {
			unprobed++
			continue
		}
		shown = append(shown, res)
		req := ""
		if res.Required {
			req = "required"
		}
		why := ""
		f := res.Example
		if len(res.Failures) > 0 {
			f = &res.Failures[0]
		}
		if f != nil && f.Status != Pass {
			why = f.Probe + ": " + f.Evidence
			if len(why) > 90 {
				why = why[:90] + "…"
			}
		}
		rows = append(rows, []string{res.ID, res.Title, req, mark[res.Status], why})
	}
	t := table.New().
		Border(lipgloss.NormalBorder()).
		Headers("ID", "REQUIREMENT", "", "RESULT", "EVIDENCE").
		Rows(rows...).
		StyleFunc(func(row, col int) lipgloss.Style {
			s := lipgloss.NewStyle().Padding(0, 1)
			if row >= 0 && col == 3 {
				return styles[shown[row].Status].Padding(0, 1)
			}
			return s
		})
	if _, err := fmt.Fprintln(w, t.String()); err != nil {
		return err
	}
	var tiers []string
	for _, tier := range []string{"F", "C", "O"} {
		s := r.Score.Tiers[tier]
		tiers = append(tiers, fmt.Sprintf("%s %d/%d", tier, s.Passed, s.Applicable))
	}
	verdict := "conforms"
	if !r.OK() {
		verdict = "does not conform: " + strings.Join(r.Failed(), ", ")
	}
	m := r.Score.Modes
	incomplete := ""
	if r.Incomplete != "" {
		incomplete = "incomplete: " + r.Incomplete + "\n"
	}
	_, err := fmt.Fprintf(w, "%s: %d of %d applicable requirements pass (%s); %d not judged by any probe (in the JSON); failure modes %.1f %% (%d points of %d, %d of %d modes scored); commands from %s; %s; %d ms\nisolated by: %s\n%s",
		r.Target.Path, r.Score.Passed, r.Score.Applicable, strings.Join(tiers, ", "), unprobed, m.Percent(), m.Points, 3*m.Scored, m.Scored, m.Modes, r.Discovery, verdict, r.DurationMS, r.Isolation, incomplete)
	return err
}

// WriteMarkdown writes the report as a scorecard: the failure modes with
// their scores, then every requirement judged, with its evidence.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	m := r.Score.Modes
	fmt.Fprintf(&b, "# CLI Agent Spec scorecard: `%s`\n\n", r.Target.Path)
	fmt.Fprintf(&b, "Checked by duet-check in %d ms; commands from %s (%d).\n\n", r.DurationMS, r.Discovery, len(r.Commands))
	fmt.Fprintf(&b, "Runs isolated by: %s.\n\n", r.Isolation)
	if r.Incomplete != "" {
		fmt.Fprintf(&b, "Incomplete: %s.\n\n", r.Incomplete)
	}
	fmt.Fprintf(&b, "- Requirements: %d of %d applicable pass; %d of them required (P0) fail.\n", r.Score.Passed, r.Score.Applicable, len(r.requiredFailures()))
	fmt.Fprintf(&b, "- Failure modes: **%.1f %%** — %d points of %d, over the %d of %d modes scored (3: every requirement mapped to it passes; 2: those judged pass; 1: some fail; 0: none passes).\n\n", m.Percent(), m.Points, 3*m.Scored, m.Scored, m.Modes)
	b.WriteString("| § | Failure mode | Severity | Score | Requirements |\n|---|---|---|---|---|\n")
	status := map[string]Status{}
	for _, res := range r.Results {
		status[res.ID] = res.Status
	}
	for _, ms := range r.Modes {
		score := "—"
		if ms.Score != nil {
			score = fmt.Sprint(*ms.Score)
		}
		var reqs []string
		for _, id := range ms.Requirements {
			switch status[id] {
			case Pass:
				reqs = append(reqs, id+" ✓")
			case Fail:
				reqs = append(reqs, id+" ✗")
			}
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s |\n", ms.Number, ms.Name, ms.Severity, score, strings.Join(reqs, ", "))
	}
	b.WriteString("\n## Requirements judged\n\n| ID | Requirement | Priority | Result | Evidence |\n|---|---|---|---|---|\n")
	for _, res := range r.Results {
		if res.Status == NotJudged && !slices.Contains(probed, res.ID) {
			continue
		}
		why := ""
		f := res.Example
		if len(res.Failures) > 0 {
			f = &res.Failures[0]
		}
		if f != nil && f.Status != Pass {
			why = strings.ReplaceAll(f.Evidence, "|", "\\|")
			if len(why) > 160 {
				why = strings.ToValidUTF8(why[:160], "") + "…"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", res.ID, res.Title, res.Priority, res.Status, why)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// requiredFailures are the required requirements that failed.
func (r *Report) requiredFailures() []string {
	var ids []string
	for _, res := range r.Results {
		if res.Required && res.Status == Fail {
			ids = append(ids, res.ID)
		}
	}
	return ids
}
