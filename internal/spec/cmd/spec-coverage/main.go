// Command spec-coverage prints where Duet stands against the CLI Agent Spec
// v1.16, from the registry in package spec: the conformance level it
// claims (the highest level all of whose requirements are met), its count
// at each level, the P0 requirements not met, and how much of the spec's
// failure modes it covers by the spec's own mapping of requirements to
// modes. With --check it first judges built binaries with the conformance
// checker, and scores each binary: a requirement the checker fails there
// is not met there. With --todo it builds the to-do example both ways
// (urfave and cobra) and checks both.
//
//	go run ./internal/spec/cmd/spec-coverage --todo
//	go run ./internal/spec/cmd/spec-coverage --check ./mytool
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/conformance"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/spec"
	"github.com/duet-cli/duet/schema"
)

// Coverage is the answer: the registry's standing, and each checked binary's.
type Coverage struct {
	Spec string `json:"spec_version"` // the CLI Agent Spec version the registry answers to
	// Level is the conformance level the registry claims: the highest all
	// of whose requirements are met or n/a, 0 when level 1 is not.
	Level        int      `json:"level_claimed"`
	Levels       []Level  `json:"levels"`
	Requirements Verdicts `json:"requirements"`
	Registry     Score    `json:"registry"`
	Apps         []Score  `json:"apps"`
	// NextLevel are the requirements that keep the registry from the level
	// above the one it claims; empty when it claims the highest.
	NextLevel []Requirement `json:"next_level_not_met"`
	// Short are the failure modes the registry does not fully cover, with
	// the requirements that keep them short.
	Short []Mode `json:"short"`
	// P0 are the P0 requirements the registry does not meet.
	P0 []Requirement `json:"p0_not_met"`
}

// Score is the standing of the registry, or of the registry's claims as they
// hold for one checked binary: the level claimed and the failure-mode
// coverage.
type Score struct {
	Name    string   `json:"name"`
	Path    string   `json:"path,omitempty"`
	Failed  []string `json:"checker_failed,omitempty"` // requirements the checker failed on the binary
	Level   int      `json:"level_claimed"`
	Met     int      `json:"met"` // failure modes
	Partial int      `json:"partial"`
	Missed  int      `json:"missed"`
	Percent float64  `json:"percent"` // (met + ½·partial) / modes
}

// Level is the registry's count at one conformance level, which contains
// its own requirements and every lower level's.
type Level struct {
	Level         int `json:"level"`
	Total         int `json:"total"`
	Met           int `json:"met"`
	NotApplicable int `json:"not_applicable"` // counted as met for the claim
}

// Verdicts counts the registry's verdicts on the spec's requirements.
type Verdicts struct {
	Total         int `json:"total"`
	Met           int `json:"met"`
	Partial       int `json:"partial"`
	Not           int `json:"not"`
	NotApplicable int `json:"not_applicable"`
}

// Mode is a failure mode not fully covered.
type Mode struct {
	Number       int           `json:"number"`
	Name         string        `json:"name"`
	Status       spec.Status   `json:"status"`
	Requirements []Requirement `json:"requirements"`
}

// Requirement is one verdict of the registry.
type Requirement struct {
	ID     string      `json:"id"`
	Level  int         `json:"level,omitempty"` // the lowest conformance level that contains it
	Status spec.Status `json:"status"`
	Note   string      `json:"note"`
}

func main() {
	urfave.Main(newApp(), adapters.WithSpecStrict())
}

func newApp() *cli.Command {
	return urfave.Annotate(&cli.Command{
		Name:  "spec-coverage",
		Usage: "Print the CLI Agent Spec conformance level Duet claims, and how much of the spec's failure modes it covers",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "check", Usage: "a built binary to judge with the conformance checker first; repeat for more"},
			&cli.BoolFlag{Name: "todo", Usage: "build the to-do example with urfave and with cobra, and check both"},
		},
		Action: run,
	}, schema.Meta{
		Danger:  schema.Safe,
		Timeout: schema.NoTimeout,
		NoArgs:  true,
		Output:  schema.Of[Coverage](),
		Examples: []schema.Example{
			{Description: "the registry's level and coverage", Command: "spec-coverage"},
			{Description: "and the to-do example's, both builds, judged by the checker", Command: "spec-coverage --todo"},
		},
	})
}

