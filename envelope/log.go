package envelope

import (
	"context"
	"log/slog"
	"strings"

	"github.com/duet-cli/duet/internal/secret"
)

// Redacted replaces every secret Duet keeps out of its output.
const Redacted = "[REDACTED]"

// SecretName reports whether a flag, environment variable or attribute name
// looks like it holds a secret: it contains token, secret, password, passwd,
// credential, auth or apikey, or has "key" as a word ("api-key", "KEY", not
// "monkey"). Plain string tests rather than a regular expression, because
// the lifecycle asks once per flag at every start.
func SecretName(name string) bool { return secret.Name(name) }

// Logger returns the invocation's diagnostic logger. It writes to stderr —
// JSON lines for an agent, text for a person — at Info level (Warn for an
// agent, or where nobody watches stderr; Debug with --verbose or --debug;
// nothing with --quiet), with the caller's trace id on every line, and
// redacts secrets: values of attributes whose names look secret, and the
// values of flags marked sensitive wherever they appear.
func (o *Output) Logger() *slog.Logger { return o.logger() }

func (o *Output) logHandler() slog.Handler {
	level := slog.LevelInfo
	switch {
	case o.s.Quiet:
		level = levelOff
	case o.s.Verbose || o.s.Debug:
		level = slog.LevelDebug
	case o.s.Mode.Agent || o.s.Hush:
		level = slog.LevelWarn
	}
	opts := &slog.HandlerOptions{Level: level}
	w := &lockedStderr{o: o}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if o.s.Mode.Agent {
		h = slog.NewJSONHandler(w, opts)
	}
	return o.traced(h)
}

// lockedStderr clears a progress line before a log line is written.
type lockedStderr struct{ o *Output }

func (w *lockedStderr) Write(p []byte) (int, error) {
	w.o.mu.Lock()
	defer w.o.mu.Unlock()
	w.o.progress.clearLocked()
	return w.o.s.Stderr.Write(p)
}

// redactor is a slog.Handler that removes secrets before its inner handler
// formats a record.
type redactor struct {
	inner   slog.Handler
	secrets []string
}

func newRedactor(inner slog.Handler, secrets []string) slog.Handler {
	return &redactor{inner: inner, secrets: secrets}
}

func (h *redactor) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

func (h *redactor) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, redactValues(r.Message, h.secrets), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h *redactor) attr(a slog.Attr) slog.Attr {
	if SecretName(a.Key) {
		return slog.String(a.Key, Redacted)
	}
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindGroup:
		attrs := v.Group()
		clean := make([]any, len(attrs))
		for i, g := range attrs {
			clean[i] = h.attr(g)
		}
		return slog.Group(a.Key, clean...)
	case slog.KindString:
		return slog.String(a.Key, redactValues(v.String(), h.secrets))
	case slog.KindAny:
		if list, ok := v.Any().([]string); ok { // an argv: a list it stays
			clean := make([]string, len(list))
			for i, s := range list {
				clean[i] = redactValues(s, h.secrets)
			}
			return slog.Any(a.Key, clean)
		}
		return slog.String(a.Key, redactValues(v.String(), h.secrets))
	}
	return slog.Attr{Key: a.Key, Value: v}
}

func (h *redactor) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = h.attr(a)
	}
	return &redactor{inner: h.inner.WithAttrs(clean), secrets: h.secrets}
}

func (h *redactor) WithGroup(name string) slog.Handler {
	return &redactor{inner: h.inner.WithGroup(name), secrets: h.secrets}
}

// redactValues replaces every occurrence of a secret value in s.
// redactError replaces the secret values in every text of e an agent
// reads — its message, each field error's, its suggestion, hint, fix and
// detail, the corrected input and the strings of its context — not the
// message alone: a validation that echoes a value it refused would
// otherwise show a secret in errors[].
func redactError(e *Error, secrets []string) {
	if e == nil {
		return
	}
	// The texts are scanned for the shapes of secrets even when no secret
	// value is known; the context only when one is (then for shapes too),
	// as its strings from elsewhere are masked and described by the trust
	// tagging.
	for _, s := range []*string{&e.Message, &e.Detail, &e.FixRequired, &e.FixCommand, &e.Suggestion, &e.Hint, &e.CorrectedInput} {
		*s = redactValues(*s, secrets)
	}
	for i := range e.Errors {
		fe := &e.Errors[i]
		fe.Message, fe.Suggestion, fe.CorrectedInput = redactValues(fe.Message, secrets), redactValues(fe.Suggestion, secrets), redactValues(fe.CorrectedInput, secrets)
	}
	if len(secrets) == 0 {
		return
	}
	for k, v := range e.Context {
		e.Context[k] = redactAny(v, secrets)
	}
}

// redactAny is v with the secret values replaced in every string it holds.
func redactAny(v any, secrets []string) any {
	switch v := v.(type) {
	case string:
		return redactValues(v, secrets)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = redactAny(e, secrets)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = redactAny(e, secrets)
		}
		return out
	case []string:
		out := make([]string, len(v))
		for i, e := range v {
			out[i] = redactValues(e, secrets)
		}
		return out
	}
	return v
}

func redactValues(s string, secrets []string) string {
	for _, v := range secrets {
		if v != "" {
			s = strings.ReplaceAll(s, v, Redacted)
		}
	}
	return secret.Shapes(s, Redacted) // a URL's password, a ghp_ token … whatever it is called
}
