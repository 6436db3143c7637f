// Package urfavecli holds what urfave/cli v2 and v3 share and so the two
// adapters share: the wording of their usage errors, and how they report an
// error that carries an exit code.
package urfavecli

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/errcode"
)

// Classify turns urfave's own errors into ARG_ERRORs. urfave's parse errors
// are plain strings (Go's flag package's, in v2), so anything that reaches
// here before an action ran is a usage error.
func Classify(err error) *envelope.Error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	p := envelope.FieldError{Code: errcode.UsageError, Message: msg}
	after := func(prefix string) string { return strings.TrimPrefix(msg[strings.Index(msg, prefix):], prefix) }
	switch {
	case strings.Contains(msg, "flag provided but not defined: -"):
		p.Code, p.Field = errcode.UnknownFlag, after("flag provided but not defined: -")
	case strings.Contains(msg, "flag needs an argument: "):
		p.Code, p.Field = errcode.MissingFlagValue, strings.TrimLeft(after("flag needs an argument: "), "-")
	case strings.HasPrefix(msg, "invalid value ") && strings.Contains(msg, " for argument "):
		p.Code = errcode.InvalidArgument
		_, rest, _ := strings.Cut(msg, " for argument ")
		p.Field, _, _ = strings.Cut(rest, ":")
	case strings.HasPrefix(msg, "invalid value "), strings.HasPrefix(msg, "invalid boolean value "):
		p.Code = errcode.InvalidFlagValue
		for _, sep := range []string{" for flag -", " for -"} { // v3's and Go's flag package's
			if _, rest, ok := strings.Cut(msg, sep); ok {
				p.Field, _, _ = strings.Cut(rest, ":")
				break
			}
		}
	case strings.Contains(msg, "Required flag"):
		p.Code = errcode.MissingRequiredFlag
	case strings.HasPrefix(msg, "No help topic for '"):
		p.Code, p.Field = errcode.UnknownCommand, strings.TrimSuffix(after("No help topic for '"), "'")
	case strings.HasPrefix(msg, "unknown command "):
		p.Code = errcode.UnknownCommand
		p.Field, _ = strconv.Unquote(strings.TrimPrefix(msg, "unknown command "))
	case strings.Contains(msg, "argument"):
		p.Code = errcode.WrongArgumentCount
	}
	return envelope.Invalid([]envelope.FieldError{p})
}

// The methods of urfave's MultiError and ExitCoder, alike in v2 and v3.
type (
	multiError interface{ Errors() []error }
	exitCoder  interface{ ExitCode() int }
)

// ReportExit is urfave's HandleExitCoder without its os.Exit: an ExitCoder's
// message, or each of a MultiError's, on w.
func ReportExit(w io.Writer, err error) {
	var multi multiError
	switch {
	case errors.As(err, &multi):
		for _, e := range multi.Errors() {
			if e != nil {
				ReportExit(w, e)
			}
		}
	case isExitCoder(err) && err.Error() != "":
		if _, ok := err.(fmt.Formatter); ok { // urfave's ErrorFormatter
			fmt.Fprintf(w, "%+v\n", err)
		} else {
			fmt.Fprintln(w, err)
		}
	}
}

func isExitCoder(err error) bool { _, ok := err.(exitCoder); return ok }

// Reported reports whether err was written already, by urfave's exit
// handling, or is the lifecycle's to write (a typed error).
func Reported(err error) bool {
	var typed *envelope.Error
	var multi multiError
	return isExitCoder(err) || errors.As(err, &multi) || errors.As(err, &typed)
}

// SetStreams puts the streams s gives in place of the framework's own: in
// for stdin, out for help and output, errOut for errors.
func SetStreams(s adapters.Streams, in *io.Reader, out, errOut *io.Writer) {
	if s.Stdin != nil {
		*in = s.Stdin
	}
	if w := cmp.Or(s.Help, s.Stdout); w != nil {
		*out = w
	}
	if s.Stderr != nil {
		*errOut = s.Stderr
	}
}
