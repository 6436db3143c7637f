package adapters

import (
	"context"
	"fmt"
	"io"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/describe"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// Setter gives the framework's flag called name a value, as if it had been
// typed on the command line; it must leave a flag the command line set alone.
type Setter func(name, value string) error

// Invoke runs a command's action under the lifecycle that called Execute. An
// adapter wraps every action of the app with it; action is nil for Duet's own
// built-in commands. Outside a lifecycle (a test calling a handler
// directly) Invoke just runs action.
//
// Panics in action are not recovered here: the lifecycle recovers them on its
// own goroutine, so every adapter reports them the same way.
func Invoke(ctx context.Context, action func(context.Context) error) error {
	inv, ok := ctx.Value(invocationKey{}).(*invocation)
	if !ok {
		if action == nil {
			return nil
		}
		return action(ctx)
	}
	inv.ran.Store(true)
	if action == nil {
		action = inv.builtin()
	}
	defer inv.actionReturned()
	return action(ctx)
}

// Preset gives node's flags the values the lifecycle resolved for those the
// command line left out — from the environment it was given, or a saved
// profile — through set. An adapter calls it once the framework has chosen
// node and before the framework checks required flags; it does nothing for
// any other command than the one the lifecycle read (any, when it read
// none: set must then leave alone a flag the command line set), or outside
// a lifecycle.
func Preset(ctx context.Context, node *schema.Command, set Setter) error {
	inv, ok := ctx.Value(invocationKey{}).(*invocation)
	if !ok {
		return nil
	}
	if node != inv.call.node && !inv.unread {
		return nil
	}
	for _, p := range inv.presets(node) {
		if err := set(p.name, p.value); err != nil {
			return envelope.Validationf(errcode.InvalidFlagValue, "flag --%s from %s: %v", p.name, p.source, err).WithField(p.name)
		}
	}
	return nil
}

type preset struct{ name, value, source string }

// presets are the values of node's flags the command line left out that
// the lifecycle's environment, or else the applied profile, supplies.
func (inv *invocation) presets(node *schema.Command) []preset {
	var out []preset
	for f := range node.Accepted() {
		if inv.call.has(f.Name) || f.Builtin {
			continue
		}
		if p, ok := inv.secretPreset(f); ok { // --x-from-env, --x-from-file
			out = append(out, p)
			continue
		}
		for _, e := range f.Env {
			if v, ok := inv.cfg.lookupEnv(e); ok {
				out = append(out, preset{f.Name, v, e})
				break
			}
		}
		if v := inv.profiles.valueOf(f); v != "" && !envSet(f, inv.cfg.lookupEnv) {
			out = append(out, preset{f.Name, v, "profile " + inv.profiles.applied})
		}
	}
	return out
}

// builtin returns the action of one of Duet's own commands.
func (inv *invocation) builtin() func(context.Context) error {
	feature := inv.featureAction(inv.call.node)
	switch node := inv.call.node; {
	case node.Builtin && node.Name == describeCommand:
		return inv.describe
	case node.Builtin && node.Parent != nil && node.Parent.Name == profileCommand && inv.profiles != nil:
		return inv.profileAction
	case node.Builtin && node.Parent == inv.root && node.Name == cleanupCommand:
		return inv.cleanupAction
	case node.Builtin && node.Parent != nil && node.Parent.Parent == inv.root && node.Parent.Name == jobCommand:
		return inv.jobAction
	case node.Builtin && node.Name == auditLogCommand && node.Parent == inv.root:
		return inv.auditLog
	case inv.discoveryAction(node) != nil:
		return inv.discoveryAction(node)
	case feature != nil:
		return feature
	case node.Builtin && node.Name == checkPermissionsCommand && inv.cfg.permissions != nil:
		return inv.checkPermissions
	default:
		return func(context.Context) error {
			return fmt.Errorf("duet: %q has no action", node.DotPath())
		}
	}
}

func (inv *invocation) describe(ctx context.Context) error {
	out := inv.out
	if inv.call.bool(flagname.MCP) {
		return inv.describeTools()
	}
	m, err := describe.New(inv.root, inv.cfg.version, inv.mode.Agent && !inv.human)
	if err != nil {
		return describe.DeclarationError(err)
	}
	if etag := inv.call.last(flagname.Etag); etag != "" && etag == m.Etag {
		inv.meta.NotModified = true
		return out.Result(nil)
	}
	if info := inv.profilesInfo(); info != nil {
		m.Profiles = info
	}
	if inv.call.bool(flagname.AgentsMD) {
		md := describe.AgentsMD(m.WithAgents(inv.agentsInfo()))
		out.RenderText(func(w io.Writer) error { _, err := io.WriteString(w, md); return err })
		return out.Result(map[string]string{"agents_md": md, "etag": m.Etag})
	}
	keys := inv.call.args
	var answer any
	switch {
	case inv.call.bool(flagname.Full):
		answer, err = onlyOf(m, keys)
	case inv.call.bool(flagname.Index):
		var only describe.Manifest
		only, err = onlyOf(m, keys)
		answer = only.Index()
	default:
		// The compact form says once what all commands share, so it is
		// made from every command before it keeps those asked for.
		answer, err = onlyOf(m.Compact(), keys)
	}
	if err != nil {
		return envelope.Validationf(errcode.UnknownCommand, "%v", err).
			WithField("command").WithSuggestion(fmt.Sprintf("%s describe --index lists the commands by key", inv.root.Name))
	}
	out.RenderText(indentedJSON(answer))
	return out.Result(answer)
}

// onlyOf keeps of a manifest the commands keys name, when they name any.
func onlyOf[M interface{ Only(...string) (M, error) }](m M, keys []string) (M, error) {
	if len(keys) == 0 {
		return m, nil
	}
	return m.Only(keys...)
}

// describeTools answers describe --mcp. The tools are what agents are
// served, whoever asks.
func (inv *invocation) describeTools() error {
	tools, err := describe.Tools(inv.root, inv.cfg.version)
	if err != nil {
		return describe.DeclarationError(err)
	}
	if etag := inv.call.last(flagname.Etag); etag != "" && etag == tools.Etag {
		inv.meta.NotModified = true
		return inv.out.Result(nil)
	}
	inv.out.RenderText(indentedJSON(tools))
	return inv.out.Result(tools)
}
