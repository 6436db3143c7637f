package nethttp_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/duet-cli/duet/nethttp"
	"github.com/duet-cli/duet/runenv"
)

// TestReach: an endpoint that listens is reached, directly or through a
// proxy that accepts CONNECT; a closed port and a refusing proxy are errors
// that say which.
func TestReach(t *testing.T) {
	open := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(open.Close)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + closed.Addr().String()
	closed.Close()

	connect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect || r.Host != "api.example.com:443" {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(connect.Close)

	for _, tt := range []struct {
		name, url string
		proxy     runenv.Proxy
		env       map[string]string
		want      string // "" for success, else in the error
	}{
		{name: "direct", url: open.URL},
		{name: "closed port", url: closedURL, want: "cannot connect to"},
		{name: "not a URL", url: "::", want: "is not a URL"},
		{name: "through a proxy", url: "https://api.example.com", env: map[string]string{"HTTPS_PROXY": connect.URL}},
		{name: "a refusing proxy", url: "https://other.example.com", env: map[string]string{"HTTPS_PROXY": connect.URL}, want: "refused"},
		{name: "NO_PROXY goes direct", url: open.URL, env: map[string]string{"HTTP_PROXY": closedURL, "NO_PROXY": "127.0.0.1"}},
	} {
		err := nethttp.Reach(invocation(tt.env, tt.proxy), tt.url)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: %v, want an error saying %q", tt.name, err, tt.want)
		}
	}
}
