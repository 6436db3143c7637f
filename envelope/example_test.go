package envelope_test

import (
	"context"
	"fmt"
	"os"

	"github.com/duet-cli/duet/envelope"
)

type task struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Done  bool   `json:"done"`
}

// A handler records its result on the Output it finds in its context; the
// lifecycle then writes one envelope. Here the lifecycle's part is played by
// New, NewContext and Finish.
func ExampleFrom() {
	list := func(ctx context.Context) error {
		out := envelope.From(ctx)
		out.Warn("STALE_INDEX", "the index is a day old", "run 'todo reindex'")
		return out.Result([]task{{ID: "t1", Title: "write tests"}, {ID: "t2", Title: "ship", Done: true}})
	}

	out := envelope.New(&envelope.Settings{
		Mode:   envelope.Mode{Agent: true, Format: envelope.JSON},
		Stdout: os.Stdout,
	})
	ctx := envelope.NewContext(context.Background(), out)
	if err := list(ctx); err != nil {
		fmt.Println(err)
	}
	out.Finish(envelope.Meta{SchemaVersion: envelope.SchemaVersion, ToolVersion: "1.0.0", Command: "list", RequestID: "req-1"}, nil)
	// Output:
	// {"ok":true,"data":[{"id":"t1","title":"write tests","done":false},{"id":"t2","title":"ship","done":true}],"error":null,"warnings":[{"code":"STALE_INDEX","message":"the index is a day old. Next: run 'todo reindex'"}],"meta":{"exit_code":0,"duration_ms":0,"schema_version":"1.0","tool_version":"1.0.0","command":"list","request_id":"req-1","config_sources":[]}}
}

// Outside an invocation, such as a unit test calling a handler directly, From
// still returns an Output: it records the result and writes nothing.
func ExampleOutput_Result() {
	show := func(ctx context.Context) error {
		return envelope.From(ctx).Result(task{ID: "t1", Title: "write tests"})
	}
	ctx := context.Background()
	if err := show(ctx); err != nil {
		fmt.Println(err)
	}
	out := envelope.From(ctx)
	_, recorded := out.Recorded()
	fmt.Println("a fresh Output each call:", !recorded)

	out = envelope.New(&envelope.Settings{Mode: envelope.Mode{Format: envelope.Text}, Stdout: os.Stdout})
	show(envelope.NewContext(ctx, out))
	out.Finish(envelope.Meta{}, nil)
	// Output:
	// a fresh Output each call: true
	// id:    t1
	// title: write tests
	// done:  false
}
