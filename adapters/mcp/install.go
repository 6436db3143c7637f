package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/mcp/internal/configedit"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/atomicfile"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// clientsCommand is the group name — `<tool> <name> install|uninstall|list`
// — that registers the app's MCP server, this executable by its absolute
// path with the serve command serve, in the MCP clients people use (see
// [WithClientsCommand]).
func clientsCommand(name, serve string) adapters.Option {
	names := make([]string, 0, 7)
	for _, c := range clients() {
		names = append(names, c.name)
	}
	clientArg := []schema.Arg{{Name: "client", Usage: "the MCP client: " + strings.Join(names, ", "), Required: true, Type: schema.String, Enum: names}}
	scope := schema.Flag{Name: "scope", Type: schema.String, Enum: []string{projectScope, userScope},
		Usage: "the project's configuration (in the working directory) or the user's (default: the project's, where the client has one)"}
	serverName := schema.Flag{Name: "name", Type: schema.String, Usage: "the server's name in the client's configuration (default: the tool's name)"}
	person := func(m schema.Meta) schema.Meta {
		m.Audience, m.Tool = schema.HumanOnly, schema.ToolNever
		return m
	}
	return adapters.WithExtension(adapters.Extension{
		Command: schema.Command{
			Name:  name,
			Usage: "Register this tool's MCP server with MCP clients: install, uninstall, list",
			Meta:  person(schema.Meta{}),
			Commands: []*schema.Command{
				{Name: "install", Usage: "Register this tool's MCP server with an MCP client", Args: clientArg,
					Flags: []schema.Flag{scope, serverName,
						{Name: "env", Type: schema.Array, Usage: "give the server this environment variable: NAME (its value here) or NAME=VALUE; repeat for more"}},
					Meta: person(schema.Meta{Danger: schema.Mutating, DryRun: true, Examples: []schema.Example{
						{Description: "serve this tool's commands to Claude Code in this project", Command: name + " install claude"},
						{Description: "show the edit to Codex's configuration, and make none", Command: name + " install codex --dry-run"},
					}})},
				{Name: "uninstall", Usage: "Remove this tool's MCP server from an MCP client's configuration", Args: clientArg,
					Flags: []schema.Flag{scope, serverName},
					Meta:  person(schema.Meta{Danger: schema.Mutating, DryRun: true})},
				{Name: "list", Usage: "Show which MCP clients' configurations register this tool's MCP server",
					Flags: []schema.Flag{serverName},
					Meta:  person(schema.Meta{Danger: schema.Safe})},
			},
		},
		Run: func(ctx context.Context, h *adapters.Host) int {
			r, err := newRegistrar(h, serve)
			if err == nil {
				switch h.Path()[len(h.Path())-1] {
				case "install":
					err = r.install()
				case "uninstall":
					err = r.uninstall()
				default:
					err = r.list()
				}
			}
			if err != nil {
				return fail(h, err)
			}
			return int(exitcode.Success)
		},
	})
}

// registrar registers one tool's server, as one invocation asked.
type registrar struct {
	h      *adapters.Host
	cwd    string
	getenv func(string) string
	server server
	dryRun bool
}

func newRegistrar(h *adapters.Host, serve string) (*registrar, error) {
	r := &registrar{h: h}
	r.getenv = func(k string) string { v, _ := h.LookupEnv(k); return v }
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return r, envelope.Errorf(exitcode.GeneralError, "NO_EXECUTABLE", "cannot find this program to register it: %v", err)
	}
	if r.cwd, err = os.Getwd(); err != nil {
		return r, envelope.Errorf(exitcode.GeneralError, "NO_WORKING_DIRECTORY", "%v", err)
	}
	name := h.App.Tree().Name
	if v, ok := h.Flag("name"); ok && v != "" {
		name = v
	}
	r.server = server{name: name, argv: []string{exe, serve}, env: map[string]string{}}
	for _, e := range h.FlagValues("env") {
		k, v, given := strings.Cut(e, "=")
		if !given {
			var set bool
			if v, set = h.LookupEnv(k); !set {
				return r, envelope.Validationf("ENV_NOT_SET", "--env %s: %s is not set here, and no value was given", e, k).
					WithSuggestion(fmt.Sprintf("give it as --env %s=VALUE", k))
			}
		}
		if k == "" {
			return r, envelope.Validationf(errcode.InvalidFlagValue, "--env %q names no variable", e)
		}
		r.server.env[k] = v
	}
	v, _ := h.Flag(flagname.DryRun)
	r.dryRun = v == "true"
	return r, nil
}

