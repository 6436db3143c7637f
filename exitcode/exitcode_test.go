package exitcode_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/golden"
	"github.com/duet-cli/duet/internal/jsontest"
)

func TestFrameworkCodes(t *testing.T) {
	tests := []struct {
		code      exitcode.Code
		value     int
		name      string
		retryable bool
		effects   exitcode.SideEffects
	}{
		{exitcode.Success, 0, "SUCCESS", false, exitcode.Complete},
		{exitcode.GeneralError, 1, "GENERAL_ERROR", false, exitcode.Partial},
		{exitcode.ArgError, 2, "ARG_ERROR", false, exitcode.None},
		{exitcode.PartialFailure, 3, "PARTIAL_FAILURE", false, exitcode.Partial},
		{exitcode.Precondition, 4, "PRECONDITION", false, exitcode.None},
		{exitcode.NotFound, 5, "NOT_FOUND", false, exitcode.None},
		{exitcode.Conflict, 6, "CONFLICT", false, exitcode.None},
		{exitcode.PermissionDenied, 7, "PERMISSION_DENIED", false, exitcode.None},
		{exitcode.AuthRequired, 8, "AUTH_REQUIRED", false, exitcode.None},
		{exitcode.PaymentRequired, 9, "PAYMENT_REQUIRED", false, exitcode.None},
		{exitcode.Timeout, 10, "TIMEOUT", false, exitcode.Partial},
		{exitcode.RateLimited, 11, "RATE_LIMITED", true, exitcode.None},
		{exitcode.Unavailable, 12, "UNAVAILABLE", true, exitcode.None},
		{exitcode.Redirected, 13, "REDIRECTED", false, exitcode.None},
	}
	if len(tests) != 14 {
		t.Fatalf("test table has %d codes, want 14", len(tests))
	}
	defaults := exitcode.Defaults()
	if len(defaults) != 14 {
		t.Errorf("len(Defaults()) = %d, want 14", len(defaults))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if int(tt.code) != tt.value {
				t.Errorf("%s = %d, want %d", tt.name, int(tt.code), tt.value)
			}
			if got := tt.code.String(); got != tt.name {
				t.Errorf("String() = %q, want %q", got, tt.name)
			}
			if !tt.code.Framework() {
				t.Errorf("Framework() = false, want true")
			}
			if tt.code.Custom() {
				t.Errorf("Custom() = true, want false")
			}
			e, ok := tt.code.Entry()
			if !ok {
				t.Fatalf("Entry() ok = false")
			}
			got := struct {
				Name      string
				Retryable bool
				Effects   exitcode.SideEffects
			}{e.Name, e.Retryable, e.SideEffects}
			want := struct {
				Name      string
				Retryable bool
				Effects   exitcode.SideEffects
			}{tt.name, tt.retryable, tt.effects}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Entry() mismatch (-want +got):\n%s", diff)
			}
			if e.Description == "" {
				t.Errorf("Entry() has no description")
			}
			if diff := cmp.Diff(e, defaults[tt.code]); diff != "" {
				t.Errorf("Defaults()[%d] differs from Entry() (-entry +defaults):\n%s", tt.value, diff)
			}
		})
	}
}

func TestOtherCodes(t *testing.T) {
	tests := []struct {
		code      exitcode.Code
		str       string
		framework bool
		custom    bool
		entry     bool
	}{
		{exitcode.Interrupted, "CANCELLED", false, false, true},
		{exitcode.Terminated, "CANCELLED", false, false, true},
		{78, "EXIT_78", false, false, false},
		{79, "EXIT_79", false, true, false},
		{125, "EXIT_125", false, true, false},
		{126, "EXIT_126", false, false, false},
		{exitcode.Incomplete, "INCOMPLETE", true, false, true},
		{15, "EXIT_15", false, false, false}, // an extension: Duet names none
		{64, "EXIT_64", false, false, false},
		{-1, "EXIT_-1", false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.str, func(t *testing.T) {
			if got := tt.code.String(); got != tt.str {
				t.Errorf("Code(%d).String() = %q, want %q", tt.code, got, tt.str)
			}
			if got := tt.code.Framework(); got != tt.framework {
				t.Errorf("Code(%d).Framework() = %v, want %v", tt.code, got, tt.framework)
			}
			if got := tt.code.Custom(); got != tt.custom {
				t.Errorf("Code(%d).Custom() = %v, want %v", tt.code, got, tt.custom)
			}
			if _, ok := tt.code.Entry(); ok != tt.entry {
				t.Errorf("Code(%d).Entry() ok = %v, want %v", tt.code, ok, tt.entry)
			}
		})
	}
	if exitcode.Interrupted != 130 || exitcode.Terminated != 143 {
		t.Errorf("signal codes = %d, %d; want 130, 143", exitcode.Interrupted, exitcode.Terminated)
	}
}

