// Package adapters is the invocation lifecycle every Duet adapter shares:
//
//	parse → validate (phase 1) → guard → execute under a timeout and signals → one envelope → exit code
//
// A framework adapter (adapters/urfave, adapters/cobra) only translates: it
// builds the neutral [schema.Command] tree from the app, lets the framework
// parse and dispatch, and wraps every action with [Invoke]. Everything the
// contract promises — validation with all errors at once, --schema, describe,
// confirmation, timeouts, signals, the single envelope — happens here, once,
// so both adapters behave byte for byte alike.
package adapters

import (
	"context"
	"io"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// Framework is what an adapter gives the lifecycle.
type Framework interface {
	// Tree returns the neutral command tree, built-ins included. It is built
	// once, before anything runs.
	Tree() *schema.Command
	// Execute lets the framework parse args and run the chosen command. Its
	// actions must be wrapped with [Invoke]. args hold none of Duet's
	// built-in flags (the lifecycle has read them) unless io.HelpFor is set.
	Execute(ctx context.Context, args []string, io Streams) error
	// Classify turns a framework's own error (usage, unknown flag ...) into a
	// structured one, or returns nil when it does not recognise err.
	Classify(err error) *envelope.Error
}

// Streams is where the framework writes during Execute: its help and its own
// messages go to Help, which is stderr for an agent and stdout for a person.
// Hide tells it which commands to leave out of help.
//
// Duet's built-in commands and flags (marked Builtin) are run and read by
// the lifecycle, and the framework is given them only to show them: HelpFor
// is set when it renders help, to the command help is for — then it must
// list the built-in commands and accept and list the built-in flags of that
// command and its ancestors; Complete is set when it answers shell
// completion — then it must know every built-in command and flag.
type Streams struct {
	Stdin    io.Reader
	Stdout   io.Writer
	Stderr   io.Writer
	Help     io.Writer
	Hide     func(*schema.Command) bool
	HelpFor  *schema.Command
	Complete bool
}

// Shows reports whether the framework must be given n's built-in flags.
func (s Streams) Shows(n *schema.Command) bool {
	return s.Complete || s.HelpFor != nil && s.HelpFor.Under(n)
}
