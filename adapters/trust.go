package adapters

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/runenv"
	"github.com/duet-cli/duet/schema"
)

// Auth, trust and safety: what a command declares of its credentials,
// secrets, scopes, platform, network and the data it returns, held by
// registration checks (prepareTrust), phase-1 validation (checkTrust), a
// guard before the command runs (guard), and the answer (trustFinish).

// Names of the built-in flags of auth, trust and safety. A command gets
// them from its declarations (schema.Meta); --instance-id and
// --no-update-check every command gets.
const (
	// secretFromEnv and secretFromFile end the names of the flags that
	// read a sensitive flag's value from an environment variable or a file:
	// --token-from-env VAR, --token-from-file PATH.
	secretFromEnv  = "-from-env"
	secretFromFile = "-from-file"
)

// checkPermissionsCommand is the built-in command that compares the active
// credential's scopes with those each command needs (see WithPermissions);
// --for names one command.
const (
	checkPermissionsCommand = "check-permissions"
)

// WithPermissions gives Duet the scopes the active credential holds: granted
// is called, at most once per invocation, before a command that declares
// schema.Meta.Scopes runs. A command whose scopes are not all granted is
// refused with exit 7, PERMISSION_DENIED; one whose credential holds more
// is run with an CREDENTIAL_OVER_PRIVILEGED warning. The app also gets the
// check-permissions command. An error granted returns is the answer: return
// envelope.Unauthenticated when there is no credential.
func WithPermissions(granted func(ctx context.Context) ([]string, error)) Option {
	return func(c *config) { c.permissions = granted }
}

// trustState is what the invocation resolved of auth and secrets.
type trustState struct {
	secrets  map[string]string // sensitive flag → its value, from --x-from-env or --x-from-file
	sources  map[string]string // sensitive flag → where the value came from
	headless bool
	token    string
	from     string // the variable the token came from
	tokenEnv []string
	explicit bool   // --token-env-var named the variable
	instance string // --instance-id or <TOOL>_INSTANCE_ID
	checked  bool   // granted was asked
	granted  []string
	grantErr error
}

// isTrustFlag reports whether name is an auth, trust and safety flag an app
// nobody ported has: only the global ones. The others come from
// declarations, and an app with any is read anyway; an unported app's own
// --global or --proxy must keep its fast path.
func isTrustFlag(name string) bool {
	return name == flagname.InstanceID || name == flagname.NoUpdateCheck
}

// trustGlobalFlags are the auth, trust and safety flags of every command.
func trustGlobalFlags() []schema.Flag {
	return []schema.Flag{
		{Name: flagname.InstanceID, Control: true, Type: schema.String, Pattern: instancePattern,
			Usage: "keep this instance's state apart from other instances' (default: $<TOOL>_INSTANCE_ID)"},
		{Name: flagname.NoUpdateCheck, Control: true, Type: schema.Boolean, Default: false,
			Usage: "never check for a newer version of the tool (or set <TOOL>_NO_UPDATE=1)"},
	}
}

// instancePattern is what an instance id may be: a file name, since it
// names a directory.
const instancePattern = `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`

// trustFlags are the flags a runnable command gets from its auth, trust
// and safety declarations.
func trustFlags(c *schema.Command) []schema.Flag {
	m := &c.Meta
	var flags []schema.Flag
	if m.Auth != nil {
		flags = append(flags,
			schema.Flag{Name: flagname.Headless, Type: schema.Boolean, Default: false, Usage: "open no browser: authenticate with a token from the environment (the default where nobody is at a terminal)"},
			schema.Flag{Name: flagname.TokenEnvVar, Type: schema.String, Usage: "the environment variable that holds the token (default: " + strings.Join(m.Auth.TokenEnv, ", ") + ")"})
	}
	if m.SafeDefault {
		flags = append(flags, schema.Flag{Name: flagname.Live, Type: schema.Boolean, Default: false, Usage: "execute for real; without it the command only reports what it would change"})
	}
	if m.ConfigWrite != "" {
		flags = append(flags, schema.Flag{Name: flagname.Global, Type: schema.Boolean, Default: false, Usage: "write the user's global configuration instead of the project's"})
	}
	if m.Network {
		flags = append(flags,
			schema.Flag{Name: flagname.Proxy, Type: schema.String, Usage: "send network requests through this proxy, overriding HTTPS_PROXY and HTTP_PROXY"},
			schema.Flag{Name: flagname.NoProxy, Type: schema.Boolean, Default: false, Usage: "connect directly, ignoring HTTPS_PROXY and HTTP_PROXY"},
			schema.Flag{Name: flagname.ConnectTimeout, Type: schema.String, Format: "duration", Default: defaultConnectTimeout.String(), Usage: "give up on establishing each connection after this long"})
	}
	if m.Untrusted {
		flags = append(flags, schema.Flag{Name: flagname.NoInjectionProtection, Type: schema.Boolean, Default: false,
			Usage: "SECURITY: return external data without its untrusted markers; only for sources you trust, such as your own files"})
	}
	return flags
}

