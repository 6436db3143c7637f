package schema

import (
	"maps"
	"slices"
	"time"

	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/jsonw"
)

// Auth declares how a command that acquires credentials — a login — works
// where nobody can open a browser: an agent, a script, a remote shell.
type Auth struct {
	// Headless reports whether the command can authenticate with no
	// terminal and no browser and no token given, as a device-code flow
	// can. One that cannot is refused where it would need a browser and
	// none of TokenEnv holds a token.
	Headless bool
	// TokenEnv names the environment variables a pre-acquired token is
	// read from, in order; one whose name ends in _FILE holds the path of a
	// file that holds the token. A command that is not Headless must name
	// at least one.
	TokenEnv []string
	// Refresh marks the command that renews expired credentials: an
	// answer of CREDENTIALS_EXPIRED names it as its refresh_command.
	Refresh bool
}

// ConfigScope is which configuration a command writes.
type ConfigScope string

// The configuration scopes of the CLI Agent Spec (C-025).
const (
	LocalConfig   ConfigScope = "local"   // the project's, found from the working directory
	GlobalConfig  ConfigScope = "global"  // the user's: written only when --global is given
	SessionConfig ConfigScope = "session" // this session's or instance's alone
)

// SideEffectKind is what a file a command writes is for.
type SideEffectKind string

// The kinds of filesystem side effect of the CLI Agent Spec (C-011).
const (
	CacheFile      SideEffectKind = "cache"
	LogFile        SideEffectKind = "log"
	TempFile       SideEffectKind = "temp"
	CredentialFile SideEffectKind = "credential"
	ConfigFile     SideEffectKind = "config"
	// OutputFile is the command's product, written where the command
	// chooses (a report, a rendered page): no state change, so a safe
	// command may write it, and cleanup never removes it (v1.11).
	OutputFile SideEffectKind = "output"
)

// SideEffect is a file or directory a command may write beyond its answer.
type SideEffect struct {
	Path      string         // a path or glob; ~ is the home directory, {name} a value known when it runs
	Kind      SideEffectKind // what it is for
	TTL       time.Duration  // how long until it is stale; 0 when it does not go stale
	ClearWith string         // the command that removes it, if any
	// Builtin marks the state Duet itself keeps for the command, such as
	// its jobs: declared for the caller to see, and cleaned by Duet's own
	// rules (ended jobs only), never removed whole as a declared path.
	Builtin bool
}

// AppendJSON appends the side effect as the spec's filesystem_side_effects
// entry: path, type, ttl_seconds and clearable_with.
func (s SideEffect) AppendJSON(b []byte) []byte {
	b = append(b, `{"path":`...)
	b = jsonw.String(b, s.Path)
	b = append(b, `,"type":`...)
	b = jsonw.String(b, string(s.Kind))
	if s.TTL > 0 {
		b = append(b, `,"ttl_seconds":`...)
		b = jsonw.Int(b, int64(s.TTL/time.Second))
	}
	if s.ClearWith != "" {
		b = append(b, `,"clearable_with":`...)
		b = jsonw.String(b, s.ClearWith)
	}
	return append(b, '}')
}

// MarshalJSON encodes the side effect as [SideEffect.AppendJSON] does.
func (s SideEffect) MarshalJSON() ([]byte, error) { return s.AppendJSON(nil), nil }

// RequiredScopes returns the scopes c needs of the active credential: its
// declared ones, none for a command declared without them or one of Duet's
// own, and nil — unknown — for a command nobody declared.
func (c *Command) RequiredScopes() []string {
	switch {
	case c.Meta.Scopes != nil:
		return c.Meta.Scopes
	case c.Declared || c.Builtin || !c.Runnable:
		return []string{}
	}
	return nil
}

// NeedsCredentials reports whether c authenticates with something: it
// acquires credentials (Meta.Auth), or declares that it can fail for want
// of them (AUTH_REQUIRED among its exit codes). Such a command must declare
// its scopes.
func (c *Command) NeedsCredentials() bool {
	_, auth := c.Meta.ExitCodes[exitcode.AuthRequired]
	return c.Meta.Auth != nil || auth
}

// SecretEnv returns the environment variables that supply c's secrets: those
// of its sensitive flags and the token variables of a login.
func (c *Command) SecretEnv() []string {
	var vars []string
	for f := range c.Accepted() {
		if f.Sensitive {
			vars = append(vars, f.Env...)
		}
	}
	if c.Meta.Auth != nil {
		vars = append(vars, c.Meta.Auth.TokenEnv...)
	}
	slices.Sort(vars)
	return slices.Compact(vars)
}

