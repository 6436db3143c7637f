// Command meridian runs coding agents — Claude Code, Codex, OpenCode, Gemini
// CLI — in spaces, and serves the person at the terminal and the agent in a
// pipe from one binary (see examples/meridian/internal/commands).
//
//	meridian init
//	meridian run spawn -p "review the auth module" -m opus
//	meridian run list
//	MERIDIAN_SPACE_ID=s1 meridian run wait r1   # an agent: JSON, agent commands only
package main

import (
	"fmt"
	"os"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/examples/meridian/internal/commands"
	"github.com/duet-cli/duet/examples/meridian/internal/run"
)

var version = "0.1.0"

func main() {
	// A run's supervisor is this binary started again by `run spawn`.
	if len(os.Args) > 1 && os.Args[1] == run.SupervisorArg {
		os.Exit(run.SupervisorMain(os.Args[2:]))
	}
	env, err := commands.ProcessEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "meridian:", err)
		os.Exit(1)
	}
	env.MCP = mcpEndpoint(env)
	urfave.Main(commands.New(env), append(commands.Options(version), serveMCP()...)...)
}
