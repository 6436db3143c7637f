package speckit_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/duet-cli/duet/internal/speckit"
	"github.com/google/go-cmp/cmp"
)

func exit(code int) *int { return &code }

// TestParse reads a result the kit printed (testdata/todo-result.json: the
// vendored kit on examples/todo with its pre-3.0 manifest, exit 4).
func TestParse(t *testing.T) {
	stdout, err := os.ReadFile(filepath.Join("testdata", "todo-result.json"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := speckit.Parse(stdout)
	if err != nil {
		t.Fatal(err)
	}

	statuses := map[string]speckit.Status{}
	for _, c := range res.Checks {
		statuses[c.ID] = c.Status
	}
	want := map[string]speckit.Status{
		"no_hang_stdin_closed": speckit.Pass, "no_hang_stdin_open": speckit.Pass, "json_envelope": speckit.Pass,
		"exit_code_contract": speckit.Pass, "stdout_no_ansi": speckit.Pass, "no_color_honored": speckit.Pass,
		"help_off_stdout": speckit.Pass, "invalid_input_exit_2": speckit.Pass, "dry_run_preview": speckit.Pass,
		"destructive_refuses_unconfirmed": speckit.Pass, "manifest_valid": speckit.Fail, "argument_order": speckit.Fail,
		"stream_contract": speckit.Skip, "stream_sigint": speckit.Skip,
	}
	if diff := cmp.Diff(want, statuses); diff != "" {
		t.Errorf("check statuses (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"level_1": "pass", "level_2": "pass", "level_3": "fail"}, res.Levels); diff != "" {
		t.Errorf("levels (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(speckit.Summary{Passed: 10, Failed: 2, Skipped: 2}, res.Summary); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if res.Tool != "todo" || res.SchemaVersion != "1.0" || string(res.Stdout) != string(stdout) {
		t.Errorf("tool %q, schema_version %q, %d bytes of stdout kept", res.Tool, res.SchemaVersion, len(res.Stdout))
	}

	order, ok := res.Check("argument_order")
	if !ok {
		t.Fatal("no argument_order check")
	}
	wantOrder := speckit.Check{
		ID:           "argument_order",
		Title:        "A global option means the same before and after the command path; conflicting repeats exit 2",
		Status:       speckit.Fail,
		Level:        3,
		FailureModes: []string{"§69"},
		Requirements: []string{"REQ-F-067", "REQ-F-079"},
		RunsChecked:  7,
		Failures: []speckit.Failure{{
			Probe:      "argument_order conflicting --format",
			Argv:       []string{"/tmp/speckit-todo/todo", "--format", "json", "list", "--limit", "5", "--format", "plain"},
			Stdin:      "closed",
			ExitCode:   exit(0),
			DurationMS: 7,
			Detail:     "--format given twice with different values exited 0, expected 2",
		}},
	}
	if diff := cmp.Diff(wantOrder, order); diff != "" {
		t.Errorf("argument_order (-want +got):\n%s", diff)
	}
	stream, _ := res.Check("stream_contract")
	if stream.SkippedReason != "profile declares no stream probe" {
		t.Errorf("stream_contract skipped_reason = %q", stream.SkippedReason)
	}
	if diff := cmp.Diff([]string{"manifest_valid", "argument_order"}, ids(res.Failed())); diff != "" {
		t.Errorf("Failed (-want +got):\n%s", diff)
	}
}

func ids(checks []speckit.Check) []string {
	var out []string
	for _, c := range checks {
		out = append(out, c.ID)
	}
	return out
}

// TestParseRefusal reads the kit's answer to an invalid profile
// (testdata/invalid-profile.json, exit 2): no result, the kit's reason.
func TestParseRefusal(t *testing.T) {
	stdout, err := os.ReadFile(filepath.Join("testdata", "invalid-profile.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = speckit.Parse(stdout)
	var refused *speckit.KitError
	if !errors.As(err, &refused) {
		t.Fatalf("Parse = %v, want a *KitError", err)
	}
	want := &speckit.KitError{Code: "INVALID_PROFILE", Message: "profile does not match conformance-profile.json: probes/0: 'dry_run_flag' is a required property"}
	if diff := cmp.Diff(want, refused); diff != "" {
		t.Errorf("KitError (-want +got):\n%s", diff)
	}
}

func TestParseRejectsOtherOutput(t *testing.T) {
	for name, stdout := range map[string]string{
		"empty":                   "",
		"prose":                   "Traceback (most recent call last):",
		"neither data nor error":  `{"ok": true, "data": null, "error": null, "warnings": [], "meta": {"exit_code": 0, "duration_ms": 1}}`,
		"a result without checks": `{"ok": true, "data": {"schema_version": "1.0", "tool": "t", "levels": {"level_1": "pass"}, "summary": {}, "checks": []}, "error": null}`,
	} {
		t.Run(name, func(t *testing.T) {
			res, err := speckit.Parse([]byte(stdout))
			var refused *speckit.KitError
			if err == nil || errors.As(err, &refused) {
				t.Errorf("Parse = %+v, %v; want an error other than a refusal", res, err)
			}
		})
	}
}

func TestFailures(t *testing.T) {
	check := func(failures ...speckit.Failure) speckit.Check {
		return speckit.Check{
			ID: "json_envelope", Title: "Non-TTY stdout is exactly one valid ResponseEnvelope without flags", Status: speckit.Fail,
			Level: 1, Requirements: []string{"REQ-F-003", "REQ-F-004"}, Failures: failures,
		}
	}
	tests := []struct {
		name   string
		checks []speckit.Check
		want   string
	}{
		{
			name:   "nothing failed",
			checks: []speckit.Check{{ID: "manifest_valid", Status: speckit.Pass}, {ID: "stream_contract", Status: speckit.Skip}},
			want:   "",
		},
		{
			name: "exit code and closed stdin",
			checks: []speckit.Check{check(speckit.Failure{
				Probe: "list", Argv: []string{"/bin/todo", "list"}, Stdin: "closed", ExitCode: exit(0), Detail: "stdout is empty",
			})},
			want: "json_envelope (level 1; REQ-F-003, REQ-F-004): Non-TTY stdout is exactly one valid ResponseEnvelope without flags\n" +
				"  list: exit 0: stdout is empty\n" +
				"    $ /bin/todo list </dev/null\n",
		},
		{
			name: "timed out on an open stdin, arguments quoted",
			checks: []speckit.Check{check(speckit.Failure{
				Probe: "add", Argv: []string{"/opt/my tools/todo", "add", "it's", "", "--tag=a&b"}, Stdin: "open", TimedOut: true, DurationMS: 10012,
				Detail: "no exit within 10s; killed",
			})},
			want: "json_envelope (level 1; REQ-F-003, REQ-F-004): Non-TTY stdout is exactly one valid ResponseEnvelope without flags\n" +
				"  add: killed after 10012ms: no exit within 10s; killed\n" +
				`    $ '/opt/my tools/todo' add 'it'\''s' '' '--tag=a&b' # stdin open` + "\n",
		},
		{
			name: "passed checks left out",
			checks: []speckit.Check{
				{ID: "no_hang_stdin_closed", Status: speckit.Pass},
				{ID: "stream_sigint", Title: "SIGINT mid-stream", Status: speckit.Fail, Level: 3, Requirements: []string{"REQ-O-004"},
					Failures: []speckit.Failure{{Probe: "tail (SIGINT after 2 lines)", Argv: []string{"/bin/todo", "watch"}, Stdin: "closed", ExitCode: exit(1), Detail: "exited 1 after SIGINT, expected 130"}}},
			},
			want: "stream_sigint (level 3; REQ-O-004): SIGINT mid-stream\n" +
				"  tail (SIGINT after 2 lines): exit 1: exited 1 after SIGINT, expected 130\n" +
				"    $ /bin/todo watch </dev/null\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := speckit.Result{Checks: tt.checks}.Failures()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Failures (-want +got):\n%s", diff)
			}
		})
	}
}
