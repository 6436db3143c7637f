package commands

import (
	"context"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/examples/meridian/internal/chat"
	"github.com/duet-cli/duet/schema"
)

// catLaunch is the help category of start, first in the spec's help.
const catLaunch = "Launch"

func (e Env) startCommand() *cli.Command {
	return urfave.Annotate(&cli.Command{
		Name:      "start",
		Category:  catLaunch,
		Usage:     "Auto-resolve the active space (new chat), or create one if none is active",
		ArgsUsage: "[chat-id|harness-session-id]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "new", Usage: "force a new space"},
			&cli.StringFlag{Name: "space", Usage: "use this space (a new chat, unless --continue)"},
			&cli.BoolFlag{Name: "continue", Usage: "continue the last chat, or the chat (c2) or harness session given as argument"},
			&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "model id or alias (continuing: a model of the chat's harness)"},
			&cli.StringFlag{Name: "agent", Aliases: []string{"a"}, Usage: "an agent profile of .meridian/agents or ~/.meridian/agents"},
			&cli.StringFlag{Name: "append-system-prompt", Usage: "text appended to the harness's system prompt"},
			&cli.StringFlag{Name: "system-prompt", Usage: "the harness's system prompt, in place of its own (Claude Code only)"},
			&cli.StringFlag{Name: "sandbox", Usage: "what the agent may touch: read-only, workspace-write or full-access"},
			&cli.StringSliceFlag{Name: "skills", Aliases: []string{"s"}, Usage: "skills to give the harness, by name, in its system prompt; repeat or separate with commas"},
			&cli.StringFlag{Name: "name", Usage: "name the space the chat is in, such as feature-auth (a new one, or the one it resumes)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			r, err := e.runner(ctx, cmd)
			if err != nil {
				return err
			}
			s := chat.Starter{Runner: r, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
			res, err := s.Start(ctx, chat.Request{
				New: cmd.Bool("new"), Space: cmd.String("space"), Continue: cmd.Bool("continue"), Target: cmd.Args().First(),
				Model: cmd.String("model"), Agent: cmd.String("agent"), Name: cmd.String("name"), Skills: cmd.StringSlice("skills"),
				Params: chat.Params{AppendSystemPrompt: cmd.String("append-system-prompt"), SystemPrompt: cmd.String("system-prompt"), Sandbox: cmd.String("sandbox")},
			})
			return result(ctx, res, err)
		},
	}, schema.Meta{
		Danger: schema.Mutating, Audience: schema.HumanOnly, Interactive: true, Timeout: schema.NoTimeout,
		Output: schema.Of[chat.Result](), ExitCodes: chat.Codes,
		// The harness is a person's session on their terminal: their
		// language, their numbers.
		PreserveLocale: true,
		Args:           []schema.Arg{{Name: "chat", Type: schema.String, Usage: "with --continue: a chat (c2) or a harness session id"}},
		Flags: map[string]schema.FlagMeta{
			"space":   {Pattern: spaceIDPattern},
			"sandbox": {Enum: sandboxes},
			"model":   {Subprocess: true},
		},
		Subprocess: harnessProgram,
		Groups: []schema.Group{
			{Kind: schema.MutuallyExclusive, Flags: []string{"new", "space"}},
			{Kind: schema.MutuallyExclusive, Flags: []string{"new", "continue"}},
		},
		Examples: []schema.Example{
			{Description: "a new chat in the active space", Command: "start"},
			{Description: "continue chat c2 of space s3", Command: "start --space s3 --continue c2"},
		},
	})
}