func run(ctx context.Context, cmd *cli.Command) error {
	reqs, err := spec.Requirements()
	if err != nil {
		return err
	}
	modes, err := spec.Modes()
	if err != nil {
		return err
	}
	verdicts, err := spec.Registry()
	if err != nil {
		return err
	}
	report := spec.Coverage(reqs, modes, verdicts)
	levels := spec.Levels(reqs, verdicts)
	c := Coverage{
		Spec:      spec.Version,
		Level:     levels.Claimed,
		Registry:  score("registry", "", report, levels),
		Short:     []Mode{},
		P0:        []Requirement{},
		NextLevel: []Requirement{},
	}
	levelOf := make(map[string]int, len(reqs))
	for _, r := range reqs {
		levelOf[r.ID] = r.Level
	}
	for _, l := range levels.Levels {
		c.Levels = append(c.Levels, Level{Level: l.Level, Total: l.Total, Met: l.Met, NotApplicable: l.NotForGo})
		if l.Level == levels.Claimed+1 {
			for _, v := range l.Short {
				c.NextLevel = append(c.NextLevel, Requirement{v.ID, levelOf[v.ID], v.Status, v.Note})
			}
		}
	}
	for _, m := range report.Modes {
		if m.Status == spec.Met {
			continue
		}
		mode := Mode{Number: m.Number, Name: m.Name, Status: m.Status}
		for _, v := range m.Requirements {
			if v.Status != spec.Met && v.Status != spec.NotForGo {
				mode.Requirements = append(mode.Requirements, Requirement{v.ID, levelOf[v.ID], v.Status, v.Note})
			}
		}
		c.Short = append(c.Short, mode)
	}
	byID := map[string]spec.Verdict{}
	for _, v := range verdicts {
		byID[v.ID] = v
	}
	for _, r := range reqs {
		v, ok := byID[r.ID]
		if !ok {
			v = spec.Verdict{ID: r.ID, Status: spec.Not, Note: "no verdict in the registry"}
		}
		c.Requirements.count(v.Status)
		if r.Priority == "P0" && v.Status != spec.Met && v.Status != spec.NotForGo {
			c.P0 = append(c.P0, Requirement{v.ID, r.Level, v.Status, v.Note})
		}
	}

	targets := map[string]string{} // name → path, in order below
	var names []string
	for _, p := range cmd.StringSlice("check") {
		abs, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		targets[filepath.Base(p)], names = abs, append(names, filepath.Base(p))
	}
	if cmd.Bool("todo") {
		dir, err := os.MkdirTemp("", "spec-coverage-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		for _, name := range []string{"todo", "todo-cobra"} {
			bin := filepath.Join(dir, name)
			if err := build(ctx, bin, "./examples/todo/cmd/"+name); err != nil {
				return err
			}
			targets[name], names = bin, append(names, name)
		}
	}
	for _, name := range names {
		r, err := conformance.Check(ctx, conformance.Target{Path: targets[name]}, conformance.Options{})
		if err != nil {
			return envelope.Errorf(exitcode.GeneralError, "CHECK_FAILED", "checking %s: %w", name, err)
		}
		failed := r.Failed()
		held := spec.Failing(verdicts, failed)
		s := score(name, targets[name], spec.Coverage(reqs, modes, held), spec.Levels(reqs, held))
		s.Failed = failed
		c.Apps = append(c.Apps, s)
	}

	out := envelope.From(ctx)
	out.RenderText(func(w io.Writer) error { return c.write(w) })
	return out.Result(c)
}

