//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/conformance"
)

// TestO043AgentsMD: REQ-O-043, every criterion, on e2eapp's AGENTS.md as
// `e2eapp describe --agents-md` writes it. It has the four sections — the
// canonical invocation, the non-interactive flags, the environment
// variables with type and description (the app's own, declared with
// WithEnvVar, among them), the input conventions (stdin and --input-file
// included, as e2eapp has commands that read a payload) — and
// `<!-- cli-version: X -->` on line 1, X what `e2eapp --version` prints.
// Every flag, command and variable it lists is in `e2eapp --help`, as the
// black-box checker (conformance.CheckAgentsMD, duet-check agents-md) finds
// it, and so is every variable its prose names (NO_COLOR, CI, ...), which
// the checker does not look at — Duet's own variables and the variable a
// flag declared in Meta.Flags is read from included, which the root's
// --help names for that reason. Criterion 3's "every env var the CLI
// reads" is held to the manifest: every variable it names anywhere (root
// env_vars, a flag's env_vars, a command's secret and token variables) is
// in AGENTS.md, and one of them, E2EAPP_TRACE_ID, is shown to be read.
func TestO043AgentsMD(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	r := sb.run(t, "describe", "--agents-md", "--format", "text")
	if r.code != 0 {
		t.Fatalf("describe --agents-md: exit %d\n%s", r.code, r.stderr)
	}
	md := r.stdout

	// Line 1 is the version --version prints.
	v := sb.run(t, "--version")
	version := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v.stdout), "e2eapp"))
	if v.code != 0 || version == "" {
		t.Fatalf("--version: exit %d, stdout %q", v.code, v.stdout)
	}
	if line1, _, _ := strings.Cut(md, "\n"); line1 != "<!-- cli-version: "+version+" -->" {
		t.Errorf("line 1 is %q; want the cli-version comment of %q (--version prints %q)", line1, version, v.stdout)
	}

	// The four sections, each with what the criterion asks of it.
	section := func(name string) string {
		_, body, ok := strings.Cut(md, "\n## "+name+"\n")
		if !ok {
			t.Errorf("AGENTS.md has no ## %s section:\n%s", name, md)
			return ""
		}
		body, _, _ = strings.Cut(body, "\n## ")
		return body
	}
	if s := section("Canonical Invocation"); !strings.Contains(s, "e2eapp <command> [arguments] [flags]") {
		t.Errorf("Canonical Invocation gives no command string:\n%s", s)
	}
	nonInteractive := section("Non-Interactive Flags")
	suppress := []string{"yes", "confirm-destructive", "non-interactive", "format", "dry-run", "timeout"}
	commands, _ := sb.manifest(t)["commands"].(map[string]any)
	for _, c := range commands { // and each command's own confirmation flag
		if name, ok := get(c, "confirm_flag").(string); ok {
			suppress = append(suppress, name)
		}
	}
	for _, flag := range suppress {
		if !strings.Contains(nonInteractive, "- `--"+flag+"`") {
			t.Errorf("Non-Interactive Flags does not list --%s:\n%s", flag, nonInteractive)
		}
	}
	env := section("Environment Variables")
	item := regexp.MustCompile("(?m)^- `([A-Z][A-Z0-9_]*)` \\(([a-z]+)[^)]*\\): (.+)$")
	listed := map[string]bool{}
	for _, m := range item.FindAllStringSubmatch(env, -1) {
		listed[m[1]] = true
	}
	for _, name := range []string{
		"E2EAPP_FORMAT", "E2EAPP_MAX_OUTPUT_BYTES", // Duet's
		"E2EAPP_DATA_DIR", "E2EAPP_REGION", // the app's flags'
		"E2EAPP_SCOPES", "E2EAPP_REGISTRY", "E2EAPP_PASSTOOL", "E2EAPP_UPDATE_URL", // the app's own (WithEnvVar)
	} {
		if !listed[name] {
			t.Errorf("Environment Variables does not list %s with a type and a description:\n%s", name, env)
		}
	}
	input := section("Input Conventions")
	for _, want := range []string{"stdin", "`--input-file` (on `e2eapp "} {
		if !strings.Contains(input, want) {
			t.Errorf("Input Conventions does not say %q:\n%s", want, input)
		}
	}

	// Every flag, command and listed variable is in --help (the checker).
	report, err := conformance.CheckAgentsMD(context.Background(), conformance.Target{Path: sb.bin, Env: sb.env}, []byte(md))
	if err != nil {
		t.Fatalf("CheckAgentsMD: %v", err)
	}
	for _, mm := range report.Mismatches {
		t.Errorf("AGENTS.md names %s %s, which e2eapp --help does not: %s", mm.Kind, mm.Name, mm.Detail)
	}
	// And every variable its prose names: the sentence after the list.
	_, prose, ok := strings.Cut(env, "\nAlso read")
	if !ok {
		t.Fatalf("Environment Variables names none of the variables every Duet tool reads:\n%s", env)
	}
	h := sb.run(t, "--help")
	help := h.stdout + h.stderr
	for _, name := range regexp.MustCompile(`\b[A-Z][A-Z0-9_]{1,}\b`).FindAllString(prose, -1) {
		if !regexp.MustCompile(`\b` + name + `\b`).MatchString(help) {
			t.Errorf("AGENTS.md names %s, which e2eapp --help does not:\n%s", name, help)
		}
	}

	// Criterion 3: every variable the binary reads, as its manifest names
	// them, is listed; E2EAPP_TRACE_ID, one of them, is read.
	var read []string
	m := sb.manifest(t)
	collect := func(entry any) {
		for _, key := range []string{"env_vars", "secret_env_vars", "token_env_vars"} {
			list, _ := get(entry, key).([]any)
			for _, v := range list {
				if name, ok := v.(string); ok {
					read = append(read, name)
				} else if name, ok := get(v, "name").(string); ok {
					read = append(read, name)
				}
			}
		}
		flags, _ := get(entry, "flags").(map[string]any)
		for _, f := range flags {
			list, _ := get(f, "env_vars").([]any)
			for _, v := range list {
				read = append(read, get(v, "name").(string))
			}
		}
	}
	collect(m)
	for _, c := range commands {
		collect(c)
	}
	if len(read) < 10 {
		t.Fatalf("the manifest names %d variables: %v", len(read), read)
	}
	for _, name := range read {
		if !listed[name] {
			t.Errorf("e2eapp's manifest says it reads %s; AGENTS.md's Environment Variables does not list it:\n%s", name, env)
		}
	}
	traced := expect(t, "manifest with a trace id", sb.runEnv(t, []string{"E2EAPP_TRACE_ID=t-043"}, "manifest"), 0)
	if get(traced, "meta.trace_id") != "t-043" {
		t.Fatalf("E2EAPP_TRACE_ID is not read: meta.trace_id %v", get(traced, "meta.trace_id"))
	}
}

