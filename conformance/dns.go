package conformance

import (
	"encoding/binary"
	"errors"
	"net"
	"strings"
)

// dnsAddr is where an isolated check's /etc/resolv.conf sends every DNS
// question (see Isolate).
const dnsAddr = "127.0.0.1:53"

// startDNS answers DNS on loopback where the check is isolated: a target
// that reaches for the network without the proxy asks for an address
// first, and the question is recorded beside the proxy's requests as
// "DNS <name>". Outside a private network namespace, or when another check
// in the same process holds the port, it does nothing.
func (s *probeSandbox) startDNS() {
	if !currentIsolation().Network {
		return
	}
	pc, err := net.ListenPacket("udp", dnsAddr)
	if err != nil {
		return
	}
	s.dns = pc
	s.dnsDone = make(chan struct{})
	go s.serveDNS(pc)
}

// serveDNS records the question of every query that arrives on pc and
// refuses it, until pc is closed.
func (s *probeSandbox) serveDNS(pc net.PacketConn) {
	defer close(s.dnsDone)
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
		s.mu.Lock()
		s.requests = append(s.requests, "DNS "+name)
		s.mu.Unlock()
		_, _ = pc.WriteTo(refusal(buf[:end]), from)
	}
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
