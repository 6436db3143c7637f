package spec_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/internal/spec"
)

// TestSpecTables: the spec's tables as Duet keeps them, counted as
// requirements/index.md, requirements/levels.md and challenges/index.md of
// v1.16 count them.
func TestSpecTables(t *testing.T) {
	reqs, modes := tables(t)
	got := map[string]int{}
	seen := map[string]bool{}
	scored := map[int]bool{}
	for _, m := range modes {
		if scored[m.Number] {
			t.Errorf("failure mode §%d twice", m.Number)
		}
		scored[m.Number] = true
	}
	var level1 []string
	addressed := map[int]bool{}
	for _, r := range reqs {
		if seen[r.ID] {
			t.Errorf("requirement %s twice", r.ID)
		}
		seen[r.ID] = true
		got["requirements"]++
		got["tier "+r.ID[:1]]++
		got["priority "+r.Priority]++
		for l := r.Level; l <= 3; l++ {
			got[fmt.Sprintf("level %d", l)]++ // a level holds every lower level's requirements
		}
		if r.Level == 1 {
			level1 = append(level1, r.ID)
		}
		// levels.md: level 2 is level 1 plus every other P0, so a
		// requirement is at level 1 or 2 exactly when it is P0.
		if (r.Level <= 2) != (r.Priority == "P0") {
			t.Errorf("%s is %s at level %d", r.ID, r.Priority, r.Level)
		}
		for _, m := range r.Modes {
			addressed[m] = true
			if !scored[m] {
				t.Errorf("%s addresses §%d, which modes.tsv lacks", r.ID, m)
			}
		}
	}
	for _, m := range modes {
		if !addressed[m.Number] {
			got[fmt.Sprintf("§%d addressed by no requirement", m.Number)]++
		}
	}
	got["failure modes"] = len(modes)
	want := map[string]int{
		"requirements": 167, "tier F": 81, "tier C": 36, "tier O": 50,
		"priority P0": 51, "priority P1": 72, "priority P2": 35, "priority P3": 9,
		"level 1": 12, "level 2": 51, "level 3": 167,
		"failure modes": 76, "§70 addressed by no requirement": 1, // §70: the spec's known gap (CHANGELOG 1.7.0)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	// The twelve of levels.md's level-1 table.
	wantLevel1 := []string{"F-001", "F-002", "F-003", "F-004", "F-006", "F-007", "F-008", "F-009", "F-010", "F-048", "C-004", "C-013"}
	if diff := cmp.Diff(wantLevel1, level1); diff != "" {
		t.Errorf("level 1 (-want +got):\n%s", diff)
	}
	if seen["F-026"] {
		t.Error("F-026 is retired (merged into O-030), yet listed")
	}
}

// TestTablesSayTheirVersion: each table's header names the spec version
// package spec reports, so a table cannot be updated alone.
func TestTablesSayTheirVersion(t *testing.T) {
	for _, name := range []string{"requirements.tsv", "modes.tsv", "registry.tsv"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		header, _, _ := strings.Cut(string(b), "\n")
		// MAJOR.MINOR: a patch release changes no contract.
		if want := "v" + spec.Version[:strings.LastIndex(spec.Version, ".")]; !strings.Contains(header, want) {
			t.Errorf("%s: header %q does not name %s", name, header, want)
		}
	}
}

// TestRegistry holds the registry to its claims: one row per requirement,
// in the spec's order, and every "met" row names tests that exist, one of
// them black-box, so a claim cannot outlive its proof. (That the tests pass,
// and cover every criterion, is the rest of the suite's job.)
func TestRegistry(t *testing.T) {
	reqs, err := spec.Requirements()
	if err != nil {
		t.Fatal(err)
	}
	verdicts, err := spec.Registry()
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, r := range reqs {
		want = append(want, r.ID)
	}
	for _, v := range verdicts {
		got = append(got, v.ID)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("registry rows, in the spec's order (-want +got):\n%s", diff)
	}
	// blackBox reports whether a test drives a built binary from outside:
	// the e2e suites build the examples (and internal/e2eapp, a fixture
	// app built from Duet for what the examples do not exercise) and run
	// them as an agent does, duet-check's tests build the checker and its
	// fixtures, and TestExamplesConform builds the examples for the
	// checker's probes. Every other test runs Duet in its own process.
	blackBox := func(test string) bool {
		dir, name, _ := strings.Cut(test, " ")
		switch dir {
		case "examples/todo/e2e", "examples/meridian/e2e", "internal/e2eapp/e2e", "conformance/cmd/duet-check":
			return true
		}
		return dir == "conformance" && name == "TestExamplesConform"
	}
	root := moduleRoot(t)
	tests := map[string][]string{} // dir → its test functions
	for _, v := range verdicts {
		if v.Status == spec.Met && !slices.ContainsFunc(v.Tests, blackBox) {
			t.Errorf("%s is met, and names no test that drives a built binary: %q", v.ID, v.Tests)
		}
		if v.Status == spec.NotForGo && v.Note == "" {
			t.Errorf("%s does not apply to Go, and does not say why", v.ID)
		}
		for _, test := range v.Tests {
			dir, name, ok := strings.Cut(test, " ")
			if !ok {
				t.Errorf("%s: test %q is not \"dir TestName\"", v.ID, test)
				continue
			}
			if _, done := tests[dir]; !done {
				tests[dir] = testFuncs(t, filepath.Join(root, filepath.FromSlash(dir)))
			}
			if !slices.Contains(tests[dir], name) {
				t.Errorf("%s: %s has no func %s", v.ID, dir, name)
			}
		}
	}
}

// testFuncs lists the top-level Test functions of the _test.go files in dir.
func testFuncs(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil || len(files) == 0 {
		t.Errorf("no test files in %s", dir)
		return nil
	}
	var names []string
	fset := token.NewFileSet()
	for _, f := range files {
		parsed, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range parsed.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
				names = append(names, fn.Name.Name)
			}
		}
	}
	return names
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// TestCoverage scores made-up verdicts by the matrix's rule.
func TestCoverage(t *testing.T) {
	reqs := []spec.Requirement{
		{ID: "F-001", Modes: []int{1}},
		{ID: "F-002", Modes: []int{1, 2}},
		{ID: "F-003", Modes: []int{2}},
		{ID: "F-004", Modes: []int{3}},
		{ID: "F-005", Modes: []int{4}},
	}
	modes := []spec.Mode{{Number: 1}, {Number: 2}, {Number: 3}, {Number: 4}, {Number: 5}}
	tests := []struct {
		name     string
		verdicts []spec.Verdict
		want     []spec.Status // per mode
		percent  float64
	}{
		{
			name: "all met; a mode nothing addresses is missed",
			verdicts: []spec.Verdict{{ID: "F-001", Status: spec.Met}, {ID: "F-002", Status: spec.Met},
				{ID: "F-003", Status: spec.Met}, {ID: "F-004", Status: spec.Met}, {ID: "F-005", Status: spec.NotForGo}},
			want:    []spec.Status{spec.Met, spec.Met, spec.Met, spec.Met, spec.Not},
			percent: 80,
		},
		{
			name: "one requirement short makes its modes partial",
			verdicts: []spec.Verdict{{ID: "F-001", Status: spec.Met}, {ID: "F-002", Status: spec.Partial},
				{ID: "F-003", Status: spec.Not}, {ID: "F-004", Status: spec.Not}},
			want:    []spec.Status{spec.Partial, spec.Partial, spec.Not, spec.Not, spec.Not},
			percent: 20,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := spec.Coverage(reqs, modes, tt.verdicts)
			var got []spec.Status
			for _, m := range r.Modes {
				got = append(got, m.Status)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("modes (-want +got):\n%s", diff)
			}
			if r.Percent() != tt.percent {
				t.Errorf("percent = %v, want %v", r.Percent(), tt.percent)
			}
		})
	}
}

