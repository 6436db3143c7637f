package proc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
)

// The codes of the errors proc returns.
const (
	// CodeMetacharacter: a value passed to a program holds a shell
	// metacharacter (exit 2, phase validation).
	CodeMetacharacter = "SHELL_METACHARACTER"
	// CodeShellString: a shell command line was given instead of a
	// program and its arguments (a bug in the tool).
	CodeShellString = "SHELL_STRING_PROHIBITED"
	// CodeEditor: the program is the editor $EDITOR or $VISUAL names, and
	// nobody can use one (exit 4).
	CodeEditor = "EDITOR_REQUIRED"
	// CodeBackgroundUndeclared: a command started a background process
	// without declaring it (schema.Meta.Background; a bug in the tool).
	CodeBackgroundUndeclared = "BACKGROUND_UNDECLARED"
	// CodeBackgroundOutput: a background process was given the
	// invocation's stdout or stderr, which it would hold open.
	CodeBackgroundOutput = "BACKGROUND_HOLDS_OUTPUT"
	// CodeSessionEnded: a program was started after the invocation had
	// answered.
	CodeSessionEnded = "SESSION_ENDED"
)

// Metacharacters are the characters a shell gives a meaning to, refused in
// a value passed to a program (the spec's F-044).
const Metacharacters = ";|&$()<>`\n\r"

// CheckArg refuses a value passed to a program that holds a shell
// metacharacter: an *envelope.Error with exit code 2 in the validation
// phase, naming field and the character. A program started with proc gets
// its arguments verbatim, never through a shell; CheckArg guards a value
// that may yet reach one (a script, a remote command line, a log read by a
// person) — one from the environment or from another program's output as
// much as one given on the command line. Duet checks the flags and
// arguments a command marks Subprocess before it runs.
func CheckArg(field, value string) error {
	i := strings.IndexAny(value, Metacharacters)
	if i < 0 {
		return nil
	}
	return envelope.Validationf(CodeMetacharacter, "%s", MetacharacterMessage(field, value)).
		WithField(field).
		WithSuggestion(fmt.Sprintf("pass the value without shell metacharacters (%s): it is given to a program", quoted()))
}

// MetacharacterMessage says which metacharacter of value, given for field,
// is refused, or "" when there is none.
func MetacharacterMessage(field, value string) string {
	i := strings.IndexAny(value, Metacharacters)
	if i < 0 {
		return ""
	}
	return fmt.Sprintf("%s: %s holds the shell metacharacter %s, which is refused in a value passed to a program",
		field, shorten(value), quoteChar(value[i]))
}

func quoteChar(b byte) string {
	switch b {
	case '\n':
		return `'\n' (newline)`
	case '\r':
		return `'\r' (carriage return)`
	}
	return "'" + string(b) + "'"
}

func quoted() string {
	var parts []string
	for i := range len(Metacharacters) {
		parts = append(parts, quoteChar(Metacharacters[i]))
	}
	return strings.Join(parts, " ")
}

// shorten quotes a value, cut to a readable length.
func shorten(v string) string {
	if len(v) > 80 {
		v = v[:77] + "..."
	}
	return fmt.Sprintf("%q", v)
}

// guard refuses what Start must not start.
func (c *Cmd) guard() error {
	if err := c.shellString(); err != nil {
		return err
	}
	if err := c.editor(); err != nil {
		return err
	}
	if c.Background {
		return c.background()
	}
	return nil
}

// isShell reports whether name is a program that runs a command line given
// with -c. (A switch, not a map, which every start would build.)
func isShell(name string) bool {
	switch name {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish", "csh", "tcsh", "busybox",
		"cmd", "powershell", "pwsh":
		return true
	}
	return false
}

// shellString refuses a shell command line: a program name that is a
// command line ("git log"), or a shell told to run one (sh -c "...").
func (c *Cmd) shellString() error {
	name := c.Args[0]
	if strings.ContainsAny(name, " \t\n") {
		if _, err := os.Stat(c.Path); c.Err != nil || err != nil {
			return shellStringError(fmt.Sprintf("%q is a command line, not a program", name))
		}
	}
	base := strings.ToLower(strings.TrimSuffix(filepath.Base(c.Path), ".exe"))
	if !isShell(base) {
		return nil
	}
	args := c.Args[1:]
	if base == "busybox" {
		if len(args) == 0 || !isShell(args[0]) {
			return nil
		}
		args = args[1:]
	}
	if runsLine(base, args) {
		return shellStringError(fmt.Sprintf("%s is told to run a command line", filepath.Base(c.Path)))
	}
	return nil
}

