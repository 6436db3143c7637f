// Package secret says which names look like they hold a secret — it is
// envelope.SecretName's rule, kept here so that code which must not miss
// such a name (the audit log's quick test for data that needs no
// redacting) reads the same words — and which values do by their shape,
// whatever they are called (Shapes).
package secret

import (
	"bytes"
	"math"
	"regexp"
	"strings"
	"sync"
)

// inside are the words a secret name holds anywhere, in lower case;
// keyWord it must hold as a word of its own.
var inside = [...]string{"token", "secret", "password", "passwd", "credential", "auth", "apikey"}

const keyWord = "key"

// Words yields every word a secret name contains, in lower case: a text
// that holds none of them holds no secret name.
func Words(yield func(string) bool) {
	for _, w := range inside {
		if !yield(w) {
			return
		}
	}
	yield(keyWord)
}

// Name reports whether name looks like it holds a secret: it contains
// token, secret, password, passwd, credential, auth or apikey, in any case,
// or has "key" as a word ("api-key", "KEY", not "monkey"). Plain string
// tests rather than a regular expression, because the lifecycle asks once
// per flag at every start.
func Name(name string) bool {
	lower := strings.ToLower(name)
	for _, w := range inside {
		if strings.Contains(lower, w) {
			return true
		}
	}
	for _, word := range strings.FieldsFunc(lower, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		if word == keyWord {
			return true
		}
	}
	return false
}

// The shapes of secrets a value shows whatever its name: a URL's password,
// and the tokens of services that mark theirs (GitHub's ghp_/gho_/ghs_/
// ghu_/ghr_ and github_pat_, OpenAI-style sk-, Slack's xox?-, AWS access
// key ids, JWTs) and PEM private keys; a value assigned to a secret name
// (API_KEY=…, "password": "…", ?token=…), as a .env, a config file or a
// query string has it; and a word random enough to be a key.
var shapes, userinfo, assigned, words compiled

const (
	shapesExpr = `(?s)` +
		`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?-----END [A-Z0-9 ]*PRIVATE KEY-----` +
		`|\bgh[pousr]_[A-Za-z0-9]{20,}` +
		`|\bgithub_pat_[A-Za-z0-9_]{20,}` +
		`|\bsk-[A-Za-z0-9_-]{16,}` +
		`|\bxox[abposr]-[A-Za-z0-9-]{10,}` +
		`|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b` +
		`|\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+`
	// userinfoExpr is a URL's user:password@, the password its second group.
	userinfoExpr = `([a-zA-Z][a-zA-Z0-9+.-]*://[^:/@\s]*:)([^@\s/]+)@`
	// assignedExpr is the start of name=value or name: value, the name
	// perhaps quoted (JSON, YAML) and the first group; the value follows.
	assignedExpr = `([A-Za-z_][A-Za-z0-9_.-]*)"?\s*[=:]\s*"?`
	// wordsExpr is a run of the characters keys and tokens are made of;
	// not "/", which would make every long path a candidate.
	wordsExpr = `[A-Za-z0-9+_-]{24,}`
)

// compiled is a regular expression compiled the first time it is used, not
// at every start of every app.
type compiled struct {
	once sync.Once
	re   *regexp.Regexp
}

func (c *compiled) get(expr string) *regexp.Regexp {
	c.once.Do(func() { c.re = regexp.MustCompile(expr) })
	return c.re
}

// MayHold reports whether Shapes may redact something in b: a hint of a
// known shape, a word of a secret name, or a random word. A text that
// holds none needs no closer look (the audit log logs it as it is).
func MayHold(b []byte) bool {
	if Hinted(b) || hasSecretWord(string(b)) {
		return true
	}
	if len(b) < minRandom {
		return false
	}
	for _, w := range words.get(wordsExpr).FindAll(b, -1) {
		if Random(string(w)) {
			return true
		}
	}
	return false
}

// Hinted reports whether b may hold a secret of a shape Shapes knows by
// its prefix, or a URL's password; a random word or an assignment to a
// secret name it does not see (MayHold does).
func Hinted(b []byte) bool {
	for _, h := range hints {
		if bytes.Contains(b, []byte(h)) {
			return true
		}
	}
	return false
}

