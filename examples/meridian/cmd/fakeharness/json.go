package main

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// obj is a JSON object with its keys in the order given (key, value, key,
// value ...), so events read like the real CLIs' ("type" first).
type obj []any

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(o); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(marshal(o[i]))
		b.WriteByte(':')
		b.Write(marshal(o[i+1]))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (o obj) marshal() []byte { return marshal(o) }

// marshal is json.Marshal without HTML escaping, as JSON.stringify and
// serde print it.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("fakeharness: marshal %T: %v", v, err)) // only our own values get here
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// newUUID is a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// randomID is n characters of [0-9A-Za-z].
func randomID(n int) string {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

func isoNow() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

func writeReport(path, report string) error { return os.WriteFile(path, []byte(report), 0o644) }

// workDir is the current directory, as the CLIs report it.
func workDir() string {
	d, _ := os.Getwd()
	return d
}
