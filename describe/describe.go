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

	raw []byte // the encoding made while computing the etag
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
	commands := encodeCommands(m.Commands)
	m.Etag = etag(m, commands)
	m.raw = m.encode(commands)
	return m
}

// MarshalJSON writes the manifest. A manifest from [New] was encoded once,
// to compute its etag, and is not encoded again.
func (m Manifest) MarshalJSON() ([]byte, error) {
	if m.raw != nil {
		return m.raw, nil
	}
	return m.encode(encodeCommands(m.Commands)), nil
}

func (m Manifest) encode(commands []byte) []byte {
	head, err := json.Marshal(struct {
		SchemaVersion    string `json:"schema_version"`
		Tool             string `json:"tool"`
		FrameworkVersion string `json:"framework_version"`
		Etag             string `json:"etag"`
	}{m.SchemaVersion, m.Tool, m.FrameworkVersion, m.Etag})
	if err != nil {
		panic("describe: encode manifest: " + err.Error())
	}
	b := make([]byte, 0, len(head)+len(commands)+16)
	b = append(b, head[:len(head)-1]...)
	b = append(b, `,"commands":`...)
	b = append(b, commands...)
	return append(b, '}')
}

func encodeCommands(c map[string]schema.Doc) []byte {
	raw, err := json.Marshal(c)
	if err != nil {
		// Documents hold strings, numbers and schema maps parsed from JSON.
		panic("describe: encode manifest: " + err.Error())
	}
	return raw
}

// etag is a stable hash of the manifest's content, the etag excluded: it
// changes only when a command, flag or declaration changes.
func etag(m Manifest, commands []byte) string {
	h := sha256.New()
	h.Write([]byte(m.SchemaVersion + "\x00" + m.Tool + "\x00" + m.FrameworkVersion + "\x00"))
	h.Write(commands)
	return hex.EncodeToString(h.Sum(nil)[:12])
}
