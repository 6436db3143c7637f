package chat

import "strings"

// Params are the harness settings a chat was started with, beyond its
// model: the defaults of its continuation. sessions.jsonl keeps them as the
// meridian flags that set them.
type Params struct {
	AppendSystemPrompt string
	SystemPrompt       string
	Sandbox            string
}

const (
	appendFlag  = "--append-system-prompt="
	systemFlag  = "--system-prompt="
	sandboxFlag = "--sandbox="
)

// Encode writes p as flags: ["--sandbox=read-only"].
func (p Params) Encode() []string {
	var out []string
	if p.AppendSystemPrompt != "" {
		out = append(out, appendFlag+p.AppendSystemPrompt)
	}
	if p.SystemPrompt != "" {
		out = append(out, systemFlag+p.SystemPrompt)
	}
	if p.Sandbox != "" {
		out = append(out, sandboxFlag+p.Sandbox)
	}
	return out
}

// DecodeParams reads what Encode wrote; what it does not know is skipped.
func DecodeParams(flags []string) Params {
	var p Params
	for _, f := range flags {
		switch {
		case strings.HasPrefix(f, appendFlag):
			p.AppendSystemPrompt = strings.TrimPrefix(f, appendFlag)
		case strings.HasPrefix(f, systemFlag):
			p.SystemPrompt = strings.TrimPrefix(f, systemFlag)
		case strings.HasPrefix(f, sandboxFlag):
			p.Sandbox = strings.TrimPrefix(f, sandboxFlag)
		}
	}
	return p
}

// Over returns p on top of base: what p sets wins, the rest is base's.
func (p Params) Over(base Params) Params {
	if p.AppendSystemPrompt != "" {
		base.AppendSystemPrompt = p.AppendSystemPrompt
	}
	if p.SystemPrompt != "" {
		base.SystemPrompt = p.SystemPrompt
	}
	if p.Sandbox != "" {
		base.Sandbox = p.Sandbox
	}
	return base
}
