package schema_test

import (
	"regexp"
	"testing"

	"github.com/duet-cli/duet/schema"
)

func TestPatterns(t *testing.T) {
	tests := []struct {
		pattern  string
		match    []string
		mismatch []string
		kind     string
	}{
		{schema.AlphanumericID, []string{"t3", "run_42", "A-b"},
			[]string{"", ".", "a.b", "../x", "a/b", "a?b", "a#b", "a%2F", "-x", "<id>", "a b"}, "alphanumeric_id"},
		{schema.UUID, []string{"123e4567-e89b-12d3-a456-426614174000"},
			[]string{"123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400g", "x"}, "uuid"},
		{schema.SemVer, []string{"1.2.3", "0.0.1-rc.1", "10.20.30+build.5"},
			[]string{"v1.2.3", "1.2", "01.2.3", "1.2.3-", "latest"}, "semver"},
		{schema.URL, []string{"https://example.com", "http://x/y?z=1#f"},
			[]string{"example.com", "ftp://x", "https://", "https://a b"}, "url"},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			re := regexp.MustCompile(tt.pattern)
			for _, v := range tt.match {
				if !re.MatchString(v) {
					t.Errorf("%q does not match", v)
				}
			}
			for _, v := range tt.mismatch {
				if re.MatchString(v) {
					t.Errorf("%q matches", v)
				}
			}
			if got := schema.PatternType(tt.pattern); got != tt.kind {
				t.Errorf("PatternType = %q, want %q", got, tt.kind)
			}
		})
	}
	if got := schema.PatternType(`^[a-z]+$`); got != "" {
		t.Errorf("PatternType of an app's own pattern = %q, want none", got)
	}
}
