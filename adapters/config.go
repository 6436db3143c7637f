package adapters

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/internal/safefile"
	"github.com/duet-cli/duet/schema"
)

// Config registers the files an app reads its configuration from, so that
// every answer names those that were read (meta.config_sources, highest
// precedence first) and a hash of what they hold
// (meta.effective_config_hash, which changes when any of them does);
// --no-config reads none of them, --config reads only the file it names,
// and --show-config shows each setting and where it came from.
//
// The app still reads its files itself, but reads those the invocation
// settled on: envelope.From(ctx).Config().
type Config struct {
	// Files returns the files the app would read for an invocation,
	// highest precedence first, whether or not they exist: those that
	// exist are read.
	Files func(q ConfigQuery) []string
	// Settings, when set, returns the effective settings the files give,
	// for --show-config: each key's value and the file that set it ("" for
	// a built-in default). files are the files the invocation settled on.
	Settings func(ctx context.Context, q ConfigQuery, files []string) ([]Setting, error)
}

// ConfigQuery is what an app's [Config] is told of an invocation.
type ConfigQuery struct {
	Dir    string              // the working directory (--cwd)
	Getenv func(string) string // the invocation's environment
	// Flag returns the value the command line gave one of the app's own
	// flags, such as a --config of its own, and whether it gave one.
	Flag func(name string) (string, bool)
}

// Setting is one key of an app's effective configuration.
type Setting struct {
	Key    string
	Value  any
	Source string // the file that set it; "" for a built-in default
}

// WithConfig registers the app's configuration files (see [Config]).
func WithConfig(c Config) Option { return func(cfg *config) { cfg.configFiles = &c } }

// configFlags are the configuration built-ins of an app with configuration
// files or saved profiles: --no-config and --config, and --context, which
// selects a saved profile as --profile does.
func configFlags(root *schema.Command, cfg *config) []schema.Flag {
	profiles := root.Sub(profileCommand) != nil && root.Sub(profileCommand).Builtin
	if cfg.configFiles == nil && !profiles {
		return nil
	}
	flags := []schema.Flag{
		{Name: flagname.NoConfig, Control: true, Type: schema.Boolean, Default: false, Usage: "read no configuration file (the environment still applies)"},
		{Name: flagname.Config, Control: true, Type: schema.String, Usage: "read configuration from this file only"},
	}
	if profiles {
		flags = append(flags, schema.Flag{Name: flagname.Context, Control: true, Type: schema.String, Usage: "use this named context: the saved profile of that name (as --profile)"})
	}
	return flags
}

// maxConfigBytes bounds a configuration file Duet lets the app read.
const maxConfigBytes = 16 << 20

// resolveConfig settles which configuration files the invocation reads:
// regular files only, within maxConfigBytes.
func (inv *invocation) resolveConfig(judged bool) {
	c, cfg, o := inv.call, inv.cfg, &inv.obs
	o.config.Skip = c.on(flagname.NoConfig)
	o.config.Context, _ = c.opt(flagname.Context)
	file, named := c.opt(flagname.Config)
	if named && o.config.Skip && judged {
		c.problem("MUTUALLY_EXCLUSIVE_FLAGS", flagname.NoConfig, "flags --no-config and --config cannot be used together")
	}
	if cfg.configFiles == nil {
		return // profiles alone: applyProfile reads --config and --no-config
	}
	switch {
	case o.config.Skip:
	case named:
		path := inv.absolute(file)
		switch err := safefile.Check(path, maxConfigBytes); {
		case err == nil:
			o.config.Files = []string{path}
		case !judged:
		case errors.Is(err, fs.ErrNotExist):
			c.problem("CONFIG_NOT_FOUND", flagname.Config, "--config file does not exist: %s", file)
			c.problems[len(c.problems)-1].Suggestion = "pass the path of an existing configuration file"
		default: // a FIFO would block the read for good, /dev/zero fill memory
			c.problem("CONFIG_UNREADABLE", flagname.Config, "--config %s: %v", file, err)
			c.problems[len(c.problems)-1].Suggestion = fmt.Sprintf("pass the path of a regular configuration file of at most %d bytes", maxConfigBytes)
		}
	case cfg.configFiles.Files != nil:
		for _, f := range cfg.configFiles.Files(inv.configQuery()) {
			f = inv.absolute(f)
			if safefile.Check(f, maxConfigBytes) == nil && !slices.Contains(o.config.Files, f) {
				o.config.Files = append(o.config.Files, f)
			}
		}
	}
}

