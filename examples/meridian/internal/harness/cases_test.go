package harness

// A buildCase is one Request built for every harness; the golden argv test
// and the real-CLI test share them, so what is pinned is what is checked.
type buildCase struct {
	name string
	req  func(h string) Request
}

// sample values that look like each CLI's own: the real-CLI test passes them
// to the installed binaries, which must accept them.
func sampleModel(h string) string {
	switch h {
	case Claude:
		return "claude-sonnet-4-5"
	case Codex:
		return "gpt-5.3-codex"
	case OpenCode:
		return "opencode-anthropic/claude-sonnet-4-5"
	default:
		return "gemini-2.5-pro"
	}
}

func sampleSession(h string) string {
	if h == OpenCode {
		return "ses_0a1b2c3d4e5fABCDEFGHIJKLMN"
	}
	return "0199a213-81c0-7800-8aa1-bbab2a035a53"
}

// sampleExtra is a real flag of each CLI, passed through verbatim.
func sampleExtra(h string) []string {
	switch h {
	case Claude:
		return []string{"--effort", "low"}
	case Codex:
		return []string{"-c", `model_reasoning_effort="low"`}
	case OpenCode:
		return []string{"--agent", "build"}
	default:
		return []string{"--include-directories", "/tmp"}
	}
}

// sampleNewSession is a Request.SessionID, as NewSessionID makes them.
const sampleNewSession = "3b241101-e2bb-4255-8caf-4136c566a962"

const samplePrompt = "Summarise README.md in one line.\n\n-- it starts with a dash on line 3"

var buildCases = []buildCase{
	{"new", func(h string) Request {
		return Request{Model: sampleModel(h), Prompt: samplePrompt}
	}},
	{"default-model", func(h string) Request {
		return Request{Prompt: samplePrompt}
	}},
	{"session-id", func(h string) Request {
		return Request{Model: sampleModel(h), Prompt: samplePrompt, SessionID: sampleNewSession}
	}},
	{"interactive-session-id", func(h string) Request {
		return Request{Model: sampleModel(h), Prompt: "-start with a dash", SessionID: sampleNewSession, Interactive: true}
	}},
	{"resume", func(h string) Request {
		return Request{Model: sampleModel(h), Prompt: samplePrompt, ResumeID: sampleSession(h)}
	}},
	{"fork", func(h string) Request {
		return Request{Model: sampleModel(h), Prompt: samplePrompt, ResumeID: sampleSession(h), Fork: true}
	}},
	{"sandbox-read-only", func(h string) Request {
		return Request{Model: sampleModel(h), Prompt: samplePrompt, Sandbox: SandboxReadOnly}
	}},
	{"sandbox-full-access", func(h string) Request {
		return Request{Model: sampleModel(h), Prompt: samplePrompt, Sandbox: SandboxFullAccess}
	}},
	{"interactive", func(h string) Request {
		return Request{Model: sampleModel(h), Interactive: true}
	}},
	{"interactive-resume-prompt", func(h string) Request {
		return Request{Model: sampleModel(h), Prompt: "-start with a dash", ResumeID: sampleSession(h), Interactive: true}
	}},
	{"all-fields", func(h string) Request {
		return Request{
			Model:              sampleModel(h),
			Prompt:             samplePrompt,
			AppendSystemPrompt: "# Skill: review\n\nBe terse.",
			SystemPrompt:       "You review code.",
			Sandbox:            SandboxWorkspaceWrite,
			ResumeID:           sampleSession(h),
			SessionID:          sampleNewSession, // not used: ResumeID is set
			Fork:               true,
			ReportPath:         "/tmp/meridian-run/report.md",
			Extra:              sampleExtra(h),
		}
	}},
	{"all-fields-interactive", func(h string) Request {
		return Request{
			Model:              sampleModel(h),
			Prompt:             samplePrompt,
			AppendSystemPrompt: "# Skill: review\n\nBe terse.",
			SystemPrompt:       "You review code.",
			Sandbox:            SandboxWorkspaceWrite,
			ResumeID:           sampleSession(h),
			SessionID:          sampleNewSession, // not used: ResumeID is set
			Fork:               true,
			ReportPath:         "/tmp/meridian-run/report.md",
			Interactive:        true,
			Extra:              sampleExtra(h),
		}
	}},
}
