package envelopetest_test

import (
	"context"
	"fmt"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/envelope/envelopetest"
)

// archive is domain code: it answers through the invocation's Output.
func archive(ctx context.Context, id string) error {
	out := envelope.From(ctx)
	if id == "" {
		return envelope.Validationf("MISSING_ID", "no note to archive").WithSuggestion("give a note's id")
	}
	out.Effect(envelope.Updated)
	out.Warn("STALE_INDEX", "the search index is a day old", "run 'notes reindex'")
	return out.Result(map[string]string{"id": id, "state": "archived"})
}

func Example() {
	rec := envelopetest.NewRecorder()
	env, err := rec.Envelope(archive(rec.Context(context.Background()), "n1"))
	if err != nil {
		panic(err)
	}
	fmt.Println(env.OK, string(env.Data), env.Meta.Effect)
	fmt.Println(env.Warnings[0])

	rec = envelopetest.NewRecorder()
	env, _ = rec.Envelope(archive(rec.Context(context.Background()), ""))
	fmt.Println(env.OK, env.Error.Code, env.Error.Suggestion)
	// Output:
	// true {"id":"n1","state":"archived"} updated
	// WARNING [STALE_INDEX]: the search index is a day old. Next: run 'notes reindex'
	// false MISSING_ID give a note's id
}
