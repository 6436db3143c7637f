package conformance

import (
	"bufio"
	"bytes"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Reading the commands a help text lists, in the layouts of the common
// frameworks and tools: cobra and docker ("Available Commands:", "Management
// Commands:"), urfave ("COMMANDS:", "list, ls"), gh ("CORE COMMANDS",
// "auth:"), kubectl's groups, git's groups under lines of prose, yargs
// ("  tool cmd <arg>  ..."), commander ("  cmd [options] [target]  ..."),
// oclif (TOPICS, "  plugins install  ..." or "plugins:install"), clap,
// click ("Commands:"), argparse ("{list,show}" over its subcommands) and
// go's tab-indented list.

// helpEntry is one command a help text lists.
type helpEntry struct {
	Name, Summary string
}

var (
	// "Commands:", "Available Commands:", "The commands are:", "CORE
	// COMMANDS", "These are common Git commands used in various situations:".
	commandsHeading = regexp.MustCompile(`(?i)^\s*(\S+\s+){0,4}(sub)?commands?\b[^:]{0,40}:?\s*$`)
	// An indented command: its name, perhaps ending with ':' (gh) or '*'
	// (a docker plugin), its aliases (", ls" or "|plugins"), the syntax of its arguments, then two
	// spaces or a tab before its summary, or nothing more.
	commandShape = regexp.MustCompile(`^([a-z][a-z0-9_-]*)[:*]?((?:(?:,\s*|\|)[a-z][a-z0-9_-]*)*)((?:\s[\[<][^\]>]*[\]>](?:\.\.\.?)?)*)(?:\s{2,}|\t|$)\s*(.*)$`)
	// argparse's subcommands as one choice, alone on its line.
	argparseChoices = regexp.MustCompile(`^\s+\{[a-z][a-z0-9_-]*(,[a-z][a-z0-9_-]*)+\}\s*$`)
	// Sections that follow a command list and are not one.
	otherSection = regexp.MustCompile(`(?i)\b(options?|flags?|usage|examples?|arguments?|positionals?|topics?|environment|learn more|feedback)\b`)
)

// helpCommands reads the command names a help text lists. prefix is the
// program's name and the command's path, which yargs repeats on each line.
func helpCommands(help []byte, prefix []string) []string {
	var names []string
	for _, e := range helpEntries(help, prefix) {
		names = append(names, e.Name)
	}
	return names
}

// helpEntries reads the commands a help text lists, with their summaries.
func helpEntries(help []byte, prefix []string) []helpEntry {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(help))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	var entries []helpEntry
	in := false
	for i, line := range lines {
		e, isCommand := commandLine(line, prefix)
		switch {
		// A command's summary may read as a heading ("describe  Describe
		// every command ..."): within a list, a line shaped as a command
		// is one.
		case in && isCommand:
			if e.Name != "help" && !slices.ContainsFunc(entries, func(x helpEntry) bool { return x.Name == e.Name }) {
				entries = append(entries, e)
			}
		case isCommandsHeading(line), argparseChoices.MatchString(line):
			// argparse lists its subcommands under "positional arguments:"
			// as a choice, {list,done}, each then on a line of its own.
			in = true
		case !in, strings.TrimSpace(line) == "", line[0] == ' ' || line[0] == '\t', strings.HasPrefix(line, "└"):
			// A blank line, or an indented one that is no command (a
			// summary's second line, or wrapped yargs' "└───>" before
			// one): the list goes on until a line that is not indented
			// says otherwise.
		case len(entries) == 0:
			// a heading of a group before any command
		case otherSection.MatchString(line) || strings.HasSuffix(strings.TrimSpace(line), ":") || isUpper(line):
			in = false // the next section
		default:
			// Prose: a group's heading, as git's, when a command follows;
			// else the end of the list.
			in = nextIsCommand(lines[i+1:], prefix)
		}
	}
	return entries
}

// commandLine reads line as one command of a list.
func commandLine(line string, prefix []string) (helpEntry, bool) {
	rest := strings.TrimLeft(line, " \t")
	indent := len(line) - len(rest)
	// yargs set to wrap (neonctl) writes each command unindented, as
	// "tool cmd [arg]", its summary on the next line.
	unindented := indent == 0 && len(prefix) > 0 && strings.HasPrefix(line, prefix[0]+" ")
	if indent == 0 && !unindented || indent > 8 && !strings.HasPrefix(line, "\t") {
		return helpEntry{}, false
	}
	// yargs repeats the program's name and the command's path; oclif the
	// path alone, its words apart or joined by ':' ("plugins:install").
	rest = cutPath(rest, prefix)
	if len(prefix) > 1 {
		rest = cutPath(rest, prefix[1:])
	}
	m := commandShape.FindStringSubmatch(rest)
	if m == nil {
		return helpEntry{}, false
	}
	return helpEntry{Name: m[1], Summary: strings.TrimSpace(m[4])}, true
}

// cutPath cuts from the start of rest the words of path it begins with, in
// order, each followed by a space or a ':'.
func cutPath(rest string, path []string) string {
	for _, word := range path {
		after, ok := strings.CutPrefix(rest, word)
		if !ok || after == "" || after[0] != ' ' && after[0] != ':' {
			break
		}
		rest = strings.TrimLeft(after[1:], " ")
	}
	return rest
}

// nextIsCommand reports whether the next line that is not blank is a
// command.
func nextIsCommand(lines []string, prefix []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		_, ok := commandLine(l, prefix)
		return ok
	}
	return false
}

// isCommandsHeading reports whether line heads a list of commands: not a
// usage line, which may say "command" too ("Usage: false [ignored command
// line arguments]").
func isCommandsHeading(line string) bool {
	if strings.EqualFold(strings.TrimSuffix(strings.TrimSpace(line), ":"), "topics") {
		return true // oclif's: each topic a command with commands of its own
	}
	return commandsHeading.MatchString(line) && !strings.ContainsAny(line, "[<") &&
		!strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "usage")
}

// isUpper reports whether line is a heading in capitals, as "HELP TOPICS".
func isUpper(line string) bool {
	return strings.ToUpper(line) == line && strings.ContainsFunc(line, func(r rune) bool { return r >= 'A' && r <= 'Z' })
}

// name is the target's program name, as its help calls it.
func (c *checker) name() string { return filepath.Base(c.target.Path) }
