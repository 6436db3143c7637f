package proc

import (
	"os"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/duet-cli/duet/envelope"
)

// policy is what decides a program's environment: who can answer, whether
// there is colour, the locale, and the trace id.
type policy struct {
	interactive    bool // someone can answer: editors and update notices are left alone
	color          bool
	preserveLocale bool
	tool           string
	traceID        string
	// update notices (issue 16: kids)
	quietUpdates bool // nobody reads an update notice: nobody can answer, stdout is not a terminal, or CI
}

// policy is the session's, or, outside one, what this process's standard
// streams say.
func (c *Cmd) policy() policy {
	s := c.session
	if s == nil {
		p := policy{
			interactive:    isatty.IsTerminal(os.Stdin.Fd()),
			color:          isatty.IsTerminal(os.Stdout.Fd()),
			preserveLocale: c.PreserveLocale,
		}
		p.quietUpdates = quietUpdates(p.interactive, !isatty.IsTerminal(os.Stdout.Fd()), c.base())
		return p
	}
	o := s.opts
	return policy{
		interactive:    o.Interactive,
		color:          o.Color,
		preserveLocale: o.PreserveLocale || c.PreserveLocale,
		tool:           o.Tool,
		traceID:        o.TraceID,
		quietUpdates:   quietUpdates(o.Interactive, o.Piped, c.base()),
	}
}

// base is the environment the program's is made from: Env, else the
// session's, else this process's.
func (c *Cmd) base() []string {
	switch {
	case c.Env != nil:
		return c.Env
	case c.session != nil && c.session.opts.Environ != nil:
		return c.session.opts.Environ
	}
	return os.Environ()
}

// Environ returns the environment the program gets (see the package
// documentation).
func (c *Cmd) Environ() []string {
	return c.policy().apply(c.base())
}

// setting is one variable of a program's environment.
type setting struct {
	name, value string
	unset       bool // removed
	keep        bool // a value the environment has already is kept
	truthy      bool // with keep: kept only when it says yes (CI=false is not kept)
}

// settings are what the program's environment must say, in this order.
func (p policy) settings() []setting {
	s := []setting{
		// No pager, whatever the environment says (the spec's F-010, F-046).
		{name: "PAGER", value: "cat"},
		{name: "GIT_PAGER", value: "cat"},
		{name: "MANPAGER", value: "cat"},
		{name: "LESS", value: "-F -X -R"},
		{name: "MORE", value: ""},
	}
	if !p.interactive {
		s = append(s,
			// Nobody can use an editor or answer a prompt (F-055).
			setting{name: "EDITOR", value: "true"},
			setting{name: "VISUAL", value: "true"},
			setting{name: "GIT_EDITOR", value: "true"},
			setting{name: "GIT_SEQUENCE_EDITOR", value: "true"},
			setting{name: "GIT_TERMINAL_PROMPT", value: "0"},
		)
	}
	if p.quietUpdates {
		s = append(s,
			// Nobody to tell about updates (F-050). A CI the environment
			// sets already is kept, if it says yes: some tools test for
			// CI=true; CI=false would let their notices through.
			setting{name: "CI", value: "1", keep: true, truthy: true},
			setting{name: "NO_UPDATE_NOTIFIER", value: "1"},
			setting{name: "npm_config_update_notifier", value: "false"},
			setting{name: "HOMEBREW_NO_AUTO_UPDATE", value: "1"},
			setting{name: "PIP_DISABLE_PIP_VERSION_CHECK", value: "1"},
			setting{name: "GH_NO_UPDATE_NOTIFIER", value: "1"},
		)
	}
	if !p.color {
		s = append(s,
			setting{name: "NO_COLOR", value: "1", keep: true},
			setting{name: "FORCE_COLOR", unset: true},
			setting{name: "CLICOLOR_FORCE", unset: true},
		)
	}
	if !p.preserveLocale { // English messages, C numbers (F-066)
		s = append(s, setting{name: "LC_ALL", value: "C"}, setting{name: "LC_NUMERIC", value: "C"})
	}
	if p.traceID != "" { // F-025
		if p.tool != "" {
			s = append(s, setting{name: envelope.EnvName(p.tool, "TRACE_ID"), value: p.traceID})
		}
		s = append(s, setting{name: "TRACE_ID", value: p.traceID})
	}
	return s
}

// apply returns env with the policy's settings: the variables they name
// are replaced (or removed), the others kept in their order.
func (p policy) apply(env []string) []string {
	settings := p.settings()
	byName := make(map[string]*setting, len(settings))
	for i := range settings {
		byName[settings[i].name] = &settings[i]
	}
	out := make([]string, 0, len(env)+len(settings))
	kept := map[string]bool{}
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		s := byName[name]
		switch {
		case s == nil:
			out = append(out, kv)
		case s.keep && value != "" && !kept[name] && (!s.truthy || Truthy(value)):
			out = append(out, kv)
			kept[name] = true
		}
	}
	for _, s := range settings {
		if !s.unset && !kept[s.name] {
			out = append(out, s.name+"="+s.value)
		}
	}
	return out
}

// lookup returns the value of name in env: the last one, as exec uses.
func lookup(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}
