package adapters

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/duet-cli/duet/envelope"
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

// auditData returns the invocation's data for its audit entry, redacted,
// or nil when there is none or it is too large.
func (inv *invocation) auditData(secrets []string) json.RawMessage {
	if inv.out == nil {
		return nil
	}
	v, ok := inv.out.Recorded()
	if !ok || v == nil {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil || len(raw) > maxAuditData {
		return nil
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
		return v
	}
	return v
}
