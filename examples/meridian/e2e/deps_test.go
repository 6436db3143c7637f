package e2e

// The binaries are built as the tests run; importing what they are built
// from makes go test's cache miss whenever it changes.
import (
	_ "github.com/duet-cli/duet/adapters/mcp"
	_ "github.com/duet-cli/duet/examples/meridian/internal/commands"
)
