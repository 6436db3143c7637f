// Package fixcommand is what duetvet's fixcommand analyzer is tested on: each line it
// must report carries a want comment.
package fixcommand

import (
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
)

func fixes() {
	_ = envelope.Errorf(exitcode.NotFound, "GONE", "gone").WithFix("list them", "tool list")
	_ = envelope.Errorf(exitcode.NotFound, "GONE", "gone").WithFix("name one", "tool show <id>")      // want `fix_command "tool show <id>" holds a placeholder`
	_ = envelope.Errorf(exitcode.AuthRequired, "AUTH", "auth").WithFix("log in", "tool login $TOKEN") // want `fix_command "tool login \$TOKEN" holds a placeholder`
}
