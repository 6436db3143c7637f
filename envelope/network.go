package envelope

import (
	"errors"
	"net/url"
	"reflect"
	"strings"

	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/jsonw"
)

// NetworkContext is what an agent needs to diagnose a failed network
// operation: where it went, through which proxy, with what TLS checking,
// and a shell command that shows the failure again in detail. [As] fills it
// from the error; the lifecycle adds the proxy settings the invocation had,
// which the error does not carry.
type NetworkContext struct {
	URL         string `json:"url"`               // the request's URL, when known
	Address     string `json:"address,omitempty"` // the host:port dialled, when no URL is known
	StatusCode  int    `json:"status_code"`       // the HTTP status of the response, when one came
	ProxyUsed   string `json:"proxy_used"`        // the proxy the request went through; "" for none
	ProxySource string `json:"proxy_source"`      // where that proxy came from: --proxy, HTTPS_PROXY ...
	NoProxy     string `json:"no_proxy"`          // the hosts that bypass proxies (NO_PROXY)
	SSLVerify   bool   `json:"ssl_verify"`        // whether TLS certificates were verified
	Suggestion  string `json:"suggestion"`        // a shell command that diagnoses the failure
}

// MarshalJSON encodes the context as the spec's network_context: url,
// status_code, proxy_used, proxy_source and no_proxy are null, not absent,
// when unknown or unset.
func (n *NetworkContext) MarshalJSON() ([]byte, error) { return n.appendJSON(nil), nil }

func (n *NetworkContext) appendJSON(b []byte) []byte {
	str := func(b []byte, name, v string) []byte {
		b = jsonw.Key(b, name)
		if v == "" {
			return append(b, "null"...)
		}
		return jsonw.String(b, v)
	}
	b = append(b, '{')
	b = str(b, "url", n.URL)
	if n.Address != "" {
		b = jsonw.String(jsonw.Key(b, "address"), n.Address)
	}
	b = jsonw.Key(b, "status_code")
	if n.StatusCode == 0 {
		b = append(b, "null"...)
	} else {
		b = jsonw.Int(b, int64(n.StatusCode))
	}
	b = str(b, "proxy_used", n.ProxyUsed)
	b = str(b, "proxy_source", n.ProxySource)
	b = str(b, "no_proxy", n.NoProxy)
	b = jsonw.Bool(jsonw.Key(b, "ssl_verify"), n.SSLVerify)
	b = jsonw.String(jsonw.Key(b, "suggestion"), n.Suggestion)
	return append(b, '}')
}

// Diagnose sets the suggestion: curl -v, through the proxy when one was
// used, for a URL; nc -vz for an address dialled directly.
func (n *NetworkContext) Diagnose() {
	switch {
	case n.URL != "" && n.ProxyUsed != "":
		n.Suggestion = "curl -v --proxy " + shellQuote(n.ProxyUsed) + " " + shellQuote(n.URL)
	case n.URL != "":
		n.Suggestion = "curl -v " + shellQuote(n.URL)
	case n.Address != "":
		host, port := n.Address, ""
		if i := strings.LastIndexByte(n.Address, ':'); i >= 0 {
			host, port = strings.Trim(n.Address[:i], "[]"), n.Address[i+1:]
		}
		n.Suggestion = strings.TrimSpace("nc -vz " + shellQuote(host) + " " + port)
	}
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,?&#~", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// network adds a network_context to e when err is a failed network
// operation — a *url.Error from net/http, or net's *OpError or *DNSError —
// and gives an otherwise unclassified one its code: CONNECTION_FAILED,
// DNS_LOOKUP_FAILED or TLS_FAILED, all UNAVAILABLE (12). net's types are
// recognised by name, so that this package, which every wrapped app
// starts, does not import net.
func network(e *Error, err error) *Error {
	if e.Code == "CANCELLED" {
		return e
	}
	n := &NetworkContext{SSLVerify: true}
	found, dns, notFound := false, false, false
	var ue *url.Error
	if errors.As(err, &ue) {
		found, n.URL = true, redactURL(ue.URL)
	}
	for x := err; x != nil; x = errors.Unwrap(x) {
		v := reflect.ValueOf(x)
		if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct || v.Elem().Type().PkgPath() != "net" {
			continue
		}
		switch s := v.Elem(); s.Type().Name() {
		case "OpError":
			found = true
			if a, ok := s.FieldByName("Addr").Interface().(interface{ String() string }); ok && n.URL == "" && a.String() != "<nil>" {
				n.Address = a.String()
			}
		case "DNSError":
			found, dns = true, true
			if f := s.FieldByName("IsNotFound"); f.IsValid() && f.Kind() == reflect.Bool {
				notFound = f.Bool()
			}
			if f := s.FieldByName("Name"); f.IsValid() && n.URL == "" && n.Address == "" {
				n.Address = f.String()
			}
		}
	}
	if !found {
		return e
	}
	e.NetworkContext = n
	n.Diagnose()
	if e.Code != "GENERAL_ERROR" {
		return e // a timeout keeps its code
	}
	msg := err.Error()
	var timeout interface{ Timeout() bool }
	switch {
	case errors.As(err, &timeout) && timeout.Timeout():
		e.Code, e.Exit = errcode.Timeout, exitcode.Timeout
	case strings.Contains(msg, "x509: ") || strings.Contains(msg, "tls: "):
		e.Code, e.Exit = "TLS_FAILED", exitcode.Unavailable
		e.WithoutRetry()
		e.FixRequired = "the server's certificate was not accepted: check the CA bundle (SSL_CERT_FILE, REQUESTS_CA_BUNDLE) and the proxy"
	case dns:
		e.Code, e.Exit = "DNS_LOOKUP_FAILED", exitcode.Unavailable
		if notFound {
			e.WithoutRetry()
			e.FixRequired = "the host name does not resolve: check it, and the DNS and proxy settings"
		}
	default:
		e.Code, e.Exit = "CONNECTION_FAILED", exitcode.Unavailable
	}
	return e
}

// redactURL drops a URL's password, which an error must not repeat.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}