func TestDefaultsAreFresh(t *testing.T) {
	a := exitcode.Defaults()
	a[exitcode.Success] = exitcode.Entry{Name: "CHANGED"}
	delete(a, exitcode.NotFound)
	b := exitcode.Defaults()
	if b[exitcode.Success].Name != "SUCCESS" {
		t.Errorf("mutating one Defaults() changed another: %+v", b[exitcode.Success])
	}
	if _, ok := b[exitcode.NotFound]; !ok {
		t.Errorf("deleting from one Defaults() changed another")
	}
	if err := b.Validate(); err != nil {
		t.Errorf("Defaults().Validate() = %v, want nil", err)
	}
}

func TestMerge(t *testing.T) {
	base := exitcode.Table{
		exitcode.Success:  {Name: "SUCCESS", Description: "ok", SideEffects: exitcode.Complete},
		exitcode.NotFound: {Name: "NOT_FOUND", Description: "missing", SideEffects: exitcode.None},
	}
	tests := []struct {
		name string
		base exitcode.Table
		over exitcode.Table
		want exitcode.Table
	}{
		{
			name: "nil declaration keeps defaults",
			base: base,
			over: nil,
			want: base,
		},
		{
			name: "declaration replaces a default entry",
			base: base,
			over: exitcode.Table{exitcode.NotFound: {Name: "SPACE_NOT_FOUND", Description: "no such space", SideEffects: exitcode.None}},
			want: exitcode.Table{
				exitcode.Success:  base[exitcode.Success],
				exitcode.NotFound: {Name: "SPACE_NOT_FOUND", Description: "no such space", SideEffects: exitcode.None},
			},
		},
		{
			name: "empty fields inherit from the default",
			base: base,
			over: exitcode.Table{exitcode.NotFound: {Description: "the space does not exist"}},
			want: exitcode.Table{
				exitcode.Success:  base[exitcode.Success],
				exitcode.NotFound: {Name: "NOT_FOUND", Description: "the space does not exist", SideEffects: exitcode.None},
			},
		},
		{
			name: "side effects inherit, name overrides",
			base: base,
			over: exitcode.Table{exitcode.Success: {Name: "DONE"}},
			want: exitcode.Table{
				exitcode.Success:  {Name: "DONE", Description: "ok", SideEffects: exitcode.Complete},
				exitcode.NotFound: base[exitcode.NotFound],
			},
		},
		{
			name: "retryable is taken from the declaration",
			base: exitcode.Table{exitcode.Timeout: {Name: "TIMEOUT", Description: "slow", SideEffects: exitcode.None}},
			over: exitcode.Table{exitcode.Timeout: {Retryable: true}},
			want: exitcode.Table{exitcode.Timeout: {Name: "TIMEOUT", Description: "slow", Retryable: true, SideEffects: exitcode.None}},
		},
		{
			name: "custom code is added",
			base: base,
			over: exitcode.Table{80: {Name: "STALE_LOCK", Description: "a stale lock", SideEffects: exitcode.None}},
			want: exitcode.Table{
				exitcode.Success:  base[exitcode.Success],
				exitcode.NotFound: base[exitcode.NotFound],
				80:                {Name: "STALE_LOCK", Description: "a stale lock", SideEffects: exitcode.None},
			},
		},
		{
			name: "nil base",
			base: nil,
			over: exitcode.Table{exitcode.Success: {Name: "SUCCESS"}},
			want: exitcode.Table{exitcode.Success: {Name: "SUCCESS"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := clone(tt.base)
			got := tt.base.Merge(tt.over)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Merge mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.base); diff != "" {
				t.Errorf("Merge modified its receiver (-before +after):\n%s", diff)
			}
		})
	}
}

func clone(t exitcode.Table) exitcode.Table {
	if t == nil {
		return nil
	}
	out := exitcode.Table{}
	for k, v := range t {
		out[k] = v
	}
	return out
}

