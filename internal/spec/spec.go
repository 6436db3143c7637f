// Package spec is Duet's account of itself against the CLI Agent Spec
// v1.16: the spec's requirements and failure modes (requirements.tsv,
// modes.tsv, taken from the spec), and Duet's verdict on each requirement,
// with the tests that prove it (registry.tsv).
//
// A verdict is "met" only when a test drives a built binary, black-box,
// through every acceptance criterion of the requirement as v1.16 states it;
// a unit or in-process test alone leaves it "partial". The registry's own
// test holds every met row to a test that exists and to at least one test
// of a black-box suite, so a claim cannot outlive its proof.
//
// The spec's answer to "how conformant is it" is a level, not a
// percentage: level 1 is twelve agent-safe basics, level 2 adds every other
// P0 requirement, level 3 is every requirement, and a CLI claims the
// highest level whose every requirement it meets. [Levels] computes the
// claim, treating a requirement that cannot apply to Go as met.
//
// [Coverage] scores the verdicts the way the spec's comparison matrix
// scores a framework: a failure mode is met when every requirement mapped
// to it is met (or does not apply to Go), partly met when any of them is
// met or partly met, and the score is (met + ½·partial) / modes. The modes
// are all 76 active failure modes, although the matrix itself has rows for
// 75 of them: §79 came in 1.15 with six requirements and no matrix row, and
// leaving it out would hide those six (modes.tsv says more).
//
// cmd/spec-coverage prints the claim and the score, and with --check judges
// built binaries with the conformance checker first.
package spec

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Version is the version of the CLI Agent Spec the tables are taken from.
const Version = "1.16.0"

// Status is Duet's verdict on one requirement.
type Status string

// The verdicts a registry row can give.
const (
	Met      Status = "met"
	Partial  Status = "partial"
	Not      Status = "not"
	NotForGo Status = "n/a" // the failure cannot happen in a Go program; the note says why
)

// Requirement is one requirement of the spec.
type Requirement struct {
	ID       string // F-001, C-004, O-021: framework-automatic, command contract, opt-in
	Priority string // P0 … P3
	Title    string
	Modes    []int // the failure modes (§) it addresses, as the spec's index maps them
	// Level is the lowest conformance level that contains it: 1 for the
	// twelve agent-safe basics, 2 for the other P0 requirements, 3 for the
	// rest. A level contains every requirement of a lower one.
	Level int
}

// Mode is one failure mode of the spec.
type Mode struct {
	Number    int // the § of the spec's failure-mode reference
	Name      string
	Severity  string
	Frequency string
}

// Verdict is one row of the registry.
type Verdict struct {
	ID     string
	Status Status
	// Tests name the tests that prove the verdict, as "dir TestName" with
	// dir relative to the module root, such as "adapters
	// TestConfirmationInAgentMode". A met row has at least one.
	Tests []string
	Note  string // how Duet meets it, what is missing, or why it does not apply
}

//go:embed requirements.tsv
var requirementsTSV []byte

//go:embed modes.tsv
var modesTSV []byte

//go:embed registry.tsv
var registryTSV []byte

