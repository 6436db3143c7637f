// Command e2eapp-stores is the second tool of Duet's end-to-end fixture:
// a small package tool (see app.Stores) whose commands cache, log, leave
// scratch files, write a product and need programs installed, so that the
// tests in internal/e2eapp/e2e can drive Duet's built-in status, doctor and
// cleanup on a built binary. (e2eapp has a status command of its own.)
package main

import (
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/internal/e2eapp/app"
)

func main() { urfave.Main(app.Stores(), app.StoresOptions()...) }
