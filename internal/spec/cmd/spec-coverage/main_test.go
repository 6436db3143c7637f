package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/internal/spec"
)

// TestRegistryStanding: the command's figures are the registry's, as
// package spec computes them — the spec version, the level claimed, the
// count at each level, the P0 requirements not met and the failure-mode
// coverage — in the JSON an agent reads and in the text a person does.
func TestRegistryStanding(t *testing.T) {
	reqs, err := spec.Requirements()
	if err != nil {
		t.Fatal(err)
	}
	modes, err := spec.Modes()
	if err != nil {
		t.Fatal(err)
	}
	verdicts, err := spec.Registry()
	if err != nil {
		t.Fatal(err)
	}
	report := spec.Coverage(reqs, modes, verdicts)
	conf := spec.Levels(reqs, verdicts)

	// What the answer must say, from package spec directly.
	type standing struct {
		Spec       string
		Level      int
		Levels     []Level
		Percent    float64
		ModesTotal int
		P0         []string
		NextLevel  []string
		Counted    int
	}
	want := standing{Spec: spec.Version, Level: conf.Claimed, Percent: report.Percent(), ModesTotal: len(modes), Counted: len(reqs)}
	for _, l := range conf.Levels {
		want.Levels = append(want.Levels, Level{Level: l.Level, Total: l.Total, Met: l.Met, NotApplicable: l.NotForGo})
		if l.Level == conf.Claimed+1 {
			for _, v := range l.Short {
				want.NextLevel = append(want.NextLevel, v.ID)
			}
		}
	}
	status := map[string]spec.Status{}
	for _, v := range verdicts {
		status[v.ID] = v.Status
	}
	for _, r := range reqs {
		if s := status[r.ID]; r.Priority == "P0" && s != spec.Met && s != spec.NotForGo {
			want.P0 = append(want.P0, r.ID)
		}
	}

	stdout, stderr, code := invoke(t, "--format", "json")
	var env struct {
		Data Coverage `json:"data"`
	}
	if err := json.Unmarshal(stdout, &env); err != nil || code != 0 {
		t.Fatalf("exit %d, stdout %s, stderr %s", code, stdout, stderr)
	}
	d := env.Data
	got := standing{Spec: d.Spec, Level: d.Level, Levels: d.Levels, Percent: d.Registry.Percent,
		ModesTotal: d.Registry.Met + d.Registry.Partial + d.Registry.Missed, Counted: d.Requirements.Total}
	for _, r := range d.P0 {
		got.P0 = append(got.P0, r.ID)
	}
	for _, r := range d.NextLevel {
		got.NextLevel = append(got.NextLevel, r.ID)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the answer's standing (-want +got):\n%s", diff)
	}
	if n := d.Requirements; n.Met+n.Partial+n.Not+n.NotApplicable != n.Total {
		t.Errorf("requirement counts do not add up: %+v", n)
	}
	if d.Registry.Level != conf.Claimed {
		t.Errorf("registry score claims level %d, the answer %d", d.Registry.Level, conf.Claimed)
	}

	stdout, _, code = invoke(t, "--format", "text")
	if code != 0 {
		t.Fatalf("text: exit %d", code)
	}
	for _, line := range []string{
		fmt.Sprintf("CLI Agent Spec v%s: Duet claims level %d\n", spec.Version, conf.Claimed),
		fmt.Sprintf("  level 1  %3d of %3d", conf.Levels[0].Met+conf.Levels[0].NotForGo, conf.Levels[0].Total),
		fmt.Sprintf("(met + ½·partly) / %d\n", len(modes)),
		fmt.Sprintf("registry   %5.1f %%", report.Percent()),
	} {
		if !bytes.Contains(stdout, []byte(line)) {
			t.Errorf("text lacks %q:\n%s", line, stdout)
		}
	}
	if len(want.P0) > 0 && !bytes.Contains(stdout, []byte("\nP0 requirements not met")) {
		t.Errorf("text does not list the P0 requirements not met:\n%s", stdout)
	}
}

// TestWriteLevelClaimed: the text names what keeps the next level out of
// reach, and says nothing of a next level when the highest is claimed.
func TestWriteLevelClaimed(t *testing.T) {
	tests := []struct {
		name string
		c    Coverage
		want []string
		not  []string
	}{
		{
			name: "level 1 short",
			c: Coverage{Spec: "1.16.0", Level: 0, Levels: []Level{{Level: 1, Total: 12, Met: 11}},
				NextLevel: []Requirement{{ID: "F-001", Level: 1, Status: spec.Partial}}},
			want: []string{"Duet claims level 0\n", "  level 1   11 of  12\n", "  level 1 needs: F-001 (partial)\n"},
		},
		{
			name: "every level claimed",
			c: Coverage{Spec: "1.16.0", Level: 3, Levels: []Level{{Level: 3, Total: 167, Met: 166, NotApplicable: 1}},
				NextLevel: []Requirement{}},
			want: []string{"Duet claims level 3\n", "  level 3  167 of 167  (1 n/a)\n"},
			not:  []string{"needs:", "P0 requirements not met"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := tt.c.write(&b); err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.want {
				if !strings.Contains(b.String(), s) {
					t.Errorf("text lacks %q:\n%s", s, b.String())
				}
			}
			for _, s := range tt.not {
				if strings.Contains(b.String(), s) {
					t.Errorf("text has %q:\n%s", s, b.String())
				}
			}
		})
	}
}

// invoke runs the command in this process, as an agent with an empty
// environment would.
func invoke(t *testing.T, args ...string) (stdout, stderr []byte, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = urfave.Run(context.Background(), newApp(), args, adapters.WithStdio(strings.NewReader(""), &out, &errOut), adapters.WithEnv(nil))
	return out.Bytes(), errOut.Bytes(), code
}
