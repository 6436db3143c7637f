package conformance_test

// The examples and fixtures are built as the tests run; importing the Duet
// they are built on makes go test's cache miss whenever it changes (the
// examples' own packages are internal to them).
import (
	_ "github.com/duet-cli/duet/adapters/cobra"
	_ "github.com/duet-cli/duet/adapters/urfave"
)
