package conformance

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestDNSRecorder asks for names through one DNS recorder shared by two
// checks, from processes of their runs (this test binary again, carrying
// a run's tag) and from a process of neither: each question is recorded by
// the check whose run asked it, the unknown asker's by both, and the answer
// is a refusal that comes at once rather than a timeout.
func TestDNSRecorder(t *testing.T) {
	if addr := os.Getenv("DUET_TEST_DNS_ASK"); addr != "" {
		name := os.Getenv("DUET_TEST_DNS_NAME")
		if err := lookup(addr, name); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if runtime.GOOS != "linux" {
		t.Skip("the asker is found in /proc, which only Linux has")
	}
	rec := &dnsRecorder{addr: "127.0.0.1:0"}
	var checks []*probeSandbox
	for range 2 {
		s, err := makeSandbox()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		rec.join(s)
		defer rec.leave(s)
		checks = append(checks, s)
	}
	addr := rec.pc.LocalAddr().String()
	for i, s := range checks {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDNSRecorder$")
		cmd.Env = append(os.Environ(), "DUET_TEST_DNS_ASK="+addr, fmt.Sprintf("DUET_TEST_DNS_NAME=run%d.example.", i), runTagEnv+"="+s.id+".r1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("asking as a run of check %d: %v\n%s", i, err, out)
		}
	}
	if err := lookup(addr, "nobody.example."); err != nil {
		t.Fatal(err)
	}
	for i, s := range checks {
		// A resolver asks more than once (A and AAAA, and again).
		got := s.ProxyRequests()
		slices.Sort(got)
		want := []string{"DNS nobody.example.", fmt.Sprintf("DNS run%d.example.", i)}
		if diff := cmp.Diff(want, slices.Compact(got)); diff != "" {
			t.Errorf("check %d recorded (-want +got):\n%s", i, diff)
		}
	}
}

// lookup asks the DNS server at addr for name with Go's own resolver, and
// wants the refusal before the deadline.
func lookup(addr, name string) error {
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return new(net.Dialer).DialContext(ctx, "udp", addr)
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if addrs, err := r.LookupHost(ctx, name); err == nil || ctx.Err() != nil {
		return fmt.Errorf("LookupHost(%s) = %v, %v; want a refusal before the deadline", name, addrs, err)
	}
	return nil
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
