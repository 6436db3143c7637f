// Package secret says which names look like they hold a secret — it is
// envelope.SecretName's rule, kept here so that code which must not miss
// such a name (the audit log's quick test for data that needs no
// redacting) reads the same words — and which values do by their shape,
// whatever they are called (Shapes).
package secret

import (
	"bytes"
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
// key ids, JWTs) and PEM private keys.
var shapes, userinfo compiled

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

// Hinted reports whether b may hold a secret Shapes redacts: a text with
// no hint of one needs no scan.
func Hinted(b []byte) bool {
	for _, h := range hints {
		if bytes.Contains(b, []byte(h)) {
			return true
		}
	}
	return false
}

// hints are what every shape Shapes redacts contains.
var hints = [...]string{"://", "ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_", "sk-", "xox", "AKIA", "ASIA", "eyJ", "-----BEGIN"}

// Shapes returns s with every secret its shape gives away replaced by
// mask: a URL's password (the user stays), and the tokens and keys above.
// A string without a hint of one is returned as it is, unscanned.
func Shapes(s, mask string) string {
	if !Hinted([]byte(s)) {
		return s
	}
	if strings.Contains(s, "://") {
		s = userinfo.get(userinfoExpr).ReplaceAllString(s, "${1}"+strings.ReplaceAll(mask, "$", "$$")+"@")
	}
	return shapes.get(shapesExpr).ReplaceAllLiteralString(s, mask)
}
