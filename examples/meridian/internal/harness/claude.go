package harness

import (
	"cmp"
	"strings"
)

// claudeHarness is Claude Code. Print mode reads the prompt from stdin when
// no prompt argument is given; a "-" argument is not a placeholder for it:
// claude 2.1.197 sends "-\n<stdin>" as the prompt (see README.md).
func claudeHarness() *Harness {
	return &Harness{
		name:    Claude,
		display: "Claude",
		install: "npm install -g @anthropic-ai/claude-code",
		policy: map[Field]Policy{
			FieldModel:              {Supported: true, How: "--model M"},
			FieldPrompt:             {Supported: true, How: "stdin (-p mode); interactive: positional after --"},
			FieldAppendSystemPrompt: {Supported: true, How: "--append-system-prompt TEXT"},
			FieldSystemPrompt:       {Supported: true, How: "--system-prompt TEXT"},
			FieldSandbox:            {Supported: true, How: "--permission-mode plan|acceptEdits|bypassPermissions"},
			FieldResumeID:           {Supported: true, How: "--resume ID"},
			FieldSessionID:          {Supported: true, How: "--session-id UUID (new conversations only)"},
			FieldFork:               {Supported: true, How: "--fork-session"},
			FieldReportPath:         {How: "no flag; the report is the result event's text"},
			FieldInteractive:        {Supported: true, How: "bare claude"},
			FieldExtra:              {Supported: true, How: "after Meridian's flags"},
		},
		argv:        claudeArgv,
		newParser:   func() Parser { return &claudeParser{} },
		findSession: findClaudeSession,
	}
}

// claudePermissionMode maps a Meridian sandbox to --permission-mode. plan is
// Claude's read-only mode; acceptEdits lets it edit files (other tools still
// need approval, which print mode denies); bypassPermissions approves
// everything (claude refuses it when run as root).
func claudePermissionMode(sandbox string) string {
	switch sandbox {
	case SandboxReadOnly:
		return "plan"
	case SandboxWorkspaceWrite:
		return "acceptEdits"
	case SandboxFullAccess:
		return "bypassPermissions"
	}
	return ""
}

func claudeArgv(exe string, req Request) Command {
	args := []string{exe}
	if !req.Interactive {
		// --verbose is required by -p with stream-json.
		args = append(args, "-p", "--output-format", "stream-json", "--verbose")
	}
	if req.Model != "" {
		args = append(args, "--model", req.Model)
	}
	if mode := claudePermissionMode(req.Sandbox); mode != "" {
		args = append(args, "--permission-mode", mode)
	}
	if req.SystemPrompt != "" {
		args = append(args, "--system-prompt", req.SystemPrompt)
	}
	if req.AppendSystemPrompt != "" {
		args = append(args, "--append-system-prompt", req.AppendSystemPrompt)
	}
	if req.ResumeID != "" {
		args = append(args, "--resume", req.ResumeID)
		if req.Fork {
			args = append(args, "--fork-session")
		}
	} else if req.SessionID != "" {
		// claude refuses --session-id with --resume unless it forks.
		args = append(args, "--session-id", req.SessionID)
	}
	args = append(args, req.Extra...)
	if req.Interactive {
		if req.Prompt != "" {
			args = append(args, "--", req.Prompt)
		}
		return Command{Args: args}
	}
	return Command{Args: args, Stdin: req.Prompt}
}

// claudeParser reads `claude -p --output-format stream-json --verbose`.
// Every assistant event carries that one message's usage; only the final
// result event has the run's totals, cost and report.
type claudeParser struct {
	session       sessionTracker
	res           Result
	lastAssistant string
	sawResult     bool
}

type claudeEvent struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	SessionID string `json:"session_id"`
	Message   struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"message"`
	// result events
	IsError      bool     `json:"is_error"`
	Result       *string  `json:"result"`
	Errors       []string `json:"errors"`
	TotalCostUSD *float64 `json:"total_cost_usd"`
	Usage        struct {
		InputTokens          *int64 `json:"input_tokens"`
		OutputTokens         *int64 `json:"output_tokens"`
		CacheReadInputTokens *int64 `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

func (p *claudeParser) Feed(line []byte) string {
	var ev claudeEvent
	if !decode(line, &ev) {
		return ""
	}
	id := p.session.see(ev.SessionID)
	switch ev.Type {
	case "assistant":
		var text []string
		for _, c := range ev.Message.Content {
			if c.Type == "text" && c.Text != "" {
				text = append(text, c.Text)
			}
		}
		if len(text) > 0 {
			p.lastAssistant = strings.Join(text, "\n")
		}
	case "result":
		p.sawResult = true
		p.res.Completed = true
		p.res.CostUSD = ev.TotalCostUSD
		p.res.InputTokens = ev.Usage.InputTokens
		p.res.OutputTokens = ev.Usage.OutputTokens
		p.res.CachedTokens = ev.Usage.CacheReadInputTokens
		result := ""
		if ev.Result != nil {
			result = *ev.Result
		}
		if ev.IsError || strings.HasPrefix(ev.Subtype, "error") {
			p.res.Error = cmp.Or(strings.TrimSpace(result), strings.Join(ev.Errors, "; "), "claude reported "+cmp.Or(ev.Subtype, "an error"))
			p.res.Report = ""
		} else {
			p.res.Error = ""
			p.res.Report = result
		}
	}
	return id
}

func (p *claudeParser) Result() Result {
	r := p.res
	r.SessionID = p.session.id
	if !p.sawResult {
		// A stream cut before its result event: the last thing said is
		// the best report there is; totals stay unknown.
		r.Report = p.lastAssistant
	}
	return r
}
