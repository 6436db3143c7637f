package skills_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/feature/skills"
)

// generate-skills writes a context, and a skill per command.
func Example() {
	dir, _ := os.MkdirTemp("", "skills")
	defer os.RemoveAll(dir)
	app := &cli.Command{Name: "notes", Usage: "keep notes", Commands: []*cli.Command{
		{Name: "list", Usage: "list the notes", Action: func(context.Context, *cli.Command) error { return nil }},
	}}
	for range 2 {
		var stdout bytes.Buffer
		code := urfave.Run(context.Background(), app, []string{"generate-skills", "--output-dir", dir, "--format", "text"},
			adapters.WithStdio(strings.NewReader(""), &stdout, new(bytes.Buffer)), adapters.WithFeatures(skills.New()))
		fmt.Println("exit", code)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		fmt.Println(filepath.Base(f))
	}
	// Output:
	// exit 0
	// exit 0
	// CONTEXT.md
	// SKILL-notes-list.md
}