// Trust tags the lifecycle puts in data from outside the tool (see
// envelope.Output.External), which the output schema of a command declared
// Untrusted allows.
const (
	TagSource  = "_source"
	TagTrusted = "_trusted"
)

// untrusted returns s allowing the trust tags at the top level of each
// object the data is: the object itself, or the items of a list. s is
// shared between commands, so it is copied, never changed.
func untrusted(s Schema) Schema {
	tag := func(obj map[string]any) map[string]any {
		props, ok := obj["properties"].(map[string]any)
		if !ok {
			return obj
		}
		props = maps.Clone(props)
		props[TagSource] = map[string]any{"type": "string", "const": "external"}
		props[TagTrusted] = map[string]any{"type": "boolean", "const": false}
		obj = maps.Clone(obj)
		obj["properties"] = props
		return obj
	}
	switch {
	case s["type"] == "object":
		return tag(s)
	case s["type"] == "array":
		if items, ok := s["items"].(map[string]any); ok && items["type"] == "object" {
			s = maps.Clone(s)
			s["items"] = tag(items)
		}
	}
	return s
}

// trustDoc fills the document's auth, trust and safety members.
func (c *Command) trustDoc(d *Doc) {
	m := &c.Meta
	d.RequiredScopes = c.RequiredScopes()
	d.SafeDefault = m.SafeDefault
	d.ConfirmFlag, d.Idempotent = m.ConfirmFlag, m.Idempotent
	if m.Auth != nil {
		headless := m.Auth.Headless
		d.HeadlessSupported, d.TokenEnvVars = &headless, m.Auth.TokenEnv
	}
	d.SecretEnvVars = c.SecretEnv()
	d.ConfigWriteScope = m.ConfigWrite
	d.Platform, d.RequiredTools = m.Platforms, requiredTools(m.Tools)
	d.HasNetworkIO = m.Network
	d.FilesystemSideEffects = m.SideEffects
	d.UntrustedOutput = m.Untrusted
}

// requiredTools is Meta.Tools as the spec writes required_tools: "*", not
// "", for a program needed at any version.
func requiredTools(tools map[string]string) map[string]string {
	if !slices.Contains(slices.Collect(maps.Values(tools)), "") {
		return tools // shared, never modified
	}
	out := maps.Clone(tools)
	for name, v := range out {
		if v == "" {
			out[name] = "*"
		}
	}
	return out
}

// appendTrust appends the document's auth, trust and safety members.
func (d Doc) appendTrust(b []byte) []byte {
	b = append(b, `,"required_scopes":`...)
	b = nullableStrings(b, d.RequiredScopes)
	if d.SafeDefault {
		b = append(b, `,"safe_default":true`...)
	}
	if d.ConfirmFlag != "" {
		b = append(b, `,"confirm_flag":`...)
		b = jsonw.String(b, d.ConfirmFlag)
	}
	if d.Idempotent {
		b = append(b, `,"idempotent":true`...)
	}
	if d.HeadlessSupported != nil {
		b = append(b, `,"headless_supported":`...)
		b = jsonw.Bool(b, *d.HeadlessSupported)
	}
	if len(d.TokenEnvVars) > 0 {
		b = append(b, `,"token_env_vars":`...)
		b = jsonw.Strings(b, d.TokenEnvVars)
	}
	if len(d.SecretEnvVars) > 0 {
		b = append(b, `,"secret_env_vars":`...)
		b = jsonw.Strings(b, d.SecretEnvVars)
	}
	if d.ConfigWriteScope != "" {
		b = append(b, `,"config_write_scope":`...)
		b = jsonw.String(b, string(d.ConfigWriteScope))
	}
	if len(d.Platform) > 0 {
		b = append(b, `,"platform":`...)
		b = jsonw.Strings(b, d.Platform)
	}
	if len(d.RequiredTools) > 0 {
		b = append(b, `,"required_tools":{`...)
		for i, name := range slices.Sorted(maps.Keys(d.RequiredTools)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonw.String(b, name)
			b = append(b, ':')
			b = jsonw.String(b, d.RequiredTools[name])
		}
		b = append(b, '}')
	}
	if d.HasNetworkIO {
		b = append(b, `,"has_network_io":true`...)
	}
	if len(d.FilesystemSideEffects) > 0 {
		b = append(b, `,"filesystem_side_effects":[`...)
		for i, s := range d.FilesystemSideEffects {
			if i > 0 {
				b = append(b, ',')
			}
			b = s.AppendJSON(b)
		}
		b = append(b, ']')
	}
	if d.UntrustedOutput {
		b = append(b, `,"untrusted_output":true`...)
	}
	return b
}
