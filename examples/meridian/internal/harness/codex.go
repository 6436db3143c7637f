package harness

import (
	"cmp"
	"strings"
)

// codexHarness is the Codex CLI. `codex exec` reads the prompt from stdin
// when its prompt argument is "-". Its flags go before the resume/fork
// subcommand: `codex exec resume` has no --sandbox, and flags given to exec
// carry over to the resumed or forked session (checked against codex
// 0.169.0: model, sandbox and -o all applied; see README.md).
func codexHarness() *Harness {
	return &Harness{
		name:    Codex,
		display: "Codex",
		install: "npm install -g @openai/codex",
		policy: map[Field]Policy{
			FieldModel:              {Supported: true, How: "--model M"},
			FieldPrompt:             {Supported: true, How: "stdin (exec ... -); interactive: positional after --"},
			FieldAppendSystemPrompt: {How: "no flag", Warn: true},
			FieldSystemPrompt:       {How: "no flag", Warn: true},
			FieldSandbox:            {Supported: true, How: "--sandbox read-only|workspace-write|danger-full-access"},
			FieldResumeID:           {Supported: true, How: "resume ID"},
			FieldSessionID:          {How: "no flag; FindSession reads the id from $CODEX_HOME/sessions"},
			FieldFork:               {Supported: true, How: "fork ID (instead of resume ID)"},
			FieldReportPath:         {Supported: true, How: "-o FILE (exec only)"},
			FieldInteractive:        {Supported: true, How: "codex [resume|fork ID]"},
			FieldExtra:              {Supported: true, How: "after Meridian's flags, before resume/fork"},
		},
		argv:        codexArgv,
		newParser:   func() Parser { return &codexParser{} },
		findSession: findCodexSession,
	}
}

// codexSandbox maps a Meridian sandbox to codex's --sandbox.
func codexSandbox(sandbox string) string {
	switch sandbox {
	case SandboxReadOnly:
		return "read-only"
	case SandboxWorkspaceWrite:
		return "workspace-write"
	case SandboxFullAccess:
		return "danger-full-access"
	}
	return ""
}

func codexArgv(exe string, req Request) Command {
	args := []string{exe}
	if !req.Interactive {
		// --skip-git-repo-check: Meridian chooses the working directory
		// (a space's fs/ need not be a git repository), and without it
		// codex exec refuses to start outside one.
		args = append(args, "exec", "--json", "--skip-git-repo-check")
	}
	if req.Model != "" {
		args = append(args, "--model", req.Model)
	}
	if s := codexSandbox(req.Sandbox); s != "" {
		args = append(args, "--sandbox", s)
	}
	if req.ReportPath != "" && !req.Interactive {
		args = append(args, "-o", req.ReportPath)
	}
	args = append(args, req.Extra...)
	if req.ResumeID != "" {
		sub := "resume"
		if req.Fork {
			sub = "fork"
		}
		args = append(args, sub, req.ResumeID)
	}
	if req.Interactive {
		if req.Prompt != "" {
			args = append(args, "--", req.Prompt)
		}
		return Command{Args: args}
	}
	return Command{Args: append(args, "-"), Stdin: req.Prompt}
}

// codexParser reads `codex exec --json`. Codex states no cost. Its
// turn.completed usage is the conversation's running total (a resumed
// thread's first turn.completed includes the earlier runs), so the last one
// is the figure; adding them up would count earlier turns twice. A top-level
// error event is also how codex reports a retry ("Reconnecting... 2/5"), so
// it is a failure only when no turn.completed follows.
type codexParser struct {
	session sessionTracker
	res     Result
	failed  string // turn.failed's message
	lastErr string // the latest error event, cleared by turn.completed
}

type codexEvent struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
	Message  string `json:"message"`
	Item     struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"item"`
	Usage struct {
		InputTokens       *int64 `json:"input_tokens"`
		CachedInputTokens *int64 `json:"cached_input_tokens"`
		OutputTokens      *int64 `json:"output_tokens"`
	} `json:"usage"`
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (p *codexParser) Feed(line []byte) string {
	var ev codexEvent
	if !decode(line, &ev) {
		return ""
	}
	switch ev.Type {
	case "thread.started":
		return p.session.see(ev.ThreadID)
	case "item.completed":
		if ev.Item.Type == "agent_message" {
			p.res.Report = ev.Item.Text
		}
	case "turn.completed":
		p.res.Completed = true
		p.res.InputTokens = ev.Usage.InputTokens
		p.res.CachedTokens = ev.Usage.CachedInputTokens
		p.res.OutputTokens = ev.Usage.OutputTokens
		p.lastErr = ""
		p.failed = ""
	case "turn.failed":
		p.res.Completed = true
		p.failed = strings.TrimSpace(ev.Error.Message)
		if p.failed == "" {
			p.failed = "codex turn failed"
		}
	case "error":
		p.lastErr = strings.TrimSpace(ev.Message)
	}
	return ""
}

func (p *codexParser) Result() Result {
	r := p.res
	r.SessionID = p.session.id
	r.Error = cmp.Or(p.failed, p.lastErr)
	return r
}