// TestF079GlobalOptionScope: REQ-F-079, every criterion, on built binaries.
//
//   - The global options — Duet's (--format, --quiet, ...) and the app's own
//     root flag (--data-dir) — are in the manifest's root flags and in no
//     command's flags.
//   - `--format json <cmd>` and `<cmd> --format json` give the same answer
//     and exit code on every command path, nested ones included (--schema,
//     which answers before running, on every path; a real run of a nested
//     list command too), and --format given before the path is not
//     replaced by a default: `e2eapp --format json job list` at a terminal,
//     where the default is text, answers JSON.
//   - A ported command's flag reusing a global option's long name (Duet's
//     --format, the app's --data-dir) or short name (-f/--force next to a
//     global -f/--format, the spec's own registry) stops a spec-strict app
//     at startup, naming both flags.
//
// Duet's design keeps that refusal to the apps that ask for the spec's
// strictness (WithSpecStrict), for the commands they ported: adopting Duet
// never breaks an app, and an app's own flag wins over Duet's word. So
// e2eapp-globals shows the same flags kept — and working — in an app that
// has not opted in, and on a command not declared to Duet.
func TestF079GlobalOptionScope(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	m := sb.manifest(t)
	globals, _ := m["flags"].(map[string]any)
	for _, name := range []string{"format", "quiet", "verbose", "schema", "debug", "data-dir"} {
		if _, ok := globals[name]; !ok {
			t.Errorf("the manifest's root flags do not list the global option --%s: %v", name, keys(globals))
		}
	}
	commands, _ := m["commands"].(map[string]any)
	if len(commands) == 0 {
		t.Fatalf("the manifest lists no commands")
	}
	for path, entry := range commands {
		flags, _ := get(entry, "flags").(map[string]any)
		for name := range flags {
			if _, global := globals[name]; global {
				t.Errorf("command %s lists the global option --%s among its own flags", path, name)
			}
		}
	}

	t.Run("position", func(t *testing.T) {
		t.Parallel()
		stable := func(r result) string {
			var env map[string]any
			if err := json.Unmarshal([]byte(r.stdout), &env); err != nil {
				t.Fatalf("not one JSON envelope: %v\n%s", err, r.stdout)
			}
			meta, _ := env["meta"].(map[string]any)
			for _, k := range []string{"duration_ms", "request_id", "timestamp"} {
				delete(meta, k)
			}
			b, _ := json.Marshal(env)
			return string(b)
		}
		for path, entry := range commands {
			if delegates(entry) { // its tokens are its tool's, --format too
				continue
			}
			words := strings.Split(path, ".")
			before := sb.run(t, append([]string{"--format", "json"}, append(words, "--schema")...)...)
			after := sb.run(t, append(words, "--format", "json", "--schema")...)
			if before.code != after.code {
				t.Errorf("%s --schema: exit %d with --format json before the path, %d after", path, before.code, after.code)
				continue
			}
			if diff := cmp.Diff(stable(before), stable(after)); diff != "" {
				t.Errorf("%s --schema: --format json before the path and after differ (-before +after):\n%s", path, diff)
			}
		}
		// A real run of a nested command, in a format no default gives an agent.
		before, after := sb.run(t, "--format", "tsv", "job", "list"), sb.run(t, "job", "list", "--format", "tsv")
		if before.code != 0 || before.stdout != after.stdout || before.code != after.code || strings.HasPrefix(before.stdout, "{") {
			t.Errorf("job list --format tsv: before the path exit %d %q, after exit %d %q; want the same TSV", before.code, before.stdout, after.code, after.stdout)
		}
	})

	t.Run("no default replaces it", func(t *testing.T) {
		t.Parallel()
		out, code := sb.pty(t, nil, "--format", "json", "job", "list").Wait(t)
		out = strings.TrimSpace(ansi.ReplaceAllString(out, ""))
		var env map[string]any
		if code != 0 || json.Unmarshal([]byte(out), &env) != nil || env["ok"] != true {
			t.Errorf("e2eapp --format json job list at a terminal: exit %d, output %q; want one JSON envelope", code, out)
		}
	})

	t.Run("refused at startup", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct{ misdeclare, says string }{
			{"global-option-reused", `command "render": flag --format reuses --format, a name of the global option --format`},
			{"global-app-option-reused", `command "render": flag --data-dir reuses --data-dir, a name of the global option --data-dir`},
		} {
			r := sandboxFor(t, misdeclared).runEnv(t, []string{"E2EAPP_MISDECLARE=" + tt.misdeclare}, "status")
			if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, tt.says) || !strings.Contains(r.stderr, "REQ-F-079") {
				t.Errorf("%s: exit %d, stdout %q, stderr %q; want it not to start, saying %q", tt.misdeclare, r.code, r.stdout, r.stderr, tt.says)
			}
		}
		// The spec's registry: -f/--force next to a global -f/--format.
		r := sandboxFor(t, globalsApp.bin(t)).runEnv(t, []string{"E2EAPP_GLOBALS=short"}, "deploy")
		if says := `command "deploy": flag --force (-f) reuses -f, the short name of the global option --format (-f)`; r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, says) {
			t.Errorf("-f/--force next to a global -f/--format: exit %d, stdout %q, stderr %q; want it not to start, saying %q", r.code, r.stdout, r.stderr, says)
		}
	})

	t.Run("kept where the app did not opt in", func(t *testing.T) {
		t.Parallel()
		gs := sandboxFor(t, globalsApp.bin(t))
		for _, tt := range []struct {
			what string
			env  []string
			args []string
			want map[string]any
		}{
			{"an app without WithSpecStrict", []string{"CLAUDECODE=1"}, []string{"render", "--format", "pdf"}, map[string]any{"data.rendered": "report.pdf"}},
			{"an app without WithSpecStrict", []string{"CLAUDECODE=1"}, []string{"deploy", "-f"}, map[string]any{"data.force": true}},
			{"a command not declared to Duet", []string{"E2EAPP_GLOBALS=unported"}, []string{"render", "--format", "pdf"}, nil},
		} {
			r := gs.runEnv(t, tt.env, tt.args...)
			if tt.want == nil { // an unported command's own text, for a script
				if r.code != 0 || !strings.Contains(r.stdout, "report.pdf") {
					t.Errorf("%s: %v: exit %d, stdout %q, stderr %q; want its own --format read (report.pdf)", tt.what, tt.args, r.code, r.stdout, r.stderr)
				}
				continue
			}
			want(t, tt.what+": "+strings.Join(tt.args, " "), expect(t, strings.Join(tt.args, " "), r, 0), tt.want)
		}
		// Strict, with the same render ported, it does not start.
		if r := gs.runEnv(t, []string{"E2EAPP_GLOBALS=strict"}, "deploy"); r.code != 1 || !strings.Contains(r.stderr, `command "render": flag --format reuses --format`) {
			t.Errorf("E2EAPP_GLOBALS=strict: exit %d, stderr %q; want it refused at startup", r.code, r.stderr)
		}
	})
}