func TestMergeOverDefaultsValidates(t *testing.T) {
	got := exitcode.Defaults().Merge(exitcode.Table{
		exitcode.NotFound: {Description: "the space does not exist"},
		99:                {Name: "QUOTA_EXCEEDED", Description: "over quota", SideEffects: exitcode.None},
	})
	if err := got.Validate(); err != nil {
		t.Errorf("Validate() = %v, want nil", err)
	}
	if got[exitcode.NotFound].Name != "NOT_FOUND" {
		t.Errorf("merged NOT_FOUND name = %q, want inherited NOT_FOUND", got[exitcode.NotFound].Name)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		over exitcode.Table // merged over Defaults()
		drop []exitcode.Code
		want []string // substrings, one per expected problem, in order
	}{
		{name: "defaults are valid"},
		{
			name: "retryable with side effects",
			over: exitcode.Table{exitcode.Conflict: {Retryable: true, SideEffects: exitcode.Partial}},
			want: []string{"exit code 6 (CONFLICT) is retryable but has side_effects \"partial\""},
		},
		{
			name: "missing entry for 0",
			drop: []exitcode.Code{exitcode.Success},
			want: []string{"no entry for exit code 0"},
		},
		{
			name: "undeclared custom code",
			over: exitcode.Table{99: {Description: "something", SideEffects: exitcode.None}},
			want: []string{"custom exit code 99 has no name"},
		},
		{
			name: "code above the custom range",
			over: exitcode.Table{200: {Name: "HUGE", Description: "x", SideEffects: exitcode.None}},
			want: []string{"exit code 200 is outside"},
		},
		{
			name: "undeclared extension code",
			over: exitcode.Table{50: {Description: "something", SideEffects: exitcode.None}},
			want: []string{"extension exit code 50 has no name"},
		},
		{
			name: "code between the ranges",
			over: exitcode.Table{70: {Name: "SEVENTY", Description: "x", SideEffects: exitcode.None}},
			want: []string{"exit code 70 is outside"},
		},
		{
			name: "a description longer than the spec allows",
			over: exitcode.Table{exitcode.Conflict: {Description: strings.Repeat("x", 121)}},
			want: []string{"exit code 6 (CONFLICT) has a description of 121 characters, more than 120"},
		},
		{
			name: "error codes not in UPPER_SNAKE_CASE, or listed twice",
			over: exitcode.Table{exitcode.Conflict: {ErrorCodes: []string{"ALREADY_EXISTS", "already_exists", "ALREADY_EXISTS"}}},
			want: []string{`lists error code "already_exists", which is not UPPER_SNAKE_CASE`, "lists error code ALREADY_EXISTS twice"},
		},
		{
			name: "unknown side effects",
			over: exitcode.Table{80: {Name: "ODD", Description: "x", SideEffects: "some"}},
			want: []string{`side_effects "some"`},
		},
		{
			name: "custom code without description",
			over: exitcode.Table{81: {Name: "BARE", SideEffects: exitcode.None}},
			want: []string{"exit code 81 (BARE) has no description"},
		},
		{
			name: "every problem at once",
			over: exitcode.Table{
				exitcode.Timeout: {Retryable: true},
				99:               {Description: "x", SideEffects: exitcode.None},
				200:              {Name: "HUGE", Description: "x", SideEffects: exitcode.None},
				70:               {Name: "SEVENTY", Description: "x", SideEffects: exitcode.None},
			},
			drop: []exitcode.Code{exitcode.Success},
			want: []string{ // in the order of the codes, whatever the map's
				"no entry for exit code 0",
				"exit code 10 (TIMEOUT) is retryable",
				"exit code 70 is outside",
				"custom exit code 99 has no name",
				"exit code 200 is outside",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := exitcode.Defaults().Merge(tt.over)
			for _, c := range tt.drop {
				delete(tab, c)
			}
			err := tab.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want errors %q", tt.want)
			}
			var problems []string
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				for _, e := range j.Unwrap() {
					problems = append(problems, e.Error())
				}
			} else {
				problems = strings.Split(err.Error(), "\n")
			}
			if len(problems) != len(tt.want) {
				t.Errorf("Validate() reported %d problems, want %d:\n%s", len(problems), len(tt.want), err)
			}
			for i, w := range tt.want {
				if i >= len(problems) || !strings.Contains(problems[i], w) {
					t.Errorf("Validate() problem %d is not %q:\n%s", i, w, err)
				}
			}
		})
	}
}

func TestMarshalJSONOrder(t *testing.T) {
	tab := exitcode.Defaults().Merge(exitcode.Table{
		99: {Name: "QUOTA_EXCEEDED", Description: "over quota", SideEffects: exitcode.None},
		80: {Name: "STALE_LOCK", Description: "a stale lock", SideEffects: exitcode.None},
	})
	raw, err := json.Marshal(tab)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(raw) {
		t.Fatalf("MarshalJSON gave invalid JSON: %s", raw)
	}
	keys := jsontest.Keys(t, raw)
	want := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "80", "99"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("key order mismatch (-want +got):\n%s", diff)
	}

	var back map[string]exitcode.Entry
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(exitcode.Entry{Name: "STALE_LOCK", Description: "a stale lock", SideEffects: exitcode.None}, back["80"]); diff != "" {
		t.Errorf("entry 80 round trip (-want +got):\n%s", diff)
	}
}

func TestMarshalJSONGolden(t *testing.T) {
	var b bytes.Buffer
	raw, err := json.Marshal(exitcode.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	b.WriteByte('\n')
	golden.Assert(t, "defaults.json.golden", b.Bytes())
}

func TestMarshalJSONEmpty(t *testing.T) {
	raw, err := json.Marshal(exitcode.Table{})
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != "{}" {
		t.Errorf("empty table = %s, want {}", raw)
	}
}

// TestSignalsInATable: the signal exits are named, valid in a declared
// table, and never retryable.
func TestSignalsInATable(t *testing.T) {
	tab := exitcode.Defaults().Merge(exitcode.Signals())
	if err := tab.Validate(); err != nil {
		t.Fatalf("Validate() = %v", err)
	}
	for _, c := range []exitcode.Code{exitcode.Interrupted, exitcode.Terminated} {
		e, ok := tab[c]
		if !ok || e.Name != "CANCELLED" || e.Retryable || !c.Signal() {
			t.Errorf("%d: entry %+v (present %v, signal %v), want CANCELLED, not retryable", c, e, ok, c.Signal())
		}
	}
	if exitcode.Code(131).Signal() {
		t.Error("131 is not a signal exit Duet uses")
	}
}
