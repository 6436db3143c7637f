package adapters

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/profile"
	"github.com/duet-cli/duet/internal/version"
)

// checkTimeout bounds one doctor check: a dependency's command, an
// endpoint's connection.
const checkTimeout = 10 * time.Second

// doctorChecksFailed is the error.code of a doctor run with a failed check.
const doctorChecksFailed = "DOCTOR_CHECKS_FAILED"

// anyVersion is the version a program or dependency is declared with when
// any version will do (the spec's "*"): doctor checks that it is there,
// never which version it is.
const anyVersion = "*"

// checkReport is one check as `tool doctor` answers it. Every member is
// always present: null says "not applicable", never "missing".
type checkReport struct {
	Name     string  `json:"name"`
	OK       bool    `json:"ok"`
	Version  *string `json:"version"`
	Required *string `json:"required"`
	Error    *string `json:"error"`
	Fix      *string `json:"fix"`
}

// dependencyReport is one declared dependency and what doctor found of it.
type dependencyReport struct {
	Dependency
	MaxVersion   *string `json:"max_version"`
	FoundVersion *string `json:"found_version"`
	OK           bool    `json:"ok"`
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// doctor answers `tool doctor`: Duet's own checks (the profiles file and
// its directory, for a tool with profiles), the app's checks (a connection
// to an endpoint is nethttp.Reach), and each declared dependency. It changes
// nothing, and exits 0 only when everything passes; a dependency newer than
// its declared maximum passes with a warning.
func (inv *invocation) doctor(ctx context.Context) error {
	checks := inv.profileChecks()
	for _, c := range inv.cfg.discovery.checks {
		r := c.Run(ctx)
		checks = append(checks, checkReport{Name: c.Name, OK: r.OK, Version: strOrNil(r.Version), Required: strOrNil(r.Required),
			Error: strOrNil(r.Error), Fix: strOrNil(r.Fix)})
	}
	checks = append(checks, inv.requiredToolChecks(ctx)...) // the programs commands need (doctortools.go)
	deps := make([]dependencyReport, 0, len(inv.cfg.discovery.deps))
	for _, d := range inv.cfg.discovery.deps {
		deps = append(deps, inv.dependencyCheck(ctx, d))
	}
	if checks == nil {
		checks = []checkReport{}
	}
	var failed []string
	fix := ""
	for _, c := range checks {
		if !c.OK {
			failed = append(failed, c.Name)
			if fix == "" && c.Fix != nil {
				fix = *c.Fix
			}
		}
	}
	for _, d := range deps {
		if !d.OK {
			failed = append(failed, d.Name)
			if fix == "" {
				fix = d.FixCommand
			}
		}
	}
	// The tool's registration warnings, for its authors: the tool works,
	// and doctor passes, but agents are worse off (declwarn.go).
	for _, w := range append(declarationWarnings(inv.root), inv.toolInstallWarnings()...) {
		inv.out.Warn(w[0], w[1], w[2])
	}
	inv.out.RenderText(func(w io.Writer) error {
		for _, c := range checks {
			writeCheck(w, c.OK, c.Name, deref(c.Version), deref(c.Error), deref(c.Fix))
		}
		for _, d := range deps {
			writeCheck(w, d.OK, d.Name, deref(d.FoundVersion), dependencyError(d), d.FixCommand)
		}
		return nil
	})
	inv.out.Result(map[string]any{"checks": append(checks, dependencyChecks(deps)...), "dependencies": deps})
	if len(failed) == 0 {
		return nil
	}
	// A failed check is an unmet precondition of the tool's commands, not a
	// failure of doctor: exit 4 (PRECONDITION), as the spec's O-026 has it
	// since v1.12, with the full report in data.
	e := envelope.Errorf(exitcode.Precondition, doctorChecksFailed, "%d of %d checks failed: %s", len(failed), len(checks)+len(deps), strings.Join(failed, ", ")).
		WithPhase(envelope.Execution)
	if fix != "" {
		e = e.WithFix("apply the fix listed for each failed check in data.checks", "").WithSuggestion(fmt.Sprintf("run '%s', then '%s doctor' again", fix, inv.root.Name))
	}
	return e.WithResult()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func writeCheck(w io.Writer, ok bool, name, version, problem, fix string) {
	mark := "ok  "
	if !ok {
		mark = "FAIL"
	}
	line := mark + " " + name
	if version != "" {
		line += " " + version
	}
	if problem != "" {
		line += ": " + problem
	}
	if !ok && fix != "" {
		line += " (fix: " + fix + ")"
	}
	fmt.Fprintln(w, line)
}

func dependencyError(d dependencyReport) string {
	switch {
	case d.OK:
		return ""
	case d.MinVersion == anyVersion:
		return "not found: " + d.CheckCommand + " failed"
	case d.FoundVersion == nil:
		return "not found"
	}
	return "older than " + d.MinVersion
}

// profileChecks are Duet's checks of its own state: that the profiles
// file's directory can be written, and that the file, when there is one,
// can be read.
func (inv *invocation) profileChecks() []checkReport {
	if p := inv.root.Sub(profileCommand); p == nil || !p.Builtin {
		return nil
	}
	path, err := profile.Path(inv.root.Name, inv.cfg.getenv)
	envName := envelope.EnvName(inv.root.Name, "CONFIG_DIR")
	if err != nil {
		return []checkReport{{Name: "config-dir", Error: strOrNil(err.Error()),
			Fix: strOrNil(fmt.Sprintf(`mkdir -p "$HOME/.config/%s" && export %s="$HOME/.config/%s"`, inv.root.Name, envName, inv.root.Name))}}
	}
	dir := filepath.Dir(path)
	dirCheck := checkReport{Name: "config-dir", OK: true}
	if problem, fix := writable(dir); problem != "" {
		dirCheck.OK, dirCheck.Error, dirCheck.Fix = false, &problem, &fix
	}
	fileCheck := checkReport{Name: "profiles", OK: true}
	if _, err := os.Stat(path); err == nil {
		if _, err := (&profile.Store{Path: path}).Load(); err != nil {
			fileCheck.OK, fileCheck.Error = false, strOrNil(err.Error())
			fileCheck.Fix = strOrNil(fmt.Sprintf("mv %s %s.bak", commandLine([]string{path}), commandLine([]string{path})))
		}
	}
	return []checkReport{dirCheck, fileCheck}
}

// writable says why dir cannot hold new files, and how to fix that; "" when
// it can, or can be created.
func writable(dir string) (problem, fix string) {
	at := dir
	for {
		info, err := os.Stat(at)
		if err == nil {
			if !info.IsDir() {
				return at + " is not a directory", "rm " + commandLine([]string{at})
			}
			if !canWrite(at) {
				return at + " is not writable", "chmod u+w " + commandLine([]string{at})
			}
			return "", ""
		}
		parent := filepath.Dir(at)
		if parent == at {
			return "no directory above " + dir + " exists", "mkdir -p " + commandLine([]string{dir})
		}
		at = parent
	}
}

// dependencyCheck runs a dependency's check command and compares the
// version it prints with the declared range. A dependency needed at any
// version (MinVersion "*") passes when the command exits 0: its output is
// not read for a version, which a presence check such as "command -v x"
// does not print.
func (inv *invocation) dependencyCheck(ctx context.Context, d Dependency) dependencyReport {
	r := dependencyReport{Dependency: d, MaxVersion: strOrNil(d.MaxVersion)}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	//duetvet:allow rawexec -- the author's declared check command, a shell line by design (doctor), never user input
	cmd := exec.CommandContext(ctx, "sh", "-c", d.CheckCommand)
	cmd.Env = inv.cfg.environ()
	out, err := cmd.CombinedOutput()
	if d.MinVersion == anyVersion {
		r.OK = err == nil
		return r
	}
	if err != nil && len(out) == 0 {
		return r
	}
	found := strings.TrimSpace(string(out))
	if re, err := regexp.Compile(d.VersionRegex); err == nil && d.VersionRegex != "" {
		m := re.FindStringSubmatch(string(out))
		switch {
		case m == nil:
			return r
		case len(m) > 1:
			found = m[1]
		default:
			found = m[0]
		}
	}
	if !version.Valid(found) {
		return r
	}
	r.FoundVersion = &found
	r.OK = d.MinVersion == "" || version.Compare(found, d.MinVersion) >= 0
	if r.OK && d.MaxVersion != "" && version.Compare(found, d.MaxVersion) > 0 {
		inv.out.Warn("DEPENDENCY_UNTESTED", fmt.Sprintf("%s %s is newer than %s, the newest known to work", d.Name, found, d.MaxVersion),
			"if something fails, install "+d.Name+" "+d.MaxVersion)
	}
	return r
}
