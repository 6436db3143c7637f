// Command spec-coverage prints how much of the CLI Agent Spec's failure modes
// Duet covers, by the spec's own mapping of requirements to failure modes,
// from the registry in package spec. With --check it first judges built
// binaries with the conformance checker, and scores each binary: a
// requirement the checker fails there is not met there. With --todo it
// builds the to-do example both ways (urfave and cobra) and checks both.
//
//	go run ./spec/cmd/spec-coverage --todo
//	go run ./spec/cmd/spec-coverage --check ./mytool
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

// Coverage is the answer: the registry's score, and each checked binary's.
type Coverage struct {
	Registry Score   `json:"registry"`
	Apps     []Score `json:"apps"`
	// Short are the failure modes the registry does not fully cover, with
	// the requirements that keep them short.
	Short []Mode `json:"short"`
	// P0 are the P0 requirements the registry does not meet.
	P0 []Requirement `json:"p0_not_met"`
}

// Score is one coverage figure.
type Score struct {
	Name    string   `json:"name"`
	Path    string   `json:"path,omitempty"`
	Failed  []string `json:"checker_failed,omitempty"` // requirements the checker failed on the binary
	Met     int      `json:"met"`
	Partial int      `json:"partial"`
	Missed  int      `json:"missed"`
	Percent float64  `json:"percent"`
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
	Status spec.Status `json:"status"`
	Note   string      `json:"note"`
}

func main() {
	urfave.Main(newApp(), adapters.WithSpecStrict())
}

func newApp() *cli.Command {
	return urfave.Annotate(&cli.Command{
		Name:  "spec-coverage",
		Usage: "Print how much of the CLI Agent Spec's failure modes Duet covers",
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
			{Description: "the registry's coverage", Command: "spec-coverage"},
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
	c := Coverage{Registry: score("registry", "", report), Short: []Mode{}, P0: []Requirement{}}
	for _, m := range report.Modes {
		if m.Status == spec.Met {
			continue
		}
		mode := Mode{Number: m.Number, Name: m.Name, Status: m.Status}
		for _, v := range m.Requirements {
			if v.Status != spec.Met && v.Status != spec.NotForGo {
				mode.Requirements = append(mode.Requirements, Requirement{v.ID, v.Status, v.Note})
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
		if r.Priority == "P0" && v.Status != spec.Met && v.Status != spec.NotForGo {
			c.P0 = append(c.P0, Requirement{v.ID, v.Status, v.Note})
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
		s := score(name, targets[name], spec.Coverage(reqs, modes, spec.Failing(verdicts, failed)))
		s.Failed = failed
		c.Apps = append(c.Apps, s)
	}

	out := envelope.From(ctx)
	out.RenderText(func(w io.Writer) error { return c.write(w) })
	return out.Result(c)
}

func score(name, path string, r spec.Report) Score {
	return Score{Name: name, Path: path, Met: r.Met, Partial: r.Partial, Missed: r.Missed, Percent: r.Percent()}
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
	line := func(s Score) string {
		return fmt.Sprintf("%-10s %5.1f %%  (%d met, %d partly, %d missed of %d)", s.Name, s.Percent, s.Met, s.Partial, s.Missed, s.Met+s.Partial+s.Missed)
	}
	var b strings.Builder
	b.WriteString("CLI Agent Spec failure modes covered, by the spec's mapping: (met + ½·partly) / 71\n\n")
	b.WriteString(line(c.Registry) + "\n")
	for _, a := range c.Apps {
		b.WriteString(line(a))
		if len(a.Failed) > 0 {
			fmt.Fprintf(&b, "  checker failed: %s", strings.Join(a.Failed, ", "))
		}
		b.WriteString("\n")
	}
	if len(c.Short) > 0 {
		b.WriteString("\nNot fully covered:\n")
		for _, m := range c.Short {
			fmt.Fprintf(&b, "  §%d %s (%s)\n", m.Number, m.Name, m.Status)
			for _, r := range m.Requirements {
				fmt.Fprintf(&b, "      %s %s: %s\n", r.ID, r.Status, r.Note)
			}
		}
	}
	if len(c.P0) > 0 {
		b.WriteString("\nP0 requirements not met:\n")
		for _, r := range c.P0 {
			fmt.Fprintf(&b, "  %s %s: %s\n", r.ID, r.Status, r.Note)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
