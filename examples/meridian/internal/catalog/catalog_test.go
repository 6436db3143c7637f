package catalog_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/examples/meridian/internal/catalog"
)

func TestCheckName(t *testing.T) {
	tests := []struct {
		name   string
		reason string // "" = valid
	}{
		{"reviewer", ""},
		{"code-reviewer_2.v1", ""},
		{"Ünïcode", ""},
		{"9lives", ""},
		{"", "it is empty"},
		{".", "it is a relative directory, not a name"},
		{"..", "it is a relative directory, not a name"},
		{"../x", "it contains a path separator"},
		{"a/b", "it contains a path separator"},
		{"/etc/passwd", "it contains a path separator"},
		{`a\b`, "it contains a path separator"},
		{"x\x00y", "it contains a NUL byte"},
		{".hidden", "it must start with a letter or a digit"},
		{"-rf", "it must start with a letter or a digit"},
		{"my agent", `it contains ' '; use letters, digits, '-', '_' and '.'`},
		{"tab\there", `it contains '\t'; use letters, digits, '-', '_' and '.'`},
		{"\xff", "it is not valid UTF-8"},
		{strings.Repeat("a", 129), "it is longer than 128 bytes"},
		{strings.Repeat("a", 128), ""},
	}
	for _, tt := range tests {
		err := catalog.CheckName("agent", tt.name)
		var want error
		if tt.reason != "" {
			want = &catalog.NameError{Kind: "agent", Name: tt.name, Reason: tt.reason}
		}
		if diff := cmp.Diff(want, err); diff != "" {
			t.Errorf("CheckName(%q) (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestErrorStrings(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&catalog.NameError{Kind: "skill", Name: "../x", Reason: "it contains a path separator"},
			`invalid skill name "../x": it contains a path separator`},
		{&catalog.NotFoundError{Kind: "agent", Name: "reviwer", Available: []string{"coder", "reviewer"}, Suggestion: "reviewer"},
			`unknown agent "reviwer"; did you mean "reviewer"? (available: coder, reviewer)`},
		{&catalog.NotFoundError{Kind: "skill", Name: "x"},
			`unknown skill "x" (there are no skills)`},
		{&catalog.FileError{Path: "a.md", Line: 3, Key: "sandbox", Msg: "bad"}, "a.md:3: sandbox: bad"},
		{&catalog.FileError{Path: "a.md", Msg: "bad"}, "a.md: bad"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestProblemJSON(t *testing.T) {
	p := catalog.Problem{Kind: "agent", Path: "/p/a.md", Scope: "user", Err: errors.New("broken")}
	got, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"kind":"agent","path":"/p/a.md","scope":"user","error":"broken"}`; string(got) != want {
		t.Errorf("json = %s, want %s", got, want)
	}
}
