package app

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// RenderPNG is what `render --png` renders: a PNG's signature and the
// start of its header — bytes that are not text (a NUL, a CR, 0x89).
var RenderPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

// renderCommands are the commands whose result is binary (REQ-O-001,
// REQ-F-017): with --output its raw bytes go to the file.
func renderCommands() []*cli.Command {
	render := urfave.Annotate(&cli.Command{
		Name:  "render",
		Usage: "Render the status badge as an image; --fail fails before rendering",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "png", Usage: "render a PNG"},
			&cli.BoolFlag{Name: "fail", Usage: "fail instead of rendering"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Bool("fail") {
				return envelope.Errorf(exitcode.GeneralError, "RENDER_FAILED", "the badge could not be rendered")
			}
			return envelope.From(ctx).Result(envelope.Binary{Bytes: RenderPNG, ContentType: "image/png"})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, Output: schema.Of[envelope.Binary]()})
	machines := urfave.Annotate(&cli.Command{
		Name:  "machines",
		Usage: "List the machines, their tags, labels and disks (each may have none)",
		Action: func(ctx context.Context, _ *cli.Command) error {
			out := envelope.From(ctx)
			for _, m := range inventory() {
				if err := out.Item(m); err != nil {
					return err
				}
			}
			return nil
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, Output: schema.Of[[]Machine]()})
	return []*cli.Command{render, machines}
}

// Machine is an item of `machines`. Its collections are left nil where a
// machine has none, as Go code does: the wire says [] and {} (F-074).
type Machine struct {
	Name   string            `json:"name"`
	Tags   []string          `json:"tags"`
	Labels map[string]string `json:"labels"`
	Disks  []Disk            `json:"disks"`
	Owner  *string           `json:"owner"` // null: nobody owns it
}

// Disk is one of a Machine's disks.
type Disk struct {
	Device     string   `json:"device"`
	Partitions []string `json:"partitions"`
}

func inventory() []Machine {
	ops := "ops"
	return []Machine{
		{Name: "web", Tags: []string{"edge"}, Labels: map[string]string{"tier": "front"},
			Disks: []Disk{{Device: "sda", Partitions: []string{"sda1"}}, {Device: "sdb"}}, Owner: &ops},
		{Name: "db"},
	}
}
