package hostguard_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/duet-cli/duet/internal/hostguard"
)

func TestAllowed(t *testing.T) {
	for _, tc := range []struct {
		host string
		want bool
	}{
		{"127.0.0.1:8080", true},
		{"127.0.0.1", true},
		{"[::1]:8080", true},
		{"192.168.1.20:9000", true},
		{"localhost:8080", true},
		{"LOCALHOST.", true},
		{"app.localhost:3000", true},
		{"devbox:8080", true}, // this machine's name
		{"evil.example:8080", false},
		{"evil.example", false},
		{"localhost.evil.example", false},
		{"127.0.0.1.nip.io", false},
		{"", false},
	} {
		if got := hostguard.Allowed(tc.host, "devbox"); got != tc.want {
			t.Errorf("Allowed(%q) = %v, want %v", tc.host, got, tc.want)
		}
	}
}

func ExampleHandler() {
	h := hostguard.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "served") }))
	for _, host := range []string{"127.0.0.1:8080", "rebound.example:8080"} {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "http://"+host+"/", nil)
		h.ServeHTTP(w, r)
		fmt.Println(host, w.Code)
	}
	// Output:
	// 127.0.0.1:8080 200
	// rebound.example:8080 421
}
