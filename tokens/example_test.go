package tokens_test

import (
	"fmt"

	"github.com/duet-cli/duet/tokens"
)

func ExampleEstimate() {
	answer := `{"id":"t1","title":"renew the certificate","done":false}`
	fmt.Println(tokens.Estimate.Count(answer))
	fmt.Println(tokens.Estimate.Cut(answer, 6))
	// Output:
	// 17
	// {"id":"t1","
}
