package toon_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/feature/toon"
	"github.com/duet-cli/duet/schema"
)

type item struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

func app() *cli.Command {
	return &cli.Command{Name: "notes", Commands: []*cli.Command{urfave.Annotate(&cli.Command{Name: "list",
		Action: func(ctx context.Context, _ *cli.Command) error {
			return envelope.From(ctx).Result([]item{{"n1", "milk"}, {"n2", "eggs"}})
		}}, schema.Meta{Danger: schema.Safe, List: true})}}
}

func run(args []string, env []string, features ...adapters.Feature) (int, string) {
	var stdout bytes.Buffer
	code := urfave.Run(context.Background(), app(), args, adapters.WithSpecStrict(), adapters.WithStdio(strings.NewReader(""), &stdout, new(bytes.Buffer)),
		adapters.WithEnv(env), adapters.WithFeatures(features...))
	return code, stdout.String()
}

// TestFeature: --format toon and NOTES_FORMAT=toon with the feature; the
// core refuses both as a format it does not have.
func TestFeature(t *testing.T) {
	for _, tt := range []struct {
		name     string
		args     []string
		env      []string
		features []adapters.Feature
		code     int
		says     string
	}{
		{"flag", []string{"list", "--format", "toon"}, nil, []adapters.Feature{toon.New()}, 0, "data[2]{id,title}:"},
		{"environment", []string{"list"}, []string{"NOTES_FORMAT=toon"}, []adapters.Feature{toon.New()}, 0, "data[2]{id,title}:"},
		{"core, flag", []string{"list", "--format", "toon"}, nil, nil, 2, `"INVALID_ENUM_VALUE"`},
		{"core, environment", []string{"list"}, []string{"NOTES_FORMAT=toon"}, nil, 2, `"INVALID_ENUM_VALUE"`},
		// --output names a file: a format's name there is a mistake, and
		// the fix offered is one the tool has.
		{"--output toon", []string{"list", "--output", "toon"}, nil, []adapters.Feature{toon.New()}, 2, "use --format toon to choose the format"},
		{"core, --output toon", []string{"list", "--output", "toon"}, nil, nil, 2, "choose the format with --format, one of json, jsonl, tsv, text, id, plain"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out := run(tt.args, tt.env, tt.features...)
			if code != tt.code || !strings.Contains(out, tt.says) {
				t.Errorf("exit %d, stdout:\n%s\nwant %d and %s", code, out, tt.code, tt.says)
			}
		})
	}
}

func Example() {
	_, out := run([]string{"list", "--format", "toon", "--stable-output"}, nil, toon.New())
	fmt.Print(out[:strings.Index(out, "error:")])
	// Output:
	// ok: true
	// data[2]{id,title}:
	//   n1,milk
	//   n2,eggs
}