// hints are what every shape Shapes redacts by its prefix contains.
var hints = [...]string{"://", "ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_", "sk-", "xox", "AKIA", "ASIA", "eyJ", "-----BEGIN"}

// Shapes returns s with every secret its shape gives away replaced by
// mask: a URL's password (the user stays), the tokens and keys above, the
// value of an assignment to a secret name (the name stays), and a random
// word (see Random).
func Shapes(s, mask string) string {
	if Hinted([]byte(s)) {
		if strings.Contains(s, "://") {
			s = userinfo.get(userinfoExpr).ReplaceAllString(s, "${1}"+strings.ReplaceAll(mask, "$", "$$")+"@")
		}
		s = shapes.get(shapesExpr).ReplaceAllLiteralString(s, mask)
	}
	if strings.ContainsAny(s, "=:") && hasSecretWord(s) {
		s = maskAssigned(s, mask)
	}
	if len(s) < minRandom {
		return s // too short to hold a random word: not scanned
	}
	return words.get(wordsExpr).ReplaceAllStringFunc(s, func(w string) string {
		if Random(w) {
			return mask
		}
		return w
	})
}

// maskAssigned masks the value of each assignment to a secret name in s.
// Only the value of a secret name is taken: "https://…?token=x" is no
// assignment to https, and its token is found.
func maskAssigned(s, mask string) string {
	var b strings.Builder
	last := 0
	for _, m := range assigned.get(assignedExpr).FindAllStringSubmatchIndex(s, -1) {
		name := s[m[2]:m[3]]
		if m[0] < last || !Name(name) || strings.EqualFold(name, keyWord) {
			continue // "key: status" names no secret
		}
		end := m[1] + strings.IndexFunc(s[m[1]:]+" ", func(r rune) bool { return strings.ContainsRune(" \t\r\n\"'&,;}", r) })
		if value := s[m[1]:end]; value == "" || value == mask || value[0] == '[' || authScheme(value) {
			continue // already masked or described; "Authorization: Bearer <token>" leaves the token to the shapes
		}
		b.WriteString(s[last:m[1]])
		b.WriteString(mask)
		last = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// authScheme reports whether v is an HTTP authentication scheme, the word
// before the credentials rather than the credentials.
func authScheme(v string) bool {
	for _, scheme := range [...]string{"Bearer", "Basic", "Digest", "Token", "Negotiate"} {
		if strings.EqualFold(v, scheme) {
			return true
		}
	}
	return false
}

// hasSecretWord reports whether s holds a word of a secret name.
func hasSecretWord(s string) bool {
	lower := strings.ToLower(s)
	for w := range Words {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// minRandom is the shortest word Random may call random.
const minRandom = 24

// Random reports whether w looks like a generated key or token rather than
// a word, a name or an id: 24 characters or more of letters of both cases
// and digits that change between upper case, lower case and digit at half
// of their neighbours or more (an identifier in camel case changes only
// where its words meet), with at least 4.2 bits of entropy per character.
// Hex (a commit, a digest), UUIDs and ULIDs, which lack a case, are ids,
// and stay.
func Random(w string) bool {
	if len(w) < minRandom {
		return false
	}
	class := func(r rune) int {
		switch {
		case r >= 'A' && r <= 'Z':
			return 1
		case r >= 'a' && r <= 'z':
			return 2
		case r >= '0' && r <= '9':
			return 3
		}
		return 0
	}
	var seen [4]bool
	changes, prev := 0, -1
	counts := map[rune]int{}
	for _, r := range w {
		c := class(r)
		seen[c] = true
		if prev >= 0 && c != prev {
			changes++
		}
		prev = c
		counts[r]++
	}
	if !seen[1] || !seen[2] || !seen[3] || 2*changes < len(w)-1 {
		return false
	}
	n := float64(len(w))
	bits := 0.0
	for _, c := range counts {
		p := float64(c) / n
		bits -= p * math.Log2(p)
	}
	return bits >= 4.2
}
