package adapters

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/secret"
)

// The answer's data in the audit log (the CLI Agent Spec's F-034): what a
// command answered is recorded with it, its fields whose names look secret
// (password, api_key, Token ...: envelope.SecretName, any case, at any
// depth) redacted, and the values of sensitive flags removed wherever they
// appear. Redaction is the log's alone: the answer on stdout is as the
// command made it. Data larger than maxAuditData is left out, to keep each
// line small; the log's size is bounded anyway (auditrotate.go).

// maxAuditData is the largest encoded data the audit log records.
const maxAuditData = 4 << 10

// auditData returns the answer's data (raw: as data writes it) for its
// audit entry, redacted, or nil when there is none or it is too large.
func auditData(raw json.RawMessage, secrets []string) json.RawMessage {
	if raw == nil || string(raw) == "null" || len(raw) > maxAuditData {
		return nil
	}
	if !mayNeedRedacting(raw, secrets) {
		return raw // as encoded: nothing in it could be redacted
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers as they were
	var tree any
	if dec.Decode(&tree) != nil {
		return nil
	}
	out, err := json.Marshal(redactData(tree, secrets))
	if err != nil {
		return nil
	}
	return out
}

// redactData returns v with the values of secret-named fields redacted and
// the secrets removed from its strings.
func redactData(v any, secrets []string) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if envelope.SecretName(k) {
				v[k] = envelope.Redacted
			} else {
				v[k] = redactData(x, secrets)
			}
		}
	case []any:
		for i, x := range v {
			v[i] = redactData(x, secrets)
		}
	case string:
		for _, s := range secrets {
			if s != "" {
				v = strings.ReplaceAll(v, s, envelope.Redacted)
			}
		}
		return secret.Shapes(v, envelope.Redacted)
	}
	return v
}

// mayNeedRedacting reports whether raw holds a secret, something
// secret.Shapes would mask, or a field whose name envelope.SecretName calls
// secret (every such name contains one of secret.Words). Most answers have
// none, and are logged without being decoded and encoded again (which
// sorts their objects' keys).
func mayNeedRedacting(raw []byte, secrets []string) bool {
	for _, s := range secrets {
		if s == "" {
			continue
		}
		if strings.ContainsFunc(s, escaped) || bytes.Contains(raw, []byte(s)) {
			return true // encoded, the secret may not read as itself
		}
	}
	return secret.MayHold(raw) // a URL with a password, a token, a secret's name, a random word
}

// escaped reports whether encoding/json may write r otherwise than as
// itself in a string.
func escaped(r rune) bool {
	return r < 0x20 || r > 0x7e || r == '"' || r == '\\' || r == '<' || r == '>' || r == '&'
}
