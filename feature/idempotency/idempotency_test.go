package idempotency_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/feature/idempotency"
	"github.com/duet-cli/duet/schema"
)

// notes is a tool with one mutating command, add, which counts its runs
// and answers the name it was given; fail, which always fails; and sync, a
// mutating stream.
func notes(ran map[string]int) *cli.Command {
	add := func(ctx context.Context, c *cli.Command) error {
		ran["add"]++
		out := envelope.From(ctx)
		out.Effect(envelope.Created)
		return out.Result(map[string]any{"name": c.Args().First(), "run": ran["add"]})
	}
	fail := func(context.Context, *cli.Command) error {
		ran["fail"]++
		return errors.New("the disk is full")
	}
	sync := func(ctx context.Context, _ *cli.Command) error {
		return envelope.From(ctx).Item(map[string]string{"id": "a", "effect": "created"})
	}
	return &cli.Command{Name: "notes", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "add", Action: add}, schema.Meta{Danger: schema.Mutating}),
		urfave.Annotate(&cli.Command{Name: "fail", Action: fail}, schema.Meta{Danger: schema.Mutating}),
		urfave.Annotate(&cli.Command{Name: "sync", Action: sync}, schema.Meta{Danger: schema.Mutating, Streaming: true}),
	}}
}

type answer struct {
	Code  int
	OK    bool
	Data  json.RawMessage
	Error *struct{ Code, Field string }
	Meta  map[string]any
}

