package adapters

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"

	"github.com/duet-cli/duet/internal/version"
	"github.com/duet-cli/duet/schema"
)

// Doctor's checks of what commands declare they need (the CLI Agent Spec's
// C-018, O-026): one check for each program in a command's Meta.Tools —
// failed when it is not on PATH, or when it is older than the version
// declared, which is read from its --version — and one for each declared
// dependency, so that every failure is a failed check with its fix. A
// program needed at any version ("*", or "") is looked up on PATH and never
// run: one with no --version flag might do anything with it.

// requiredToolChecks checks the programs the app's commands need.
func (inv *invocation) requiredToolChecks(ctx context.Context) []checkReport {
	needs := map[string]string{} // the highest least version any command declares, "" for any
	inv.root.Walk(func(c *schema.Command) {
		for name, v := range c.Meta.Tools {
			if v == anyVersion {
				v = ""
			}
			old, seen := needs[name]
			if !seen || v != "" && (old == "" || version.Compare(v, old) > 0) {
				needs[name] = v
			}
		}
	})
	checks := make([]checkReport, 0, len(needs))
	for _, name := range sortedKeys(needs) {
		min := needs[name]
		r := checkReport{Name: name, OK: true, Required: strOrNil(anyVersion)}
		if min != "" {
			r.Required = strOrNil(">=" + min)
		}
		// A shell command or nothing: prose such as "install x" would run
		// coreutils' install when an agent runs the fix as it is told to.
		fix := strOrNil(inv.toolInstall(name))
		path, err := lookPath(name, inv.cfg.getenv("PATH"))
		if err != nil {
			r.OK, r.Error, r.Fix = false, strOrNil("not found in PATH"), fix
			checks = append(checks, r)
			continue
		}
		if min == "" {
			checks = append(checks, r) // present is all it takes: never run
			continue
		}
		if found := toolVersion(ctx, path, inv.cfg.environ()); found != "" {
			r.Version = &found
			if version.Compare(found, min) < 0 {
				r.OK, r.Error, r.Fix = false, strOrNil("older than "+min), fix
			}
		}
		checks = append(checks, r)
	}
	return checks
}

// toolInstall is the shell command that installs the program name, a
// Meta.Tools entry: its WithToolInstall, else the FixCommand of the
// dependency of that name, else "".
func (inv *invocation) toolInstall(name string) string {
	if cmd := inv.cfg.discovery.toolInstalls[name]; cmd != "" {
		return cmd
	}
	for _, d := range inv.cfg.discovery.deps {
		if d.Name == name && d.FixCommand != "" {
			return d.FixCommand
		}
	}
	return ""
}

// toolInstallWarnings are the programs commands need that doctor cannot
// say how to install, for the tool's authors: a failed check of one has no
// fix.
func (inv *invocation) toolInstallWarnings() []declarationWarning {
	seen := map[string]bool{}
	inv.root.Walk(func(c *schema.Command) {
		for name := range c.Meta.Tools {
			seen[name] = true
		}
	})
	var out []declarationWarning
	for _, name := range sortedKeys(seen) {
		if inv.toolInstall(name) == "" {
			out = append(out, declarationWarning{"TOOL_INSTALL_UNDECLARED",
				fmt.Sprintf("no install command is declared for %s, which a command needs, so a failed check of it has no fix", name),
				fmt.Sprintf("declare one with adapters.WithToolInstall(%q, ...)", name)})
		}
	}
	return out
}

// checkToolInstalls refuses an install command for a program no command
// needs, or one that is empty: a declaration doctor would never use, or
// could not run.
func checkToolInstalls(root *schema.Command, cfg *config) []error {
	needed := map[string]bool{}
	root.Walk(func(c *schema.Command) {
		for name := range c.Meta.Tools {
			needed[name] = true
		}
	})
	var errs []error
	for _, name := range sortedKeys(cfg.discovery.toolInstalls) {
		switch {
		case !needed[name]:
			errs = append(errs, fmt.Errorf("WithToolInstall(%q): no command's Meta.Tools names %s", name, name))
		case strings.TrimSpace(cfg.discovery.toolInstalls[name]) == "":
			errs = append(errs, fmt.Errorf("WithToolInstall(%q): the install command is empty", name))
		}
	}
	return errs
}

// toolVersion runs path --version and returns the first version number it
// prints, or "".
func toolVersion(ctx context.Context, path string, env []string) string {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	//duetvet:allow rawexec -- a declared program's --version, argv only, never user input
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = env
	out, _ := cmd.CombinedOutput()
	// A version number in the program's --version; compiled here, where doctor
	// needs it, not at every start.
	v := regexp.MustCompile(`\d+\.\d+(?:\.\d+)?`).FindString(string(out))
	if !version.Valid(v) {
		return ""
	}
	return v
}

// dependencyChecks are the declared dependencies as checks.
func dependencyChecks(deps []dependencyReport) []checkReport {
	checks := make([]checkReport, 0, len(deps))
	for _, d := range deps {
		r := checkReport{Name: d.Name, OK: d.OK, Version: d.FoundVersion}
		switch d.MinVersion {
		case "":
		case anyVersion:
			r.Required = strOrNil(anyVersion)
		default:
			r.Required = strOrNil(">=" + d.MinVersion)
		}
		if !d.OK {
			r.Error, r.Fix = strOrNil(dependencyError(d)), strOrNil(d.FixCommand)
		}
		checks = append(checks, r)
	}
	return checks
}
