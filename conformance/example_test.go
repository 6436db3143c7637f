//go:build unix

package conformance_test

import (
	"context"
	"fmt"

	"github.com/duet-cli/duet/conformance"
)

// Any binary can be checked: /bin/false answers nothing, not even --help,
// so nothing is discovered and most requirements fail or cannot be judged.
func ExampleCheck() {
	r, err := conformance.Check(context.Background(), conformance.Target{Path: "/bin/false"}, conformance.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.OK(), r.Discovery, r.Failed()[:3])
	// Output: false none [F-002 F-004 F-015]
}
