//go:build linux

package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ---------------------------------------------------------------------------
// REQ-C-026 Commands declare conditional argument dependencies.

// TestC026ConditionalDependencies: REQ-C-026, every criterion, v1.16's
// included, on `quote` (app/parsing.go), which declares any_of(isin, figi,
// symbol), one_of(exact, fuzzy), layout=csv → separator, and --to
// prohibiting --print-only, and writes a line to its data directory when it
// runs.
//
//   - criterion 1: --layout csv without --separator exits 2 with a
//     structured error naming --separator; with it the call runs;
//   - criteria 2 and 4: --schema (and the manifest, valid against
//     ManifestResponse 3.21) lists the whole graph in the spec's shapes, so
//     that a call built from it alone passes at the first attempt;
//   - criterion 3: --to with --print-only exits 2 before any I/O;
//   - v1.10: an any_of group with no flag present and a one_of group with
//     two present exit 2 before any I/O, naming every flag of the group in
//     the message and in valid_values; a one_of with exactly one passes;
//   - v1.16: a boolean given as false is absent — --exact=false --fuzzy
//     passes, --exact=false alone exits 2 — whether false comes from the
//     command line or the environment (E2EAPP_FUZZY=false); a true from
//     the environment is present.
func TestC026ConditionalDependencies(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	quotes := sb.path("data", "e2eapp", "quotes")

	refused := []struct {
		name  string
		env   []string
		args  []string
		code  string
		names []string // every one named in the message
		valid []string // error.valid_values; nil: not checked
	}{
		{"csv without a separator", nil, []string{"--symbol", "AAPL", "--exact", "--layout", "csv"}, "MISSING_REQUIRED_FLAG", []string{"--layout csv", "--separator"}, nil},
		{"--to with --print-only", nil, []string{"--symbol", "AAPL", "--exact", "--to", "desk", "--print-only"}, "MUTUALLY_EXCLUSIVE_FLAGS", []string{"--to", "--print-only"}, nil},
		{"any_of with none", nil, []string{"--exact"}, "MISSING_REQUIRED_FLAG", []string{"--isin", "--figi", "--symbol"}, []string{"isin", "figi", "symbol"}},
		{"one_of with none", nil, []string{"--figi", "BBG000B9XRY4"}, "MISSING_REQUIRED_FLAG", []string{"--exact", "--fuzzy"}, []string{"exact", "fuzzy"}},
		{"one_of with two", nil, []string{"--isin", "US0378331005", "--exact", "--fuzzy"}, "MUTUALLY_EXCLUSIVE_FLAGS", []string{"--exact", "--fuzzy"}, []string{"exact", "fuzzy"}},
		{"--exact=false alone", nil, []string{"--symbol", "AAPL", "--exact=false"}, "MISSING_REQUIRED_FLAG", []string{"--exact", "--fuzzy"}, []string{"exact", "fuzzy"}},
		{"fuzzy false from the environment", []string{"E2EAPP_FUZZY=false"}, []string{"--symbol", "AAPL"}, "MISSING_REQUIRED_FLAG", []string{"--exact", "--fuzzy"}, []string{"exact", "fuzzy"}},
		{"exact, and fuzzy from the environment", []string{"E2EAPP_FUZZY=true"}, []string{"--symbol", "AAPL", "--exact"}, "MUTUALLY_EXCLUSIVE_FLAGS", []string{"--exact", "--fuzzy"}, []string{"exact", "fuzzy"}},
	}
	for _, tt := range refused {
		env := expect(t, tt.name, sb.runEnv(t, tt.env, append([]string{"quote"}, tt.args...)...), 2)
		want(t, tt.name, env, map[string]any{"error.code": tt.code, "error.phase": "validation", "data": nil})
		msg, _ := get(env, "error.message").(string)
		for _, name := range tt.names {
			if !strings.Contains(msg, name) {
				t.Errorf("%s: message %q does not name %s", tt.name, msg, name)
			}
		}
		if tt.valid != nil {
			var got []string
			for _, v := range asSlice(get(env, "error.valid_values")) {
				got = append(got, v.(string))
			}
			if diff := cmp.Diff(tt.valid, got); diff != "" {
				t.Errorf("%s: valid_values (-want +got):\n%s", tt.name, diff)
			}
		}
		if exists(quotes) {
			t.Fatalf("%s: refused, but the command wrote %s", tt.name, quotes)
		}
	}

	accepted := []struct {
		name string
		env  []string
		args []string
		data map[string]any
	}{
		{"csv with a separator", nil, []string{"--symbol", "AAPL", "--exact", "--layout", "csv", "--separator", ";"}, map[string]any{"data.layout": "csv", "data.separator": ";"}},
		{"one identifier, one mode", nil, []string{"--isin", "US0378331005", "--fuzzy"}, map[string]any{"data.isin": "US0378331005", "data.fuzzy": true}},
		{"--exact=false --fuzzy", nil, []string{"--symbol", "AAPL", "--exact=false", "--fuzzy"}, map[string]any{"data.exact": false, "data.fuzzy": true}},
		{"fuzzy from the environment", []string{"E2EAPP_FUZZY=true"}, []string{"--figi", "BBG000B9XRY4"}, map[string]any{"data.fuzzy": true}},
		{"--to alone", nil, []string{"--symbol", "AAPL", "--exact", "--to", "desk"}, map[string]any{"data.to": "desk", "data.print_only": false}},
	}
	for i, tt := range accepted {
		env := expect(t, tt.name, sb.runEnv(t, tt.env, append([]string{"quote"}, tt.args...)...), 0)
		want(t, tt.name, env, tt.data)
		if got := strings.Count(readFile(t, quotes), "\n"); got != i+1 {
			t.Errorf("%s: %d quotes recorded, want %d", tt.name, got, i+1)
		}
	}

	graph := []any{
		map[string]any{"any_of": []any{"isin", "figi", "symbol"}},
		map[string]any{"one_of": []any{"exact", "fuzzy"}},
		map[string]any{"if_flag": "layout", "if_value": "csv", "then_required": []any{"separator"}},
		map[string]any{"if_flag": "to", "prohibited": []any{"print-only"}},
	}
	doc := sb.schemaOf(t, "quote")
	if diff := cmp.Diff(graph, doc["requires"]); diff != "" {
		t.Errorf("quote --schema requires (-want +got):\n%s", diff)
	}
	m := sb.manifest(t)
	if diff := cmp.Diff(graph, get(m, "commands.quote.requires")); diff != "" {
		t.Errorf("manifest quote requires (-want +got):\n%s", diff)
	}
	_, manifestSchema := specSchemas(t)
	var asJSON any
	raw, _ := json.Marshal(m)
	json.Unmarshal(raw, &asJSON)
	if err := manifestSchema.Validate(asJSON); err != nil {
		t.Errorf("the manifest is not a valid ManifestResponse: %v", err)
	}

	// Criterion 4: a call built from --schema alone — the first flag of
	// every group, each flag a then_required names when its if_value is
	// chosen — passes at the first attempt.
	flags := flagNames(doc)
	args := []string{"quote", "--layout", "csv"}
	for _, r := range asSlice(doc["requires"]) {
		rule := r.(map[string]any)
		for _, key := range []string{"any_of", "one_of", "then_required"} {
			names := asSlice(rule[key])
			if len(names) == 0 || key == "then_required" && rule["if_value"] != "csv" {
				continue
			}
			name := names[0].(string)
			if !slices.Contains(flags, name) {
				t.Fatalf("requires names --%s, which --schema does not list", name)
			}
			if get(doc, "flags."+name+".type") == "boolean" {
				args = append(args, "--"+name)
			} else {
				args = append(args, "--"+name, "x")
			}
		}
	}
	expect(t, strings.Join(args, " "), sb.run(t, args...), 0)
}

