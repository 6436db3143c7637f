package conformance

import (
	"encoding/binary"
	"errors"
	"net"
	"strings"
	"sync"
)

// dnsAddr is where an isolated check's /etc/resolv.conf sends every DNS
// question (see Isolate).
const dnsAddr = "127.0.0.1:53"

// startDNS joins the process's DNS recorder where the check is isolated:
// a target that reaches for the network without the proxy asks for an
// address first, and the question is recorded beside the proxy's requests
// as "DNS <name>". Outside a private network namespace it does nothing.
func (s *probeSandbox) startDNS() {
	if currentIsolation().Network {
		recorder.join(s)
	}
}

// recorder is the process's one DNS listener. The port is the process's,
// and checks may run at once (duet-check's two passes): each question goes
// to the check whose run asked it, known by the asking process's run tag.
var recorder dnsRecorder

type dnsRecorder struct {
	addr string // where to listen; dnsAddr when empty

	mu     sync.Mutex
	pc     net.PacketConn
	done   chan struct{}
	checks map[string]*probeSandbox // by id, the prefix of their runs' tags
}

// join starts recording for s, listening first if no check is.
func (d *dnsRecorder) join(s *probeSandbox) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pc == nil {
		addr := d.addr
		if addr == "" {
			addr = dnsAddr
		}
		pc, err := net.ListenPacket("udp", addr)
		if err != nil {
			return
		}
		d.pc, d.done, d.checks = pc, make(chan struct{}), map[string]*probeSandbox{}
		go d.serve(pc, d.done)
	}
	d.checks[s.id] = s
}

// leave stops recording for s, and listening once no check is left.
func (d *dnsRecorder) leave(s *probeSandbox) {
	d.mu.Lock()
	if _, ok := d.checks[s.id]; !ok {
		d.mu.Unlock()
		return
	}
	delete(d.checks, s.id)
	pc, done := d.pc, d.done
	if len(d.checks) == 0 {
		d.pc = nil
	} else {
		pc = nil
	}
	d.mu.Unlock()
	if pc != nil {
		pc.Close()
		<-done
	}
}

// serve records the question of every query that arrives on pc and
// refuses it, until pc is closed.
func (d *dnsRecorder) serve(pc net.PacketConn, done chan struct{}) {
	defer close(done)
	buf := make([]byte, 1500)
	for {
		n, from, err := pc.ReadFrom(buf)
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			continue
		}
		name, end, ok := question(buf[:n])
		if !ok {
			continue
		}
		// The asker waits for the answer, its socket still open: it is
		// found before the answer goes.
		port := 0
		if a, ok := from.(*net.UDPAddr); ok {
			port = a.Port
		}
		for _, s := range d.askedBy(port) {
			s.mu.Lock()
			s.requests = append(s.requests, "DNS "+name)
			s.mu.Unlock()
		}
		_, _ = pc.WriteTo(refusal(buf[:end]), from)
	}
}

// askedBy is the check whose run asked from port; every check running,
// when the asker is not known. The asker is looked for (a walk of /proc)
// only when more than one check could have asked.
func (d *dnsRecorder) askedBy(port int) []*probeSandbox {
	d.mu.Lock()
	several := len(d.checks) > 1
	d.mu.Unlock()
	tag := ""
	if several {
		tag = runTagOf(port)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	id, _, _ := strings.Cut(tag, ".")
	if s, ok := d.checks[id]; ok {
		return []*probeSandbox{s}
	}
	var all []*probeSandbox
	for _, s := range d.checks {
		all = append(all, s)
	}
	return all
}

// question reads the name asked for in the first question of a DNS query,
// and where that question ends.
func question(msg []byte) (name string, end int, ok bool) {
	const header = 12
	if len(msg) < header || msg[2]&0x80 != 0 || binary.BigEndian.Uint16(msg[4:]) == 0 {
		return "", 0, false // too short, a response, or no question
	}
	var labels []string
	i := header
	for {
		if i >= len(msg) {
			return "", 0, false
		}
		n := int(msg[i])
		i++
		if n == 0 {
			break
		}
		if n > 63 || i+n > len(msg) { // a pointer, which no question starts with, or cut short
			return "", 0, false
		}
		labels = append(labels, string(msg[i:i+n]))
		i += n
	}
	if i+4 > len(msg) { // type and class
		return "", 0, false
	}
	return strings.Join(labels, ".") + ".", i + 4, true
}

// refusal is the answer to query (its header and first question): the same
// id and question, marked a response, recursion available, REFUSED.
func refusal(query []byte) []byte {
	r := append([]byte(nil), query...)
	r[2] = r[2]&0x79 | 0x80 // QR; keep the opcode and RD
	r[3] = 0x80 | 5         // RA, RCODE REFUSED
	binary.BigEndian.PutUint16(r[4:], 1)
	clear(r[6:12]) // no answers, authorities or additionals
	return r
}
