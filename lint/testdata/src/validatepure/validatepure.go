// Package validatepure is what duetvet's validatepure analyzer is tested on: each line it
// must report carries a want comment.
package validatepure

import (
	"context"
	"net/http"
	"os"
	"os/exec"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

func checkName(_ context.Context, in schema.Input) error {
	if in.String("name") == "" {
		return envelope.Validationf("NAME_REQUIRED", "a name is needed")
	}
	return os.WriteFile("seen", nil, 0o644) // want `os.WriteFile in a Validate hook`
}

var metas = []schema.Meta{
	{Danger: schema.Safe, Validate: checkName},
	{Danger: schema.Safe, Validate: func(context.Context, schema.Input) error {
		_ = exec.Command("true")       // want `exec.Command in a Validate hook`
		_, err := http.Get("http://x") // want `http.Get in a Validate hook`
		return err
	}},
	{Danger: schema.Safe, Validate: func(_ context.Context, in schema.Input) error {
		_, err := os.ReadFile(in.String("config")) // reading is fine
		return err
	}},
}