// defaultConnectTimeout bounds establishing a connection when
// --connect-timeout is not given.
const defaultConnectTimeout = 10 * time.Second

// prepareTrust adds the secret flags of a ported command and checks its
// auth, trust and safety declarations, when Prepare completes it.
func prepareTrust(c *schema.Command, cfg *config) error {
	m := &c.Meta
	var errs []error
	if c.Declared {
		for i, n := 0, len(c.Flags); i < n; i++ { // the command's own, not those added here
			f := c.Flags[i]
			if f.Builtin || !f.Sensitive || !f.TakesValue() {
				continue
			}
			c.Flags = appendMissing(c.Flags, []schema.Flag{
				{Name: f.Name + secretFromEnv, Type: schema.String, Usage: "the environment variable that holds --" + f.Name},
				{Name: f.Name + secretFromFile, Type: schema.String, Usage: "the file that holds --" + f.Name},
			}, f.Persistent)
		}
	}
	if c.NeedsCredentials() && m.Scopes == nil {
		errs = append(errs, errors.New("a command that authenticates must declare the scopes it needs: Meta.Scopes, []string{} for none"))
	}
	for _, s := range m.Scopes {
		if blanketScope(s) && !strings.Contains(c.Usage+"\n"+c.Description, s) {
			errs = append(errs, fmt.Errorf("scope %q is a blanket admin or owner scope: declare the narrow scopes the command uses, or say in its description why it needs %q", s, s))
		}
	}
	if a := m.Auth; a != nil {
		if !a.Headless && len(a.TokenEnv) == 0 {
			errs = append(errs, errors.New("a login that needs a browser (Auth.Headless false) must name the variables a token is read from instead: Auth.TokenEnv"))
		}
		for _, v := range a.TokenEnv {
			if !validEnvName(v) {
				errs = append(errs, fmt.Errorf("Auth.TokenEnv: %q is not an environment variable's name", v))
			}
		}
	}
	if m.SafeDefault && !m.DryRun {
		errs = append(errs, errors.New("Meta.SafeDefault runs the command as a dry run by default, so it must implement one: declare Meta.DryRun"))
	}
	errs = append(errs, checkConfirmFlag(c)...)
	switch m.ConfigWrite {
	case "", schema.LocalConfig, schema.GlobalConfig, schema.SessionConfig:
	default:
		errs = append(errs, fmt.Errorf("config write scope %q is not local, global or session", m.ConfigWrite))
	}
	for _, s := range m.SideEffects {
		switch s.Kind {
		case schema.CacheFile, schema.LogFile, schema.TempFile, schema.CredentialFile:
		case schema.OutputFile:
			if s.TTL != 0 || s.ClearWith != "" {
				errs = append(errs, fmt.Errorf("side effect %q is the command's product (output): it has no TTL and nothing clears it", s.Path))
			}
		case schema.ConfigFile:
			if m.ConfigWrite == "" {
				errs = append(errs, fmt.Errorf("side effect %q writes configuration: declare which with Meta.ConfigWrite", s.Path))
			}
		default:
			errs = append(errs, fmt.Errorf("side effect %q: kind %q is not cache, log, temp, credential, config or output", s.Path, s.Kind))
		}
		if s.Path == "" {
			errs = append(errs, errors.New("a side effect must name its path"))
		}
	}
	for _, p := range m.Platforms {
		if !slices.Contains(knownGOOS, p) {
			errs = append(errs, fmt.Errorf("platform %q is not an operating system Go builds for (GOOS)", p))
		}
	}
	if cfg.strict && c.Declared {
		errs = append(errs, strictSecrets(c)...)
	}
	return errors.Join(errs...)
}

// checkConfirmFlag checks a command's Meta.ConfirmFlag (REQ-O-048): a
// boolean flag of the command or root that confirms a mutating or
// destructive command that previews without it.
func checkConfirmFlag(c *schema.Command) []error {
	m := &c.Meta
	name := m.ConfirmFlag
	if name == "" {
		return nil
	}
	var errs []error
	if c.Danger() == schema.Safe {
		errs = append(errs, fmt.Errorf("Meta.ConfirmFlag %q: a safe command has nothing to confirm; confirm_flag needs danger mutating or destructive", name))
	}
	if m.SafeDefault {
		errs = append(errs, fmt.Errorf("Meta.ConfirmFlag %q: the command declares Meta.SafeDefault, whose --live already confirms it; declare one of them", name))
	}
	if c.Passthrough || c.Delegates() {
		errs = append(errs, fmt.Errorf("Meta.ConfirmFlag %q: a passthrough command cannot preview, so it declares no confirm flag", name))
	}
	if !m.DryRun {
		errs = append(errs, fmt.Errorf("Meta.ConfirmFlag %q: without the flag the command runs as a dry run, so it must implement one: declare Meta.DryRun", name))
	}
	if f := c.Flag(name); f == nil || f.Name != name || f.Type != schema.Boolean {
		errs = append(errs, fmt.Errorf("Meta.ConfirmFlag %q names no boolean flag of the command or the root", name))
	}
	// Every destructive command takes --confirm-destructive (REQ-O-021):
	// one that previews unless confirmed is confirmed by it, whatever else
	// it calls its own --yes.
	if c.Danger() == schema.Destructive && name != flagname.ConfirmDestructive {
		errs = append(errs, fmt.Errorf("Meta.ConfirmFlag %q: a destructive command is confirmed by --%s", name, flagname.ConfirmDestructive))
	}
	return errs
}