// TestFailing: a requirement the checker failed on a binary is not met there.
func TestFailing(t *testing.T) {
	in := []spec.Verdict{{ID: "F-001", Status: spec.Met}, {ID: "F-002", Status: spec.Met}}
	got := spec.Failing(in, []string{"F-002"})
	if got[0].Status != spec.Met || got[1].Status != spec.Not || in[1].Status != spec.Met {
		t.Errorf("Failing = %+v (input now %+v)", got, in)
	}
}

// TestLevels: the level claimed is the highest all of whose requirements
// are met or n/a, and each level counts its own and every lower level's.
func TestLevels(t *testing.T) {
	reqs := []spec.Requirement{
		{ID: "F-001", Level: 1},
		{ID: "F-002", Level: 1},
		{ID: "F-011", Level: 2},
		{ID: "F-016", Level: 3},
		{ID: "F-049", Level: 3},
	}
	v := func(id string, s spec.Status) spec.Verdict { return spec.Verdict{ID: id, Status: s} }
	type level struct {
		Total, Met, NotForGo int
		Short                []string
	}
	tests := []struct {
		name     string
		verdicts []spec.Verdict
		claimed  int
		levels   []level
	}{
		{
			name:     "every level held; n/a counts as met",
			verdicts: []spec.Verdict{v("F-001", spec.Met), v("F-002", spec.Met), v("F-011", spec.Met), v("F-016", spec.Met), v("F-049", spec.NotForGo)},
			claimed:  3,
			levels:   []level{{Total: 2, Met: 2}, {Total: 3, Met: 3}, {Total: 5, Met: 4, NotForGo: 1}},
		},
		{
			name:     "a level-3 row short: level 2 claimed",
			verdicts: []spec.Verdict{v("F-001", spec.Met), v("F-002", spec.Met), v("F-011", spec.Met), v("F-016", spec.Partial), v("F-049", spec.NotForGo)},
			claimed:  2,
			levels:   []level{{Total: 2, Met: 2}, {Total: 3, Met: 3}, {Total: 5, Met: 3, NotForGo: 1, Short: []string{"F-016"}}},
		},
		{
			name:     "level 1 short: nothing claimed, though the rows above are met",
			verdicts: []spec.Verdict{v("F-001", spec.Partial), v("F-002", spec.Met), v("F-011", spec.Met), v("F-016", spec.Met), v("F-049", spec.NotForGo)},
			claimed:  0,
			levels: []level{{Total: 2, Met: 1, Short: []string{"F-001"}}, {Total: 3, Met: 2, Short: []string{"F-001"}},
				{Total: 5, Met: 3, NotForGo: 1, Short: []string{"F-001"}}},
		},
		{
			name:     "a requirement without a verdict is not met",
			verdicts: []spec.Verdict{v("F-001", spec.Met), v("F-002", spec.Met), v("F-016", spec.Met), v("F-049", spec.Met)},
			claimed:  1,
			levels:   []level{{Total: 2, Met: 2}, {Total: 3, Met: 2, Short: []string{"F-011"}}, {Total: 5, Met: 4, Short: []string{"F-011"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := spec.Levels(reqs, tt.verdicts)
			if c.Claimed != tt.claimed {
				t.Errorf("claimed level %d, want %d", c.Claimed, tt.claimed)
			}
			var got []level
			for i, l := range c.Levels {
				if l.Level != i+1 {
					t.Errorf("levels[%d] is level %d", i, l.Level)
				}
				g := level{Total: l.Total, Met: l.Met, NotForGo: l.NotForGo}
				for _, s := range l.Short {
					g.Short = append(g.Short, s.ID)
				}
				got = append(got, g)
			}
			if diff := cmp.Diff(tt.levels, got); diff != "" {
				t.Errorf("levels (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNoSilentSlip: the registry's standing may rise, never fall unnoticed.
// A row demoted below today's figures fails here until the floor is
// lowered with it, on purpose; raise the floor when rows are flipped to
// met. (Issue 16's target, 90 % and every P0 met, held at v1.6 under the
// old rule; at v1.16, with only black-box tests proving a row, Duet claims
// level 2: every P0 met on a built binary. cmd/spec-coverage lists what
// keeps it from level 3.)
func TestNoSilentSlip(t *testing.T) {
	const (
		levelFloor    = 2
		coverageFloor = 95.3 // percent: 70 modes met, 5 partly, 1 missed of 76
	)
	reqs, modes := tables(t)
	verdicts, err := spec.Registry()
	if err != nil {
		t.Fatal(err)
	}
	if got := spec.Levels(reqs, verdicts).Claimed; got < levelFloor {
		t.Errorf("level %d claimed, below the floor %d", got, levelFloor)
	}
	if got := spec.Coverage(reqs, modes, verdicts).Percent(); got < coverageFloor {
		t.Errorf("failure-mode coverage %.1f %%, below the floor %.1f %%", got, coverageFloor)
	}
}

// tables loads the spec's requirements and failure modes.
func tables(t *testing.T) ([]spec.Requirement, []spec.Mode) {
	t.Helper()
	reqs, err := spec.Requirements()
	if err != nil {
		t.Fatal(err)
	}
	modes, err := spec.Modes()
	if err != nil {
		t.Fatal(err)
	}
	return reqs, modes
}
