package adapters

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/internal/profile"
	"github.com/duet-cli/duet/schema"
)

// Names of the profile built-ins. An app gets them when one of its flags is
// declared profileable (schema.FlagMeta.Profile); --show-config every app
// gets.
const (
	profileCommand = "profile"
)

// profileable returns the flags of the tree declared profileable, one per
// name, by name.
func profileable(root *schema.Command) []schema.Flag {
	var flags []schema.Flag
	root.Walk(func(c *schema.Command) {
		for _, f := range c.Flags {
			if f.Profile && !f.Builtin && !slices.ContainsFunc(flags, func(g schema.Flag) bool { return g.Name == f.Name }) {
				flags = append(flags, f)
			}
		}
	})
	slices.SortFunc(flags, func(a, b schema.Flag) int { return strings.Compare(a.Name, b.Name) })
	return flags
}

func profileFlag() schema.Flag {
	return schema.Flag{Name: flagname.Profile, Type: schema.String, Usage: "apply this saved profile's flag values (default: $<TOOL>_PROFILE, then the profile set with 'profile use')"}
}

// profileNode is the profile command group. save takes every profileable flag
// as a flag of its own.
func profileNode(saved []schema.Flag) *schema.Command {
	name := []schema.Arg{{Name: "name", Required: true, Type: schema.String, Usage: "the profile's name"}}
	var flags []schema.Flag
	for _, f := range saved {
		f.Required, f.Default, f.Env, f.Persistent = false, nil, nil, false
		f.Builtin = true // read by the lifecycle, never by the framework
		flags = append(flags, f)
	}
	leaf := func(cmd, usage string, danger schema.Danger, args []schema.Arg) *schema.Command {
		return &schema.Command{Name: cmd, Usage: usage, Runnable: true, Builtin: true, Args: args, Meta: schema.Meta{Danger: danger}}
	}
	save := leaf("save", "Save the profileable flags given here under a name", schema.Mutating, name)
	save.Flags = flags
	del := leaf("delete", "Delete a profile", schema.Destructive, name)
	del.Meta.DryRun = true
	return &schema.Command{
		Name:    profileCommand,
		Usage:   "Save, choose and inspect named sets of flag values",
		Builtin: true,
		Meta:    schema.Meta{Danger: schema.Safe},
		Commands: []*schema.Command{
			save,
			leaf("use", "Apply a profile by default from now on", schema.Mutating, name),
			leaf("list", "List the saved profiles", schema.Safe, nil),
			leaf("show", "Show one profile's flag values", schema.Safe, name),
			del,
		},
	}
}

// profiles is what the invocation knows of the tool's saved profiles.
type profiles struct {
	store   *profile.Store
	file    *profile.File // nil when it was not read
	applied string        // the profile applied to this invocation, if any
	values  map[string]string
}

// applyProfile selects the invocation's profile (--profile, then
// <TOOL>_PROFILE, then the file's default) and gives the command the values
// it holds for flags that the command line and the environment left unset.
// A profile named but missing is a validation problem; an unreadable file is
// an error when a profile was named, and a warning when only the default was
// looked for. Apps without profileable flags read nothing.
func (inv *invocation) applyProfile() *envelope.Error {
	c, cfg := inv.call, inv.cfg
	if c.help || c.version || inv.root.Sub(profileCommand) == nil || !inv.root.Sub(profileCommand).Builtin || inv.skipProfiles() {
		return nil // help and --version take no flag values; --no-config reads no profile
	}
	path, err := profile.Path(inv.root.Name, cfg.getenv)
	path = inv.profilePath(path)
	if err != nil {
		return envelope.Errorf(exitcode.Precondition, "NO_CONFIG_DIR", "%v", err).
			WithFix("set "+envelope.EnvName(inv.root.Name, "CONFIG_DIR")+" to a directory for the tool's profiles", "")
	}
	path = inv.instanceProfiles(path) // --instance-id
	inv.profiles = &profiles{store: &profile.Store{Path: path}}
	name, from := c.last(flagname.Profile), "--profile"
	if name == "" {
		name, from = inv.contextProfile(), "--context"
	}
	profileCmd := c.node.Builtin && (c.node.Name == profileCommand || c.node.Parent != nil && c.node.Parent.Name == profileCommand)
	if _, isolated := c.opt(flagname.Config); name == "" && isolated && cfg.configFiles != nil && !profileCmd {
		return nil // --config names the one file to read (O-024): no profile is applied unasked from another
	}
	if name == "" {
		name, from = cfg.getenv(profile.EnvName(inv.root.Name)), profile.EnvName(inv.root.Name)
	}
	f, err := inv.profiles.store.Load()
	if err != nil {
		if name == "" && !profileCmd {
			inv.warn("PROFILES_UNREADABLE", err.Error(), "repair or move "+path)
			return nil
		}
		return unreadable(err, path)
	}
	inv.profiles.file = f
	if name == "" {
		name, from = f.Default, "the default profile"
	}
	if name == "" || profileCmd {
		return nil // the profile commands work on the file itself
	}
	p, ok := f.Profiles[name]
	if !ok {
		c.problem("PROFILE_NOT_FOUND", flagname.Profile, "no saved profile %q (named by %s)", name, from)
		c.problems[len(c.problems)-1].ValidValues = f.Names()
		return nil
	}
	inv.profiles.applied, inv.profiles.values = name, map[string]string{}
	for _, flag := range slices.Sorted(maps.Keys(p.Flags)) {
		value := p.Flags[flag]
		target := c.node.Flag(flag)
		switch {
		case target == nil:
			if findFlag(inv.root, flag) == nil {
				inv.warn("PROFILE_UNKNOWN_FLAG", fmt.Sprintf("profile %q sets --%s, which no command has", name, flag), "delete it with '"+inv.root.Name+" profile save' or edit "+path)
			}
			continue // a flag of other commands
		case target.Builtin || c.has(flag) || envSet(target, cfg.lookupEnv):
			continue // the command line and the environment come first
		}
		for _, v := range splitFor(target, value) {
			if err := checkType(target, v); err != nil {
				c.problem(errcode.InvalidFlagValue, flag, "invalid value %q for flag --%s from profile %q: %v", v, flag, name, err)
			}
		}
		inv.profiles.values[flag] = value
	}
	return nil
}

