package envelope_test

// ResponseEnvelope 2.x, as Finish writes it: meta.exit_code, a failure's
// data, and a stream's terminal line.

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/jsontest"
)

// metaKeys returns the keys of the meta of one JSON object, in order.
func metaKeys(t *testing.T, line []byte) []string {
	t.Helper()
	var top struct {
		Meta json.RawMessage `json:"meta"`
	}
	if err := json.Unmarshal(line, &top); err != nil || top.Meta == nil {
		t.Fatalf("no meta (%v): %s", err, line)
	}
	return jsontest.Keys(t, top.Meta)
}

// lines splits a jsonl answer into its lines.
func lines(t *testing.T, b []byte) [][]byte {
	t.Helper()
	if !bytes.HasSuffix(b, []byte("\n")) {
		t.Fatalf("the stream does not end with a newline: %q", b)
	}
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

// TestMetaExitCode: meta.exit_code, the first key of meta, is always
// present and is the process's exit code: ExitCode of the error Finish
// reported, 0 on success and never 0 for an error; ok is true exactly when
// it is 0. A stream's terminal line carries it too.
func TestMetaExitCode(t *testing.T) {
	tests := []struct {
		name   string
		result any
		fail   func() *envelope.Error
		want   int
	}{
		{"success", object(), nil, 0},
		{"an error", object(), func() *envelope.Error {
			return envelope.Errorf(exitcode.NotFound, "SPACE_NOT_FOUND", "space s9 does not exist")
		}, 5},
		{"a validation error", nil, func() *envelope.Error { return envelope.Validationf("BAD_ID", "no such id") }, 2},
		{"an error whose exit is 0", object(), func() *envelope.Error { return envelope.Errorf(exitcode.Success, "ODD", "failed with exit 0") }, 1},
		{"an interruption", nil, func() *envelope.Error {
			return envelope.Errorf(exitcode.Interrupted, "CANCELLED", "cancelled by SIGINT").Interrupted("SIGINT")
		}, 130},
		{"a result that cannot be encoded", map[string]any{"ch": make(chan int)}, nil, 1}, // ENCODE_FAILED
	}
	for _, tt := range tests {
		for _, f := range []envelope.Format{envelope.JSON, envelope.JSONL} {
			t.Run(tt.name+"/"+string(f), func(t *testing.T) {
				var fail *envelope.Error
				if tt.fail != nil {
					fail = tt.fail()
					if got := envelope.ExitCode(tt.fail()); got != tt.want {
						t.Errorf("ExitCode = %d, want %d", got, tt.want)
					}
				}
				out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(f)})
				if tt.result != nil {
					out.Result(tt.result)
				}
				reported := out.Finish(fixedMeta(), fail)
				if got := envelope.ExitCode(reported); got != tt.want {
					t.Errorf("ExitCode(Finish's error %v) = %d, want %d", reported, got, tt.want)
				}
				all := lines(t, stdout.Bytes())
				last := all[len(all)-1]
				if keys := metaKeys(t, last); len(keys) == 0 || keys[0] != "exit_code" {
					t.Errorf("meta keys %v, want exit_code first", keys)
				}
				var line struct {
					OK   *bool `json:"ok"`
					Meta struct {
						ExitCode *int `json:"exit_code"`
					} `json:"meta"`
				}
				if err := json.Unmarshal(last, &line); err != nil {
					t.Fatal(err)
				}
				if line.Meta.ExitCode == nil || *line.Meta.ExitCode != tt.want {
					t.Errorf("meta.exit_code = %v, want %d: %s", line.Meta.ExitCode, tt.want, last)
				}
				if line.OK != nil && *line.OK != (tt.want == 0) {
					t.Errorf("ok = %v with exit_code %d", *line.OK, tt.want)
				}
				if line.OK == nil && (f != envelope.JSONL || tt.want != 0) {
					t.Errorf("no ok: want an envelope, not a summary line: %s", last)
				}
			})
		}
	}
}

