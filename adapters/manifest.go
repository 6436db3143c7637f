package adapters

import (
	"context"
	"encoding/json"

	"github.com/duet-cli/duet/internal/describe"
	"github.com/duet-cli/duet/internal/flagname"
)

// manifest answers `tool manifest`: the spec's ManifestResponse, the same
// commands as describe, with describe's etag.
func (inv *invocation) manifest(context.Context) error {
	m, err := describe.New(inv.root, inv.cfg.version, inv.mode.Agent && !inv.human)
	if err != nil {
		return describe.DeclarationError(err)
	}
	if etag := inv.call.last(flagname.Etag); etag != "" && etag == m.Etag {
		inv.meta.NotModified = true
		return inv.out.Result(nil)
	}
	spec := m.WithAgents(inv.agentsInfo()).Spec() // its WithEnvVar variables are root env_vars
	inv.out.RenderText(indentedJSON(spec))
	return inv.out.Result(spec)
}

// schemaAsked reports whether the command line asks for a schema document
// that discovery answers: the whole manifest (--schema on the root, or
// --print-schema), or data's schema (--output-schema).
func (inv *invocation) schemaAsked() bool {
	c := inv.call
	return c.on(flagname.OutputSchema) || c.on(flagname.PrintSchema) || c.on(flagname.Schema) && c.node.Parent == nil
}

// answerSchema answers --output-schema with the JSON Schema of the
// command's data, and --schema and --print-schema on the root with the
// whole tree: describe's document, in which every command has its flags
// (the spec's parameters), output schema, exit codes and danger level. On
// any other command --print-schema is its --schema.
func (inv *invocation) answerSchema() int {
	c := inv.call
	agent := inv.mode.Agent && !inv.human
	switch {
	case c.on(flagname.OutputSchema):
		s, err := c.node.OutputSchema()
		if err != nil {
			return inv.finish(describe.DeclarationError(err))
		}
		var doc any = s
		if s == nil {
			// No declared shape: data may be anything, which {} says.
			doc = json.RawMessage(`{}`)
		}
		inv.meta.SchemaVersion = inv.dataVersion()
		inv.out.RenderText(indentedJSON(doc))
		inv.out.Result(doc)
		return inv.finish(nil)
	case c.node.Parent == nil:
		m, err := describe.Full(inv.root, inv.cfg.version, agent)
		if err != nil {
			return inv.finish(describe.DeclarationError(err))
		}
		inv.out.RenderText(indentedJSON(m))
		inv.out.Result(m)
		return inv.finish(nil)
	}
	doc, err := c.node.Document(agent)
	if err != nil {
		return inv.finish(describe.DeclarationError(err))
	}
	inv.out.RenderText(indentedJSON(doc))
	inv.out.Result(doc)
	return inv.finish(nil)
}
