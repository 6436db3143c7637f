package adapters

import (
	"context"
	"slices"
)

// discoveryConfig is what the app tells the discovery built-ins.
type discoveryConfig struct {
	checks      []Check
	deps        []Dependency
	stateFiles  []StateFile
	sideEffects []SideEffect
	install     string
	// toolInstalls are the install commands of programs commands need
	// (WithToolInstall), by program name.
	toolInstalls map[string]string
	history      []byte
}

// Check is one of the app's own checks, which `tool doctor` runs beside
// Duet's.
type Check struct {
	Name string
	// Run reports the check's result. It must change nothing: doctor is
	// safe to run at any time.
	Run func(ctx context.Context) CheckResult
}

// CheckResult is what a check found. A failed check says what is wrong
// (Error) and the shell command that fixes it (Fix).
type CheckResult struct {
	OK       bool
	Version  string // the version found, if it has one
	Required string // the version required, such as ">=2.0.0"
	Error    string
	Fix      string // a command to run verbatim
}

// WithCheck adds a check of the app's own to `tool doctor`.
func WithCheck(name string, run func(ctx context.Context) CheckResult) Option {
	return func(c *config) { c.discovery.checks = append(c.discovery.checks, Check{Name: name, Run: run}) }
}

// Dependency is a program the tool runs, and the versions it works with.
// `tool doctor` runs CheckCommand, finds the version in its output with
// VersionRegex (its first group, or the whole match), and compares it with
// MinVersion and MaxVersion; describe lists the dependencies. A MinVersion
// of "*" means any version: doctor passes it when CheckCommand exits 0
// (such as "command -v bean-format", for a program with no --version),
// and reads no version.
type Dependency struct {
	Name         string `json:"name"`
	CheckCommand string `json:"check_command"`         // a shell command, such as "terraform version"
	VersionRegex string `json:"version_regex"`         // such as `Terraform v(\d+\.\d+\.\d+)`
	MinVersion   string `json:"min_version"`           // the oldest version that works, or "*" for any
	MaxVersion   string `json:"max_version,omitempty"` // the newest known to work; a newer one is a warning
	FixCommand   string `json:"fix_command"`           // the command that installs or upgrades it
}

// WithDependency declares a program the tool needs.
func WithDependency(d Dependency) Option {
	return func(c *config) { c.discovery.deps = append(c.discovery.deps, d) }
}

// WithToolInstall gives the shell command that installs program, one a
// command needs (schema.Meta.Tools), at a version every command that names
// it accepts: "brew install awscli". `tool doctor` gives it, to be run
// verbatim by sh, as the fix of the program's failed check. A program that
// is also a declared dependency (WithDependency) needs none: its
// FixCommand is used. Without either, doctor cannot say how to install the
// program, leaves the check's fix null and warns TOOL_INSTALL_UNDECLARED.
func WithToolInstall(program, command string) Option {
	return func(c *config) {
		if c.discovery.toolInstalls == nil {
			c.discovery.toolInstalls = map[string]string{}
		}
		c.discovery.toolInstalls[program] = command
	}
}

// StateFile is a file that holds the tool's state between runs: a login, a
// current context, a cache. `tool status` lists it.
type StateFile struct {
	// Path is the file's path; $VAR, ${VAR} and a leading ~ are expanded
	// from the invocation's environment, and a relative path is taken from
	// the working directory.
	Path    string
	Purpose string
	// Summary, when set, describes the file's current content for status,
	// such as the context it selects; it is called only when the file
	// exists, and must not say what is secret in it.
	Summary func(path string) (any, error)
}

// WithStateFile declares a state file of the tool.
func WithStateFile(f StateFile) Option {
	return func(c *config) { c.discovery.stateFiles = append(c.discovery.stateFiles, f) }
}

// SideEffect is a path the tool writes to besides its state: a cache, a
// log, the output of a build. Path is expanded as StateFile's.
type SideEffect struct {
	Path    string
	Kind    string // "file" or "directory"
	Purpose string
}

// WithSideEffect declares a path the tool writes to.
func WithSideEffect(s SideEffect) Option {
	return func(c *config) { c.discovery.sideEffects = append(c.discovery.sideEffects, s) }
}

// WithInstall gives the command that installs this version of the tool
// without asking anything, documented in its AGENTS.md: "go install
// example.com/tool@v1.2.3". Without it, the command is made from the
// binary's build information.
func WithInstall(command string) Option {
	return func(c *config) { c.discovery.install = command }
}

// WithHistory gives the full describe document of the tool's previous
// release (`tool describe --full` as it answered, enveloped or not). The app then fails to
// wrap when a command, flag or exit code of that release is gone without
// having been deprecated in it, and a command the previous release lacked
// is reported as introduced in this version.
func WithHistory(previous []byte) Option {
	previous = slices.Clone(previous)
	return func(c *config) { c.discovery.history = previous }
}

// Join returns one option that applies each of opts in turn: for a package
// that adds a built-in and tells the others about it at once.
func Join(opts ...Option) Option {
	opts = slices.Clone(opts)
	return func(c *config) {
		for _, o := range opts {
			o(c)
		}
	}
}