// Requirements returns the spec's requirements, in the spec's order.
func Requirements() ([]Requirement, error) {
	var out []Requirement
	err := rows(requirementsTSV, 5, func(f []string) error {
		r := Requirement{ID: f[0], Priority: f[1], Title: f[2]}
		level, err := strconv.Atoi(f[4])
		if err != nil || level < 1 {
			return fmt.Errorf("%s: level %q is not 1 or more", r.ID, f[4])
		}
		r.Level = level
		for _, m := range strings.Split(f[3], ",") {
			if m == "" {
				continue
			}
			n, err := strconv.Atoi(m)
			if err != nil {
				return fmt.Errorf("%s: failure mode %q: %w", r.ID, m, err)
			}
			r.Modes = append(r.Modes, n)
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// Modes returns the failure modes Coverage scores, in the comparison
// matrix's order: every active failure mode of the spec.
func Modes() ([]Mode, error) {
	var out []Mode
	err := rows(modesTSV, 4, func(f []string) error {
		n, err := strconv.Atoi(f[0])
		if err != nil {
			return fmt.Errorf("failure mode %q: %w", f[0], err)
		}
		out = append(out, Mode{Number: n, Name: f[1], Severity: f[2], Frequency: f[3]})
		return nil
	})
	return out, err
}

// Registry returns Duet's verdicts, one per requirement.
func Registry() ([]Verdict, error) { return ParseRegistry(registryTSV) }

// ParseRegistry reads a registry: tab-separated rows of id, status, tests
// (separated by "; ") and note; lines starting with # are comments.
func ParseRegistry(b []byte) ([]Verdict, error) {
	var out []Verdict
	err := rows(b, 4, func(f []string) error {
		v := Verdict{ID: f[0], Status: Status(f[1]), Note: f[3]}
		switch v.Status {
		case Met, Partial, Not, NotForGo:
		default:
			return fmt.Errorf("%s: status %q is not met, partial, not or n/a", v.ID, f[1])
		}
		for _, t := range strings.Split(f[2], ";") {
			if t = strings.TrimSpace(t); t != "" {
				v.Tests = append(v.Tests, t)
			}
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

// rows calls fn with the fields of each row of a tab-separated table.
func rows(b []byte, fields int, fn func([]string) error) error {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Split(text, "\t")
		if len(f) != fields {
			return fmt.Errorf("line %d: %d fields, want %d: %q", line, len(f), fields, text)
		}
		if err := fn(f); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
	}
	return sc.Err()
}

// ModeCoverage is how well Duet covers one failure mode.
type ModeCoverage struct {
	Mode
	Status       Status    // Met, Partial or Not
	Requirements []Verdict // the verdicts on the requirements mapped to it
}

// Report is the coverage of every failure mode.
type Report struct {
	Modes                []ModeCoverage
	Met, Partial, Missed int
}

// Percent is the matrix's score: (met + ½·partial) / modes, in percent.
func (r Report) Percent() float64 {
	if len(r.Modes) == 0 {
		return 0
	}
	return 100 * (float64(r.Met) + float64(r.Partial)/2) / float64(len(r.Modes))
}

// Coverage scores verdicts by the spec's mapping of requirements to failure
// modes. A requirement without a verdict counts as not met.
func Coverage(reqs []Requirement, modes []Mode, verdicts []Verdict) Report {
	byID := make(map[string]Verdict, len(verdicts))
	for _, v := range verdicts {
		byID[v.ID] = v
	}
	var r Report
	for _, m := range modes {
		mc := ModeCoverage{Mode: m, Status: Not}
		all, any := true, false
		for _, req := range reqs {
			if !slices.Contains(req.Modes, m.Number) {
				continue
			}
			v, ok := byID[req.ID]
			if !ok {
				v = Verdict{ID: req.ID, Status: Not}
			}
			mc.Requirements = append(mc.Requirements, v)
			switch v.Status {
			case Met, NotForGo:
				any = any || v.Status == Met
			case Partial:
				all, any = false, true
			default:
				all = false
			}
		}
		switch {
		case len(mc.Requirements) == 0: // a mode nothing addresses is not covered
		case all:
			mc.Status = Met
		case any:
			mc.Status = Partial
		}
		switch mc.Status {
		case Met:
			r.Met++
		case Partial:
			r.Partial++
		default:
			r.Missed++
		}
		r.Modes = append(r.Modes, mc)
	}
	return r
}

// Failing returns verdicts with every requirement in failed downgraded to
// Not: a registry's claims as they hold for one binary the conformance
// checker failed on those requirements.
func Failing(verdicts []Verdict, failed []string) []Verdict {
	out := slices.Clone(verdicts)
	for i, v := range out {
		if slices.Contains(failed, v.ID) && v.Status != Not {
			out[i].Status = Not
			out[i].Note = "the checker failed it: " + v.Note
		}
	}
	return out
}

// LevelScore is Duet's standing at one conformance level.
type LevelScore struct {
	Level int
	// Total is how many requirements the level contains: its own and every
	// lower level's.
	Total    int
	Met      int
	NotForGo int // n/a: they count as met for the claim
	// Short are the requirements of the level neither met nor n/a, in the
	// spec's order: what keeps Duet from claiming it.
	Short []Verdict
}

// Claimable reports whether every requirement of the level is met or does
// not apply to Go.
func (l LevelScore) Claimable() bool { return len(l.Short) == 0 }

// Conformance is the level Duet claims and its standing at each level.
type Conformance struct {
	// Claimed is the highest level whose every requirement is met or n/a;
	// 0 when level 1 is not.
	Claimed int
	Levels  []LevelScore // level 1 first, up to the highest level a requirement has
}

// Levels scores verdicts against the spec's conformance levels. A CLI
// claims a level, not a percentage: the highest one all of whose
// requirements hold. A requirement without a verdict counts as not met,
// and one without a level (0) counts at every level, as level 1 would.
func Levels(reqs []Requirement, verdicts []Verdict) Conformance {
	byID := make(map[string]Verdict, len(verdicts))
	for _, v := range verdicts {
		byID[v.ID] = v
	}
	top := 0
	for _, r := range reqs {
		top = max(top, r.Level)
	}
	c := Conformance{Levels: make([]LevelScore, top)}
	for i := range c.Levels {
		c.Levels[i].Level = i + 1
	}
	for _, r := range reqs {
		v, ok := byID[r.ID]
		if !ok {
			v = Verdict{ID: r.ID, Status: Not, Note: "no verdict in the registry"}
		}
		// A level contains every lower level's requirements, so r counts
		// at its own level and each one above it.
		for i := max(r.Level, 1) - 1; i < top; i++ {
			l := &c.Levels[i]
			l.Total++
			switch v.Status {
			case Met:
				l.Met++
			case NotForGo:
				l.NotForGo++
			default:
				l.Short = append(l.Short, v)
			}
		}
	}
	// Levels nest, so the first level short of a requirement ends the claim.
	for _, l := range c.Levels {
		if !l.Claimable() {
			break
		}
		c.Claimed = l.Level
	}
	return c
}
