package nethttp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/duet-cli/duet/nethttp"
)

// A command's handler sends its requests with the invocation's client: the
// proxy, CA bundle and timeout are the invocation's, with no code of its own.
func ExampleClient() {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "pong")
	}))
	defer server.Close()

	ctx := context.Background() // in a handler: the context it is given
	client, err := nethttp.Client(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, server.URL, nil)
	resp, err := client.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(body))
	// Output: 200 pong
}
