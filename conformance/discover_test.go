package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHelpCommands reads command lists from the help layouts of common
// frameworks and tools.
func TestHelpCommands(t *testing.T) {
	tests := []struct {
		name, help string
		want       []string
	}{
		{"cobra", "Usage:\n  app [command]\n\nAvailable Commands:\n  add         Add a thing\n  completion  Generate completions\n  help        Help about any command\n\nFlags:\n  -h, --help   help\n", []string{"add", "completion"}},
		{"urfave", "USAGE:\n   app [global options] [command]\n\nCOMMANDS:\n   list, ls  List things\n   show      Show one\n\nGLOBAL OPTIONS:\n   --help\n", []string{"list", "show"}},
		{"go", "Usage:\n\n\tgo <command> [arguments]\n\nThe commands are:\n\n\tbug         start a bug report\n\tbuild       compile packages\n\nUse \"go help <command>\" for more information.\n", []string{"bug", "build"}},
		{"git", "usage: git [-v | --version]\n\nThese are common Git commands used in various situations:\n\nstart a working area (see also: git help tutorial)\n   clone     Clone a repository into a new directory\n   init      Create an empty Git repository\n\nwork on the current change\n   add       Add file contents to the index\n", []string{"clone", "init", "add"}},
		{"summary as heading", "COMMANDS:\n   list      List notes\n   describe  Describe every command of this tool as JSON\n   show      Show one\n", []string{"list", "describe", "show"}},
		{"usage says command", "Usage: false [ignored command line arguments]\n  or:  false OPTION\nExit with a status code indicating failure.\n\n      --help     display this help and exit\n", nil},
		{"no commands", "Usage: ls [OPTION]... [FILE]...\nList information about the FILEs.\n\n  -a, --all   do not ignore entries\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, helpCommands([]byte(tt.help), nil)); diff != "" {
				t.Errorf("helpCommands (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHelpCommandsOfRealCLIs reads the help texts real CLIs print, captured
// in testdata/help (git, gh, kubectl and docker as installed here; the
// coding agents' from the npm packages: claude is commander, opencode and
// gemini yargs, codex clap; oex is oclif's example CLI, oclif-hello-world;
// click and argparse as click 8.4 and Python 3's argparse print a group of
// subcommands). The file's name is the command line, its words
// the prefix yargs repeats.
func TestHelpCommandsOfRealCLIs(t *testing.T) {
	tests := map[string][]string{
		"git":      {"clone", "init", "add", "mv", "restore", "rm", "bisect", "diff", "grep", "log", "show", "status", "branch", "commit", "merge", "rebase", "reset", "switch", "tag", "fetch", "pull", "push"},
		"gh":       {"auth", "browse", "codespace", "gist", "issue", "pr", "release", "repo", "run", "workflow", "alias", "api", "completion", "config", "extension", "gpg-key", "label", "search", "secret", "ssh-key", "status"},
		"gh-pr":    {"create", "list", "status", "checkout", "checks", "close", "comment", "diff", "edit", "lock", "merge", "ready", "reopen", "review", "unlock", "view"},
		"kubectl":  {"create", "expose", "run", "set", "explain", "get", "edit", "delete", "rollout", "scale", "autoscale", "certificate", "cluster-info", "top", "cordon", "uncordon", "drain", "taint", "describe", "logs", "attach", "exec", "port-forward", "proxy", "cp", "auth", "debug", "events", "diff", "apply", "patch", "replace", "wait", "kustomize", "label", "annotate", "completion", "api-resources", "api-versions", "config", "plugin", "version"},
		"docker":   {"run", "exec", "ps", "build", "pull", "push", "images", "login", "logout", "search", "version", "info", "builder", "checkpoint", "container", "context", "image", "manifest", "network", "plugin", "system", "trust", "volume", "config", "node", "secret", "service", "stack", "swarm", "attach", "commit", "cp", "create", "diff", "events", "export", "history", "import", "inspect", "kill", "load", "logs", "pause", "port", "rename", "restart", "rm", "rmi", "save", "start", "stats", "stop", "tag", "top", "unpause", "update", "wait"},
		"claude":   {"agents", "auth", "auto-mode", "doctor", "gateway", "install", "mcp", "plugin", "project", "setup-token", "ultrareview", "update"},
		"opencode": {"completion", "acp", "mcp", "attach", "run", "debug", "providers", "agent", "upgrade", "uninstall", "serve", "web", "models", "stats", "export", "import", "github", "pr", "session", "plugin", "db"},
		"gemini":   {"mcp", "extensions", "skills", "hooks", "gemma"},
		// oclif: topics and commands, and a topic's commands named in full.
		"oex":         {"hello", "plugins"},
		"oex-hello":   {"world"},
		"oex-plugins": {"inspect", "install", "link", "uninstall", "update"},
		// click, and argparse with a title for its subcommands and without.
		"click":     {"add-tag", "list", "remote", "show"},
		"argparse":  {"list", "show", "add-tag", "remote"},
		"argparse2": {"list", "done"},
		// yargs set to wrap: each command unindented, its summary below.
		"neonctl": {"auth", "profile", "api-keys", "api", "me", "orgs", "projects", "ip-allow", "vpc", "neon-auth", "branches", "databases", "roles", "operations", "logs", "snapshots", "inspect", "connection-string", "psql", "set-context", "checkout", "link", "open", "claim", "init", "mcp", "plugins", "skills", "ask", "data-api", "functions", "triggers", "credentials", "dev", "diff", "config", "status", "deploy", "env", "buckets", "bootstrap", "completion"},
		"codex":   {"agents", "exec", "review", "login", "logout", "mcp", "plugin", "app-server", "remote-control", "completion", "update", "doctor", "sandbox", "debug", "apply", "resume", "queue", "archive", "delete", "migrate-rollouts", "migrate-nfs-db", "unarchive", "fork", "cloud", "exec-server", "features"},
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			help, err := os.ReadFile(filepath.Join("testdata", "help", name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, helpCommands(help, strings.Split(name, "-"))); diff != "" {
				t.Errorf("helpCommands (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHelpCommandsOclif reads oclif's older layout, as heroku's: topics
// that are not commands themselves, and a topic's commands joined to it by
// ':'.
func TestHelpCommandsOclif(t *testing.T) {
	tests := []struct {
		name, help string
		prefix     []string
		want       []string
	}{
		{"topics", "USAGE\n  $ heroku [COMMAND]\n\nTOPICS\n  apps  manage apps on Heroku\n  auth  check 2fa status\n\nCOMMANDS\n  apps  list your apps\n  help  display help for heroku\n", []string{"heroku"}, []string{"apps", "auth"}},
		{"colon", "list your apps\n\nUSAGE\n  $ heroku apps\n\nCOMMANDS\n  apps:create   creates a new app\n  apps:destroy  permanently destroy an app\n", []string{"heroku", "apps"}, []string{"create", "destroy"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, helpCommands([]byte(tt.help), tt.prefix)); diff != "" {
				t.Errorf("helpCommands (-want +got):\n%s", diff)
			}
		})
	}
}

// TestManifestTreeCompact reads Duet's compact describe: a runnable command
// takes the global flags and those of the groups above it besides its own,
// which stay as they are listed.
func TestManifestTreeCompact(t *testing.T) {
	data := `{"tool":"m","etag":"e1","global_flags":{"format":{"type":"enum","enum_values":["json","text"],"description":"f"},"validate-only":{"type":"boolean","description":"v"}},
		"commands":{"m":{"description":"root","danger_level":"safe","runnable":false},
		"run":{"description":"runs","danger_level":"safe","runnable":false,"flags":{"space":{"type":"string","description":"s"}}},
		"run.spawn":{"description":"spawn","danger_level":"mutating","arguments":[{"name":"id","required":true,"id":true}],
			"flags":{"prompt":{"type":"string","required":true,"description":"p"},"format":{"type":"string","description":"its own"}}}}}`
	tr := manifestTree("describe", json.RawMessage(data))
	if tr == nil {
		t.Fatal("no tree")
	}
	got := map[string]map[string]Flag{}
	args := map[string][]Arg{}
	for _, c := range tr.commands {
		got[c.DotPath()] = c.Flags
		args[c.DotPath()] = c.Args
	}
	want := map[string]map[string]Flag{
		"":    nil,
		"run": {"space": {Type: "string"}},
		"run.spawn": {
			"prompt":        {Type: "string", Required: true},
			"format":        {Type: "string"}, // its own, not the global one
			"space":         {Type: "string"},
			"validate-only": {Type: "boolean"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Arg{{Name: "id", Required: true, ID: true}}, args["run.spawn"]); diff != "" {
		t.Errorf("run.spawn's arguments (-want +got):\n%s", diff)
	}
}

// TestManifestTree3x reads a ManifestResponse 3.x manifest: every runnable
// command takes the root flags (the global options) besides its own, and
// not those of a group above it; its positionals are its arguments; the
// root is the entry whose subcommands are the top-level commands; an
// integer flag's enum_values are numbers.
func TestManifestTree3x(t *testing.T) {
	data := `{"schema_version":"3.21","framework_version":"1.0.0","etag":"e2",
		"flags":{"format":{"type":"enum","required":false,"description":"f","enum_values":["json","jsonl"]},"quiet":{"type":"boolean","required":false,"description":"q"}},
		"commands":{
		"m":{"description":"root","danger_level":"safe","required_scopes":[],"flags":{"version":{"type":"boolean","required":false,"description":"v"}},"exit_codes":{},"subcommands":["run","ping"]},
		"run":{"description":"runs","danger_level":"safe","required_scopes":[],"flags":{"space":{"type":"string","required":false,"description":"s"}},"exit_codes":{},"subcommands":["run.spawn"]},
		"run.spawn":{"description":"spawn","danger_level":"mutating","required_scopes":[],"flags":{"prompt":{"type":"string","required":true,"description":"p"}},"exit_codes":{},
			"positionals":[{"name":"id","type":"string","required":true,"description":"d"}]},
		"ping":{"description":"ping","danger_level":"safe","required_scopes":[],"flags":{"count":{"type":"integer","required":false,"description":"c","enum_values":[1,2,3]}},"exit_codes":{}}}}`
	if problem := validManifest(json.RawMessage(data)); problem != "" {
		t.Fatalf("the test's manifest is not ManifestResponse 3.21: %s", problem)
	}
	tr := manifestTree("manifest", json.RawMessage(data))
	if tr == nil {
		t.Fatal("no tree")
	}
	type entry struct {
		Runnable bool
		Flags    map[string]Flag
		Args     []Arg
	}
	got := map[string]entry{}
	for _, c := range tr.commands {
		got[c.DotPath()] = entry{c.Runnable, c.Flags, c.Args}
	}
	format, quiet := Flag{Type: "enum", EnumValues: []string{"json", "jsonl"}}, Flag{Type: "boolean"}
	want := map[string]entry{
		"":          {Flags: map[string]Flag{"version": {Type: "boolean"}}},
		"run":       {Flags: map[string]Flag{"space": {Type: "string"}}},
		"run.spawn": {Runnable: true, Flags: map[string]Flag{"prompt": {Type: "string", Required: true}, "format": format, "quiet": quiet}, Args: []Arg{{Name: "id", Required: true}}},
		"ping":      {Runnable: true, Flags: map[string]Flag{"count": {Type: "integer", EnumValues: []string{"1", "2", "3"}}, "format": format, "quiet": quiet}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	if tr.etag != "e2" || !tr.fromManifest() {
		t.Errorf("etag %q, from the manifest %v", tr.etag, tr.fromManifest())
	}
}
