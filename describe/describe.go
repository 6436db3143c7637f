// Package describe renders a whole command tree for agents: the manifest that
// `describe` prints (every command by dot path, with an etag), and an AGENTS.md
// written from the same tree.
package describe

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/duet-cli/duet/schema"
)

// Manifest is the whole tree as `describe` prints it: the CLI Agent Spec's
// ManifestResponse, with a flat map from dot path to command document.
type Manifest struct {
	SchemaVersion    string                `json:"schema_version"`
	Tool             string                `json:"tool"`
	FrameworkVersion string                `json:"framework_version"`
	Etag             string                `json:"etag"`
	Commands         map[string]schema.Doc `json:"commands"`
}

// New builds the manifest of root's tree as seen by an agent (agent true) or a
// person: commands marked for the other audience and hidden commands are left
// out. version is the tool's version.
func New(root *schema.Command, version string, agent bool) Manifest {
	m := Manifest{
		SchemaVersion:    schema.DocVersion,
		Tool:             root.Name,
		FrameworkVersion: version,
		Commands:         map[string]schema.Doc{},
	}
	var walk func(c *schema.Command)
	walk = func(c *schema.Command) {
		if c.Hidden || !c.VisibleTo(agent) {
			return
		}
		m.Commands[c.DotPath()] = c.Document(agent)
		for _, s := range c.Commands {
			walk(s)
		}
	}
	walk(root)
	m.Etag = Etag(m)
	return m
}

// Etag is a stable hash of the manifest's content, the etag excluded: it
// changes only when a command, flag or declaration changes.
func Etag(m Manifest) string {
	m.Etag = ""
	raw, err := json.Marshal(m)
	if err != nil {
		// A manifest is made of strings, numbers and schema maps parsed from JSON.
		panic("describe: encode manifest: " + err.Error())
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:12])
}
