// Package secret says which names look like they hold a secret. It is
// envelope.SecretName's rule, kept here so that code which must not miss
// such a name (the audit log's quick test for data that needs no
// redacting) reads the same words.
package secret

import "strings"

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
