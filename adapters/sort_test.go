package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

type sortUser struct {
	ID     string   `json:"id"`
	Age    int      `json:"age"`
	Tags   []string `json:"tags"`
	Scores []int    `json:"scores"`
}

// unsortedUsers are out of order at every level; by encoding ({"age":…
// first) b would come before a, by id a comes first.
func unsortedUsers() []sortUser {
	return []sortUser{
		{ID: "c", Age: 3, Tags: []string{"gamma", "alpha", "beta"}, Scores: []int{10, 9, 100}},
		{ID: "b", Age: 1, Tags: []string{"b", "a"}, Scores: []int{}},
		{ID: "a", Age: 2, Tags: []string{}, Scores: []int{2, 1}},
	}
}

// sortApp answers the same unsorted users from a command that declares the
// sort key id (users) and from one that declares none (ranked).
func sortApp() *cli.Command {
	answer := func(ctx context.Context, _ *cli.Command) error { return envelope.From(ctx).Result(unsortedUsers()) }
	return &cli.Command{Name: "app", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "users", Action: answer}, schema.Meta{Danger: schema.Safe, SortKey: "id"}),
		urfave.Annotate(&cli.Command{Name: "ranked", Action: answer}, schema.Meta{Danger: schema.Safe}),
	}}
}

// TestStableArrays: a command that declares its primary key (SortKey)
// always answers its list sorted by it and every string (and number) array
// sorted, so two calls give the same bytes but for meta's volatile members
// (REQ-F-020); one that declares none keeps its order — it may be a
// ranking — unless the caller passes --stable-output, which sorts every
// array, keeps a declared key's order, and leaves out request_id and
// timestamp, so two calls give the same bytes (REQ-O-007).
func TestStableArrays(t *testing.T) {
	runApp := func(opts []urfave.Option, args ...string) result {
		var stdout, stderr bytes.Buffer
		code := urfave.Run(context.Background(), sortApp(), args, append(run{}.options(&stdout, &stderr), opts...)...)
		return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
	}
	sorted := `[{"age":2,"id":"a","scores":[1,2],"tags":[]},{"age":1,"id":"b","scores":[],"tags":["a","b"]},{"age":3,"id":"c","scores":[9,10,100],"tags":["alpha","beta","gamma"]}]`
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"users"}, sorted},
		{[]string{"users", "--stable-output"}, sorted},
		{[]string{"ranked"}, `[{"id":"c","age":3,"tags":["gamma","alpha","beta"],"scores":[10,9,100]},{"id":"b","age":1,"tags":["b","a"],"scores":[]},{"id":"a","age":2,"tags":[],"scores":[2,1]}]`},
		{[]string{"ranked", "--stable-output"}, `[{"age":1,"id":"b","scores":[],"tags":["a","b"]},{"age":2,"id":"a","scores":[1,2],"tags":[]},{"age":3,"id":"c","scores":[9,10,100],"tags":["alpha","beta","gamma"]}]`},
	}
	for _, tt := range tests {
		w := wantOK(t, runApp(nil, tt.args...))
		if diff := cmp.Diff(tt.want, string(w.Data)); diff != "" {
			t.Errorf("%v: data (-want +got):\n%s", tt.args, diff)
		}
	}

	// Two calls whose request ids, clocks and durations differ.
	calls := 0
	differ := func() []urfave.Option {
		calls++
		n := calls
		return []urfave.Option{adapters.WithRequestID(func() string { return "req-" + string(rune('0'+n)) })}
	}
	t.Run("users twice: the same but for volatile meta", func(t *testing.T) {
		a, b := runApp(differ(), "users"), runApp(differ(), "users")
		strip := func(r result) map[string]any {
			var env map[string]any
			if err := json.Unmarshal([]byte(r.stdout), &env); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"request_id", "timestamp", "duration_ms"} {
				delete(env["meta"].(map[string]any), k)
			}
			return env
		}
		if a.stdout == b.stdout {
			t.Fatal("the two calls' request ids did not differ: the test proves nothing")
		}
		if diff := cmp.Diff(strip(a), strip(b)); diff != "" {
			t.Errorf("two calls (-first +second):\n%s", diff)
		}
	})
	t.Run("--stable-output twice: the same bytes", func(t *testing.T) {
		a, b := runApp(differ(), "ranked", "--stable-output"), runApp(differ(), "ranked", "--stable-output")
		if a.stdout != b.stdout {
			t.Errorf("two calls differ:\n%s%s", a.stdout, b.stdout)
		}
		w := wantOK(t, a)
		for _, k := range []string{"request_id", "timestamp"} {
			if _, ok := w.Meta[k]; ok {
				t.Errorf("meta.%s present under --stable-output", k)
			}
		}
	})
}