// valueOf returns the value the applied profile gives f, or "".
func (ps *profiles) valueOf(f *schema.Flag) string {
	if ps == nil {
		return ""
	}
	return ps.values[f.Name]
}

// meta is what the envelope says of the profile: the file among the config
// sources and the flags it supplied, when it supplied any.
func (ps *profiles) meta() ([]string, *envelope.ProfileUse) {
	if ps == nil || len(ps.values) == 0 {
		return []string{}, nil
	}
	return []string{ps.store.Path}, &envelope.ProfileUse{Name: ps.applied, Flags: slices.Sorted(maps.Keys(ps.values))}
}

func unreadable(err error, path string) *envelope.Error {
	var corrupt *profile.CorruptError
	if !errors.As(err, &corrupt) {
		return envelope.Errorf(exitcode.Precondition, "PROFILES_UNREADABLE", "%v", err)
	}
	return envelope.Errorf(exitcode.Precondition, "PROFILES_UNREADABLE", "%v", err).
		WithFix("repair or move "+path+"; nothing in it was changed", "")
}

func envSet(f *schema.Flag, lookupEnv func(string) (string, bool)) bool {
	for _, e := range f.Env {
		if _, ok := lookupEnv(e); ok {
			return true
		}
	}
	return false
}

// splitFor splits a stored value as the command line would: a list flag's
// values are comma-separated.
func splitFor(f *schema.Flag, v string) []string {
	if f.Type == schema.Array {
		return splitList(v)
	}
	return []string{v}
}

// warn records a warning for the invocation's answer.
func (inv *invocation) warn(code, message, next string) {
	inv.warnings = append(inv.warnings, [3]string{code, message, next})
}

// profileAction runs one of the profile commands.
func (inv *invocation) profileAction(ctx context.Context) error {
	c, out, ps := inv.call, inv.out, inv.profiles
	inv.meta.ConfigSources = []string{ps.store.Path}
	name := ""
	if len(c.args) > 0 {
		name = c.args[0]
	}
	switch c.node.Name {
	case "list":
		var rows []map[string]any
		for _, n := range ps.file.Names() {
			p := ps.file.Profiles[n]
			rows = append(rows, map[string]any{"name": n, "default": n == ps.file.Default, "flags": len(p.Flags), "updated": p.Updated})
		}
		if rows == nil {
			rows = []map[string]any{}
		}
		return out.Result(rows)
	case "show":
		p, ok := ps.file.Profiles[name]
		if !ok {
			return notFoundProfile(name, ps.file)
		}
		return out.Result(inv.profileView(name, p))
	case "use":
		effect := envelope.Updated
		err := ps.store.Update(ctx, func(f *profile.File) error {
			if _, ok := f.Profiles[name]; !ok {
				return notFoundProfile(name, f)
			}
			if f.Default == name {
				effect = envelope.Noop // it is the default already
			}
			f.Default = name
			return nil
		})
		if err != nil {
			return inv.storeError(err)
		}
		out.Effect(effect)
		return out.Result(map[string]any{"default": name})
	case "delete":
		if _, ok := ps.file.Profiles[name]; !ok {
			return notFoundProfile(name, ps.file)
		}
		out.Effect(envelope.Deleted)
		if out.DryRun() {
			out.WouldAffect(map[string]any{"profile": name, "default": ps.file.Default == name, "reversible": false})
			return out.Result(map[string]any{"deleted": name})
		}
		err := ps.store.Update(ctx, func(f *profile.File) error {
			delete(f.Profiles, name)
			if f.Default == name {
				f.Default = ""
			}
			return nil
		})
		if err != nil {
			return inv.storeError(err)
		}
		return out.Result(map[string]any{"deleted": name})
	case "save":
		return inv.saveProfile(ctx, name)
	}
	return fmt.Errorf("duet: no profile command %q", c.node.Name)
}

