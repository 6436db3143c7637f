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
