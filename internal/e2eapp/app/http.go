package app

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/nethttp"
)

// reply is a service's answer: its status, headers and at most 1 MiB of
// its body.
type reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// httpDo sends a request through Duet's HTTP client (package nethttp: the
// caller's proxies and CA bundle, the command's time limit) with header,
// and returns the reply. A URL that cannot be requested is the caller's
// invalid --url.
func httpDo(ctx context.Context, method, url string, body io.Reader, header http.Header) (reply, error) {
	client, err := nethttp.Client(ctx)
	if err != nil {
		return reply{}, err
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return reply{}, envelope.Validationf("INVALID_URL", "%v", err).WithField("url")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: raw}, err
}

// statusLine is an HTTP status as a response's status line gives it.
func statusLine(status int) string { return fmt.Sprintf("%d %s", status, http.StatusText(status)) }
