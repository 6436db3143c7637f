package mcp_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/mcp"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// The test binary is also the app: with appEnv set it runs testApp, so that
// Exec runs the real lifecycle in a child process.
const appEnv = "DUET_MCP_TEST_APP"

func TestMain(m *testing.M) {
	switch os.Getenv(appEnv) {
	case "1":
		urfave.Main(testApp(), adapters.WithVersion("1.2.3"), mcp.Command("serve"))
	case "generated":
		urfave.Main(generatedApp(), adapters.WithVersion("1.2.3"), mcp.Command("serve"))
	}
	os.Exit(m.Run())
}

// execRunner runs the test binary as the app.
func execRunner(t testing.TB) *mcp.ExecRunner {
	r := mcp.Exec(os.Args[0])
	r.Env = append(os.Environ(), appEnv+"=1")
	return r
}

// wrap wraps testApp as the child process does.
func wrap(t testing.TB) adapters.Framework {
	t.Helper()
	app, err := urfaveWrap(mcp.Command("serve"))
	if err != nil {
		t.Fatal(err)
	}
	return app
}

// blocked hears from the block command run in process.
var blocked = make(chan string, 2)

// newApp makes testApp anew, wrapped as the child process wraps it: what
// the in-process runner calls for each call.
func newApp() (adapters.Framework, error) { return urfaveWrap(mcp.Command("serve")) }

func urfaveWrap(opts ...urfave.Option) (adapters.Framework, error) {
	return urfave.Wrap(testApp(), append([]urfave.Option{adapters.WithVersion("1.2.3")}, opts...)...)
}

type note struct {
	ID    string   `json:"id"`
	Title string   `json:"title"`
	Tags  []string `json:"tags"`
	Count int      `json:"count"`
}

var notes = []note{{ID: "n1", Title: "first", Tags: []string{"a"}}, {ID: "n2", Title: "second"}, {ID: "n3", Title: "third"}}