func score(name, path string, r spec.Report, c spec.Conformance) Score {
	return Score{Name: name, Path: path, Level: c.Claimed, Met: r.Met, Partial: r.Partial, Missed: r.Missed, Percent: r.Percent()}
}

// count counts one verdict; a requirement without one counts as not met.
func (n *Verdicts) count(s spec.Status) {
	n.Total++
	switch s {
	case spec.Met:
		n.Met++
	case spec.Partial:
		n.Partial++
	case spec.NotForGo:
		n.NotApplicable++
	default:
		n.Not++
	}
}

// build builds a package of this module, from the module's root.
func build(ctx context.Context, out, pkg string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	//duetvet:allow rawexec -- a development tool's build step
	b := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	b.Dir = root
	if msg, err := b.CombinedOutput(); err != nil {
		return envelope.Errorf(exitcode.GeneralError, "BUILD_FAILED", "go build %s: %w: %s", pkg, err, msg)
	}
	return nil
}

// moduleRoot finds this module's go.mod above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/duet-cli/duet\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", envelope.Errorf(exitcode.Precondition, "NOT_IN_MODULE", "--todo builds the example from the duet module: run it inside the module")
		}
		dir = parent
	}
}

func (c Coverage) write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "CLI Agent Spec v%s: Duet claims level %d\n\n", c.Spec, c.Level)
	b.WriteString("Conformance levels, met (or n/a) of the requirements each contains:\n")
	for _, l := range c.Levels {
		fmt.Fprintf(&b, "  level %d  %3d of %3d", l.Level, l.Met+l.NotApplicable, l.Total)
		if l.NotApplicable > 0 {
			fmt.Fprintf(&b, "  (%d n/a)", l.NotApplicable)
		}
		b.WriteString("\n")
	}
	if len(c.NextLevel) > 0 {
		fmt.Fprintf(&b, "  level %d needs: %s\n", c.Level+1, ids(c.NextLevel))
	}
	r := c.Requirements
	fmt.Fprintf(&b, "\nRequirements: %d met, %d partly, %d not, %d n/a, of %d\n", r.Met, r.Partial, r.Not, r.NotApplicable, r.Total)

	line := func(s Score) string {
		return fmt.Sprintf("%-10s %5.1f %%  (%d met, %d partly, %d missed of %d; level %d)", s.Name, s.Percent, s.Met, s.Partial, s.Missed, s.Met+s.Partial+s.Missed, s.Level)
	}
	modes := c.Registry.Met + c.Registry.Partial + c.Registry.Missed
	fmt.Fprintf(&b, "\nFailure modes covered, by the spec's mapping: (met + ½·partly) / %d\n", modes)
	b.WriteString(line(c.Registry) + "\n")
	for _, a := range c.Apps {
		b.WriteString(line(a))
		if len(a.Failed) > 0 {
			fmt.Fprintf(&b, "  checker failed: %s", strings.Join(a.Failed, ", "))
		}
		b.WriteString("\n")
	}
	if len(c.P0) > 0 {
		fmt.Fprintf(&b, "\nP0 requirements not met (%d; level 2 needs them all):\n", len(c.P0))
		for _, r := range c.P0 {
			fmt.Fprintf(&b, "  %s %s (level %d): %s\n", r.ID, r.Status, r.Level, r.Note)
		}
	}
	if len(c.Short) > 0 {
		b.WriteString("\nFailure modes not fully covered:\n")
		for _, m := range c.Short {
			fmt.Fprintf(&b, "  §%d %s (%s)\n", m.Number, m.Name, m.Status)
			for _, r := range m.Requirements {
				fmt.Fprintf(&b, "      %s %s: %s\n", r.ID, r.Status, r.Note)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ids lists requirements by id and status, such as "F-001 (partial)".
func ids(rs []Requirement) string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = fmt.Sprintf("%s (%s)", r.ID, r.Status)
	}
	return strings.Join(out, ", ")
}