// blanketScope reports whether a scope grants everything of a service or
// an area: "*", "repo:*", "admin", "admin:org", "owner", "root".
func blanketScope(s string) bool {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return strings.ContainsRune(":./_-", r) })
	for _, w := range words {
		switch w {
		case "*", "admin", "owner", "root", "superuser", "all", "full":
			return true
		}
	}
	return s == "*" || strings.HasSuffix(s, "*")
}

// strictSecrets holds a ported command of a spec-strict app to the CLI
// Agent Spec's C-016: a flag that looks as if it takes a secret must be
// declared sensitive, so that its value comes from the environment or a
// file, never the command line; a positional argument cannot.
func strictSecrets(c *schema.Command) []error {
	var errs []error
	for _, f := range c.Flags {
		if !f.Builtin && !f.Sensitive && f.TakesValue() && secretWord(f.Name) {
			errs = append(errs, fmt.Errorf("flag --%s looks as if it takes a secret: declare it Sensitive (Meta.Flags), so that it is read with --%s%s or --%s%s, never from the command line", f.Name, f.Name, secretFromEnv, f.Name, secretFromFile))
		}
	}
	for _, a := range c.Args {
		if secretWord(a.Name) {
			errs = append(errs, fmt.Errorf("argument <%s> looks as if it takes a secret, which must not be on the command line: make it a flag declared Sensitive", a.Name))
		}
	}
	return errs
}

// secretWord reports whether a name says it holds a secret: a word of it
// is token, password, secret, credential or apikey, or two are api key,
// access key or private key. Narrower than envelope.SecretName, which
// decides what to redact: refusing --max-tokens would be wrong.
func secretWord(name string) bool {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	for i, w := range words {
		switch w {
		case "token", "password", "passwd", "passphrase", "secret", "credential", "credentials", "apikey":
			return true
		case "key":
			if i > 0 && (words[i-1] == "api" || words[i-1] == "access" || words[i-1] == "private") {
				return true
			}
		}
	}
	return false
}

