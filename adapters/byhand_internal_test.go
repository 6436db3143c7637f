package adapters

import (
	"regexp"
	"testing"
)

// The matchers written by hand to keep regexps out of every start must
// agree with the patterns they replace.

func TestTemplateToGlob(t *testing.T) {
	pattern := regexp.MustCompile(`\{[^{}/]*\}`)
	for _, path := range []string{
		"", "plain/path", "/tmp/{id}.log", "{a}{b}", "/x/{run}/{step}.out", "{}",
		"{a/b}", "{{a}}", "a{b", "a}b", "{a{b}", "/c/{x}/d{", "{a}}", "é{ü}ñ",
	} {
		if got, want := templateToGlob(path), pattern.ReplaceAllString(path, "*"); got != want {
			t.Errorf("templateToGlob(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestIsEnvVarName(t *testing.T) {
	pattern := regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	for _, name := range []string{
		"", "A", "TODO_FILE", "X9", "_X", "9X", "lower", "A-B", "AÉ", "A B", "A_", "ÀB",
	} {
		if got, want := isEnvVarName(name), pattern.MatchString(name); got != want {
			t.Errorf("isEnvVarName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestIsDispatchCmd(t *testing.T) {
	spec := regexp.MustCompile(`^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)*$`)
	for _, cmd := range []string{"", "list", "run.spawn", "run.", ".run", "a-1.b-2", "Run", "1a", "a..b", "a.b.c", "a_b", "a b", "ü"} {
		if got, want := isDispatchCmd(cmd), spec.MatchString(cmd); got != want {
			t.Errorf("isDispatchCmd(%q) = %v, want %v", cmd, got, want)
		}
	}
}
