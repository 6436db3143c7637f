// Package app is jot's command tree: a notes app written on urfave/cli v3
// the way CLIs usually are — output printed with fmt and the command's
// Writer, errors that carry their own exit code (cli.Exit), grouped short
// flags, aliases, an argument urfave parses, a flag read from the
// environment, deprecations, and a command that runs until it is stopped.
// It knows nothing of Duet: cmd/jot runs it bare or wrapped, and
// examples/jot/e2e holds the two to the same bytes.
package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"
)

// Version is jot's version.
const Version = "0.9.1"

// A note is one line of the notes file: "id<TAB>pinned<TAB>tags<TAB>text".
type note struct {
	id     int
	pinned bool
	tags   []string
	text   string
}

func load(path string) ([]note, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var notes []note
	s := bufio.NewScanner(f)
	for s.Scan() {
		parts := strings.SplitN(s.Text(), "\t", 4)
		if len(parts) != 4 {
			return nil, fmt.Errorf("%s: a broken line: %q", path, s.Text())
		}
		id, err := strconv.Atoi(parts[0])
		if err != nil {
			return nil, fmt.Errorf("%s: a broken id: %q", path, parts[0])
		}
		n := note{id: id, pinned: parts[1] == "1", text: parts[3]}
		if parts[2] != "" {
			n.tags = strings.Split(parts[2], ",")
		}
		notes = append(notes, n)
	}
	return notes, s.Err()
}

func save(path string, notes []note) error {
	var b strings.Builder
	for _, n := range notes {
		pinned := "0"
		if n.pinned {
			pinned = "1"
		}
		fmt.Fprintf(&b, "%d\t%s\t%s\t%s\n", n.id, pinned, strings.Join(n.tags, ","), n.text)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// New returns jot's root command.
func New() *cli.Command {
	home, _ := os.UserHomeDir()
	return &cli.Command{
		Name:                   "jot",
		Usage:                  "jot notes down, and find them again",
		Version:                Version,
		UseShortOptionHandling: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Value: filepath.Join(home, ".jot"), Sources: cli.EnvVars("JOT_FILE"), Usage: "the notes file"},
		},
		Commands: []*cli.Command{add(), list(), remove(), del(), tail()},
	}
}

func add() *cli.Command {
	return &cli.Command{
		Name:      "add",
		Aliases:   []string{"a"},
		Usage:     "Add a note",
		ArgsUsage: "<text>...",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "tag", Aliases: []string{"t"}, Usage: "a tag; repeat for more"},
			&cli.BoolFlag{Name: "pin", Aliases: []string{"p"}, Usage: "pin the note to the top of the list"},
			&cli.BoolFlag{Name: "pinned", Usage: "pin the note", Deprecated: "use --pin"},
		},
		Action: func(_ context.Context, cmd *cli.Command) error {
			text := strings.Join(cmd.Args().Slice(), " ")
			if strings.TrimSpace(text) == "" {
				return cli.Exit("jot add: nothing to add", 2)
			}
			path := cmd.String("file")
			notes, err := load(path)
			if err != nil {
				return err
			}
			id := 1
			for _, n := range notes {
				id = max(id, n.id+1)
			}
			notes = append(notes, note{id: id, pinned: cmd.Bool("pin") || cmd.Bool("pinned"), tags: cmd.StringSlice("tag"), text: text})
			if err := save(path, notes); err != nil {
				return err
			}
			fmt.Printf("added %d\n", id)
			return nil
		},
	}
}

func list() *cli.Command {
	return &cli.Command{
		Name:    "list",
		Aliases: []string{"ls"},
		Usage:   "List the notes, pinned ones first",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "tag", Aliases: []string{"t"}, Usage: "only notes with this tag"},
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "at most this many (0: all)"},
			&cli.BoolFlag{Name: "long", Aliases: []string{"l"}, Usage: "show tags too"},
		},
		Action: func(_ context.Context, cmd *cli.Command) error {
			notes, err := load(cmd.String("file"))
			if err != nil {
				return err
			}
			slices.SortStableFunc(notes, func(a, b note) int {
				if a.pinned != b.pinned {
					if a.pinned {
						return -1
					}
					return 1
				}
				return a.id - b.id
			})
			w := cmd.Root().Writer
			shown := 0
			for _, n := range notes {
				if tag := cmd.String("tag"); tag != "" && !slices.Contains(n.tags, tag) {
					continue
				}
				if limit := cmd.Int("limit"); limit > 0 && shown == limit {
					break
				}
				mark := " "
				if n.pinned {
					mark = "*"
				}
				fmt.Fprintf(w, "%3d %s %s", n.id, mark, n.text)
				if cmd.Bool("long") && len(n.tags) > 0 {
					fmt.Fprintf(w, "  [%s]", strings.Join(n.tags, ", "))
				}
				fmt.Fprintln(w)
				shown++
			}
			if shown == 0 {
				fmt.Fprintln(os.Stderr, "no notes")
			}
			return nil
		},
	}
}

func remove() *cli.Command {
	return &cli.Command{
		Name:      "rm",
		Usage:     "Remove a note",
		Arguments: []cli.Argument{&cli.IntArg{Name: "id", UsageText: "the note's number"}},
		Action: func(_ context.Context, cmd *cli.Command) error {
			id := cmd.IntArg("id")
			path := cmd.String("file")
			notes, err := load(path)
			if err != nil {
				return err
			}
			i := slices.IndexFunc(notes, func(n note) bool { return n.id == id })
			if i < 0 {
				return cli.Exit(fmt.Sprintf("jot rm: no note %d", id), 4)
			}
			if err := save(path, slices.Delete(notes, i, i+1)); err != nil {
				return err
			}
			fmt.Printf("removed %d\n", id)
			return nil
		},
	}
}

func del() *cli.Command {
	rm := remove()
	rm.Name, rm.Usage, rm.Deprecated, rm.Hidden = "del", "Remove a note", "use 'jot rm'", true
	return rm
}

func tail() *cli.Command {
	return &cli.Command{
		Name:  "tail",
		Usage: "Print the last notes, then each note added, until interrupted",
		Flags: []cli.Flag{&cli.DurationFlag{Name: "every", Value: 100 * time.Millisecond, Usage: "how often to look"}},
		Action: func(_ context.Context, cmd *cli.Command) error {
			notes, err := load(cmd.String("file"))
			if err != nil {
				return err
			}
			seen := 0
			for i, n := range notes {
				if i >= len(notes)-3 {
					fmt.Printf("%3d %s\n", n.id, n.text)
				}
				seen = max(seen, n.id)
			}
			for {
				time.Sleep(cmd.Duration("every"))
				notes, err := load(cmd.String("file"))
				if err != nil {
					return err
				}
				for _, n := range notes {
					if n.id > seen {
						fmt.Printf("%3d %s\n", n.id, n.text)
						seen = n.id
					}
				}
			}
		},
	}
}
