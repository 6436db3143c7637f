package e2e

// The binaries are built as the tests run; importing what they are built
// from makes go test's cache miss whenever it changes.
import (
	_ "github.com/duet-cli/duet/internal/e2eapp/app"
	_ "github.com/duet-cli/duet/lint"
)
