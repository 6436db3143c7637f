// Package commands is Meridian's command tree on urfave/cli v3, wrapped by
// Duet: each command reads its flags, calls the package that does the work
// (space, run, doctor, catalog, config) and hands the result to
// envelope.From(ctx). Audience, output format, validation, --schema and the
// one envelope are Duet's; nothing here decides how to talk to whom.
package commands

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/completion"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/examples/meridian/internal/config"
	"github.com/duet-cli/duet/examples/meridian/internal/project"
	"github.com/duet-cli/duet/examples/meridian/internal/run"
	"github.com/duet-cli/duet/examples/meridian/internal/space"
	"github.com/duet-cli/duet/feature/level3"
	"github.com/duet-cli/duet/schema"
	"github.com/duet-cli/duet/tokens/tiktoken"
)

// Tool is the program's name.
const Tool = "meridian"

// Env is what the commands take from the process. Tests give their own.
type Env struct {
	Getenv  func(string) string
	Environ func() []string
	Dir     string // the working directory
	Exe     string // the meridian executable, which supervises runs
	Now     func() time.Time
	Stderr  io.Writer // where `ui` prints its URL; nil: the process's
	// MCP makes the MCP endpoint `ui` serves beside the page; nil: a build
	// without the MCP server (-tags nomcp) has none.
	MCP func() (http.Handler, error)
}

// ProcessEnv is the running process's Env.
func ProcessEnv() (Env, error) {
	dir, err := os.Getwd()
	if err != nil {
		return Env{}, err
	}
	exe, err := os.Executable()
	if err != nil {
		return Env{}, err
	}
	return Env{Getenv: os.Getenv, Environ: os.Environ, Dir: dir, Exe: exe, Now: time.Now}, nil
}

// AgentMode is Meridian's audience rule: an agent works inside a space, so
// MERIDIAN_SPACE_ID marks one. Duet adds its own signals (a pipe, --output,
// CI); this one makes JSON the default even at a terminal.
func AgentMode(getenv func(string) string) bool { return getenv(space.EnvID) != "" }

// Options are the Duet options every meridian invocation runs with.
func Options(version string) []urfave.Option {
	// Built for agents first: a pipe or CI is an agent (the CLI Agent Spec's F-003).
	return []urfave.Option{adapters.WithVersion(version), adapters.WithSpecStrict(), adapters.WithAgentDetector(AgentMode), completion.Command("completion"),
		adapters.WithFeatures(level3.Features()...),
		// Token budgets counted as OpenAI's o200k_base counts them, with its
		// vocabulary in the binary (7 MB; 2 % on the start of a command,
		// side by side with bench/cmd/procbench): meridian's answers are
		// read by models, and an estimate's few percent off are tokens an
		// agent budgeted for.
		adapters.WithTokenizer(tiktoken.O200kBase, tiktoken.O200k()),
		// The seed: warnings and diagnostics on stderr, for an agent too.
		adapters.WithWarningsOnStderr(),
		adapters.WithLeanAgentHelp(), // the seed's agent help: its commands alone
		adapters.WithConfig(Config()),
		// artifacts: the variables meridian reads itself, for AGENTS.md (O-043)
		adapters.WithEnvVar("MERIDIAN_REPO_ROOT", "path", "the repository whose .meridian directory holds the state (default: the enclosing git repository of the working directory)"),
		adapters.WithEnvVar(run.EnvChat, "string", "the chat a run spawned from inside a chat belongs to; set by meridian for the agents it starts"),
		adapters.WithEnvVar("HOME", "path", "the home directory: the user's config, and where harnesses keep their sessions"),
		adapters.WithEnvVar("PATH", "string", "where the harness CLIs (claude, codex, opencode) are looked up"),
		adapters.WithEnvVar("CLAUDE_CONFIG_DIR", "path", "where Claude Code keeps its sessions (default: ~/.claude)"),
		adapters.WithEnvVar("CODEX_HOME", "path", "where Codex keeps its sessions (default: ~/.codex)"),
		adapters.WithEnvVar("XDG_DATA_HOME", "path", "where OpenCode keeps its logs (default: ~/.local/share)")}
}

