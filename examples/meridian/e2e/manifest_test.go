//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/duet-cli/duet/internal/describe"
	"github.com/duet-cli/duet/tokens/tiktoken"
)

// TestManifestAnswersEveryTask is an agent that knows meridian only from
// its compact `describe`: for each task, the invocation that does it must
// be derivable from the manifest alone — the command by its key, every flag
// found on the command, a group above it or among the global flags, every
// value of the flag's type and enum, the required flags and arguments
// given, each argument matching its pattern — and meridian must accept it
// (--validate-only: parsed and checked, not run). Every runnable command
// the manifest lists has a task. Invocations the manifest rules out must be
// ruled out by meridian too, so the manifest says neither more nor less than
// the parser.
func TestManifestAnswersEveryTask(t *testing.T) {
	sb := newSandbox(t)
	sb.ok(t, sb.env, nil, "run", "spawn", "-p", "first", "--wait") // s1 with r1
	agent := sb.inSpace("s1")
	var m describe.Compact
	sb.ok(t, agent, &m, "describe")

	tasks := []struct {
		task string
		argv []string
	}{
		{"which runs were spawned in the last hour", []string{"audit-log", "--command", "run.spawn", "--since", "1h"}},
		{"what changed in this tool since 0.1.0", []string{"changelog", "--since", "0.1.0"}},
		{"every command, one line each", []string{"describe", "--index"}},
		{"is the space healthy", []string{"doctor"}},
		{"run a batch of commands, carrying on past errors", []string{"exec", "--ignore-errors"}},
		{"write skill files as JSON, changing nothing yet", []string{"generate-skills", "--skill-format", "json", "--output-dir", "skills", "--dry-run"}},
		{"the spec's manifest", []string{"manifest"}},
		{"does an MCP tool list still match", []string{"mcp-validate", "--mcp-schema-file", "tools.json"}},
		{"five models", []string{"models", "list", "--limit", "5"}},
		{"what is opus", []string{"models", "show", "opus"}},
		{"ask run r1 to go on, and wait for it", []string{"run", "continue", "r1", "-p", "now fix the tests", "--wait"}},
		{"the failed runs, ids only", []string{"run", "list", "--status", "failed", "--format", "id"}},
		{"the runs, within 200 tokens", []string{"run", "list", "--token-limit", "200"}},
		{"the runs as TSV, in runs.tsv", []string{"run", "list", "--format", "tsv", "--output", "runs.tsv"}},
		{"what run r1 reported", []string{"run", "show", "r1"}},
		{"what run r1 printed after its first 4096 bytes", []string{"run", "output", "r1", "--from", "4096"}},
		{"follow r1 as it prints, a line at a time", []string{"run", "follow", "r1", "--format", "jsonl"}},
		{"the answer of a wait that outlived its call", []string{"job", "wait", "run-wait-0a1b2c3d"}},
		{"whether that wait has ended", []string{"job", "status", "run-wait-0a1b2c3d"}},
		{"stop that wait", []string{"job", "cancel", "run-wait-0a1b2c3d"}},
		{"the waits that run on", []string{"job", "list"}},
		{"stop run r1 and what it started", []string{"run", "cancel", "r1"}},
		{"opus implements, codex reviews the change", []string{"run", "review", "-p", "add a hello.py", "-m", "opus", "--review-model", "codex"}},
		{"a read-only review by opus, with its report", []string{"run", "spawn", "-p", "review src/auth", "-m", "opus", "--sandbox", "read-only", "--wait"}},
		{"a run in another space", []string{"run", "spawn", "--space", "s1", "--prompt", "tidy up"}},
		{"cost of opus's runs", []string{"run", "stats", "--model", "opus"}},
		{"wait for r1", []string{"run", "wait", "r1", "--timeout", "30s"}},
		{"serve the commands as MCP tools", []string{"serve"}},
		{"which skills there are", []string{"skills", "list"}},
		{"the go skill", []string{"skills", "show", "go"}},
		{"which files the tool writes", []string{"status", "--show-side-effects"}},
	}
	covered := map[string]bool{}
	for _, tt := range tasks {
		t.Run(tt.task, func(t *testing.T) {
			key, err := derive(m, tt.argv)
			if err != nil {
				t.Fatalf("%q is not derivable from describe: %v", tt.argv, err)
			}
			covered[key] = true
			// The exit code alone: --format id answers a validation with
			// no ids, rather than an envelope.
			if r := sb.run(t, agent, append(slices.Clone(tt.argv), "--validate-only")...); r.code != 0 {
				t.Errorf("meridian refused %q, which describe allows (exit %d): %s", tt.argv, r.code, r.stdout)
			}
		})
	}
	for key, c := range m.Commands {
		if c.Runnable == nil && !covered[key] {
			t.Errorf("no task uses %s", key)
		}
	}

	// What the manifest rules out, meridian refuses.
	wrong := []struct {
		argv []string
		why  string
	}{
		{[]string{"run", "spawn", "-m", "opus"}, "--prompt"},
		{[]string{"run", "list", "--status", "lost"}, "lost"},
		{[]string{"run", "list", "--limit", "many"}, "many"},
		{[]string{"run", "launch"}, "launch"},
		{[]string{"run", "list", "--colour"}, "--colour"},
		{[]string{"models", "show"}, "<model>"},
		{[]string{"run", "show", "x9"}, "x9"},
		{[]string{"models", "show", "opus", "sonnet"}, "sonnet"},
	}
	for _, tt := range wrong {
		t.Run(strings.Join(tt.argv, " "), func(t *testing.T) {
			_, err := derive(m, tt.argv)
			if err == nil || !strings.Contains(err.Error(), tt.why) {
				t.Errorf("derive(%q) = %v, want an error naming %s", tt.argv, err, tt.why)
			}
			e, r := sb.agent(t, agent, append(slices.Clone(tt.argv), "--validate-only")...)
			if e.OK || r.code != 2 {
				t.Errorf("meridian accepted %q (exit %d), which describe rules out", tt.argv, r.code)
			}
		})
	}
}