// knownGOOS are the operating systems Go builds for.
var knownGOOS = []string{"aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js",
	"linux", "nacl", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows", "zos"}

func validEnvName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// trustNodes adds check-permissions to an app that gives Duet its
// credential's scopes.
func trustNodes(root *schema.Command, cfg *config) {
	if cfg.permissions == nil || root.Sub(checkPermissionsCommand) != nil {
		return
	}
	root.Commands = append(root.Commands, &schema.Command{
		Name:     checkPermissionsCommand,
		Usage:    "Compare the active credential's scopes with those each command needs",
		Runnable: true,
		Builtin:  true,
		Flags: []schema.Flag{{Name: flagname.For, Type: schema.String, Builtin: true,
			Usage: "the one command to check, such as 'space list' or space.list"}},
		Meta: schema.Meta{Danger: schema.Safe, NoArgs: true, Examples: []schema.Example{
			{Description: "every command's scopes, and whether the credential covers them", Command: checkPermissionsCommand},
			{Description: "before running one command", Command: checkPermissionsCommand + " --for describe"},
		}},
	})
}

// checkTrust adds the problems of auth, trust and safety to phase 1: a
// secret's variable or file that is missing, a secret on the command line
// where it must not be, flags that cannot go together, a global write
// without --global. It also reads what the guard and the command need: the
// instance, the secrets, a login's token.
func (inv *invocation) checkTrust() {
	c, cfg, n := inv.call, inv.cfg, inv.call.node
	if c.help || c.version || c.on(flagname.Schema) {
		return
	}
	t := &inv.trust
	t.instance = inv.instanceID()
	if v, ok := c.opt(flagname.InstanceID); (!ok || v == "") && t.instance != "" && !validInstance(t.instance) {
		c.problem("PATTERN_MISMATCH", flagname.InstanceID, "%s %q is not an instance id: it must match %s", runenv.EnvName(inv.root.Name, "INSTANCE_ID"), t.instance, instancePattern)
	}
	inv.checkSecrets()
	if v, ok := c.opt(flagname.TokenEnvVar); ok && !validEnvName(v) {
		c.problem(errcode.InvalidFlagValue, flagname.TokenEnvVar, "--%s %q is not an environment variable's name", flagname.TokenEnvVar, v)
	}
	if c.on(flagname.Live) && c.bool(flagname.DryRun) {
		c.problem("MUTUALLY_EXCLUSIVE_FLAGS", flagname.Live, "flags --%s and --%s cannot be used together", flagname.Live, flagname.DryRun)
	}
	if v, ok := c.opt(flagname.Proxy); ok {
		if _, err := runenv.ParseProxy(v); err != nil {
			c.problem(errcode.InvalidFlagValue, flagname.Proxy, "--%s: %v", flagname.Proxy, err)
		}
		if c.on(flagname.NoProxy) {
			c.problem("MUTUALLY_EXCLUSIVE_FLAGS", flagname.Proxy, "flags --%s and --%s cannot be used together", flagname.Proxy, flagname.NoProxy)
		}
	}
	if n.Meta.ConfigWrite == schema.GlobalConfig && !c.bool(flagname.Global) {
		c.problem("GLOBAL_FLAG_REQUIRED", flagname.Global, "%q writes the user's global configuration, which needs --%s", n.DotPath(), flagname.Global)
	}
	if a := n.Meta.Auth; a != nil {
		t.headless = c.on(flagname.Headless) || !cfg.tty.stdin || inv.mode.Agent
		t.tokenEnv = a.TokenEnv
		if v, ok := c.opt(flagname.TokenEnvVar); ok && v != "" {
			t.tokenEnv, t.explicit = []string{v}, true
		}
		t.token, t.from = inv.findToken(t.tokenEnv)
	}
}

// instanceID is the instance the invocation runs as: --instance-id, else
// <TOOL>_INSTANCE_ID.
func (inv *invocation) instanceID() string {
	if v, ok := inv.call.opt(flagname.InstanceID); ok && v != "" {
		return v
	}
	return inv.cfg.getenv(runenv.EnvName(inv.root.Name, "INSTANCE_ID"))
}

func validInstance(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '.' || s[0] == '-' || s[0] == '_' {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r == '.' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// findToken returns the first token one of vars holds, and the variable; a
// variable whose name ends in _FILE holds the path of a file with the token.
func (inv *invocation) findToken(vars []string) (token, from string) {
	for _, v := range vars {
		val := inv.cfg.getenv(v)
		if val == "" {
			continue
		}
		if strings.HasSuffix(v, "_FILE") {
			raw, err := readSecret(val)
			if err != nil || raw == "" {
				continue
			}
			return raw, v
		}
		return val, v
	}
	return "", ""
}

// maxSecret bounds a secret read from a file: a token, not a file's worth.
const maxSecret = 64 << 10

func readSecret(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxSecret+1))
	if err != nil {
		return "", err
	}
	if len(raw) > maxSecret {
		return "", fmt.Errorf("%s holds more than %d bytes, more than a secret", path, maxSecret)
	}
	return strings.TrimRight(string(raw), "\r\n"), nil
}

// checkSecrets resolves the values of sensitive flags given with
// --x-from-env or --x-from-file, and holds a sensitive flag's value given
// on the command line to what the invocation allows: refused for an agent
// and in a spec-strict app, whose transcripts and process lists must never
// hold a secret; accepted with a warning from a person or a script, as the
// app always accepted it.
func (inv *invocation) checkSecrets() {
	c := inv.call
	for f := range c.node.Accepted() {
		if !f.Sensitive || !f.TakesValue() {
			continue
		}
		if g := c.node.Flag(f.Name + secretFromEnv); g == nil || !g.Builtin {
			continue // the app's own flag of that name
		}
		envVar, byEnv := c.opt(f.Name + secretFromEnv)
		path, byFile := c.opt(f.Name + secretFromFile)
		direct := c.has(f.Name)
		if given := btoi(direct) + btoi(byEnv) + btoi(byFile); given > 1 {
			c.problem("MUTUALLY_EXCLUSIVE_FLAGS", f.Name, "give --%s one way only: --%s%s, --%s%s or (not for agents) --%s", f.Name, f.Name, secretFromEnv, f.Name, secretFromFile, f.Name)
			continue
		}
		switch {
		case direct && (inv.mode.Agent || inv.cfg.strict):
			c.problems = append(c.problems, envelope.FieldError{Code: "SECRET_ON_COMMAND_LINE", Field: f.Name,
				Message:    fmt.Sprintf("--%s takes a secret, which must not be given on the command line", f.Name),
				Suggestion: fmt.Sprintf("put it in an environment variable and pass --%s%s VAR, or in a file and pass --%s%s PATH", f.Name, secretFromEnv, f.Name, secretFromFile)})
		case direct:
			inv.warn("SECRET_ON_COMMAND_LINE", fmt.Sprintf("--%s takes a secret, which other users can read on the command line", f.Name),
				fmt.Sprintf("pass --%s%s VAR or --%s%s PATH instead", f.Name, secretFromEnv, f.Name, secretFromFile))
		case byEnv:
			v, ok := inv.cfg.lookupEnv(envVar)
			switch {
			case !validEnvName(envVar):
				c.problem(errcode.InvalidFlagValue, f.Name+secretFromEnv, "--%s%s %q is not an environment variable's name", f.Name, secretFromEnv, envVar)
			case !ok || v == "":
				c.problem("SECRET_NOT_SET", f.Name+secretFromEnv, "environment variable %s is not set", envVar)
			default:
				inv.secret(f.Name, v, envVar)
			}
		case byFile:
			v, err := readSecret(path)
			switch {
			case err != nil:
				c.problem("SECRET_FILE_UNREADABLE", f.Name+secretFromFile, "--%s%s: %v", f.Name, secretFromFile, err)
			case v == "":
				c.problem("SECRET_NOT_SET", f.Name+secretFromFile, "--%s%s: %s is empty", f.Name, secretFromFile, path)
			default:
				inv.secret(f.Name, v, path)
			}
		}
	}
}

// secret records a sensitive flag's value read from source; the flag is
// then given, and no longer missing.
func (inv *invocation) secret(name, value, source string) {
	t := &inv.trust
	if t.secrets == nil {
		t.secrets, t.sources = map[string]string{}, map[string]string{}
	}
	t.secrets[name], t.sources[name] = value, source
	c := inv.call
	c.problems = slices.DeleteFunc(c.problems, func(p envelope.FieldError) bool {
		return p.Code == errcode.MissingRequiredFlag && p.Field == name
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// secretPreset is the value a sensitive flag takes from --x-from-env or
// --x-from-file, for Preset.
func (inv *invocation) secretPreset(f *schema.Flag) (preset, bool) {
	v, ok := inv.trust.secrets[f.Name]
	if !ok {
		return preset{}, false
	}
	return preset{f.Name, v, inv.trust.sources[f.Name]}, true
}

// safeDefault reports whether the command is a safe-default one, whose
// confirmation --live gives: without it, it runs as a dry run.
func (inv *invocation) safeDefault() bool { return inv.call.node.Meta.SafeDefault }

// live reports whether a safe-default command was told to run for real.
func (inv *invocation) live() bool { return inv.safeDefault() && inv.call.bool(flagname.Live) }

// confirmFlag reports whether the command declares a confirm flag
// (Meta.ConfirmFlag), whose absence makes it a dry run and which stands
// for every confirmation Duet would ask for.
func (inv *invocation) confirmFlag() bool { return inv.call.node.Meta.ConfirmFlag != "" }

// confirmedByFlag reports whether a confirm-flag command was given its
// flag; --dry-run still makes it a preview.
func (inv *invocation) confirmedByFlag() bool {
	return inv.confirmFlag() && inv.call.bool(inv.call.node.Meta.ConfirmFlag)
}

// previews reports whether the command previews because it was not
// confirmed: a safe-default one without --live, a confirm-flag one without
// its flag (REQ-O-048).
func (inv *invocation) previews() bool {
	return inv.safeDefault() && !inv.live() || inv.confirmFlag() && !inv.confirmedByFlag()
}

// trustSettings adds to the answer's settings what auth, trust and safety
// decide: a safe-default command's dry run, the secrets never to print,
// whether data is tagged untrusted.
func (inv *invocation) trustSettings(s *envelope.Settings) {
	c, n, t := inv.call, inv.call.node, &inv.trust
	if inv.previews() {
		s.DryRun = true
	}
	for _, v := range t.secrets {
		s.Secrets = append(s.Secrets, v)
	}
	if t.token != "" {
		s.Secrets = append(s.Secrets, t.token)
	}
	s.Untrusted = n.Meta.Untrusted
	s.NoInjectionProtection = n.Meta.Untrusted && c.on(flagname.NoInjectionProtection)
}

// guard refuses, before it runs, a command that cannot run here: on a
// platform it does not support, without a program it needs, a login that
// would need a browser nobody can use, or a command whose scopes the
// credential lacks.
func (inv *invocation) guard(ctx context.Context) *envelope.Error {
	n := inv.call.node
	if p := n.Meta.Platforms; len(p) > 0 && !slices.Contains(p, runtime.GOOS) {
		msg := fmt.Sprintf("command not supported on %s; expected %s", runtime.GOOS, strings.Join(p, " or "))
		inv.out.Warn("UNSUPPORTED_PLATFORM", msg, "")
		return envelope.Errorf(exitcode.Precondition, "UNSUPPORTED_PLATFORM", "%q is not supported on %s; it runs on %s", n.DotPath(), runtime.GOOS, strings.Join(p, ", ")).
			WithPhase(envelope.Validation).
			WithFix("run it on "+strings.Join(p, " or "), "")
	}
	for _, name := range sortedKeys(n.Meta.Tools) {
		if _, err := lookPath(name, inv.cfg.getenv("PATH")); err != nil {
			e := envelope.Errorf(exitcode.NotFound, "REQUIRED_TOOL_MISSING", "%q needs %s, which is not on PATH", n.DotPath(), name).
				WithPhase(envelope.Validation).WithField(name)
			if v := n.Meta.Tools[name]; v != "" && v != anyVersion {
				e.FixRequired = fmt.Sprintf("install %s %s or later", name, v)
			} else {
				e.FixRequired = "install " + name
			}
			return e
		}
	}
	if e := inv.authGuard(); e != nil {
		return e
	}
	return inv.scopeGuard(ctx)
}

// authGuard refuses a login that would need a browser where nobody can use
// one and no token was found: exit 4, with the ways to authenticate.
func (inv *invocation) authGuard() *envelope.Error {
	a, t := inv.call.node.Meta.Auth, &inv.trust
	if a == nil || !t.headless || t.token != "" || a.Headless && !t.explicit {
		return nil
	}
	methods := make([]envelope.AuthMethod, len(t.tokenEnv))
	for i, v := range t.tokenEnv {
		hint := "Set " + v + " to your API token"
		if strings.HasSuffix(v, "_FILE") {
			hint = "Set " + v + " to the path of a file holding your API token"
		}
		methods[i] = envelope.AuthMethod{Type: "env_var", Name: v, Hint: hint}
	}
	vars := strings.Join(t.tokenEnv, " or ")
	msg := "set " + vars + " to authenticate non-interactively"
	if t.explicit {
		msg = "headless auth requires the " + vars + " environment variable"
	}
	e := envelope.Errorf(exitcode.Precondition, "AUTH_REQUIRED", "%s", msg).WithPhase(envelope.Validation).
		WithFix("set "+vars+" to a token, or run the command at a terminal", "")
	e.AuthMethods = methods
	return e
}

// granted returns the credential's scopes, asking the app once.
func (inv *invocation) granted(ctx context.Context) ([]string, error) {
	t := &inv.trust
	if !t.checked {
		t.checked = true
		t.granted, t.grantErr = inv.cfg.permissions(inv.withRunenv(ctx))
	}
	return t.granted, t.grantErr
}

// scopeGuard refuses a command whose declared scopes the credential does
// not all hold, and warns when it holds more.
func (inv *invocation) scopeGuard(ctx context.Context) *envelope.Error {
	n := inv.call.node
	if inv.cfg.permissions == nil || len(n.Meta.Scopes) == 0 || n.Builtin {
		return nil
	}
	granted, err := inv.granted(ctx)
	if err != nil {
		return envelope.As(err).WithPhase(envelope.Validation)
	}
	if missing := missingScopes(n.Meta.Scopes, granted); len(missing) > 0 {
		e := envelope.PermissionDenied(missing[0])
		e.Message = fmt.Sprintf("the active credential lacks %s, which %q needs", strings.Join(missing, ", "), n.DotPath())
		e.RequiredScopes, e.ActiveScopes, e.MissingScopes = n.Meta.Scopes, granted, missing
		e.Context = scopeContext(n.Meta.Scopes, granted, missing)
		return e.WithPhase(envelope.Validation).
			WithFix("use a credential granted "+strings.Join(missing, ", "), inv.root.Name+" "+checkPermissionsCommand+" --for "+n.DotPath())
	}
	if overPrivileged(n.Meta.Scopes, granted) {
		inv.out.Warn(overPrivilegedCode, overWarning(n.DotPath(), n.Meta.Scopes), "")
	}
	return nil
}

// overPrivilegedCode is the warning of a credential granted more scopes than
// the command needs: the CLI Agent Spec's standard code (REQ-O-047), which
// the audit log records (REQ-O-030).
const overPrivilegedCode = "CREDENTIAL_OVER_PRIVILEGED"

func overWarning(cmd string, required []string) string {
	return fmt.Sprintf("credential has scopes beyond what %q requires — consider a token scoped to [%s] only", cmd, strings.Join(required, ", "))
}

// missingScopes returns those of required that granted lacks, in order.
func missingScopes(required, granted []string) []string {
	var missing []string
	for _, s := range required {
		if !slices.Contains(granted, s) {
			missing = append(missing, s)
		}
	}
	return missing
}

// overPrivileged reports whether granted holds every scope required and
// more. A credential with no scopes at all (an unauthenticated call) never is.
func overPrivileged(required, granted []string) bool {
	if len(granted) == 0 || len(missingScopes(required, granted)) > 0 {
		return false
	}
	for _, s := range granted {
		if !slices.Contains(required, s) {
			return true
		}
	}
	return false
}

// withRunenv gives the command what package runenv tells it.
func (inv *invocation) withRunenv(ctx context.Context) context.Context {
	c, cfg, t := inv.call, inv.cfg, &inv.trust
	tool := inv.root.Name
	env := runenv.Env{
		Headless: t.headless, Token: t.token, TokenSource: t.from,
		InstanceID:   t.instance,
		StateDir:     runenv.StateDir(tool, t.instance, cfg.getenv),
		GlobalConfig: c.node.Meta.ConfigWrite == schema.GlobalConfig || c.node.Meta.ConfigWrite != "" && c.bool(flagname.Global),
		UpdateCheck:  inv.updateCheck(),
		Proxy:        inv.proxy(),
		LookupEnv:    cfg.lookupEnv,
	}
	env.Debug = inv.httpDebug()
	env.ConfigFile = inv.configFile(env)
	if v, ok := c.opt(flagname.Timeout); ok {
		d, err := time.ParseDuration(v)
		env.NoTimeout = err == nil && d == 0
	}
	if c.node.Meta.Network {
		env.ConnectTimeout = defaultConnectTimeout
		if v, ok := c.opt(flagname.ConnectTimeout); ok {
			if d, err := time.ParseDuration(v); err == nil && d > 0 {
				env.ConnectTimeout = d // phase 1 refused one that does not parse
			}
		}
	}
	return runenv.NewContext(ctx, env)
}

// updateCheck reports whether the tool may look for a newer version of
// itself: only for a person at a terminal, and not when told not to.
func (inv *invocation) updateCheck() bool {
	if inv.call.on(flagname.NoUpdateCheck) || !inv.mode.Interactive || inv.mode.Agent {
		return false
	}
	switch strings.ToLower(inv.cfg.getenv(runenv.EnvName(inv.root.Name, "NO_UPDATE"))) {
	case "", "0", "false", "no":
		return true
	}
	return false
}

// proxy is how the command's requests find their proxy.
func (inv *invocation) proxy() runenv.Proxy {
	c := inv.call
	p := runenv.Proxy{Direct: c.on(flagname.NoProxy)}
	p.Override, _ = c.opt(flagname.Proxy)
	// From fills in the environment's lookup.
	return runenv.From(runenv.NewContext(context.Background(), runenv.Env{Proxy: p, LookupEnv: inv.cfg.lookupEnv})).Proxy
}

// trustFinish completes the answer: a global configuration write is
// warned of; credential errors name the commands that fix them; a network error gets the proxy settings it failed with.
func (inv *invocation) trustFinish(fail *envelope.Error) *envelope.Error {
	n := inv.call.node
	inv.meta.InstanceID = inv.trust.instance
	if n.Meta.SafeDefault && !inv.call.help && !inv.call.on(flagname.Schema) {
		inv.meta.StatesDryRun = true
		inv.meta.Confirmed = inv.meta.Confirmed || fail == nil && inv.live()
	}
	if inv.confirmFlag() && !inv.call.help && !inv.call.on(flagname.Schema) {
		inv.meta.StatesDryRun = true
		inv.meta.Confirmed = inv.meta.Confirmed || fail == nil && inv.confirmedByFlag() && !inv.call.bool(flagname.DryRun)
	}
	if fail == nil && inv.ran.Load() && inv.out != nil {
		if n.Meta.ConfigWrite != "" && !inv.out.DryRun() && inv.out.Effected() != envelope.Noop &&
			(n.Meta.ConfigWrite == schema.GlobalConfig || inv.call.bool(flagname.Global)) {
			inv.out.Warn("GLOBAL_CONFIG_MODIFIED", fmt.Sprintf("%q wrote the user's global configuration", n.DotPath()), "")
		}
	}
	if fail == nil {
		return nil
	}
	switch {
	case fail.Code == envelope.CodeUnauthenticated && fail.Hint == "":
		if login := inv.authCommand(false); login != "" {
			fail.Hint = "Run: " + login
			fail.Suggestion = cmpOr(fail.Suggestion, "run '"+login+"', then reissue the command")
		}
	case fail.Code == envelope.CodeCredentialsExpired && fail.RefreshCommand == "":
		fail.RefreshCommand = inv.authCommand(true)
	}
	if nc := fail.NetworkContext; nc != nil && nc.ProxyUsed == "" && nc.ProxySource == "" {
		p := inv.proxy()
		nc.NoProxy = p.NoProxy()
		if u, err := url.Parse(nc.URL); err == nil && nc.URL != "" {
			if used, source, err := p.For(u); err == nil && used != "" {
				pu, _ := url.Parse(used)
				nc.ProxyUsed, nc.ProxySource = pu.Redacted(), source
			}
		}
		nc.Diagnose()
	}
	return fail
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// authCommand is the command line of the tool's login (refresh false) or
// of the command that renews credentials (refresh true, else the login).
func (inv *invocation) authCommand(refresh bool) string {
	var login, renew *schema.Command
	inv.root.Walk(func(c *schema.Command) {
		if a := c.Meta.Auth; a != nil && c.Runnable {
			switch {
			case a.Refresh && renew == nil:
				renew = c
			case !a.Refresh && login == nil:
				login = c
			}
		}
	})
	pick := login
	if refresh && renew != nil || pick == nil {
		pick = renew
	}
	if pick == nil {
		return ""
	}
	return strings.Join(append([]string{inv.root.Name}, pick.Path...), " ")
}

// checkPermissions is the check-permissions command.
func (inv *invocation) checkPermissions(ctx context.Context) error {
	out := inv.out
	granted, err := inv.granted(ctx)
	if err != nil {
		return err
	}
	if granted == nil {
		granted = []string{}
	}
	if target := inv.call.last(flagname.For); target != "" {
		return inv.checkOne(target, granted)
	}
	type coverage struct {
		RequiredScopes []string `json:"required_scopes"`
		Covered        bool     `json:"covered"`
		OverPrivileged bool     `json:"over_privileged"`
	}
	commands := map[string]coverage{}
	var over []string
	inv.root.Walk(func(c *schema.Command) {
		if !c.Runnable || c.Builtin || !c.Declared {
			return
		}
		req := c.RequiredScopes()
		cov := coverage{RequiredScopes: req, Covered: len(missingScopes(req, granted)) == 0, OverPrivileged: len(req) > 0 && overPrivileged(req, granted)}
		if cov.OverPrivileged {
			over = append(over, c.DotPath())
		}
		commands[c.DotPath()] = cov
	})
	if len(over) > 0 {
		out.Warn(overPrivilegedCode, "credential is over-privileged for: "+strings.Join(over, ", "), "")
	}
	out.RenderText(func(w io.Writer) error {
		for _, name := range sortedKeys(commands) {
			cov := commands[name]
			state := "covered"
			if !cov.Covered {
				state = "MISSING " + strings.Join(missingScopes(cov.RequiredScopes, granted), ", ")
			}
			if cov.OverPrivileged {
				state += " (over-privileged)"
			}
			if _, err := fmt.Fprintf(w, "%-24s %-32s %s\n", name, strings.Join(cov.RequiredScopes, ","), state); err != nil {
				return err
			}
		}
		return nil
	})
	return out.Result(map[string]any{"active_scopes": granted, "commands": commands})
}

// checkOne answers check-permissions --for: exit 0 with the comparison, or
// exit 8 with the scopes missing.
func (inv *invocation) checkOne(target string, granted []string) error {
	dot := strings.Join(strings.Fields(strings.ReplaceAll(target, ".", " ")), ".")
	dot = strings.TrimPrefix(dot, inv.root.Name+".")
	c := inv.root.Find(dot)
	if c == nil || !c.Runnable || c == inv.root && dot != inv.root.Name {
		var valid []string
		inv.root.Walk(func(c *schema.Command) {
			if c.Runnable && !c.Hidden && c.Parent != nil {
				valid = append(valid, c.DotPath())
			}
		})
		return envelope.Validationf(errcode.UnknownCommand, "--for %q is not a command of %s", target, inv.root.Name).WithField(flagname.For, valid...)
	}
	req := c.RequiredScopes()
	if missing := missingScopes(req, granted); len(missing) > 0 {
		e := envelope.Errorf(exitcode.AuthRequired, "AUTH_ERROR", "active credential is missing required scopes for %q: %s", c.DotPath(), strings.Join(missing, ", ")).
			WithPhase(envelope.Validation).
			WithFix("use a credential granted "+strings.Join(missing, ", "), "")
		e.RequiredScopes, e.ActiveScopes, e.MissingScopes = req, granted, missing
		e.Context = scopeContext(req, granted, missing)
		e.RequiredPermission = missing[0]
		return e
	}
	over := len(req) > 0 && overPrivileged(req, granted)
	if over {
		inv.out.Warn(overPrivilegedCode, overWarning(c.DotPath(), req), "")
	}
	return inv.out.Result(struct {
		Command        string   `json:"command"`
		RequiredScopes []string `json:"required_scopes"`
		ActiveScopes   []string `json:"active_scopes"`
		OverPrivileged bool     `json:"over_privileged"`
	}{c.DotPath(), req, granted, over})
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// lookPath finds an executable on path, as exec.LookPath does on Unix,
// without os/exec: every wrapped app starts this package.
func lookPath(name, path string) (string, error) {
	if strings.ContainsRune(name, filepath.Separator) {
		return name, executable(name)
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found on PATH", name)
}

func executable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() || runtime.GOOS != "windows" && fi.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not executable", path)
	}
	return nil
}

// instanceProfiles keeps an instance's profiles apart from the shared ones:
// under instances/<id> beside the shared file.
// An id that is not valid is refused in validation; until then the shared
// file is read, never a path the id would make.
func (inv *invocation) instanceProfiles(path string) string {
	id := inv.instanceID()
	if id == "" || !validInstance(id) {
		return path
	}
	return filepath.Join(filepath.Dir(path), "instances", id, filepath.Base(path))
}

// scopeContext is the figures behind a refusal for missing scopes, where
// the CLI Agent Spec's wire format puts them (error.context, REQ-O-047);
// the error's own members keep them too, for callers that read them there.
func scopeContext(required, granted, missing []string) map[string]any {
	return map[string]any{"required_scopes": required, "granted_scopes": granted, "missing_scopes": missing}
}