// Config tells Duet which files Meridian reads its settings from, highest
// precedence first — the override (--config or MERIDIAN_CONFIG), then the
// project's .meridian/config.toml — so that every answer names those it
// read (meta.config_sources) and a hash of what they hold, --no-config
// reads neither, and --show-config shows every setting and its file.
func Config() adapters.Config {
	files := func(q adapters.ConfigQuery) (stateDir, override string) {
		override, ok := q.Flag("config")
		if !ok {
			override = q.Getenv("MERIDIAN_CONFIG")
		}
		return project.Find(q.Dir, q.Getenv("MERIDIAN_REPO_ROOT"), q.Getenv("HOME"), override).State.Dir, override
	}
	return adapters.Config{
		Files: func(q adapters.ConfigQuery) []string {
			dir, override := files(q)
			list := []string{filepath.Join(dir, config.FileName)}
			if override != "" {
				list = append([]string{override}, list...)
			}
			return list
		},
		Settings: func(_ context.Context, q adapters.ConfigQuery, read []string) ([]adapters.Setting, error) {
			cfg := config.Builtin()
			if len(read) > 0 {
				dir, override := files(q)
				loaded, err := config.Load(dir, override)
				if err != nil {
					return nil, project.FileError(err)
				}
				cfg = loaded
			}
			var out []adapters.Setting
			for _, s := range cfg.Settings() {
				src := s.Source
				if src == config.SourceBuiltin {
					src = ""
				}
				out = append(out, adapters.Setting{Key: s.Key, Value: s.Value, Source: src})
			}
			return out, nil
		},
	}
}

// humanTip is the root help's last word for a person. An agent is never
// told of --human: it is an escape hatch, not a feature.
const humanTip = "Tip: when MERIDIAN_SPACE_ID is set (e.g. via meridian start), only agent-relevant\n" +
	"commands are shown. Use --human for full help."

// Help categories, as the spec groups commands.
const (
	catSpaces    = "Space management"
	catRuns      = "Runs"
	catDiscovery = "Discovery"
	catConfig    = "Configuration"
	catUtilities = "Utilities"
	catHealth    = "Health"
)

// New builds the command tree.
func New(env Env) *cli.Command {
	var tip string
	if !AgentMode(env.Getenv) {
		tip = humanTip
	}
	return urfave.Annotate(&cli.Command{
		Name:        Tool,
		Usage:       "Run coding agents in spaces, for people and for agents",
		Description: tip,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "config", Usage: "a config file merged over .meridian/config.toml", Sources: cli.EnvVars("MERIDIAN_CONFIG")},
		},
		Commands: []*cli.Command{
			env.startCommand(),
			env.initCommand(),
			env.configCommand(),
			env.spaceCommand(),
			env.runCommand(),
			env.skillsCommand(),
			env.modelsCommand(),
			env.doctorCommand(),
			env.uiCommand(),
		},
	}, schema.Meta{Flags: map[string]schema.FlagMeta{"config": {Env: []string{"MERIDIAN_CONFIG"}}}})
}

// project is the project of this invocation.
func (e Env) project(cmd *cli.Command) project.Project {
	return project.Find(e.Dir, e.Getenv("MERIDIAN_REPO_ROOT"), e.Getenv("HOME"), cmd.String("config"))
}

// loaded is the project with its configuration: none of its files under
// --no-config (Duet's, which the answer's meta.config_sources confirms).
func (e Env) loaded(ctx context.Context, cmd *cli.Command) (project.Project, *config.Loaded, error) {
	return e.loadedWith(ctx, cmd.String("config"))
}

// loadedWith is loaded with the --config given, for a Meta.Validate hook,
// which has no *cli.Command.
func (e Env) loadedWith(ctx context.Context, configFile string) (project.Project, *config.Loaded, error) {
	p := project.Find(e.Dir, e.Getenv("MERIDIAN_REPO_ROOT"), e.Getenv("HOME"), configFile)
	out := envelope.From(ctx)
	out.ProjectRoot(p.Root)
	p.NoConfig = out.Config().Skip
	cfg, err := p.Config()
	return p, cfg, err
}

func (e Env) runner(ctx context.Context, cmd *cli.Command) (*run.Runner, error) {
	return e.runnerWith(ctx, cmd.String("config"))
}

// runnerWith is runner with the --config given, for a Meta.Validate hook.
func (e Env) runnerWith(ctx context.Context, configFile string) (*run.Runner, error) {
	p, cfg, err := e.loadedWith(ctx, configFile)
	if err != nil {
		return nil, err
	}
	return &run.Runner{Project: p, Config: cfg, Now: e.Now, Exe: e.Exe, Env: e.Environ(),
		Chat: e.Getenv(run.EnvChat), Dir: e.Dir}, nil
}

// result is the usual end of an action: the value, or the error.
func result[T any](ctx context.Context, v T, err error) error {
	if err != nil {
		return err
	}
	return envelope.From(ctx).Result(v)
}
