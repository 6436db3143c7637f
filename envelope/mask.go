package envelope

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/duet-cli/duet/internal/jsonw"
)

// High-entropy strings — tokens, keys, certificates — cost an agent many
// tokens, tell it nothing it can read, and are secrets it may repeat. In
// JSON output they are replaced by a summary unless --unmask is given (the
// CLI Agent Spec's F-058): a JWT by its subject and expiry, base64 by its
// size, a declared secret field by its first characters.

// minBase64 is the shortest run of base64 the spec counts as high-entropy.
const minBase64 = 40

// minEntropy is the Shannon entropy, in bits per character, below which a
// base64-shaped string is taken for words (a long identifier, a path)
// rather than encoded bytes: random base64 of 40 characters or more
// measures 4.7 or above, camel-case identifiers under 4.2.
const minEntropy = 4.4

// MaskValue returns the summary that replaces s in JSON output, and true, when
// s is a high-entropy value: a JWT, or at least 40 characters of base64 that
// look like encoded bytes (mixed case and digits, dense). declared masks s
// whatever it looks like, as a field declared to hold a secret is.
func MaskValue(s string, declared bool) (string, bool) {
	if m, ok := maskJWT(s); ok {
		return m, true
	}
	if n, ok := base64Bytes(s); ok {
		return "[BASE64: " + strconv.Itoa(n) + " bytes]", true
	}
	if declared && s != "" {
		keep := min(8, len(s)/2)
		return "[KEY: " + s[:keep] + "...]", true
	}
	return "", false
}

// maskJWT summarises a JSON Web Token: three base64url parts whose first
// decodes to a header naming its algorithm.
func maskJWT(s string) (string, bool) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 || !strings.HasPrefix(s, "eyJ") {
		return "", false
	}
	for _, p := range parts {
		if p == "" || !allIn(p, isBase64URL) {
			return "", false
		}
	}
	var header struct {
		Alg *string `json:"alg"`
	}
	if raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[0], "=")); err != nil || json.Unmarshal(raw, &header) != nil || header.Alg == nil {
		return "", false
	}
	var claims struct {
		Sub any      `json:"sub"`
		Exp *float64 `json:"exp"`
	}
	if raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "=")); err == nil {
		_ = json.Unmarshal(raw, &claims) // a token whose claims are not JSON is still a token
	}
	var about []string
	switch sub := claims.Sub.(type) {
	case string:
		about = append(about, "sub="+sub)
	case float64:
		about = append(about, "sub="+strconv.FormatFloat(sub, 'f', -1, 64))
	}
	if claims.Exp != nil && !math.IsInf(*claims.Exp, 0) && !math.IsNaN(*claims.Exp) {
		about = append(about, "exp="+time.Unix(int64(*claims.Exp), 0).UTC().Format(time.RFC3339))
	}
	if len(about) == 0 {
		return "[JWT]", true
	}
	return "[JWT: " + strings.Join(about, ", ") + "]", true
}

// base64Bytes reports how many bytes s encodes, when s is base64 of at
// least 40 characters that reads as encoded bytes: hex (a hash, an id an
// agent needs), anything without upper case, lower case and digits, a path
// and anything sparse are left alone.
func base64Bytes(s string) (int, bool) {
	body := strings.TrimRight(s, "=")
	if len(body) < minBase64 || len(s)-len(body) > 2 || s[0] == '/' || !allIn(body, isBase64) {
		return 0, false
	}
	var upper, lower, digit bool
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	if !upper || !lower || !digit || entropy(body) < minEntropy {
		return 0, false
	}
	enc := base64.RawStdEncoding
	if len(body) != len(s) {
		enc = base64.StdEncoding
	}
	raw, err := enc.DecodeString(s)
	if err != nil {
		return 0, false
	}
	return len(raw), true
}

// entropy is s's Shannon entropy in bits per byte.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	var h float64
	n := float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

func isBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/'
}

func isBase64URL(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '='
}