// testApp is a small app with a command of every shape a tool can have.
func testApp() *cli.Command {
	idArg := []schema.Arg{{Name: "id", Usage: "a note id", Required: true, ID: true}}
	list := urfave.Annotate(&cli.Command{
		Name: "list", Usage: "List notes",
		Flags: []cli.Flag{&cli.StringFlag{Name: "tag", Usage: "only notes with this tag"}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			var out []note
			for _, n := range notes {
				if t := cmd.String("tag"); t == "" || strings.Contains(strings.Join(n.Tags, ","), t) {
					out = append(out, n)
				}
			}
			return envelope.From(ctx).Result(out)
		},
	}, schema.Meta{Danger: schema.Safe, List: true, Output: schema.Of[[]note]()})

	show := urfave.Annotate(&cli.Command{
		Name: "show", Usage: "Show a note",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			for _, n := range notes {
				if n.ID == cmd.Args().First() {
					return envelope.From(ctx).Result(n)
				}
			}
			return envelope.Errorf(exitcode.NotFound, "NOTE_NOT_FOUND", "no note %s", cmd.Args().First()).WithSuggestion("list the notes")
		},
	}, schema.Meta{Danger: schema.Safe, Output: schema.Of[note](), Args: idArg})

	add := urfave.Annotate(&cli.Command{
		Name: "add", Usage: "Add a note", Description: "The note is not kept: this app forgets.",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "tag", Usage: "a tag; repeat for more"},
			&cli.IntFlag{Name: "count", Usage: "how many"},
			&cli.StringFlag{Name: "kind", Value: "plain", Usage: "plain or todo"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			out := envelope.From(ctx)
			if cmd.String("kind") == "todo" {
				out.Warn("KIND_DEPRECATED", "kind todo is going away", "use a tag")
			}
			out.Effect(envelope.Created)
			return out.Result(note{ID: "n4", Title: cmd.Args().First(), Tags: cmd.StringSlice("tag"), Count: int(cmd.Int("count"))})
		},
	}, schema.Meta{
		Danger: schema.Mutating, Output: schema.Of[note](),
		Args:  []schema.Arg{{Name: "title", Usage: "what the note says", Required: true}},
		Flags: map[string]schema.FlagMeta{"kind": {Enum: []string{"plain", "todo"}}, "tag": {Pattern: "^[a-z]+$"}},
	})

	remove := urfave.Annotate(&cli.Command{
		Name: "remove", Usage: "Remove a note",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			out := envelope.From(ctx)
			out.Effect(envelope.Deleted)
			if out.DryRun() {
				out.WouldAffect(map[string]string{"note": cmd.Args().First()})
			}
			return out.Result(map[string]string{"removed": cmd.Args().First()})
		},
	}, schema.Meta{Danger: schema.Destructive, DryRun: true, Args: idArg})

	// hang starts a grandchild that ignores SIGTERM, records its pid, and
	// never returns: only a killed process group ends it.
	hang := urfave.Annotate(&cli.Command{
		Name: "hang", Usage: "Hang",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			sh := exec.Command("sh", "-c", `trap "" TERM; echo $$ > "$1"; exec sleep 300`, "sh", cmd.String("pidfile"))
			if err := sh.Start(); err != nil {
				return err
			}
			select {} // deaf to ctx: the lifecycle answers without it
		},
		Flags: []cli.Flag{&cli.StringFlag{Name: "pidfile", Usage: "where the grandchild writes its pid"}},
	}, schema.Meta{Danger: schema.Safe, Timeout: schema.NoTimeout})

	// work reports its progress, three steps of three.
	work := urfave.Annotate(&cli.Command{
		Name: "work", Usage: "Work in three steps",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			out := envelope.From(ctx)
			for i := 1; i <= 3; i++ {
				out.Progress(fmt.Sprintf("step %d", i), i, 3)
			}
			return out.Result("done")
		},
	}, schema.Meta{Danger: schema.Safe})

	// block waits for its context, and says so on blocked when it runs in
	// the test's own process (mcp.InProcess).
	block := urfave.Annotate(&cli.Command{
		Name: "block", Usage: "Wait until cancelled",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			blocked <- "started"
			<-ctx.Done()
			blocked <- "cancelled"
			return ctx.Err()
		},
	}, schema.Meta{Danger: schema.Safe, Timeout: schema.NoTimeout})

	echo := urfave.Annotate(&cli.Command{
		Name: "echo", Usage: "Answer with the words given, as one string",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			return envelope.From(ctx).Result(strings.Join(cmd.Args().Slice(), " "))
		},
	}, schema.Meta{Danger: schema.Safe, Args: []schema.Arg{{Name: "words", Variadic: true}}})

	chat := urfave.Annotate(&cli.Command{Name: "chat", Usage: "Talk to a person", Action: noop},
		schema.Meta{Danger: schema.Safe, Interactive: true})
	setup := urfave.Annotate(&cli.Command{Name: "setup", Usage: "Set up, for people", Action: noop},
		schema.Meta{Danger: schema.Safe, Audience: schema.HumanOnly})
	internal := urfave.Annotate(&cli.Command{Name: "internal", Usage: "Not for tools", Action: noop},
		schema.Meta{Danger: schema.Safe, Tool: schema.ToolNever})
	group := &cli.Command{Name: "stats", Usage: "Figures about the notes", Commands: []*cli.Command{
		urfave.Annotate(&cli.Command{Name: "count", Usage: "Count the notes", Action: func(ctx context.Context, _ *cli.Command) error {
			return envelope.From(ctx).Result(map[string]int{"count": len(notes)})
		}}, schema.Meta{Danger: schema.Safe}),
	}}
	return &cli.Command{
		Name: "notes", Usage: "Notes for tests",
		Commands: []*cli.Command{list, show, add, remove, hang, work, block, echo, chat, setup, internal, group},
	}
}

func noop(context.Context, *cli.Command) error { return nil }

// run runs one command line of the app in process, as an agent would.
func run(t testing.TB, args ...string) []byte {
	t.Helper()
	var out strings.Builder
	code := adapters.Run(context.Background(), wrap(t), args,
		adapters.WithStdio(strings.NewReader(""), &out, &strings.Builder{}),
		adapters.WithTerminal(adapters.Piped), adapters.WithSpecStrict())
	if code != 0 {
		t.Fatalf("notes %s: exit %d: %s", strings.Join(args, " "), code, out.String())
	}
	return []byte(out.String())
}
