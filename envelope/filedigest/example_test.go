package filedigest_test

import (
	"fmt"

	"github.com/duet-cli/duet/envelope/filedigest"
)

func ExampleSHA256() {
	// What adapters.WithOutputDigest(filedigest.SHA256) gives a binary
	// result's --output file as data.sha256.
	fmt.Println(filedigest.SHA256([]byte("hello\n")))
	// Output: 5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03
}