func (inv *invocation) saveProfile(ctx context.Context, name string) error {
	c, out, ps := inv.call, inv.out, inv.profiles
	if err := profile.ValidName(name); err != nil {
		return envelope.Validationf("INVALID_PROFILE_NAME", "%v", err).WithField("name")
	}
	values := map[string]string{}
	var saveable, sensitive []string
	for i := range c.node.Flags {
		f := &c.node.Flags[i]
		if !f.Profile {
			continue
		}
		saveable = append(saveable, "--"+f.Name)
		if !c.has(f.Name) {
			continue
		}
		if f.Sensitive {
			sensitive = append(sensitive, f.Name)
			continue
		}
		values[f.Name] = strings.Join(c.values[f.Name], ",")
	}
	if len(sensitive) > 0 {
		e := envelope.Validationf("SENSITIVE_FLAG", "--%s is sensitive and is never saved in plain text", sensitive[0]).WithField(sensitive[0])
		return e.WithSuggestion(fmt.Sprintf("bind the flag to an environment variable, or read the secret from a file (a --%s-from-file flag), instead of saving it", sensitive[0]))
	}
	if len(values) == 0 {
		e := envelope.Validationf("NOTHING_TO_SAVE", "give the flags to save, such as %s", saveable[0])
		e.ValidValues = saveable
		return e.WithSuggestion(fmt.Sprintf("run '%s profile save %s %s <value>'", inv.root.Name, name, saveable[0]))
	}
	var saved profile.Profile
	created := false
	err := ps.store.Update(ctx, func(f *profile.File) error {
		p, ok := f.Profiles[name]
		created = !ok
		if p.Flags == nil {
			p.Flags = map[string]string{}
		}
		for k, v := range values {
			p.Flags[k] = v
		}
		p.Updated = time.Now().UTC().Truncate(time.Second)
		f.Profiles[name], saved = p, p
		return nil
	})
	if err != nil {
		return inv.storeError(err)
	}
	out.Effect(envelope.Updated)
	if created {
		out.Effect(envelope.Created)
	}
	return out.Result(inv.profileView(name, saved))
}

// profileView is a profile as the profile commands show it, secrets redacted.
func (inv *invocation) profileView(name string, p profile.Profile) map[string]any {
	flags := map[string]string{}
	for k, v := range p.Flags {
		if f := findFlag(inv.root, k); (f != nil && f.Sensitive) || envelope.SecretName(k) {
			v = envelope.Redacted
		}
		flags[k] = v
	}
	return map[string]any{"name": name, "default": name == inv.profiles.file.Default, "flags": flags, "updated": p.Updated, "path": inv.profiles.store.Path}
}

func findFlag(root *schema.Command, name string) *schema.Flag {
	var found *schema.Flag
	root.Walk(func(c *schema.Command) {
		for i := range c.Flags {
			if found == nil && c.Flags[i].Name == name {
				found = &c.Flags[i]
			}
		}
	})
	return found
}

func notFoundProfile(name string, f *profile.File) *envelope.Error {
	e := envelope.Errorf(exitcode.NotFound, "PROFILE_NOT_FOUND", "no saved profile %q", name)
	e.ValidValues = f.Names()
	return e
}

func (inv *invocation) storeError(err error) error {
	var e *envelope.Error
	if errors.As(err, &e) {
		return e
	}
	return unreadable(err, inv.profiles.store.Path)
}

// showConfig answers --show-config: every visible flag of the command, its
// effective value and where the value came from.
func (inv *invocation) showConfig() int {
	c, cfg := inv.call, inv.cfg
	var rows []map[string]any
	for f := range c.node.Accepted() {
		if f.Hidden || f.Builtin {
			continue
		}
		var value any = f.Default
		source := "default"
		switch {
		case c.has(f.Name):
			value, source = strings.Join(c.values[f.Name], ","), "flag"
		case envSet(f, cfg.lookupEnv):
			for _, e := range f.Env {
				if v, ok := cfg.lookupEnv(e); ok {
					value, source = v, "env:"+e
					break
				}
			}
		case inv.profiles != nil && inv.profiles.values[f.Name] != "":
			value, source = inv.profiles.values[f.Name], "profile:"+inv.profiles.applied
		}
		if f.Sensitive || envelope.SecretName(f.Name) {
			if value != nil && value != "" {
				value = envelope.Redacted
			}
		}
		rows = append(rows, map[string]any{"flag": f.Name, "value": value, "source": source})
	}
	slices.SortFunc(rows, func(a, b map[string]any) int { return strings.Compare(a["flag"].(string), b["flag"].(string)) })
	if rows == nil {
		rows = []map[string]any{}
	}
	if err := inv.showConfigSpec(context.Background(), rows); err != nil {
		return inv.finish(envelope.As(err))
	}
	return inv.finish(nil)
}

// profilesInfo is describe's profiles block.
func (inv *invocation) profilesInfo() map[string]any {
	if inv.profiles == nil {
		return nil
	}
	available := []string{}
	def := ""
	if f := inv.profiles.file; f != nil {
		available, def = f.Names(), f.Default
	}
	var names []string
	for _, f := range profileable(inv.root) {
		names = append(names, f.Name)
	}
	return map[string]any{"available": available, "default": def, "profileable_flags": names}
}
