package conformance

import (
	"context"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestDNSRecorder asks Go's own resolver for a name through the sandbox's
// DNS recorder: the question is recorded, and the answer is a refusal that
// comes at once rather than a timeout.
func TestDNSRecorder(t *testing.T) {
	s, err := makeSandbox()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.dns, s.dnsDone = pc, make(chan struct{})
	go s.serveDNS(pc)

	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return new(net.Dialer).DialContext(ctx, "udp", pc.LocalAddr().String())
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if addrs, err := r.LookupHost(ctx, "telemetry.example.com."); err == nil || ctx.Err() != nil {
		t.Fatalf("LookupHost = %v, %v; want a refusal before the deadline", addrs, err)
	}
	if got := s.ProxyRequests(); !slices.Contains(got, "DNS telemetry.example.com.") {
		t.Errorf("recorded %q, want the question for telemetry.example.com.", got)
	}
}

func TestDNSQuestion(t *testing.T) {
	query := []byte{
		0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, // id, RD, one question
		3, 'a', 'p', 'i', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 0, 0, 1, 0, 1, // api.example. A IN
	}
	tests := []struct {
		name     string
		msg      []byte
		want     string
		wantOK   bool
		wantTail int
	}{
		{"query", query, "api.example.", true, len(query)},
		{"trailing EDNS record", append(slices.Clone(query), 0, 0, 41, 4, 208), "api.example.", true, len(query)},
		{"short header", query[:11], "", false, 0},
		{"a response", append([]byte{0x12, 0x34, 0x81}, query[3:]...), "", false, 0},
		{"no question", append(append(slices.Clone(query[:4]), 0, 0), query[6:]...), "", false, 0},
		{"cut in a label", query[:16], "", false, 0},
		{"no type and class", query[:len(query)-2], "", false, 0},
		{"a compression pointer", append(slices.Clone(query[:12]), 0xc0, 12, 0, 1, 0, 1), "", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, end, ok := question(tt.msg)
			if got != tt.want || ok != tt.wantOK || end != tt.wantTail {
				t.Errorf("question = %q, %d, %v; want %q, %d, %v", got, end, ok, tt.want, tt.wantTail, tt.wantOK)
			}
		})
	}
	want := []byte{0x12, 0x34, 0x81, 0x85, 0, 1, 0, 0, 0, 0, 0, 0}
	if diff := cmp.Diff(want, refusal(query)[:12]); diff != "" {
		t.Errorf("refusal header (-want +got):\n%s", diff)
	}
}
