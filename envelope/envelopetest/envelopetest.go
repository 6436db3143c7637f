// Package envelopetest runs domain code that answers through
// envelope.From(ctx) in a unit test, with no command line, framework or
// lifecycle around it, and hands back the envelope an agent would read — as
// net/http/httptest runs a handler and hands back its response.
//
//	rec := envelopetest.NewRecorder()
//	err := notes.List(rec.Context(ctx), store)
//	env, err := rec.Envelope(err)
//
// Outside an invocation envelope.From returns an Output that nobody reads,
// so a test that calls domain code with a bare context sees nothing of what
// it answered; a Recorder's context is what it needs.
package envelopetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
)

// Recorder is an agent's Output for code under test: what the code
// answers — a result, warnings, an effect — it keeps for Envelope.
type Recorder struct {
	out    *envelope.Output
	stdout bytes.Buffer
}

// NewRecorder returns a Recorder whose Output talks to an agent in JSON.
func NewRecorder() *Recorder {
	r := &Recorder{}
	r.out = envelope.New(&envelope.Settings{Mode: envelope.Mode{Agent: true, Format: envelope.JSON}, Stdout: &r.stdout})
	return r
}

// Context returns ctx with the recorder's Output: envelope.From of it, or
// of a context derived from it, is the recorder's.
func (r *Recorder) Context(ctx context.Context) context.Context {
	return envelope.NewContext(ctx, r.out)
}

// Envelope ends the recording and returns the envelope an agent reads:
// err is what the code under test returned, an *envelope.Error answered as
// itself, any other error as the lifecycle answers one it cannot classify.
// Its error is the envelope's not decoding, which is a bug in Duet.
func (r *Recorder) Envelope(err error) (envelope.Envelope, error) {
	var fail *envelope.Error
	if err != nil && !errors.As(err, &fail) {
		fail = envelope.Errorf(exitcode.GeneralError, "ERROR", "%w", err)
	}
	if fail != nil {
		fail.Settle(exitcode.Defaults())
	}
	r.out.Finish(envelope.Meta{}, fail)
	var env envelope.Envelope
	if err := json.Unmarshal(r.stdout.Bytes(), &env); err != nil {
		return env, fmt.Errorf("envelopetest: the answer is not one envelope: %w\n%s", err, r.stdout.Bytes())
	}
	return env, nil
}
