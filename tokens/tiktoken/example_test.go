package tiktoken_test

import (
	"fmt"

	"github.com/duet-cli/duet/tokens/tiktoken"
)

// The exact counts of OpenAI's encodings, and a prefix within a budget.
func ExampleO200k() {
	o200k := tiktoken.O200k()
	answer := `{"ok":true,"data":[{"id":"r1","status":"done"}]}`
	fmt.Println(o200k.Count(answer), tiktoken.Cl100k().Count(answer))
	fmt.Printf("%q\n", o200k.Cut(answer, 5))
	// Output:
	// 18 17
	// "{\"ok\":true,\""
}
