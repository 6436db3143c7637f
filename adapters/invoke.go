package adapters

import (
	"context"
	"fmt"
	"io"

	"github.com/duet-cli/duet/describe"
)

// Invoke runs a command's action under the lifecycle that called Execute. An
// adapter wraps every action of the app with it; action is nil for Duet's own
// built-in commands. Outside a lifecycle (a test calling a handler directly)
// it just runs action.
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
	inv.ran = true
	if action == nil {
		action = inv.builtin()
	}
	err := action(ctx)
	inv.handlerErr = err
	return err
}

// builtin returns the action of one of Duet's own commands.
func (inv *invocation) builtin() func(context.Context) error {
	switch node := inv.call.node; {
	case node.Builtin && node.Name == DescribeCommand:
		return inv.describe
	default:
		return func(context.Context) error {
			return fmt.Errorf("duet: %q has no action", node.DotPath())
		}
	}
}

func (inv *invocation) describe(ctx context.Context) error {
	out := inv.out
	m := describe.New(inv.root, inv.cfg.version, inv.mode.Agent && !inv.human)
	if etag := inv.call.last("etag"); etag != "" && etag == m.Etag {
		inv.meta.NotModified = true
		return out.Result(nil)
	}
	if inv.call.bool("agents-md") {
		md := describe.AgentsMD(m)
		out.RenderText(func(w io.Writer) error { _, err := io.WriteString(w, md); return err })
		return out.Result(map[string]string{"agents_md": md, "etag": m.Etag})
	}
	out.RenderText(indentedJSON(m))
	return out.Result(m)
}
