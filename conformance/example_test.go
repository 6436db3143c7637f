//go:build unix

package conformance_test

import (
	"context"
	"fmt"

	"github.com/duet-cli/duet/conformance"
)

// Any binary can be checked: /bin/false answers nothing, not even --help,
// so nothing is discovered; help and version fail, and since no failure of
// it names a made-up word, what it does with bad input is not judged.
func ExampleCheck() {
	r, err := conformance.Check(context.Background(), conformance.Target{Path: "/bin/false"}, conformance.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.OK(), r.Discovery, r.Failed()[:3])
	// Output: false none [F-048 F-068 O-041]
}