func (inv *invocation) configQuery() ConfigQuery {
	c := inv.call
	return ConfigQuery{
		Dir:    inv.obs.cwd,
		Getenv: inv.cfg.getenv,
		Flag: func(name string) (string, bool) {
			if f := c.flags[name]; f != nil && f.Builtin {
				return "", false
			}
			return c.last(name), c.has(name)
		},
	}
}

// absolute resolves p against the invocation's working directory.
func (inv *invocation) absolute(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(inv.obs.cwd, p)
}

// profilePath is where the invocation's saved profiles are: --config's file
// in an app whose only configuration is its profiles.
func (inv *invocation) profilePath(path string) string {
	if v, ok := inv.call.opt(flagname.Config); ok && v != "" && inv.cfg.configFiles == nil {
		base := inv.cfg.workDir
		if base == "" {
			base, _ = os.Getwd()
		}
		if !filepath.IsAbs(v) {
			v = filepath.Join(base, v)
		}
		return filepath.Clean(v)
	}
	return path
}

// skipProfiles reports whether --no-config keeps the profiles unread.
func (inv *invocation) skipProfiles() bool { return inv.call.on(flagname.NoConfig) }

// contextProfile is the profile --context names, when --profile does not.
func (inv *invocation) contextProfile() string {
	if v, ok := inv.call.opt(flagname.Context); ok {
		return v
	}
	return ""
}

// configHash is a short hash of the configuration in effect: the content of
// every source, the profile values applied and the context. It stays the
// same as long as they do.
func (inv *invocation) configHash(sources []string) string {
	h := fnv.New128a() // a fingerprint of what is in effect, not a secret
	for _, f := range sources {
		data, _ := safefile.ReadFile(f, maxConfigBytes)
		h.Write([]byte(f))
		h.Write([]byte{0})
		h.Write(data)
		h.Write([]byte{0})
	}
	if ps := inv.profiles; ps != nil {
		for _, k := range slices.Sorted(maps.Keys(ps.values)) {
			h.Write([]byte(k + "=" + ps.values[k] + "\x00"))
		}
	}
	h.Write([]byte(inv.obs.config.Context))
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// showConfigSpec answers --show-config in the CLI Agent Spec's shape: the
// effective value of every setting (the command's flags, and the app's
// configuration files'), where each came from — "cli-flags", "env:NAME",
// "file:PATH" or "default" — and the layers in precedence order.
func (inv *invocation) showConfigSpec(ctx context.Context, rows []map[string]any) error {
	effective, sources := map[string]any{}, map[string]string{}
	order := []string{"cli-flags", "env-vars"}
	if ps := inv.profiles; ps != nil && !inv.skipProfiles() {
		order = append(order, "file:"+ps.store.Path)
	}
	for _, f := range inv.obs.config.Files {
		order = append(order, "file:"+f)
	}
	order = append(order, "defaults")
	if cf := inv.cfg.configFiles; cf != nil && cf.Settings != nil && !inv.obs.config.Skip {
		settings, err := cf.Settings(ctx, inv.configQuery(), inv.obs.config.Files)
		if err != nil {
			return err
		}
		for _, s := range settings {
			effective[s.Key], sources[s.Key] = s.Value, "default"
			if s.Source != "" {
				sources[s.Key] = "file:" + inv.absolute(s.Source)
			}
		}
	}
	for _, r := range rows {
		name := r["flag"].(string)
		src := r["source"].(string)
		switch {
		case src == "flag":
			src = "cli-flags"
		case strings.HasPrefix(src, "profile:"):
			src = "file:" + inv.profiles.store.Path
		}
		effective[name], sources[name] = r["value"], src
	}
	data := map[string]any{"effective_config": effective, "sources": sources, "precedence_order": order, "flags": rows}
	if inv.profiles != nil && inv.profiles.applied != "" {
		data["profile"] = inv.profiles.applied
	}
	return inv.out.Result(data)
}