// TestStreamTerminalLine (REQ-O-004): a jsonl stream ends with exactly one
// terminal line: the "_summary" line on success, or the error envelope when
// the command fails, with data.partial for an interruption.
func TestStreamTerminalLine(t *testing.T) {
	tests := []struct {
		name   string
		items  int
		dryRun bool
		fail   func() *envelope.Error
		want   string // the terminal line's data, on failure
		exit   int
	}{
		{"success", 2, false, nil, "", 0},
		{"success without items", 0, false, nil, "", 0},
		{"dry run", 2, true, nil, "", 0},
		{"failure after two items", 2, false, func() *envelope.Error {
			return envelope.Errorf(exitcode.Unavailable, "GONE", "upstream is down")
		}, "null", 12},
		{"failure before the first item", 0, false, func() *envelope.Error {
			return envelope.Errorf(exitcode.Unavailable, "GONE", "upstream is down")
		}, "null", 12},
		{"interrupted after two items", 2, false, func() *envelope.Error {
			return envelope.Errorf(exitcode.Terminated, "CANCELLED", "cancelled by SIGTERM").Interrupted("SIGTERM")
		}, `{"partial":true}`, 143},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSONL), DryRun: tt.dryRun})
			for _, r := range records()[:tt.items] {
				if err := out.Item(r); err != nil {
					t.Fatal(err)
				}
			}
			out.Warn("SLOW", "the upstream is slow", "")
			var fail *envelope.Error
			if tt.fail != nil {
				fail = tt.fail()
			}
			out.Finish(fixedMeta(), fail)
			all := lines(t, stdout.Bytes())
			if len(all) != tt.items+1 {
				t.Fatalf("%d lines, want %d items and one terminal line:\n%s", len(all), tt.items, stdout)
			}
			for i, line := range all[:tt.items] {
				if bytes.Contains(line, []byte(`"_summary"`)) || bytes.Contains(line, []byte(`"ok"`)) {
					t.Errorf("item line %d looks terminal: %s", i+1, line)
				}
			}
			last := all[tt.items]
			wantWarnings := []envelope.Warning{{Code: "SLOW", Message: "the upstream is slow."}}
			if tt.fail == nil {
				sum := decodeSummary(t, last)
				if sum.Total != tt.items || sum.DryRun != tt.dryRun || sum.Meta["exit_code"] != float64(0) {
					t.Errorf("summary total %d dry_run %v exit_code %v, want %d, %v, 0", sum.Total, sum.DryRun, sum.Meta["exit_code"], tt.items, tt.dryRun)
				}
				if diff := cmp.Diff(wantWarnings, sum.Warnings); diff != "" {
					t.Errorf("summary warnings (-want +got):\n%s", diff)
				}
				return
			}
			env := decodeOne(t, last)
			if env.OK || env.Error == nil || env.Error.Code != fail.Code || string(env.Data) != tt.want || env.Meta["exit_code"] != float64(tt.exit) {
				t.Errorf("terminal line = %s, want an error envelope with data %s and exit_code %d", last, tt.want, tt.exit)
			}
			if diff := cmp.Diff(wantWarnings, env.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if tt.want == `{"partial":true}` {
				if got := env.Error.Signal(); got != "SIGTERM" {
					t.Errorf("error.context.signal = %q, want SIGTERM: %s", got, last)
				}
				if !strings.Contains(string(last), `"context":{"signal":"SIGTERM"}`) {
					t.Errorf("the signal is not in error.context: %s", last)
				}
			}
		})
	}
}

