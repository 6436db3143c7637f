// Package exitliteral is what duetvet's exitliteral analyzer is tested on: each line it
// must report carries a want comment.
package exitliteral

import (
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
)

const drifted exitcode.Code = 80 // naming a code is how it should be done

var codes = exitcode.Table{81: {Name: "LATE", Description: "Too late.", SideEffects: exitcode.None}}

func exits() error {
	_ = envelope.Errorf(exitcode.NotFound, "GONE", "gone")
	_ = envelope.Errorf(drifted, "DRIFTED", "drifted")
	_ = envelope.Errorf(5, "GONE", "gone")       // want `exit code 5 is a bare number`
	_ = exitcode.Code(200)                       // want `exit code 200 is a bare number`
	return envelope.Errorf((81), "LATE", "late") // want `exit code 81 is a bare number`
}

var _ = codes
