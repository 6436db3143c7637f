package nethttp

import (
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/duet-cli/duet/envelope"
)

// debugTransport traces each request and its response under --debug (the
// CLI Agent Spec's O-008): method, URL, headers, status and time. Values
// of credential headers (Authorization, Cookie, X-Api-Key ...:
// envelope.SecretHeader) show as [REDACTED] and a URL's password as xxxxx (F-051);
// bodies are never shown.
type debugTransport struct {
	next http.RoundTripper
	log  *slog.Logger
}

func (d *debugTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	d.log.DebugContext(ctx, "http request", slog.String("method", req.Method), slog.String("url", redactURL(req.URL)), headerAttrs(req.Header))
	start := time.Now()
	resp, err := d.next.RoundTrip(req)
	ms := time.Since(start).Milliseconds()
	if err != nil {
		d.log.DebugContext(ctx, "http error", slog.String("url", redactURL(req.URL)), slog.String("error", err.Error()), slog.Int64("duration_ms", ms))
		return resp, err
	}
	d.log.DebugContext(ctx, "http response", slog.String("url", redactURL(req.URL)), slog.Int("status", resp.StatusCode), slog.Int64("duration_ms", ms), headerAttrs(resp.Header))
	return resp, nil
}

// headerAttrs groups a request's or response's headers, credentials
// redacted.
func headerAttrs(h http.Header) slog.Attr {
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	slices.Sort(names)
	attrs := make([]any, 0, len(names))
	for _, name := range names {
		v := h.Get(name)
		if envelope.SecretHeader(name) {
			v = envelope.Redacted
		}
		attrs = append(attrs, slog.String(name, v))
	}
	return slog.Group("headers", attrs...)
}

// redactURL is u with its password, if any, shown as xxxxx.
func redactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	return u.Redacted()
}
