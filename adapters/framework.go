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
// Hide tells it which commands to leave out of help. HelpFor is set when the
// framework renders help, to the command it is for: then it must accept and
// list Duet's built-in flags (flags marked Builtin) of that command and its
// ancestors.
type Streams struct {
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	Help    io.Writer
	Hide    func(*schema.Command) bool
	HelpFor *schema.Command
}