// asSlice is v as a JSON array, or nil.
func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// ---------------------------------------------------------------------------
// REQ-C-027 Commands declare option placement.

// TestC027StrictPlacementForwards: REQ-C-027, every criterion, with v1.16's
// meaning of strict, on `runx` (app/parsing.go), which runs a program with
// the arguments that follow it and reports the argv the program printed
// (the sandbox's args.sh prints one argument a line: the real child's view).
//
//   - criterion 1: runx, which forwards to a subprocess, declares
//     option_placement strict (--schema and manifest);
//   - criteria 2 and 3: the manifest gives every command an
//     option_placement, "any" where none is declared;
//   - criterion 4: `runx --format plain ./args.sh --child-flag` reads
//     --format (the answer is plain text) and forwards --child-flag;
//     `runx --label l -- ./args.sh` takes ./args.sh as the first
//     positional;
//   - criterion 5: an option after the first positional — the command's
//     own --label, the global --format, an unknown one — reaches the child
//     verbatim, is not refused, and is not read by the tool (--label stays
//     empty, the answer stays JSON).
func TestC027StrictPlacementForwards(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	prog := sb.script(t, "args.sh", "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done\n")

	if got := sb.schemaOf(t, "runx")["option_placement"]; got != "strict" {
		t.Errorf("runx --schema: option_placement %v, want strict", got)
	}
	commands, _ := sb.manifest(t)["commands"].(map[string]any)
	for path, c := range commands {
		want := "any"
		if path == "runx" {
			want = "strict"
		}
		if got := get(c, "option_placement"); got != want && !(want == "any" && got == "strict") {
			t.Errorf("manifest: %s has option_placement %v, want %s", path, got, want)
		}
	}
	if got := get(commands, "quote.option_placement"); got != "any" {
		t.Errorf("manifest: quote (declares none) has option_placement %v, want any", got)
	}

	for _, tt := range []struct {
		args  []string
		label string
		child []any
	}{
		{[]string{"runx", prog, "--child-flag"}, "", []any{"--child-flag"}},
		{[]string{"runx", "--label", "l", prog, "--label", "m", "-x", "--format", "plain"}, "l", []any{"--label", "m", "-x", "--format", "plain"}},
		{[]string{"--label", "l", "runx", prog, "--quiet"}, "l", []any{"--quiet"}},
		{[]string{"runx", "--label", "l", "--", prog, "--child-flag"}, "l", []any{"--child-flag"}},
	} {
		what := strings.Join(tt.args, " ")
		env := expect(t, what, sb.run(t, tt.args...), 0)
		want(t, what, env, map[string]any{"data.program": prog, "data.label": tt.label, "data.child_argv": tt.child})
	}

	// Options before the first positional are the tool's: --format plain
	// is read, --child-flag after the program is the program's.
	r := sb.run(t, "runx", "--format", "plain", prog, "--child-flag")
	if r.code != 0 || strings.HasPrefix(strings.TrimSpace(r.stdout), "{") || !strings.Contains(r.stdout, "--child-flag") {
		t.Errorf("runx --format plain %s --child-flag: exit %d, stdout %q; want plain text naming --child-flag", prog, r.code, r.stdout)
	}
}