// derive checks an invocation against a compact manifest as an agent would
// build it from one, and returns the command's key.
func derive(m describe.Compact, argv []string) (string, error) {
	key, rest := "", argv
	for len(rest) > 0 {
		next := strings.TrimPrefix(key+"."+rest[0], ".")
		if _, ok := m.Commands[next]; !ok {
			break
		}
		key, rest = next, rest[1:]
	}
	cmd, ok := m.Commands[key]
	if !ok || cmd.Runnable != nil {
		word := ""
		if len(rest) > 0 {
			word = rest[0]
		}
		return "", fmt.Errorf("%q names no runnable command (at %q)", key, word)
	}
	flags := map[string]describe.CompactFlag{}
	for p := key; ; {
		for name, f := range m.Commands[p].Flags {
			if _, own := flags[name]; !own {
				flags[name] = f
			}
		}
		i := strings.LastIndex(p, ".")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	for name, f := range m.GlobalFlags {
		if _, own := flags[name]; !own {
			flags[name] = f
		}
	}
	byShort := map[string]string{}
	for name, f := range flags {
		if f.Short != "" {
			byShort[f.Short] = name
		}
	}
	given := map[string]bool{}
	var args []string
	for i := 0; i < len(rest); i++ {
		word := rest[i]
		if !strings.HasPrefix(word, "-") || word == "-" {
			args = append(args, word)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(word, "-"), "=")
		if !strings.HasPrefix(word, "--") {
			name = byShort[name]
		}
		f, ok := flags[name]
		if !ok {
			return "", fmt.Errorf("%s takes no flag %s", key, word)
		}
		given[name] = true
		if f.Type == "boolean" {
			continue
		}
		if !hasValue {
			if i+1 == len(rest) {
				return "", fmt.Errorf("%s: --%s needs a value", key, name)
			}
			i++
			value = rest[i]
		}
		if err := typed(f, value); err != nil {
			return "", fmt.Errorf("%s --%s: %w", key, name, err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(flags)) {
		if flags[name].Required && !given[name] {
			return "", fmt.Errorf("%s needs --%s", key, name)
		}
	}
	for i, a := range cmd.Arguments {
		if i >= len(args) {
			if a.Required {
				return "", fmt.Errorf("%s needs <%s>", key, a.Name)
			}
			continue
		}
		if a.Pattern != "" && !regexp.MustCompile(a.Pattern).MatchString(args[i]) {
			return "", fmt.Errorf("%s: %q does not match <%s>'s %s", key, args[i], a.Name, a.Pattern)
		}
	}
	if n := len(cmd.Arguments); len(args) > n && (n == 0 || !cmd.Arguments[n-1].Variadic) {
		return "", fmt.Errorf("%s takes %d arguments, not %q", key, n, args)
	}
	return key, nil
}

// typed checks a flag's value against its type and enum.
func typed(f describe.CompactFlag, value string) error {
	var err error
	switch f.Type {
	case "integer":
		_, err = strconv.ParseInt(value, 10, 64)
	case "number":
		_, err = strconv.ParseFloat(value, 64)
	}
	if err != nil {
		return fmt.Errorf("%q is not a %s", value, f.Type)
	}
	if len(f.EnumValues) > 0 && !slices.Contains(f.EnumValues, value) {
		return fmt.Errorf("%q is not one of %v", value, f.EnumValues)
	}
	return nil
}

// TestDescribeCheaperThanHelp holds meridian's compact describe, as an
// agent reads it, to at most a third of the tokens of reading every
// command's --help (what describe replaces), both counted in OpenAI's o200k
// tokens.
func TestDescribeCheaperThanHelp(t *testing.T) {
	o200k := tiktoken.O200k()
	sb := newSandbox(t)
	agent := sb.inSpace("s1")
	var m describe.Compact
	described := sb.ok(t, agent, &m, "describe")
	raw, _ := json.Marshal(described)
	crawl := 0
	for key := range m.Commands {
		var words []string
		if key != m.Tool {
			words = strings.Split(key, ".")
		}
		r := sb.run(t, agent, append(words, "--help")...)
		crawl += o200k.Count(r.stdout + r.stderr)
	}
	if got := o200k.Count(string(raw)); 3*got > crawl {
		t.Errorf("describe is %d tokens, the --help of its %d commands %d: want at most a third", got, len(m.Commands), crawl)
	} else {
		t.Logf("describe %d tokens, --help crawl %d (%.0f%%)", got, crawl, 100*float64(got)/float64(crawl))
	}
}

// TestTokenBudgetO200k holds meridian's token budgets to OpenAI's o200k
// count, the tokenizer it registers: --token-count is the o200k count of
// the data, and --token-limit keeps the data within that many o200k tokens,
// with the cursor of the first model left out.
func TestTokenBudgetO200k(t *testing.T) {
	o200k := tiktoken.O200k()
	sb := newSandbox(t)
	var models []json.RawMessage
	whole := sb.ok(t, sb.env, &models, "models", "list", "--format", "json")
	if n := o200k.Count(string(whole.Data)); n < 200 {
		t.Fatalf("models list is %d tokens; the test wants more than a budget of 100", n)
	}
	counted := sb.ok(t, sb.env, nil, "models", "list", "--format", "json", "--token-count")
	if got, want := counted.Meta["token_count"], float64(o200k.Count(string(whole.Data))); got != want {
		t.Errorf("--token-count: meta.token_count %v, want the o200k count of data, %v", got, want)
	}
	capped := sb.ok(t, sb.env, nil, "models", "list", "--format", "json", "--token-limit", "100")
	if n := o200k.Count(string(capped.Data)); n > 100 || capped.Meta["truncated"] != true {
		t.Errorf("--token-limit 100: data of %d o200k tokens, meta.truncated %v", n, capped.Meta["truncated"])
	}
	pg, _ := capped.Meta["pagination"].(map[string]any)
	if next, _ := pg["next_cursor"].(string); next == "" || pg["has_more"] != true {
		t.Errorf("--token-limit 100: meta.pagination %v, want the cursor of the first model left out", pg)
	}
}
