// Command e2eapp is Duet's end-to-end fixture: a small operations tool on
// urfave/cli v3, wrapped with Duet as a real app is (see package app), that
// the tests in internal/e2eapp/e2e build and drive black-box.
package main

import (
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/internal/e2eapp/app"
)

func main() { urfave.Main(app.New(), app.Options()...) }
