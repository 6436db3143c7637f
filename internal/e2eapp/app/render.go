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
	return []*cli.Command{render}
}
