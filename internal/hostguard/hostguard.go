// Package hostguard keeps a local HTTP server from answering requests a
// browser was tricked into sending by DNS rebinding: a page of evil.example
// whose name now resolves to 127.0.0.1 reaches a loopback server, but its
// requests still name evil.example in their Host header. A server that
// answers only the names it is really reached by — an IP address, localhost,
// this machine's name — answers none of them.
package hostguard

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"strings"
)

// Code is the error code of a refused request.
const Code = "HOST_REFUSED"

// Handler serves next the requests whose Host is an IP address (what a
// rebinding page cannot name: its Host is its own name), localhost or a
// name under .localhost, or this machine's host name; it refuses the others
// with 421 Misdirected Request and an envelope saying so.
func Handler(next http.Handler) http.Handler {
	own, _ := os.Hostname()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !Allowed(r.Host, own) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusMisdirectedRequest)
			json.NewEncoder(w).Encode(map[string]any{"ok": false, "data": nil, "warnings": []string{},
				"error": map[string]any{"code": Code, "retryable": false,
					"message": "this server answers requests addressed to its IP address, localhost or " + own + " only, not " + r.Host}})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Allowed reports whether host (a Host header: a name or address, with or
// without a port) is one a local server answers; own is this machine's
// name.
func Allowed(host, own string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.ToLower(strings.Trim(name, "[]")), ".")
	switch {
	case name == "":
		return false
	case net.ParseIP(name) != nil:
		return true
	case name == "localhost", strings.HasSuffix(name, ".localhost"):
		return true
	}
	return own != "" && strings.EqualFold(name, own)
}
