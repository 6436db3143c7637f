package harness

import "strings"

// geminiHarness is Gemini CLI. It runs headless whenever stdin or stdout is
// not a terminal, and then reads the prompt from stdin; -p is only appended
// to that input (after a blank line), so it is not used. --skip-trust: a
// headless run in a folder the user never trusted exits 55 without it.
// --resume takes the session UUID as well as "latest" or an index (checked
// against gemini 0.61.0; see README.md).
func geminiHarness() *Harness {
	return &Harness{
		name:    Gemini,
		display: "Gemini",
		install: "npm install -g @google/gemini-cli",
		policy: map[Field]Policy{
			FieldModel:              {Supported: true, How: "--model M"},
			FieldPrompt:             {Supported: true, How: "stdin (headless); interactive: --prompt-interactive=TEXT"},
			FieldAppendSystemPrompt: {How: "no flag", Warn: true},
			FieldSystemPrompt:       {How: "no flag", Warn: true},
			FieldSandbox:            {Supported: true, How: "--approval-mode plan|auto_edit|yolo"},
			FieldResumeID:           {Supported: true, How: "--resume UUID"},
			FieldSessionID:          {Supported: true, How: "--session-id UUID (new conversations only)"},
			FieldFork:               {How: "no flag (--resume continues the session in place)", Warn: true},
			FieldReportPath:         {How: "no flag; the report is the last assistant message"},
			FieldInteractive:        {Supported: true, How: "bare gemini"},
			FieldExtra:              {Supported: true, How: "after Meridian's flags"},
		},
		argv:        geminiArgv,
		newParser:   func() Parser { return &geminiParser{} },
		findSession: findGeminiSession,
	}
}

// geminiApprovalMode maps a Meridian sandbox to --approval-mode (gemini's
// --sandbox is a container sandbox, another thing): plan is its read-only
// mode, auto_edit approves edits, yolo approves every tool.
func geminiApprovalMode(sandbox string) string {
	switch sandbox {
	case SandboxReadOnly:
		return "plan"
	case SandboxWorkspaceWrite:
		return "auto_edit"
	case SandboxFullAccess:
		return "yolo"
	}
	return ""
}

func geminiArgv(exe string, req Request) Command {
	args := []string{exe}
	if !req.Interactive {
		args = append(args, "--output-format", "stream-json", "--skip-trust")
	}
	if req.Model != "" {
		args = append(args, "--model", req.Model)
	}
	if mode := geminiApprovalMode(req.Sandbox); mode != "" {
		args = append(args, "--approval-mode", mode)
	}
	if req.ResumeID != "" {
		args = append(args, "--resume", req.ResumeID)
	} else if req.SessionID != "" {
		// gemini refuses an id it already has ("already exists. Use
		// --resume to resume it").
		args = append(args, "--session-id", req.SessionID)
	}
	args = append(args, req.Extra...)
	if req.Interactive {
		if req.Prompt != "" {
			// A positional query would make gemini run headless; -i
			// runs the prompt and stays interactive. The = form keeps a
			// prompt starting with "-" a value.
			args = append(args, "--prompt-interactive="+req.Prompt)
		}
		return Command{Args: args}
	}
	return Command{Args: args, Stdin: req.Prompt}
}

// geminiParser reads `gemini --output-format stream-json`: init (session
// id), user and assistant messages (assistant text arrives as deltas),
// tool_use/tool_result, error (severity warning or error) and a final result
// with status and stats. Gemini states no cost.
type geminiParser struct {
	session   sessionTracker
	res       Result
	report    string
	afterTool bool // the next assistant text starts a new message
	errMsg    string
}

type geminiEvent struct {
	Type      string `json:"type"`
	SessionID string `json:"session_id"`
	Role      string `json:"role"`
	Content   string `json:"content"`
	Delta     bool   `json:"delta"`
	Severity  string `json:"severity"`
	Message   string `json:"message"`
	Status    string `json:"status"`
	Error     struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	Stats struct {
		InputTokens  *int64 `json:"input_tokens"`
		OutputTokens *int64 `json:"output_tokens"`
		Cached       *int64 `json:"cached"`
	} `json:"stats"`
}

func (p *geminiParser) Feed(line []byte) string {
	var ev geminiEvent
	if !decode(line, &ev) {
		return ""
	}
	switch ev.Type {
	case "init":
		return p.session.see(ev.SessionID)
	case "message":
		if ev.Role != "assistant" {
			break
		}
		if ev.Delta && !p.afterTool {
			p.report += ev.Content
		} else {
			p.report = ev.Content
		}
		p.afterTool = false
	case "tool_use", "tool_result":
		p.afterTool = true
	case "error":
		if ev.Severity == "error" {
			p.errMsg = strings.TrimSpace(ev.Message)
		}
	case "result":
		p.res.Completed = true
		p.res.InputTokens = ev.Stats.InputTokens
		p.res.OutputTokens = ev.Stats.OutputTokens
		p.res.CachedTokens = ev.Stats.Cached
		if ev.Status != "" && ev.Status != "success" {
			p.errMsg = strings.TrimSpace(ev.Error.Message)
			if p.errMsg == "" {
				p.errMsg = "gemini finished with status " + ev.Status
			}
		}
	}
	return ""
}

func (p *geminiParser) Result() Result {
	r := p.res
	r.SessionID = p.session.id
	r.Report = p.report
	r.Error = p.errMsg
	return r
}
