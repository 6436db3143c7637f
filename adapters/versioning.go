package adapters

import (
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/schema"
)

// commandSchemaVersion is the meta.schema_version of every answer of n
// until its data says otherwise (reshape): the current version of its
// data's shape when it declares one, else the envelope's "1.0". A failure
// of a versioned command so reports the same version as its success, and
// an agent comparing answers sees a change only when the contract changes.
func commandSchemaVersion(n *schema.Command) string {
	if n == nil || !n.Versioned() {
		return envelope.SchemaVersion
	}
	return schema.VersionString(n.DataVersion())
}

// pureAnswer reports whether c asks only for help or the version — or
// names a group, which answers with its help, as the bare tool does —
// which the CLI Agent Spec (F-068) wants answered with no side effect at
// all: not even a line in the audit log.
func pureAnswer(c *call) bool {
	return c != nil && (c.help || c.version || c.node != nil && !c.node.Runnable)
}
