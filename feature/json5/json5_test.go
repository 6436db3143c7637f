package json5_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/feature/json5"
	"github.com/duet-cli/duet/schema"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		in, out   string
		corrected string // set when refused
	}{
		{`{"key": "value"}`, `{"key": "value"}`, ""}, // strict JSON as it is
		{`{"key": "value",}`, `{"key":"value"}`, ""},
		{`{"key": "value" /* comment */}`, `{"key":"value"}`, ""},
		{`{key: 'value', n: .5}`, `{"key":"value","n":0.5}`, ""},
		{`{env prod}`, "", `{"env":"prod"}`},
		{`{"a": Infinity}`, "", `{"a":null}`},
		{``, "", `null`},
	}
	for _, tc := range tests {
		out, err := json5.Normalize([]byte(tc.in))
		if tc.corrected == "" {
			if err != nil || string(out) != tc.out {
				t.Errorf("Normalize(%q) = %s, %v; want %s", tc.in, out, err, tc.out)
			}
			continue
		}
		var e *envelope.Error
		if !errors.As(err, &e) {
			t.Fatalf("Normalize(%q) = %s, %v; want INVALID_JSON", tc.in, out, err)
		}
		got := []any{e.Code, e.Exit, e.Phase, e.CorrectedInput, e.FixRequired != "", e.Hint != ""}
		want := []any{"INVALID_JSON", exitcode.ArgError, envelope.Validation, tc.corrected, true, true}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Normalize(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// JSON an agent wrote by hand is taken as it was meant; what cannot be is
// refused with the input corrected, ready to send again.
func ExampleNormalize() {
	out, _ := json5.Normalize([]byte(`{title: 'write docs', tags: ['a', 'b',], /* soon */ priority: 'high',}`))
	fmt.Println(string(out))

	_, err := json5.Normalize([]byte(`{title: write docs}`))
	var e *envelope.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.CorrectedInput)
	}
	// Output:
	// {"title":"write docs","tags":["a","b"],"priority":"high"}
	// INVALID_JSON {"title":"write docs"}
}

// TestFeature: a flag declared JSON takes JSON5 with the feature, and
// strict JSON alone without it, refused with INVALID_JSON and no
// corrected input.
func TestFeature(t *testing.T) {
	for _, tt := range []struct {
		name      string
		features  []adapters.Feature
		value     string
		code      int
		got       string // what the command receives
		corrected string
	}{
		{"core, strict JSON", nil, `{"env": "prod"}`, 0, `{"env": "prod"}`, ""},
		{"core, JSON5", nil, `{env: 'prod',}`, 2, "", ""},
		{"feature, strict JSON", []adapters.Feature{json5.New()}, `{"env": "prod"}`, 0, `{"env": "prod"}`, ""},
		{"feature, JSON5", []adapters.Feature{json5.New()}, `{env: 'prod',}`, 0, `{"env":"prod"}`, ""},
		{"feature, beyond repair", []adapters.Feature{json5.New()}, `{env prod}`, 2, "", `{"env":"prod"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			app := &cli.Command{Name: "app", Commands: []*cli.Command{urfave.Annotate(&cli.Command{
				Name: "deploy", Flags: []cli.Flag{&cli.StringFlag{Name: "config"}},
				Action: func(_ context.Context, c *cli.Command) error { got = c.String("config"); return nil },
			}, schema.Meta{Danger: schema.Safe, Flags: map[string]schema.FlagMeta{"config": {JSON: true}}})}}
			var stdout bytes.Buffer
			code := urfave.Run(context.Background(), app, []string{"deploy", "--config", tt.value}, adapters.WithSpecStrict(),
				adapters.WithStdio(strings.NewReader(""), &stdout, new(bytes.Buffer)), adapters.WithFeatures(tt.features...))
			var answer struct {
				Error *struct {
					Code           string `json:"code"`
					CorrectedInput string `json:"corrected_input"`
				} `json:"error"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &answer); err != nil {
				t.Fatalf("no envelope: %v\n%s", err, stdout.String())
			}
			if code != tt.code || got != tt.got {
				t.Errorf("exit %d, the command received %q; want %d and %q (%s)", code, got, tt.code, tt.got, stdout.String())
			}
			if tt.code == 2 && (answer.Error == nil || answer.Error.Code != "INVALID_JSON" || answer.Error.CorrectedInput != tt.corrected) {
				t.Errorf("error %+v, want INVALID_JSON with corrected_input %q", answer.Error, tt.corrected)
			}
		})
	}
}

// TestRawPayload: --raw-payload takes JSON5 with the feature, and its help
// says so; the core takes strict JSON, refuses JSON5 with INVALID_JSON and
// no corrected input, and its help does not promise JSON5.
func TestRawPayload(t *testing.T) {
	for _, tt := range []struct {
		name     string
		features []adapters.Feature
		code     int
		got      string
		usage    string
	}{
		{"core", nil, 2, "", "every input as one JSON object instead of flags"},
		{"feature", []adapters.Feature{json5.New()}, 0, "prod", "every input as one JSON object (JSON5 accepted) instead of flags"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			app := &cli.Command{Name: "app", Commands: []*cli.Command{urfave.Annotate(&cli.Command{
				Name: "deploy", Flags: []cli.Flag{&cli.StringFlag{Name: "env"}},
				Action: func(_ context.Context, c *cli.Command) error { got = c.String("env"); return nil },
			}, schema.Meta{Danger: schema.Safe, RawPayload: true})}}
			run := func(args ...string) (int, string) {
				var stdout bytes.Buffer
				code := urfave.Run(context.Background(), app, args, adapters.WithSpecStrict(),
					adapters.WithStdio(strings.NewReader(""), &stdout, new(bytes.Buffer)), adapters.WithFeatures(tt.features...))
				return code, stdout.String()
			}
			code, out := run("deploy", "--raw-payload", `{env: 'prod',}`)
			if code != tt.code || got != tt.got {
				t.Errorf("--raw-payload in JSON5: exit %d, the command got %q; want %d and %q\n%s", code, got, tt.code, tt.got, out)
			}
			if tt.code == 2 && (!strings.Contains(out, `"INVALID_JSON"`) || strings.Contains(out, "corrected_input")) {
				t.Errorf("the core's refusal: %s; want INVALID_JSON without corrected_input", out)
			}
			if _, schema := run("deploy", "--schema"); !strings.Contains(schema, tt.usage) {
				t.Errorf("--schema does not say %q:\n%s", tt.usage, schema)
			}
		})
	}
}
