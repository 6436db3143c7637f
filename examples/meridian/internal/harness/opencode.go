package harness

import "strings"

// openCodeHarness is OpenCode. `opencode run` appends its stdin to the
// message when stdin is not a terminal, so with no message argument the
// prompt travels on stdin unchanged; a message argument would be re-quoted
// ("a b" arrives as "\"a b\"") and a "-" argument is dropped, so neither is
// used (checked against opencode 1.18.33; see README.md).
func openCodeHarness() *Harness {
	return &Harness{
		name:    OpenCode,
		display: "OpenCode",
		install: "npm install -g opencode-ai",
		policy: map[Field]Policy{
			FieldModel:              {Supported: true, How: "--model provider/model (an opencode- prefix is removed)"},
			FieldPrompt:             {Supported: true, How: "stdin (run); interactive: --prompt=TEXT"},
			FieldAppendSystemPrompt: {How: "no flag", Warn: true},
			FieldSystemPrompt:       {How: "no flag", Warn: true},
			FieldSandbox:            {How: "no flag (permissions live in opencode's config)", Warn: true},
			FieldResumeID:           {Supported: true, How: "--session ID"},
			FieldSessionID:          {How: "no flag; FindSession reads the id from opencode's log"},
			FieldFork:               {Supported: true, How: "--fork"},
			FieldReportPath:         {How: "no flag; the report is the last text part"},
			FieldInteractive:        {Supported: true, How: "bare opencode (the TUI)"},
			FieldExtra:              {Supported: true, How: "after Meridian's flags"},
		},
		argv:        openCodeArgv,
		newParser:   func() Parser { return &openCodeParser{} },
		findSession: findOpenCodeSession,
	}
}

// openCodeModel turns a Meridian catalog id into opencode's provider/model.
func openCodeModel(m string) string { return strings.TrimPrefix(m, "opencode-") }

func openCodeArgv(exe string, req Request) Command {
	args := []string{exe}
	if !req.Interactive {
		args = append(args, "run", "--format", "json")
	}
	if req.Model != "" {
		args = append(args, "--model", openCodeModel(req.Model))
	}
	if req.ResumeID != "" {
		args = append(args, "--session", req.ResumeID)
		if req.Fork {
			args = append(args, "--fork")
		}
	}
	args = append(args, req.Extra...)
	if req.Interactive {
		if req.Prompt != "" {
			// The = form: yargs would read a prompt starting with "-"
			// as a flag.
			args = append(args, "--prompt="+req.Prompt)
		}
		return Command{Args: args}
	}
	return Command{Args: args, Stdin: req.Prompt}
}

// openCodeParser reads `opencode run --format json`: one event per message
// part, each carrying the sessionID. Each step (one model call) ends with a
// step_finish holding that step's tokens and cost, so they add up; the run
// ends with a step whose reason is not "tool-calls", or with an error event.
type openCodeParser struct {
	session   sessionTracker
	res       Result
	messageID string   // the message the report's text parts belong to
	text      []string // text parts of that message
}

type openCodeEvent struct {
	Type      string `json:"type"`
	SessionID string `json:"sessionID"`
	Part      struct {
		MessageID string   `json:"messageID"`
		Text      string   `json:"text"`
		Reason    string   `json:"reason"`
		Cost      *float64 `json:"cost"`
		Tokens    *struct {
			Input  *int64 `json:"input"`
			Output *int64 `json:"output"`
			Cache  struct {
				Read *int64 `json:"read"`
			} `json:"cache"`
		} `json:"tokens"`
	} `json:"part"`
	Error struct {
		Name string `json:"name"`
		Data struct {
			Message string `json:"message"`
		} `json:"data"`
	} `json:"error"`
}

func (p *openCodeParser) Feed(line []byte) string {
	var ev openCodeEvent
	if !decode(line, &ev) {
		return ""
	}
	id := p.session.see(ev.SessionID)
	switch ev.Type {
	case "step_start":
		p.res.Completed = false
	case "text":
		if ev.Part.MessageID != p.messageID {
			p.messageID, p.text = ev.Part.MessageID, nil
		}
		p.text = append(p.text, ev.Part.Text)
	case "step_finish":
		if t := ev.Part.Tokens; t != nil {
			addTo(&p.res.InputTokens, t.Input)
			addTo(&p.res.OutputTokens, t.Output)
			addTo(&p.res.CachedTokens, t.Cache.Read)
		}
		addTo(&p.res.CostUSD, ev.Part.Cost)
		p.res.Completed = ev.Part.Reason != "tool-calls"
	case "error":
		p.res.Completed = true
		msg := strings.TrimSpace(ev.Error.Data.Message)
		if msg == "" {
			msg = ev.Error.Name
		}
		if msg == "" {
			msg = "opencode reported an error"
		}
		p.res.Error = msg
	}
	return id
}

func (p *openCodeParser) Result() Result {
	r := p.res
	r.SessionID = p.session.id
	r.Report = strings.Join(p.text, "\n")
	return r
}