// ---------------------------------------------------------------------------
// REQ-C-032 Protocol server commands declare their stdout protocol.

// TestC032ProtocolRegistrationAndFailure: REQ-C-032 criteria 2 and 3 (the
// registration checks) through e2eapp-misdeclared, each case e2eapp with a
// protocol server `serve` declared beside what cannot go with it: a name
// that is not kebab-case, a stdin payload, an output schema, a dry run,
// streaming, being always an MCP tool. The binary does not start (exit 1,
// nothing on stdout, serve and the rule named on stderr). Criterion 12 for
// --output and --dry-run: e2eapp's `mcp` server has neither in --schema.
// Criterion 4: an invalid flag of `mcp` exits 2 with stdout empty and the
// envelope the last line of stderr — Duet writes that envelope to stdout
// today (adapters/run.go routes a protocol command's answer as any
// other's), which the test reports as a gap.
func TestC032ProtocolRegistrationAndFailure(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ misdeclare, says string }{
		{"protocol-not-kebab", `Meta.Protocol "MCP_stdio" is not a lowercase kebab-case name`},
		{"protocol-stdin", "cannot declare Meta.Stdin"},
		{"protocol-output-schema", "cannot declare Meta.Output"},
		{"protocol-dry-run", "cannot declare --dry-run"},
		{"protocol-streaming", "cannot declare Meta.Streaming"},
		{"protocol-tool", "cannot declare Meta.Tool ToolAlways"},
	} {
		sb := sandboxFor(t, misdeclared)
		r := sb.runEnv(t, []string{"E2EAPP_MISDECLARE=" + tt.misdeclare}, "status")
		if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, `command "serve"`) || !strings.Contains(r.stderr, tt.says) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want a refusal naming serve and saying %q", tt.misdeclare, r.code, r.stdout, r.stderr, tt.says)
		}
	}

	sb := newSandbox(t)
	flags := flagNames(sb.schemaOf(t, "mcp"))
	for _, f := range []string{"output", "dry-run", "idempotency-key", "confirm-destructive"} {
		if slices.Contains(flags, f) {
			t.Errorf("mcp --schema has --%s", f)
		}
	}
	r := sb.run(t, "--format", "json", "mcp", "--bogus")
	if r.code != 2 {
		t.Fatalf("mcp --bogus: exit %d, want 2\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if r.stdout != "" && strings.Contains(r.stdout, `"UNKNOWN_FLAG"`) {
		gap(t, "a protocol server's invalid flag: the envelope is on stdout, not the last line of stderr")
	}
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	var env map[string]any
	if r.stdout != "" || json.Unmarshal([]byte(lines[len(lines)-1]), &env) != nil || get(env, "meta.exit_code") != 2.0 {
		t.Errorf("mcp --bogus: stdout %q, stderr %q; want stdout empty and an envelope on the last line of stderr", r.stdout, r.stderr)
	}
}