// target is the client and configuration file the invocation names.
func (r *registrar) target() (client, string, error) {
	name := r.h.Args()[0]
	all := clients()
	c := all[slices.IndexFunc(all, func(c client) bool { return c.name == name })] // the argument's enum holds the names
	scope, _ := r.h.Flag("scope")
	if scope == "" {
		scope = c.defaultScope()
	}
	path := c.path(scope, r.cwd, r.getenv)
	if path == "" {
		if (scope == projectScope && c.project == nil) || (scope == userScope && c.user == nil) {
			return c, "", envelope.Validationf("SCOPE_UNSUPPORTED", "%s has no %s configuration", c.title, scope).
				WithField("scope", c.defaultScope())
		}
		return c, "", envelope.Errorf(exitcode.Precondition, "NO_HOME", "HOME is not set: there is no user configuration of %s to find", c.title)
	}
	return c, path, nil
}

// config is the client the arguments name, its configuration file, and
// what the file holds (nothing when there is none).
func (r *registrar) config() (client, string, []byte, error) {
	c, path, err := r.target()
	if err != nil {
		return c, "", nil, err
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return c, "", nil, envelope.Errorf(exitcode.GeneralError, "CONFIG_UNREADABLE", "%s: %v", path, err)
	}
	return c, path, old, nil
}

// install registers the server with the client the arguments name.
func (r *registrar) install() error {
	c, path, old, err := r.config()
	if err != nil {
		return err
	}
	updated, err := c.set(old, r.server)
	if err != nil {
		return invalidConfig(path, err)
	}
	out := r.h.Stdout
	switch {
	case bytes.Equal(updated, old):
		fmt.Fprintf(out, "%s is registered with %s in %s already.\n", r.server.name, c.title, path)
	case r.dryRun:
		fmt.Fprintf(out, "Would register %s with %s (%s):\n%s", r.server.name, c.title, strings.Join(r.server.argv, " "), configedit.Diff(path, old, updated))
	default:
		if err := writeConfig(path, updated); err != nil {
			return err
		}
		fmt.Fprintf(out, "Registered %s (%s) with %s in %s.\n", r.server.name, strings.Join(r.server.argv, " "), c.title, path)
	}
	return nil
}

// uninstall removes the server from the client the arguments name.
func (r *registrar) uninstall() error {
	c, path, old, err := r.config()
	if err != nil {
		return err
	}
	updated, found, err := c.remove(old, r.server.name)
	if err != nil {
		return invalidConfig(path, err)
	}
	out := r.h.Stdout
	switch {
	case !found:
		fmt.Fprintf(out, "%s is not registered with %s in %s.\n", r.server.name, c.title, path)
	case r.dryRun:
		fmt.Fprintf(out, "Would remove %s from %s:\n%s", r.server.name, c.title, configedit.Diff(path, old, updated))
	default:
		if updated != nil {
			err = writeConfig(path, updated)
		} else if err = os.Remove(path); err != nil { // the file held nothing else: it goes, as it came
			err = envelope.Errorf(exitcode.GeneralError, "CONFIG_UNWRITABLE", "%s: %v", path, err)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "Removed %s from %s in %s.\n", r.server.name, c.title, path)
	}
	return nil
}

// list shows, for each client and scope, whether its configuration
// registers the server, and with what command.
func (r *registrar) list() error {
	tw := tabwriter.NewWriter(r.h.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLIENT\tSCOPE\tSERVER\tCONFIGURATION")
	for _, c := range clients() {
		for _, scope := range []string{projectScope, userScope} {
			path := c.path(scope, r.cwd, r.getenv)
			if path == "" {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.name, scope, r.state(c, path), path)
		}
	}
	return tw.Flush()
}

// state says what the configuration at path holds of the server.
func (r *registrar) state(c client, path string) string {
	doc, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "-"
	}
	if err != nil {
		return "unreadable"
	}
	argv, found, err := c.command(doc, r.server.name)
	switch {
	case err != nil:
		return "does not parse"
	case !found:
		return "-"
	case slices.Equal(argv, r.server.argv):
		return "registered"
	}
	return "registered, another command: " + strings.Join(argv, " ")
}

func writeConfig(path string, b []byte) error {
	err := os.MkdirAll(filepath.Dir(path), 0o755)
	if err == nil {
		err = atomicfile.Write(path, b, configMode(path))
	}
	if err != nil {
		return envelope.Errorf(exitcode.GeneralError, "CONFIG_UNWRITABLE", "%s: %v", path, err)
	}
	return nil
}

// configMode keeps the permissions of a file written over (a user's
// configuration may hold secrets, and be private).
func configMode(path string) os.FileMode {
	if info, err := os.Stat(path); err == nil {
		return info.Mode().Perm()
	}
	return 0o644
}

func invalidConfig(path string, err error) error {
	return envelope.Errorf(exitcode.Precondition, "CONFIG_INVALID", "%s does not parse, and is left as it is: %v", path, err).
		WithSuggestion("fix the file, then run this again")
}
