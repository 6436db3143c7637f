package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// deployV2 is version 2 of deploy's data; version 1 called deployed_url
// url.
type deployV2 struct {
	DeployedURL string `json:"deployed_url"`
	Status      string `json:"status"`
}

// newVersionedApp is an app whose deploy command is at version 2 of its
// data and still answers in version 1, whose broken command is at version
// 2 and fails, and whose show command declares no version.
func newVersionedApp() *cli.Command {
	deploy := &cli.Command{Name: "deploy", Usage: "Deploy", Action: func(ctx context.Context, _ *cli.Command) error {
		return envelope.From(ctx).Result(deployV2{DeployedURL: "https://x.example", Status: "complete"})
	}}
	urfave.Annotate(deploy, schema.Meta{Danger: schema.Safe, Output: schema.Of[deployV2](), SchemaVersion: 2, MinSchemaVersion: 1,
		Compat: func(version int, data any) (any, error) {
			d, ok := data.(deployV2)
			if !ok || version != 1 {
				return nil, errors.New("no such version")
			}
			return map[string]string{"url": d.DeployedURL, "status": d.Status}, nil
		}})
	broken := &cli.Command{Name: "broken", Usage: "Fail", Action: func(context.Context, *cli.Command) error {
		return errors.New("it broke")
	}}
	urfave.Annotate(broken, schema.Meta{Danger: schema.Safe, SchemaVersion: 2})
	show := &cli.Command{Name: "show", Usage: "Show", Action: func(ctx context.Context, _ *cli.Command) error {
		return envelope.From(ctx).Result(item{ID: "i1", Name: "alpha"})
	}}
	urfave.Annotate(show, schema.Meta{Danger: schema.Safe, Output: schema.Of[item]()})
	return &cli.Command{Name: "vapp", Usage: "a versioned app", Commands: []*cli.Command{deploy, broken, show}}
}

func (r run) versioned(t *testing.T, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := urfave.Run(context.Background(), newVersionedApp(), args, r.options(&stdout, &stderr)...)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// TestSchemaVersionInMeta holds meta.schema_version to F-022: every answer
// has one, a MAJOR.MINOR version string; it is the version of the
// command's data contract — "2.0" for a command at version 2 of its data,
// failures included, "1.0" for one that declares none — and the same on
// every invocation of the same command.
func TestSchemaVersionInMeta(t *testing.T) {
	version := regexp.MustCompile(`^[0-9]+\.[0-9]+$`)
	tests := []struct {
		args []string
		exit int
		want string
	}{
		{[]string{"deploy"}, 0, "2.0"},
		{[]string{"broken"}, 1, "2.0"},
		{[]string{"deploy", "--no-such-flag"}, 2, "2.0"},
		{[]string{"show"}, 0, "1.0"},
		{[]string{"nope"}, 2, "1.0"},
		{[]string{"deploy", "--schema-version", "1"}, 0, "1.0"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var first string
			for i := range 2 {
				r := run{}.versioned(t, tt.args...)
				w := envelopeOf(t, r)
				if r.code != tt.exit {
					t.Errorf("exit %d, want %d\nstdout: %s", r.code, tt.exit, r.stdout)
				}
				got, _ := w.Meta["schema_version"].(string)
				if !version.MatchString(got) || got != tt.want {
					t.Errorf("meta.schema_version %q, want %q", got, tt.want)
				}
				if i == 1 && got != first {
					t.Errorf("meta.schema_version changed between invocations: %q then %q", first, got)
				}
				first = got
			}
		})
	}
}

// TestSchemaVersionPin holds --schema-version to O-014: a pin to version 1
// of a version 2 command answers in version 1's shape with
// meta.schema_version "1.0" and a SCHEMA_DEPRECATED warning; a version
// below the minimum (or above the current) is a structured validation
// error naming the versions there are; --schema gives the current and the
// minimum version.
func TestSchemaVersionPin(t *testing.T) {
	tests := []struct {
		version  string
		data     string
		meta     string
		warnings int
	}{
		{"1", `{"status":"complete","url":"https://x.example"}`, "1.0", 1},
		{"2", `{"deployed_url":"https://x.example","status":"complete"}`, "2.0", 0},
	}
	for _, tt := range tests {
		w := wantOK(t, run{}.versioned(t, "deploy", "--schema-version", tt.version))
		var got, want any
		if err := json.Unmarshal(w.Data, &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(tt.data), &want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("--schema-version %s: data (-want +got):\n%s", tt.version, diff)
		}
		if w.Meta["schema_version"] != tt.meta {
			t.Errorf("--schema-version %s: meta.schema_version %v, want %s", tt.version, w.Meta["schema_version"], tt.meta)
		}
		if len(w.Warnings) != tt.warnings || tt.warnings > 0 && w.Warnings[0].Code != "SCHEMA_DEPRECATED" {
			t.Errorf("--schema-version %s: warnings %q, want %d SCHEMA_DEPRECATED", tt.version, w.Warnings, tt.warnings)
		}
	}
	for _, v := range []string{"0", "3"} {
		r := run{}.versioned(t, "deploy", "--schema-version", v)
		w := envelopeOf(t, r)
		if r.code != 2 || w.Error == nil {
			t.Fatalf("--schema-version %s: exit %d, error %+v; want exit 2\n%s", v, r.code, w.Error, r.stdout)
		}
		var found *envelope.FieldError
		for i, e := range w.Error.Errors {
			if e.Code == "SCHEMA_VERSION_UNSUPPORTED" {
				found = &w.Error.Errors[i]
			}
		}
		if w.Error.Code == "SCHEMA_VERSION_UNSUPPORTED" && found == nil {
			found = &envelope.FieldError{Code: w.Error.Code, Field: w.Error.Field, ValidValues: w.Error.ValidValues}
		}
		if found == nil {
			t.Fatalf("--schema-version %s: no SCHEMA_VERSION_UNSUPPORTED in %s", v, r.stdout)
		}
		if diff := cmp.Diff([]string{"1", "2"}, found.ValidValues); diff != "" || found.Field != "schema-version" {
			t.Errorf("--schema-version %s: field %q, valid_values (-want +got):\n%s", v, found.Field, diff)
		}
	}
	w := wantOK(t, run{}.versioned(t, "deploy", "--schema"))
	var doc struct {
		SchemaVersion    string `json:"schema_version"`
		MinSchemaVersion string `json:"min_schema_version"`
	}
	if err := json.Unmarshal(w.Data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.SchemaVersion != "2.0" || doc.MinSchemaVersion != "1.0" {
		t.Errorf("--schema: schema_version %q min_schema_version %q, want 2.0 and 1.0", doc.SchemaVersion, doc.MinSchemaVersion)
	}
}