func allIn(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

// maskJSON returns compact JSON raw with every high-entropy string value
// replaced by its summary, and the values of the declared fields (by key,
// at any depth, strings in an array under the key too) whatever they hold.
// Keys are never masked. raw is returned as it is when nothing is masked.
func maskJSON(raw []byte, declared []string) []byte {
	if !mayMask(raw, declared) {
		return raw
	}
	return replaceStrings(raw, func(key string, tok []byte) (string, bool) {
		isDeclared := slices.Contains(declared, key)
		if !isDeclared && len(tok) < minBase64+2 && !(len(tok) > 5 && string(tok[1:4]) == "eyJ") {
			return "", false // too short to be a key, and not a JWT: not worth decoding
		}
		var s string
		if json.Unmarshal(tok, &s) != nil {
			return "", false
		}
		return MaskValue(s, isDeclared)
	})
}

// replaceStrings returns compact JSON raw with each string value for which
// replace returns a replacement written in its place; replace gets the key
// the value is under (for a value in an array, the array's key) and the
// value's encoded token. Keys are never replaced. raw is returned as it is
// when nothing is.
func replaceStrings(raw []byte, replace func(key string, tok []byte) (string, bool)) []byte {
	var out []byte // nil until the first replacement
	from := 0
	keys := []string{""} // the key each open object is at, innermost last
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '{':
			keys = append(keys, "")
		case '}':
			if len(keys) > 1 {
				keys = keys[:len(keys)-1]
			}
		case '"':
			end := stringEnd(raw, i)
			tok := raw[i : end+1]
			if end+1 < len(raw) && raw[end+1] == ':' { // a key
				k := string(tok[1 : len(tok)-1])
				if bytes.IndexByte(tok, '\\') >= 0 { // escaped: decode it
					_ = json.Unmarshal(tok, &k)
				}
				keys[len(keys)-1] = k
			} else if m, ok := replace(keys[len(keys)-1], tok); ok {
				out = append(out, raw[from:i]...)
				out = jsonw.String(out, m)
				from = end + 1
			}
			i = end
		}
	}
	if out == nil {
		return raw
	}
	return append(out, raw[from:]...)
}

// stringEnd returns the index of the quote that closes the JSON string
// opened at start.
func stringEnd(raw []byte, start int) int {
	for j := start + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(raw) - 1
}

// mayMask is a quick look for anything maskJSON could replace: a declared
// field, the start of a JWT, or a long enough run of base64.
func mayMask(raw []byte, declared []string) bool {
	if len(declared) > 0 {
		return true
	}
	run := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == 'e' && i+2 < len(raw) && raw[i+1] == 'y' && raw[i+2] == 'J' {
			return true
		}
		if isBase64(c) {
			if run++; run >= minBase64 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// maskText returns s with each high-entropy word in it — a JWT, a run of
// base64 that reads as encoded bytes — replaced by its summary, and the
// text around it kept: a program's stderr stays readable, its tokens do
// not (REQ-F-035 for error.context). A word is a run of the characters of
// base64, base64url and a JWT's dots; a full stop ending it is the
// sentence's, not the token's.
func maskText(s string) string {
	if !mayMask([]byte(s), nil) {
		return s
	}
	var b []byte // nil until the first replacement
	from := 0
	for i := 0; i < len(s); {
		if !isWordByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		word := strings.TrimRight(s[i:j], ".")
		for _, r := range maskWord(word) {
			b = append(append(b, s[from:i+r.at]...), r.summary...)
			from = i + r.at + r.n
		}
		i = j
	}
	if b == nil {
		return s
	}
	return string(append(b, s[from:]...))
}

// replacement is a high-entropy stretch of a word: n bytes at at, and what
// stands for them.
type replacement struct {
	at, n   int
	summary string
}

// maskWord finds the high-entropy stretches of one word: a JWT from its
// "eyJ" to the word's end (after a prefix such as "token="), else each run
// of base64 in it (with its padding).
func maskWord(w string) []replacement {
	if k := strings.Index(w, "eyJ"); k >= 0 {
		if m, ok := maskJWT(w[k:]); ok {
			return []replacement{{k, len(w) - k, m}}
		}
	}
	var out []replacement
	for i := 0; i < len(w); {
		if !isBase64(w[i]) {
			i++
			continue
		}
		j := i
		for j < len(w) && isBase64(w[j]) {
			j++
		}
		for pad := 0; pad < 2 && j < len(w) && w[j] == '='; pad++ {
			j++
		}
		if n, ok := base64Bytes(w[i:j]); ok {
			out = append(out, replacement{i, j - i, "[BASE64: " + strconv.Itoa(n) + " bytes]"})
		}
		i = j
	}
	return out
}

func isWordByte(c byte) bool { return isBase64URL(c) || c == '+' || c == '/' || c == '.' }

// branchKeys are the members of an external error.context an agent
// branches on: the framework's own facts, never masked.
var branchKeys = []string{"exit_code", "line", "code", "retryable", "upstream_exit_code"}

// maskTextJSON returns compact JSON raw with the high-entropy words of
// every string value masked (see maskText), but those under a key an agent
// branches on (branchKeys). Keys are never masked.
func maskTextJSON(raw []byte) []byte {
	if !mayMask(raw, nil) {
		return raw
	}
	return replaceStrings(raw, func(key string, tok []byte) (string, bool) {
		var s string
		if slices.Contains(branchKeys, key) || json.Unmarshal(tok, &s) != nil {
			return "", false
		}
		m := maskText(s)
		return m, m != s
	})
}
