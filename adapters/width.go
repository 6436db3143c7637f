package adapters

import (
	"github.com/duet-cli/duet/internal/errcode"
	"io"
	"strconv"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// Wrapping prose for a person: the errors and warnings Duet writes on
// stderr wrap at the terminal's width, or at --width columns. JSON is never
// wrapped, whatever the width: an agent's envelope is one line.

func isWidthFlag(name string) bool { return name == flagname.Width }

// widthGlobalFlags are accepted by every command.
func widthGlobalFlags() []schema.Flag {
	return []schema.Flag{
		{Name: flagname.Width, Control: true, Type: schema.Integer,
			Usage: "wrap errors and warnings on stderr at this many columns; 0 never wraps (default: the terminal's width when a person watches stderr, else 0)"},
	}
}

// checkWidth adds a --width that is not a number of columns to phase 1's
// problems (one that is not a number at all is the flag type's).
func (inv *invocation) checkWidth() {
	v, ok := inv.call.opt(flagname.Width)
	if !ok {
		return
	}
	if n, err := strconv.Atoi(v); err == nil && n < 0 {
		inv.call.problem(errcode.InvalidFlagValue, flagname.Width, "--%s %s is not a number of columns: it must be 0 (never wrap) or more", flagname.Width, v)
	}
}

// widthSettings sets the column prose on stderr wraps at: --width when
// given; the terminal's width when a person watches stderr; else none, for
// a pipe or a log file reads lines whole.
func (inv *invocation) widthSettings(s *envelope.Settings) {
	if v, ok := inv.call.opt(flagname.Width); ok {
		s.Width, _ = strconv.Atoi(v)
		return
	}
	if inv.mode.ErrTerminal {
		s.Width = terminalWidth(inv.cfg.getenv("COLUMNS"), inv.cfg.stderr)
	}
}

// terminalWidth is $COLUMNS when it holds a positive number, else the
// width of the terminal w is, else 0.
func terminalWidth(columns string, w io.Writer) int {
	if n, err := strconv.Atoi(columns); err == nil && n > 0 {
		return n
	}
	return ttyColumns(w)
}
