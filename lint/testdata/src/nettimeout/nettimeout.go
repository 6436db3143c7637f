// Package nettimeout is what duetvet's nettimeout analyzer is tested on: each line it
// must report carries a want comment.
package nettimeout

import (
	"context"
	"net"
	"net/http"
	"time"
)

func network(ctx context.Context) {
	_, _ = http.Get("http://x")                                    // want `http.Get uses http.DefaultClient`
	_, _ = http.NewRequest("GET", "http://x", nil)                 // want `http.NewRequest has no context`
	_, _ = http.NewRequestWithContext(ctx, "GET", "http://x", nil) // fine
	_ = http.DefaultClient                                         // want `http.DefaultClient has no timeout`
	_ = &http.Client{}                                             // want `an http.Client without a Timeout`
	_ = &http.Client{Timeout: time.Second}
	_, _ = net.Dial("tcp", "x:1") // want `net.Dial has no timeout`
	var d net.Dialer
	_, _ = d.DialContext(ctx, "tcp", "x:1")
}
