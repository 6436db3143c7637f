package runenv

import (
	"net/url"
	"testing"
)

func TestProxyFor(t *testing.T) {
	env := map[string]string{
		"HTTPS_PROXY": "http://user:pw@proxy.corp:3128",
		"http_proxy":  "proxy.corp:8080",
		"NO_PROXY":    "internal.corp, .svc, 10.0.0.0/8, 192.168.1.7, api.example.com:8443",
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		name     string
		p        Proxy
		url      string
		want     string
		source   string
		wantsErr bool
	}{
		{"https", Proxy{}, "https://api.example.com/x", "http://user:pw@proxy.corp:3128", "HTTPS_PROXY", false},
		{"http lower case, no scheme", Proxy{}, "http://api.example.com/x", "http://proxy.corp:8080", "http_proxy", false},
		{"localhost", Proxy{}, "https://localhost/x", "", "", false},
		{"loopback v6", Proxy{}, "https://[::1]:9/x", "", "", false},
		{"domain and subdomain", Proxy{}, "https://a.internal.corp/x", "", "", false},
		{"domain itself", Proxy{}, "https://internal.corp/x", "", "", false},
		{"leading dot: subdomains only", Proxy{}, "https://svc/x", "http://user:pw@proxy.corp:3128", "HTTPS_PROXY", false},
		{"leading dot subdomain", Proxy{}, "https://db.svc/x", "", "", false},
		{"CIDR", Proxy{}, "https://10.9.8.7/x", "", "", false},
		{"IP", Proxy{}, "https://192.168.1.7/x", "", "", false},
		{"port matches", Proxy{}, "https://api.example.com:8443/x", "", "", false},
		{"port differs", Proxy{}, "https://api.example.com/x", "http://user:pw@proxy.corp:3128", "HTTPS_PROXY", false},
		{"override", Proxy{Override: "socks5://o:1080"}, "https://api.example.com/x", "socks5://o:1080", "--proxy", false},
		{"override still honours NO_PROXY", Proxy{Override: "http://o:1"}, "https://internal.corp/x", "", "", false},
		{"direct", Proxy{Direct: true}, "https://api.example.com/x", "", "", false},
		{"bad override", Proxy{Override: "ftp://o:1"}, "https://api.example.com/x", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.p.lookup = lookup
			u, _ := url.Parse(tt.url)
			got, source, err := tt.p.For(u)
			if (err != nil) != tt.wantsErr || got != tt.want || source != tt.source {
				t.Errorf("For(%s) = %q, %q, %v; want %q, %q, error %v", tt.url, got, source, err, tt.want, tt.source, tt.wantsErr)
			}
		})
	}
}