// run runs notes once as an agent sees it, its state under home.
func run(t *testing.T, ran map[string]int, home string, features []adapters.Feature, args ...string) answer {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := urfave.Run(context.Background(), notes(ran), args,
		adapters.WithSpecStrict(), // a pipe is an agent
		adapters.WithStdio(strings.NewReader(""), &stdout, &stderr),
		adapters.WithEnv([]string{"HOME=" + home, "NOTES_STATE_DIR=" + filepath.Join(home, "state")}),
		adapters.WithCleanupCommand(),
		adapters.WithFeatures(features...))
	a := answer{Code: code}
	if err := json.Unmarshal(stdout.Bytes(), &a); err != nil {
		t.Fatalf("notes %s: stdout is no envelope: %v\n%s\nstderr: %s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return a
}

func errCode(a answer) string {
	if a.Error == nil {
		return ""
	}
	return a.Error.Code
}

func TestReplay(t *testing.T) {
	ran, home := map[string]int{}, t.TempDir()
	on := []adapters.Feature{idempotency.New()}
	first := run(t, ran, home, on, "add", "milk", "--idempotency-key", "k1")
	again := run(t, ran, home, on, "add", "milk", "--idempotency-key", "k1")
	if first.Code != 0 || again.Code != 0 {
		t.Fatalf("exit codes %d, %d; want 0, 0 (%v, %v)", first.Code, again.Code, errCode(first), errCode(again))
	}
	if diff := cmp.Diff(string(first.Data), string(again.Data)); diff != "" {
		t.Errorf("the replay's data differs from the first call's (-first +replay):\n%s", diff)
	}
	got := []any{ran["add"], first.Meta["effect"], again.Meta["effect"], first.Meta["idempotency_hit"], again.Meta["idempotency_hit"]}
	if diff := cmp.Diff([]any{1, "created", "noop", nil, true}, got); diff != "" {
		t.Errorf("runs, effects and hits (-want +got):\n%s", diff)
	}

	other := run(t, ran, home, on, "add", "eggs", "--idempotency-key", "k1")
	if other.Code != 6 || errCode(other) != "IDEMPOTENCY_KEY_REUSED" || other.Error.Field != "idempotency-key" || ran["add"] != 1 {
		t.Errorf("the key with other input: exit %d %s (%+v), %d runs; want 6 IDEMPOTENCY_KEY_REUSED on idempotency-key and nothing run", other.Code, errCode(other), other.Error, ran["add"])
	}
	if fresh := run(t, ran, home, on, "add", "eggs", "--idempotency-key", "k2"); fresh.Code != 0 || ran["add"] != 2 {
		t.Errorf("a new key: exit %d, %d runs; want 0 and the command run", fresh.Code, ran["add"])
	}
	if plain := run(t, ran, home, on, "add", "eggs"); plain.Code != 0 || ran["add"] != 3 {
		t.Errorf("no key: exit %d, %d runs; want 0 and the command run again", plain.Code, ran["add"])
	}
}

func TestFailureIsNotRecorded(t *testing.T) {
	ran, home := map[string]int{}, t.TempDir()
	on := []adapters.Feature{idempotency.New()}
	for range 2 {
		if a := run(t, ran, home, on, "fail", "--idempotency-key", "k"); a.Code == 0 {
			t.Fatalf("fail answered 0")
		}
	}
	if ran["fail"] != 2 {
		t.Errorf("a failed call repeated with its key ran %d times, want 2: a failure is not replayed", ran["fail"])
	}
}

// TestCore holds the core to what it gives without the feature: no
// --idempotency-key, and nothing kept.
func TestCore(t *testing.T) {
	ran, home := map[string]int{}, t.TempDir()
	a := run(t, ran, home, nil, "add", "milk", "--idempotency-key", "k1")
	if a.Code != 2 || errCode(a) != "UNKNOWN_FLAG" || ran["add"] != 0 {
		t.Errorf("without the feature: exit %d %s, %d runs; want 2 UNKNOWN_FLAG and nothing run", a.Code, errCode(a), ran["add"])
	}
	// A store made with the feature is the feature's: the core's status
	// does not know it.
	run(t, ran, home, []adapters.Feature{idempotency.New()}, "add", "milk", "--idempotency-key", "k1")
	if _, err := os.Stat(filepath.Join(home, "state", "idempotency")); err != nil {
		t.Fatalf("the feature made no store: %v", err)
	}
	if st := run(t, ran, home, nil, "status"); st.Code != 0 || strings.Contains(string(st.Data), "idempotency") {
		t.Errorf("status without the feature: exit %d, data %s; want 0 and no idempotency store", st.Code, st.Data)
	}
}

func TestStreamsTakeNoKey(t *testing.T) {
	ran := map[string]int{}
	if a := run(t, ran, t.TempDir(), []adapters.Feature{idempotency.New()}, "sync", "--idempotency-key", "k"); a.Code != 2 || errCode(a) != "UNKNOWN_FLAG" {
		t.Errorf("a stream given a key: exit %d %s; want 2 UNKNOWN_FLAG", a.Code, errCode(a))
	}
	if _, err := urfave.Wrap(notes(ran), adapters.WithFeatures(idempotency.New())); err != nil {
		t.Fatalf("a streaming mutating command without the flag: %v", err)
	}
	declares := notes(ran)
	declares.Commands[2].Flags = []cli.Flag{&cli.StringFlag{Name: "idempotency-key"}}
	_, err := urfave.Wrap(declares, adapters.WithFeatures(idempotency.New()))
	if err == nil || !strings.Contains(err.Error(), `command "sync"`) || !strings.Contains(err.Error(), "--idempotency-key") {
		t.Errorf("Wrap of a stream declaring --idempotency-key = %v, want an error naming the command and the flag", err)
	}
}

// TestStatusAndCleanup: status lists the store, and cleanup --scope cache
// removes what calls recorded.
func TestStatusAndCleanup(t *testing.T) {
	ran, home := map[string]int{}, t.TempDir()
	on := []adapters.Feature{idempotency.New()}
	run(t, ran, home, on, "add", "milk", "--idempotency-key", "k1")
	store := filepath.Join(home, "state", "idempotency")

	st := run(t, ran, home, on, "status")
	var status struct {
		StateFiles []struct {
			Path    string
			Summary map[string]int
		} `json:"state_files"`
	}
	if err := json.Unmarshal(st.Data, &status); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range status.StateFiles {
		if f.Path == store {
			found = true
			if diff := cmp.Diff(map[string]int{"keys": 1, "expired": 0, "in_use": 0}, f.Summary); diff != "" {
				t.Errorf("status's summary of the store (-want +got):\n%s", diff)
			}
		}
	}
	if !found {
		t.Errorf("status lists no %s:\n%s", store, st.Data)
	}

	if a := run(t, ran, home, on, "cleanup", "--scope", "cache", "--yes"); a.Code != 0 || !strings.Contains(string(a.Data), store) {
		t.Errorf("cleanup --scope cache: exit %d, data %s; want the store's record removed", a.Code, a.Data)
	}
	if again := run(t, ran, home, on, "add", "milk", "--idempotency-key", "k1"); again.Meta["idempotency_hit"] == true || ran["add"] != 2 {
		t.Errorf("after cleanup the key was replayed (%d runs)", ran["add"])
	}
}

func Example() {
	ran := map[string]int{}
	home, _ := os.MkdirTemp("", "notes")
	defer os.RemoveAll(home)
	for range 2 {
		var stdout bytes.Buffer
		urfave.Run(context.Background(), notes(ran), []string{"add", "milk", "--idempotency-key", "k1"},
			adapters.WithSpecStrict(), adapters.WithStdio(strings.NewReader(""), &stdout, new(bytes.Buffer)),
			adapters.WithEnv([]string{"NOTES_STATE_DIR=" + home}),
			adapters.WithFeatures(idempotency.New()))
		var a answer
		json.Unmarshal(stdout.Bytes(), &a)
		fmt.Printf("effect %v, data %s\n", a.Meta["effect"], a.Data)
	}
	fmt.Println("add ran", ran["add"], "time")
	// Output:
	// effect created, data {"name":"milk","run":1}
	// effect noop, data {"name":"milk","run":1}
	// add ran 1 time
}
