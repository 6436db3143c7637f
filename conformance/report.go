package conformance

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"charm.land/lipgloss/v2/table"
)

// Report is what a check found: a verdict per requirement, with evidence.
type Report struct {
	Target     Target              `json:"target"`
	Discovery  string              `json:"discovery"` // describe, manifest, help or none
	Commands   []string            `json:"commands"`  // dot paths; "" is the root
	DurationMS int64               `json:"duration_ms"`
	Score      Score               `json:"score"`
	Results    []RequirementResult `json:"requirements"`
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

// Score counts the requirements that passed among those that applied.
type Score struct {
	Passed     int              `json:"passed"`
	Applicable int              `json:"applicable"`
	Tiers      map[string]Tally `json:"tiers"` // F, C and O
}

// Tally is a score for one tier.
type Tally struct {
	Passed     int `json:"passed"`
	Applicable int `json:"applicable"`
}

// maxFailures bounds the evidence kept per requirement.
const maxFailures = 5

func (c *checker) report(t *tree, took time.Duration) *Report {
	r := &Report{Target: c.target, Discovery: t.source, DurationMS: took.Milliseconds(), Score: Score{Tiers: map[string]Tally{}}}
	for _, cmd := range t.commands {
		r.Commands = append(r.Commands, cmd.DotPath())
	}
	byID := map[string]*RequirementResult{}
	for _, f := range c.findings {
		res := byID[f.Requirement]
		if res == nil {
			req := requirement(f.Requirement)
			res = &RequirementResult{Requirement: req, Tier: req.Tier(), Required: req.Required(), Status: NotApplicable}
			byID[f.Requirement] = res
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
	for _, req := range requirements {
		res := byID[req.ID]
		if res == nil {
			res = &RequirementResult{Requirement: req, Tier: req.Tier(), Required: req.Required(), Status: NotApplicable}
		}
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
	return r
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
	for _, res := range r.Results {
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
				return styles[r.Results[row].Status].Padding(0, 1)
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
	_, err := fmt.Fprintf(w, "%s: %d of %d applicable requirements pass (%s); commands from %s; %s; %d ms\n",
		r.Target.Path, r.Score.Passed, r.Score.Applicable, strings.Join(tiers, ", "), r.Discovery, verdict, r.DurationMS)
	return err
}
