package runenv

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// Proxy is how an invocation's HTTP requests find their proxy: --proxy
// (Override) for every request, --no-proxy (Direct) for none, and otherwise
// the environment's HTTPS_PROXY, HTTP_PROXY and NO_PROXY, read as Go's
// net/http reads them (upper case first; requests to localhost and loopback
// addresses are never proxied; NO_PROXY lists hosts, domains, IP addresses
// and CIDR ranges, with an optional port, or "*").
type Proxy struct {
	Override string // --proxy: the proxy for every request
	Direct   bool   // --no-proxy: connect directly, whatever the environment says

	lookup func(string) (string, bool)
}

// NoProxy returns the hosts that bypass a proxy: NO_PROXY's value.
func (p Proxy) NoProxy() string {
	v, _ := p.env("NO_PROXY", "no_proxy")
	return v
}

// For returns the proxy a request to u goes through, "" for none, and where
// that proxy comes from: "--proxy", or the variable that names it.
func (p Proxy) For(u *url.URL) (proxy, source string, err error) {
	if p.Direct || u == nil {
		return "", "", nil
	}
	proxy, source = p.Override, "--proxy"
	if proxy == "" {
		switch u.Scheme {
		case "https":
			proxy, source = p.env("HTTPS_PROXY", "https_proxy")
		case "http":
			proxy, source = p.env("HTTP_PROXY", "http_proxy")
		}
	}
	if proxy == "" || !p.uses(u) {
		return "", "", nil
	}
	parsed, err := ParseProxy(proxy)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", source, err)
	}
	return parsed.String(), source, nil
}

// ParseProxy reads a proxy's URL as net/http does: one without a scheme is
// an HTTP proxy ("proxy.corp:3128"). Credentials may be given in it
// (http://user:pass@proxy.corp:3128).
func ParseProxy(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" {
		if u2, err2 := url.Parse("http://" + s); err2 == nil && u2.Host != "" {
			return u2, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("invalid proxy address %q: %w", s, err)
	}
	switch u.Scheme {
	case "http", "https", "socks5", "socks5h":
	default:
		return nil, fmt.Errorf("invalid proxy address %q: the scheme must be http, https or socks5", s)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("invalid proxy address %q: no host", s)
	}
	return u, nil
}

func (p Proxy) env(names ...string) (value, name string) {
	if p.lookup == nil {
		return "", ""
	}
	for _, n := range names {
		if v, ok := p.lookup(n); ok && v != "" {
			return v, n
		}
	}
	return "", ""
}

// uses reports whether a request to u goes through a proxy: not to
// localhost or a loopback address, and not to a host NO_PROXY names.
func (p Proxy) uses(u *url.URL) bool {
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" {
		return false
	}
	addr, ipErr := netip.ParseAddr(host)
	ip := ipErr == nil
	if ip && addr.IsLoopback() {
		return false
	}
	for _, entry := range strings.Split(p.NoProxy(), ",") {
		entry = strings.ToLower(strings.TrimSpace(entry))
		if entry == "" {
			continue
		}
		if entry == "*" {
			return false
		}
		if prefix, err := netip.ParsePrefix(entry); err == nil {
			if ip && prefix.Contains(addr) {
				return false
			}
			continue
		}
		name, entryPort := entry, ""
		if h, pt, ok := strings.Cut(entry, ":"); ok && !strings.Contains(pt, ":") {
			name, entryPort = h, pt
		}
		if entryPort != "" && entryPort != port {
			continue
		}
		if a, err := netip.ParseAddr(strings.Trim(name, "[]")); err == nil {
			if ip && a == addr {
				return false
			}
			continue
		}
		// A domain matches itself and its subdomains; with a leading
		// "." or "*.", its subdomains only.
		sub := strings.HasPrefix(name, ".") || strings.HasPrefix(name, "*.")
		name = strings.TrimPrefix(strings.TrimPrefix(name, "*"), ".")
		if !sub && host == name || strings.HasSuffix(host, "."+name) {
			return false
		}
	}
	return true
}
