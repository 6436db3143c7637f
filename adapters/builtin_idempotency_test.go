package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/feature/idempotency"
	"github.com/duet-cli/duet/feature/skills"
	"github.com/duet-cli/duet/internal/jobstore"
	"github.com/duet-cli/duet/schema"
)

// builtinsApp gets every mutating built-in: profile (a profileable flag),
// cleanup (WithCleanupCommand), job (an async command) and
// generate-skills.
func builtinsApp() *cli.Command {
	call := urfave.Annotate(&cli.Command{Name: "call", Flags: []cli.Flag{&cli.StringFlag{Name: "region"}},
		Action: func(context.Context, *cli.Command) error { return nil }},
		schema.Meta{Danger: schema.Safe, Flags: map[string]schema.FlagMeta{"region": {Profile: true}}})
	later := urfave.Annotate(&cli.Command{Name: "later", Action: func(context.Context, *cli.Command) error { return nil }},
		schema.Meta{Danger: schema.Safe, Async: true})
	return &cli.Command{Name: "app", Commands: []*cli.Command{call, later}}
}

// TestBuiltinsTakeIdempotencyKey: Duet's own mutating and destructive
// built-ins take --idempotency-key as every non-streaming mutating command
// must (REQ-C-007), and honour it: the same key again answers the first
// call's data with effect noop and meta.idempotency_hit, without acting
// again; the same key with other input (a built-in's own flags and
// arguments are its input) is IDEMPOTENCY_KEY_REUSED.
func TestBuiltinsTakeIdempotencyKey(t *testing.T) {
	home := t.TempDir()
	skillsDir := filepath.Join(home, "skills")
	r := run{env: []string{"HOME=" + home, "TMPDIR=" + filepath.Join(home, "tmp")}, opts: []urfave.Option{adapters.WithCleanupCommand(), adapters.WithFeatures(idempotency.New(), skills.New())}}
	runApp := func(args ...string) result {
		var stdout, stderr bytes.Buffer
		code := urfave.Run(context.Background(), builtinsApp(), args, r.options(&stdout, &stderr)...)
		return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
	}
	if err := os.MkdirAll(filepath.Join(home, "tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	endedJobs := func(t *testing.T) { // cleanup removes ended jobs: made anew
		jobs := &jobstore.Store{Dir: filepath.Join(home, ".local", "state", "app", "jobs")}
		now := time.Now().UTC()
		zero := 0
		for _, id := range []string{"later-1", "later-2"} {
			if err := jobs.Save(jobstore.Job{ID: id, Command: "later", Created: now, Status: jobstore.Complete, Finished: &now, ExitCode: &zero}); err != nil {
				t.Fatal(err)
			}
		}
	}
	twoProfiles := func(t *testing.T) {
		wantOK(t, runApp("profile", "save", "prod", "--region", "eu"))
		wantOK(t, runApp("profile", "save", "dev", "--region", "us"))
	}
	profiles := func() []string {
		w := wantOK(t, runApp("profile", "list"))
		var names []string
		var data any
		json.Unmarshal(w.Data, &data)
		raw, _ := json.Marshal(data)
		for _, n := range []string{"dev", "prod"} {
			if strings.Contains(string(raw), `"`+n+`"`) {
				names = append(names, n)
			}
		}
		return names
	}

	tests := []struct {
		name    string
		setup   func(t *testing.T)
		args    []string
		between func(t *testing.T) // undoes the first call's effect, which the replay must not redo
		after   func(t *testing.T) // checks the replay did not act
		other   []string           // the same key with other input
	}{
		{"profile save", nil, []string{"profile", "save", "dev", "--region", "eu"},
			func(t *testing.T) { wantOK(t, runApp("profile", "delete", "dev", "--yes")) },
			func(t *testing.T) {
				if got := profiles(); len(got) != 0 {
					t.Errorf("profiles after the replay %q, want none: the save ran again", got)
				}
			},
			[]string{"profile", "save", "dev", "--region", "us"}},
		{"profile use", twoProfiles, []string{"profile", "use", "prod"}, nil, nil, []string{"profile", "use", "dev"}},
		{"profile delete", twoProfiles, []string{"profile", "delete", "prod", "--yes"}, nil, nil, []string{"profile", "delete", "dev", "--yes"}},
		{"cleanup", nil, []string{"cleanup", "--yes"}, nil, nil, []string{"cleanup", "--scope", "temp", "--yes"}},
		{"generate-skills", nil, []string{"generate-skills", "--output-dir", skillsDir},
			func(t *testing.T) {
				if err := os.RemoveAll(skillsDir); err != nil {
					t.Fatal(err)
				}
			},
			func(t *testing.T) {
				if _, err := os.Stat(skillsDir); !os.IsNotExist(err) {
					t.Errorf("the replay wrote the skills again (stat: %v)", err)
				}
			},
			[]string{"generate-skills", "--output-dir", skillsDir, "--skill-format", "json"}},
		{"job cancel", endedJobs, []string{"job", "cancel", "later-1"}, nil, nil, []string{"job", "cancel", "later-2"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != nil {
				tt.setup(t)
			}
			key := "key-" + string(rune('a'+i))
			first := wantOK(t, runApp(append(tt.args, "--idempotency-key", key)...))
			if first.Meta["idempotency_hit"] != nil {
				t.Errorf("the first call is a hit: %v", first.Meta)
			}
			if tt.between != nil {
				tt.between(t)
			}
			second := wantOK(t, runApp(append(tt.args, "--idempotency-key", key)...))
			if second.Meta["idempotency_hit"] != true || second.Meta["effect"] != string(envelope.Noop) {
				t.Errorf("the repeat: meta.idempotency_hit %v, meta.effect %v; want true and noop", second.Meta["idempotency_hit"], second.Meta["effect"])
			}
			if diff := cmp.Diff(string(first.Data), string(second.Data)); diff != "" {
				t.Errorf("the repeat's data differs from the first's (-first +repeat):\n%s", diff)
			}
			if tt.after != nil {
				tt.after(t)
			}
			wantError(t, runApp(append(tt.other, "--idempotency-key", key)...), 6, "IDEMPOTENCY_KEY_REUSED")
		})
	}
}
