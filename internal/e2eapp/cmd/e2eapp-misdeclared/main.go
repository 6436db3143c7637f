// Command e2eapp-misdeclared is e2eapp with one more command, declared the
// way E2EAPP_MISDECLARE names (see app.Misdeclared): a declaration Duet
// must refuse when the app is wrapped, so that the binary fails to start
// with a clear error, or — for the runtime cases — a command that breaks
// its own declarations when it runs. The tests in internal/e2eapp/e2e use
// it to show, black-box, what Duet checks at registration.
package main

import (
	"fmt"
	"os"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/internal/e2eapp/app"
)

func main() {
	root := app.New()
	cmd, err := app.Misdeclared(os.Getenv("E2EAPP_MISDECLARE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	root.Commands = append(root.Commands, cmd)
	urfave.Main(root, app.Options()...)
}