// TestFailureData: data is null on a failure unless the command declared
// its result the failure's payload (WithResult); an interruption's data is
// {"partial": true}; and a refusal made WithPreview keeps the dry run's
// meta.effect and meta.would_affect, which any other failure drops.
func TestFailureData(t *testing.T) {
	const (
		result  = `{"deleted":1}`
		affects = `{"items":["t1"]}`
	)
	tests := []struct {
		name      string
		dryRun    bool
		noResult  bool
		fail      func() *envelope.Error
		data      string
		meta      map[string]any // effect, would_affect and dry_run
		signalled string
	}{
		{"success, for comparison", true, false, nil, result,
			map[string]any{"effect": "would_delete", "would_affect": map[string]any{"items": []any{"t1"}}, "dry_run": true}, ""},
		{"a failure", false, false, func() *envelope.Error { return envelope.Errorf(exitcode.Conflict, "BUSY", "locked") }, "null",
			map[string]any{"effect": nil, "would_affect": nil, "dry_run": nil}, ""},
		{"a failure in a dry run", true, false, func() *envelope.Error { return envelope.Errorf(exitcode.Conflict, "BUSY", "locked") }, "null",
			map[string]any{"effect": nil, "would_affect": nil, "dry_run": true}, ""},
		{"a refusal with its preview", true, false, func() *envelope.Error {
			return envelope.Validationf("CONFIRMATION_REQUIRED", "deleting needs --yes").WithPreview()
		}, "null", map[string]any{"effect": "would_delete", "would_affect": map[string]any{"items": []any{"t1"}}, "dry_run": true}, ""},
		{"a failure with its payload", false, false, func() *envelope.Error { return envelope.Errorf(80, "NONCONFORMANT", "found problems").WithResult() }, result,
			map[string]any{"effect": "deleted", "would_affect": nil, "dry_run": nil}, ""},
		{"a payload declared but not given", false, true, func() *envelope.Error {
			return envelope.Errorf(80, "NONCONFORMANT", "found problems").WithResult()
		}, "null", map[string]any{"effect": nil, "would_affect": nil, "dry_run": nil}, ""},
		{"an interruption", false, false, func() *envelope.Error {
			return envelope.Errorf(exitcode.Interrupted, "CANCELLED", "cancelled by SIGINT").Interrupted("SIGINT")
		}, `{"partial":true}`, map[string]any{"effect": nil, "would_affect": nil, "dry_run": nil}, "SIGINT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), DryRun: tt.dryRun})
			out.Effect(envelope.Deleted)
			out.WouldAffect(map[string][]string{"items": {"t1"}})
			if !tt.noResult {
				out.Result(map[string]int{"deleted": 1})
			}
			var fail *envelope.Error
			if tt.fail != nil {
				fail = tt.fail()
			}
			out.Finish(fixedMeta(), fail)
			env := decodeOne(t, stdout.Bytes())
			if string(env.Data) != tt.data {
				t.Errorf("data = %s, want %s", env.Data, tt.data)
			}
			got := map[string]any{}
			for k := range tt.meta {
				got[k] = env.Meta[k]
			}
			if diff := cmp.Diff(tt.meta, got); diff != "" {
				t.Errorf("meta (-want +got):\n%s", diff)
			}
			if fail == nil {
				return
			}
			if got := env.Error.Signal(); got != tt.signalled {
				t.Errorf("Signal() = %q, want %q", got, tt.signalled)
			}
			if tt.signalled == "" && env.Error.Context != nil {
				t.Errorf("error.context = %v, want none", env.Error.Context)
			}
			if bytes.Contains(stdout.Bytes(), []byte(`"signal":`)) != (tt.signalled != "") {
				t.Errorf("signal where it does not belong: %s", stdout)
			}
		})
	}
}

// TestInterrupted: Interrupted names the signal in error.context.signal,
// beside any context the error had, and Signal returns it.
func TestInterrupted(t *testing.T) {
	e := envelope.Errorf(exitcode.Interrupted, "CANCELLED", "cancelled")
	if e.Signal() != "" {
		t.Errorf("Signal() of an error no signal stopped = %q", e.Signal())
	}
	e.Context = map[string]any{"completed": 3}
	if got := e.Interrupted("SIGINT"); got != e {
		t.Error("Interrupted did not return its receiver")
	}
	if diff := cmp.Diff(map[string]any{"completed": 3, "signal": "SIGINT"}, e.Context); diff != "" {
		t.Errorf("context (-want +got):\n%s", diff)
	}
	if e.Signal() != "SIGINT" {
		t.Errorf("Signal() = %q, want SIGINT", e.Signal())
	}
	raw, _ := e.MarshalJSON()
	var wire map[string]any
	if err := json.Unmarshal(raw, &wire); err != nil {
		t.Fatal(err)
	}
	if _, top := wire["signal"]; top || !cmp.Equal(wire["context"], map[string]any{"completed": float64(3), "signal": "SIGINT"}) {
		t.Errorf("error = %s, want the signal in error.context only", raw)
	}
}