// runsLine reports whether a shell's options ask it to run a command line.
func runsLine(shell string, args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch shell {
		case "cmd":
			if l := strings.ToLower(a); l == "/c" || l == "/k" || l == "/r" {
				return true
			}
			continue
		case "powershell", "pwsh":
			switch strings.ToLower(a) {
			case "-c", "-command", "-ec", "-encodedcommand", "/c", "/command":
				return true
			}
			continue
		}
		switch {
		case a == "--" || a == "-" || !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+"):
			return false // a script, or its arguments
		case strings.HasPrefix(a, "--"):
			if strings.HasPrefix(a, "--command") { // fish
				return true
			}
		case strings.ContainsRune(a[1:], 'c'):
			return true
		case a[1:] == "o" || a[1:] == "O":
			i++ // -o option takes a value
		}
	}
	return false
}

func shellStringError(what string) error {
	return envelope.Errorf(exitcode.GeneralError, CodeShellString, "%s: proc runs a program with its arguments, never a shell", what).
		WithPhase(envelope.Execution).
		WithSuggestion("this is a bug in the tool: pass the program and each argument separately, as proc.Command(ctx, \"git\", \"log\", \"-n\", \"5\")")
}

// editor refuses the editor $EDITOR or $VISUAL names where nobody can use
// it: it would wait for a person forever.
//
// An editor of "true" counts too when it is given something to edit. Where
// nobody can answer, Duet sets the variables to "true" in the process's own
// environment so that children started outside proc (os/exec, git's own
// editor) open nothing; a command that reads $EDITOR itself and starts it
// on a file would otherwise "edit" nothing and go on as if the person had
// (F-055 wants exit 4). "true" run bare is not an editor launch.
func (c *Cmd) editor() error {
	if c.policy().interactive {
		return nil
	}
	env := c.base()
	for _, v := range []string{"VISUAL", "EDITOR", "GIT_EDITOR"} {
		fields := strings.Fields(lookup(env, v))
		if len(fields) == 0 || fields[0] == ":" || fields[0] == "true" && len(c.Args) < 2 {
			continue
		}
		editor := filepath.Base(fields[0])
		if editor == filepath.Base(c.Args[0]) || editor == filepath.Base(c.Path) {
			e := envelope.Errorf(exitcode.Precondition, CodeEditor, "%s would open an interactive editor ($%s), and nobody can use one here", c.Args[0], v).
				WithPhase(envelope.Execution).
				WithSuggestion("give the text another way: the command's non-interactive option (such as --message or --file)")
			if s := c.session; s != nil && len(s.opts.Alternatives) > 0 {
				e.Alternatives = slices.Clone(s.opts.Alternatives)
				e.Suggestion = "give the text another way: " + alternativeFlags(e.Alternatives)
			}
			return e
		}
	}
	return nil
}

// background refuses a background process the command did not declare, or
// one that would hold the invocation's output open.
func (c *Cmd) background() error {
	if c.Terminal {
		return errors.New("proc: a program cannot both be given the terminal and run in the background")
	}
	if s := c.session; s != nil && !s.opts.Background {
		return envelope.Errorf(exitcode.GeneralError, CodeBackgroundUndeclared, "the command started %s in the background without declaring that it does", c.Args[0]).
			WithPhase(envelope.Execution).
			WithSuggestion("this is a bug in the tool: declare schema.Meta.Background (how the process is stopped, how long it may live)")
	}
	for _, w := range []any{c.Stdout, c.Stderr} {
		if f, ok := w.(*os.File); ok && (f.Fd() == 1 || f.Fd() == 2) {
			return envelope.Errorf(exitcode.GeneralError, CodeBackgroundOutput, "%s would run in the background holding this process's %s open, so that a reader would wait for it", c.Args[0], f.Name()).
				WithPhase(envelope.Execution).
				WithSuggestion("this is a bug in the tool: give a background process a log file, or nothing")
		}
	}
	return nil
}

func errEnded(path string) error {
	return envelope.Errorf(exitcode.GeneralError, CodeSessionEnded, "%s was not started: the command had already been answered", filepath.Base(path)).
		WithPhase(envelope.Execution)
}

// alternativeFlags names the flags, for a suggestion: "--message or --from-file".
func alternativeFlags(alts []envelope.Alternative) string {
	flags := make([]string, len(alts))
	for i, a := range alts {
		flags[i] = a.Flag
	}
	return strings.Join(flags, " or ")
}
