// Package runenv tells a command what its invocation gives it besides its
// flags: the token a login may use instead of a browser, the instance whose
// state it keeps, the configuration it writes, whether it may check for
// updates, and the proxy its requests go through (which package nethttp's
// client follows).
//
// The lifecycle in package adapters resolves all of it from the command
// line, the environment it was given and the command's declarations before
// the command runs; a command reads it with [From].
package runenv

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Env is what one invocation gives its command.
type Env struct {
	// Headless is set when the command must not open a browser or wait
	// for a person: --headless was given, or nobody is at a terminal. A
	// login then authenticates with Token, or a flow that needs no browser.
	Headless bool
	// Token is the pre-acquired token a login found (--token-env-var, or
	// the variables it declares in schema.Auth.TokenEnv), and TokenSource
	// the variable it came from; "" when none was found.
	Token       string
	TokenSource string
	// InstanceID is the --instance-id (or <TOOL>_INSTANCE_ID) the
	// invocation runs as, "" for the shared namespace; StateDir is where
	// the tool keeps its state for it (see [StateDir]).
	InstanceID string
	StateDir   string
	// GlobalConfig is set when a command that writes configuration
	// (schema.Meta.ConfigWrite) must write the user's global configuration
	// rather than the project's: --global was given, or the command
	// declares global scope.
	GlobalConfig bool
	// UpdateCheck reports whether the tool may check for a newer version
	// of itself: not with --no-update-check or <TOOL>_NO_UPDATE, and not
	// where nobody is at a terminal to read the notice.
	UpdateCheck bool
	// Proxy is how the command's HTTP requests find their proxy.
	Proxy Proxy
	// LookupEnv reads the environment the invocation was given.
	LookupEnv func(key string) (string, bool)
	// ConnectTimeout bounds establishing each connection of a command
	// that does network I/O (--connect-timeout); 0 for the client's default.
	ConnectTimeout time.Duration
	// NoTimeout is set when the caller asked for no time limit (--timeout
	// 0): the command's requests may then take as long as they take.
	NoTimeout bool
	// safety, observability (issue 16): where --debug traces the
	// command's HTTP requests (package nethttp), secrets redacted; nil
	// when not debugging.
	Debug *slog.Logger
	// ConfigFile is the file a command that writes configuration
	// (schema.Meta.ConfigWrite) writes, with [Env.WriteConfig]: the
	// project's, .<tool>-config in the working directory (--cwd), or with
	// GlobalConfig the user's, config.json in the tool's state directory
	// (per instance with --instance-id); "" for any other command.
	ConfigFile string
}

type ctxKey struct{}

// NewContext returns a context that carries env.
func NewContext(ctx context.Context, env Env) context.Context {
	return context.WithValue(ctx, ctxKey{}, env)
}

// From returns the Env of the invocation ctx belongs to. Outside one — a
// handler called from a unit test — it describes the process: its
// environment, proxies from it, and no token.
func From(ctx context.Context) Env {
	if env, ok := ctx.Value(ctxKey{}).(Env); ok {
		if env.LookupEnv == nil {
			env.LookupEnv = os.LookupEnv
		}
		env.Proxy.lookup = env.LookupEnv
		return env
	}
	return Env{LookupEnv: os.LookupEnv, Proxy: Proxy{lookup: os.LookupEnv}}
}

// Getenv reads one variable of the invocation's environment.
func (e Env) Getenv(key string) string {
	v, _ := e.LookupEnv(key)
	return v
}

// EnvName is <TOOL>_<SUFFIX>: the tool's name upper-cased, '-' as '_'.
func EnvName(tool, suffix string) string {
	return strings.ToUpper(strings.ReplaceAll(tool, "-", "_")) + "_" + suffix
}

// StateDir is the directory where tool keeps its own state for an
// instance: <TOOL>_CONFIG_DIR, else $XDG_CONFIG_HOME/<tool>, else
// ~/.config/<tool>, and under it instances/<id> when an instance is named,
// so that agents running side by side, each with its own --instance-id,
// never share a file. It returns "" when getenv finds no home.
func StateDir(tool, instance string, getenv func(string) string) string {
	dir := getenv(EnvName(tool, "CONFIG_DIR"))
	if dir == "" {
		base := getenv("XDG_CONFIG_HOME")
		if base == "" {
			home := getenv("HOME")
			if home == "" {
				return ""
			}
			base = filepath.Join(home, ".config")
		}
		dir = filepath.Join(base, tool)
	}
	if instance != "" {
		dir = filepath.Join(dir, "instances", instance)
	}
	return dir
}
