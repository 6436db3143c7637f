// Command duetvet runs Duet's analyzers (package lint) over Go packages, as
// go vet runs its own: what the CLI Agent Spec asks of a command that only
// its source shows — no os.Chdir, exit codes by name, a Validate hook that
// changes nothing, network calls with a time limit, fix_commands without
// placeholders, programs started through package proc, resources taken
// with a cleanup.
//
//	go run github.com/duet-cli/duet/lint/cmd/duetvet ./...
package main

import (
	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/duet-cli/duet/lint"
)

func main() { multichecker.Main(lint.Analyzers()...) }