// globalsApp is e2eapp-globals (see its package doc).
var globalsApp = &onDemand{pkg: "github.com/duet-cli/duet/internal/e2eapp/cmd/e2eapp-globals"}

// TestHelpNamesTheTool: no help a person reads says <TOOL>: Duet's flags
// name their variables with the tool's own prefix (E2EAPP_), the root's
// and a ported command's help as much as a built-in's (mcp --http names
// E2EAPP_MCP_TOKEN); and no flag says its default twice (--width's usage
// says it, and urfave added "(default: 0)").
func TestHelpNamesTheTool(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	for _, args := range [][]string{{"--help"}, {"sync", "--help"}, {"mcp", "--help"}, {"profile", "save", "--help"}} {
		screen, code := sb.pty(t, nil, args...).Wait(t)
		if code != 0 || strings.Contains(screen, "<TOOL>") || !strings.Contains(screen, "E2EAPP_") {
			t.Errorf("%s at a terminal: exit %d; want help naming E2EAPP_ variables and no <TOOL>:\n%s", strings.Join(args, " "), code, screen)
		}
		for line := range strings.Lines(screen) {
			if strings.Count(line, "(default") > 1 {
				t.Errorf("%s: a flag says its default twice: %q", strings.Join(args, " "), line)
			}
		}
	}
	if screen, _ := sb.pty(t, nil, "mcp", "--help").Wait(t); !strings.Contains(screen, "$E2EAPP_MCP_TOKEN") {
		t.Errorf("mcp --help does not name $E2EAPP_MCP_TOKEN:\n%s", screen)
	}
}
