package app

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/proc"
	"github.com/duet-cli/duet/schema"
)

// shell is the bare invocation: an interactive shell that reads commands
// from the terminal until "quit".
func shell(ctx context.Context, c *cli.Command) error {
	in := bufio.NewReader(c.Root().Reader)
	seen := 0
	for {
		fmt.Fprint(c.Root().ErrWriter, "e2eapp> ")
		line, err := in.ReadString('\n')
		line = strings.TrimSpace(line)
		if line == "quit" || errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		seen++
		fmt.Fprintf(c.Root().ErrWriter, "you said %q\n", line)
	}
	return envelope.From(ctx).Result(map[string]int{"lines": seen})
}

// personCommands are the commands that ask a person something: a name, a
// confirmation, an attestation, a text in an editor, a page in a browser.
func personCommands() []*cli.Command {
	greet := urfave.Annotate(&cli.Command{
		Name:  "greet",
		Usage: "Greet someone; asks for the name when --name is not given",
		Flags: []cli.Flag{&cli.StringFlag{Name: "name", Usage: "who to greet"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			name := c.String("name")
			if name == "" {
				var err error
				if name, err = adapters.Prompt(ctx, "Your name: ", "name"); err != nil {
					return err
				}
			}
			return envelope.From(ctx).Result(map[string]string{"greeting": "hello, " + name})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, Prompts: true})

	reset := urfave.Annotate(&cli.Command{
		Name:  "reset",
		Usage: "Reset the settings, after asking",
		Action: func(ctx context.Context, c *cli.Command) error {
			ok, err := adapters.Confirm(ctx, "Reset all settings?")
			if err != nil {
				return err
			}
			out := envelope.From(ctx)
			if !ok {
				out.Effect(envelope.Noop)
				return out.Result(map[string]bool{"reset": false})
			}
			file := filepath.Join(dataDir(c), "settings.json")
			if err := os.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			out.Effect(envelope.Updated)
			return out.Result(map[string]bool{"reset": true})
		},
	}, schema.Meta{Danger: schema.Mutating, NoArgs: true, Prompts: true})

	approve := urfave.Annotate(&cli.Command{
		Name:      "approve",
		Usage:     "Approve a change an agent proposed (a person must confirm it)",
		ArgsUsage: "<id>",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "yes", Usage: "skip e2eapp's own questions"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := appendLine(filepath.Join(dataDir(c), "approvals.log"), c.Args().First()); err != nil {
				return err
			}
			out := envelope.From(ctx)
			out.Effect(envelope.Updated)
			return out.Result(map[string]string{"approved": c.Args().First()})
		},
	}, schema.Meta{Danger: schema.Mutating, RequiresPerson: true,
		Args: []schema.Arg{{Name: "id", Required: true, Type: schema.String, Usage: "the proposal"}}})

	notesAdd := urfave.Annotate(&cli.Command{
		Name:  "add",
		Usage: "Add a note to a notes file; opens $VISUAL or $EDITOR without --message or --from-file",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "file", Usage: "the notes file", Required: true},
			&cli.StringFlag{Name: "message", Usage: "the note's text"},
			&cli.StringFlag{Name: "from-file", Usage: "read the note's text from a file"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			text := c.String("message")
			switch {
			case c.String("from-file") != "":
				raw, err := os.ReadFile(c.String("from-file"))
				if err != nil {
					return err
				}
				text = string(raw)
			case text == "":
				var err error
				if text, err = editText(ctx, os.Getenv("VISUAL"), os.Getenv("EDITOR")); err != nil {
					return err
				}
			}
			if err := appendLine(c.String("file"), strings.TrimSpace(text)); err != nil {
				return err
			}
			out := envelope.From(ctx)
			out.Effect(envelope.Updated)
			return out.Result(map[string]string{"file": c.String("file"), "note": strings.TrimSpace(text)})
		},
	}, schema.Meta{Danger: schema.Mutating, NoArgs: true, Editor: true, Alternatives: []string{"message", "from-file"}})

	notesEdit := urfave.Annotate(&cli.Command{
		Name:  "edit",
		Usage: "Edit a notes file in $EDITOR",
		Flags: []cli.Flag{&cli.StringFlag{Name: "file", Usage: "the notes file", Required: true}},
		Action: func(ctx context.Context, c *cli.Command) error {
			// It declares no editor (Meta.Editor): it reads $EDITOR as
			// many tools do, and proc's guard is all that stands between
			// it and an editor nobody can use.
			editor := cmp.Or(os.Getenv("EDITOR"), "vi")
			cmd := proc.Command(ctx, editor, c.String("file"))
			cmd.Terminal, cmd.Stdin, cmd.Stdout, cmd.Stderr = true, os.Stdin, os.Stderr, os.Stderr
			if err := cmd.Run(); err != nil {
				return hookFailed(editor, err)
			}
			raw, err := os.ReadFile(c.String("file"))
			if err != nil {
				return err
			}
			out := envelope.From(ctx)
			out.Effect(envelope.Updated)
			return out.Result(map[string]any{"file": c.String("file"), "editor": editor, "content": string(raw)})
		},
	}, schema.Meta{Danger: schema.Mutating, NoArgs: true})

	notes := urfave.Annotate(&cli.Command{Name: "notes", Usage: "Keep notes", Commands: []*cli.Command{notesAdd, notesEdit}}, schema.Meta{})

	docs := urfave.Annotate(&cli.Command{
		Name:      "docs",
		Usage:     "Open the documentation in a browser",
		ArgsUsage: "[topic]",
		Action: func(ctx context.Context, c *cli.Command) error {
			topic := cmp.Or(c.Args().First(), "index")
			out := envelope.From(ctx)
			if err := out.Open("https://docs.example.com/e2eapp/" + topic); err != nil {
				return err
			}
			return out.Result(map[string]string{"topic": topic})
		},
	}, schema.Meta{Danger: schema.Safe, GUI: []string{"browser_open"}, Headless: schema.EmitInOutput,
		Args: []schema.Arg{{Name: "topic", Type: schema.String, Usage: "the page"}}})

	return []*cli.Command{greet, reset, approve, notes, docs}
}

// editText has the person write a text in their editor, and returns it.
func editText(ctx context.Context, visual, editor string) (string, error) {
	name := cmp.Or(visual, editor, "vi")
	f, err := os.CreateTemp("", "e2eapp-note-*.txt")
	if err != nil {
		return "", err
	}
	f.Close()
	defer os.Remove(f.Name())
	cmd := proc.Command(ctx, name, f.Name())
	cmd.Terminal, cmd.Stdin, cmd.Stdout, cmd.Stderr = true, os.Stdin, os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", hookFailed(name, err)
	}
	raw, err := os.ReadFile(f.Name())
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(string(raw)) == "" {
		return "", envelope.Errorf(exitcode.Precondition, "EMPTY_NOTE", "the note is empty: nothing was added")
	}
	return string(raw), nil
}

// appendLine appends a line to a file, making its directory.
func appendLine(path, line string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(f, line); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
