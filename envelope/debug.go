package envelope

import (
	"log/slog"
	"strings"

	"github.com/duet-cli/duet/internal/secret"
)

// levelOff is above every level a logger writes: --quiet leaves stderr empty.
const levelOff = slog.Level(64)

// traced puts the caller's trace id on every line h writes, so that a line
// on stderr can be matched with the envelope and the audit log entry.
func (o *Output) traced(h slog.Handler) slog.Handler {
	if o.s.TraceID == "" {
		return h
	}
	return h.WithAttrs([]slog.Attr{slog.String("trace_id", o.s.TraceID)})
}

// Debugging reports whether --debug asked for the full diagnostic trace.
func (o *Output) Debugging() bool { return o.s.Debug }

// SecretEnv reports whether an environment variable's name says it holds a
// secret, as the CLI Agent Spec's F-051 lists them — *_KEY, *_SECRET,
// *_TOKEN, *_PASSWORD, *_PASS, API_*, AUTH_* — or as [SecretName] finds.
// A diagnostic dump of the environment shows such a value as [Redacted].
func SecretEnv(name string) bool {
	up := strings.ToUpper(name)
	for _, suffix := range []string{"_KEY", "_SECRET", "_TOKEN", "_PASSWORD", "_PASS"} {
		if strings.HasSuffix(up, suffix) {
			return true
		}
	}
	return strings.HasPrefix(up, "API_") || strings.HasPrefix(up, "AUTH_") || SecretName(name)
}

// SecretHeader reports whether an HTTP header carries credentials:
// Authorization, Proxy-Authorization, Cookie, Set-Cookie, X-Api-Key,
// X-Auth-Token, or any whose name [SecretName] finds secret. A diagnostic
// dump of a request shows its value as [Redacted].
func SecretHeader(name string) bool {
	switch strings.ToLower(name) {
	case "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token":
		return true
	}
	return SecretName(name)
}

// RedactEnv returns environ (KEY=value entries) with the values of secret
// variables, and of high-entropy values, replaced: what --debug may show.
func RedactEnv(environ []string) []string {
	out := make([]string, len(environ))
	for i, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case SecretEnv(k):
			v = Redacted
		default:
			if m, ok := MaskValue(v, false); ok {
				v = m // a summary: [JWT: sub=…]
			} else {
				v = secret.Shapes(v, Redacted) // DATABASE_URL's password, a key in a variable of any name
			}
		}
		out[i] = k + "=" + v
	}
	return out
}

// ColorOff reports whether the environment turns colour off: NO_COLOR set
// (even empty, as no-color.org says), a CI runner (CI, GITHUB_ACTIONS,
// JENKINS_URL) or TERM=dumb.
func ColorOff(lookup func(string) (string, bool)) bool {
	getenv := func(k string) string { v, _ := lookup(k); return v }
	return noColorSet(lookup) || ciName(getenv) != "" || getenv("TERM") == "dumb"
}

func noColorSet(lookup func(string) (string, bool)) bool {
	_, set := lookup("NO_COLOR")
	return set
}

// ciName returns the first variable set that names a CI runner, or "".
func ciName(getenv func(string) string) string {
	for _, name := range [...]string{"CI", "GITHUB_ACTIONS", "JENKINS_URL"} {
		if getenv(name) != "" {
			return name
		}
	}
	return ""
}
