// Package flagname names the flags Duet adds to an app — its global flags
// and those a command gets from its declarations — for the packages that
// put them on the command line or read them back: the lifecycle, the
// adapters, the MCP server and shell completion. A user meets them as
// flags (--output, --yes), never as names in Go.
package flagname

// The audit-log command's flags.
const (
	Since       = "since"
	CommandName = "command"
	TraceID     = "trace-id"
)

// HelpAll asks a person's help to list Duet's options too. It is no flag
// of the tree: the lifecycle reads it as --help, and the adapters show it
// in a person's help as the one line that points at the rest.
const HelpAll = "help-all"

// The built-in flags every wrapped app gets.
const (
	// Format picks the answer's representation (json, jsonl, tsv, text or
	// plain, id, and toon with feature/toon); Output names a file the answer is written to
	// instead of stdout, as the CLI Agent Spec v1.8 reserved it.
	Format       = "format"
	Output       = "output"
	Schema       = "schema"
	Human        = "human"
	Quiet        = "quiet"
	Verbose      = "verbose"
	Timeout      = "timeout"
	ValidateOnly = "validate-only"
	Fields       = "fields"
	Yes          = "yes"
	// ConfirmDestructive is the CLI Agent Spec's name for --yes on a
	// destructive command; Duet accepts both.
	ConfirmDestructive = "confirm-destructive"
	DryRun             = "dry-run"
	Limit              = "limit"
	Cursor             = "cursor"
	Version            = "version" // the root's, when the app has no --version of its own
)

// describe's flags.
const (
	Etag     = "etag"
	AgentsMD = "agents-md"
	MCP      = "mcp"
	Full     = "full"
	Index    = "index"
)

// NoCache and CacheTTL are the cache flags of a command that
// declares a cache.
const (
	NoCache  = "no-cache"
	CacheTTL = "cache-ttl"
)

// cleanup's flags.
const (
	Scope  = "scope"
	MinAge = "min-age"
)

// Names of the configuration built-ins. An app gets them when it registers
// its configuration files (WithConfig) or has saved profiles.
const (
	NoConfig = "no-config"
	Config   = "config"
	Context  = "context"
)

// Names of the flags the discovery built-ins add to every command (Control:
// they shape the answer), and of the built-in commands' own flags.
const (
	PrintSchema   = "print-schema"  // the same as --schema
	OutputSchema  = "output-schema" // the JSON Schema of data
	StableOutput  = "stable-output"
	Budget        = "budget"    // the call budget of a command that declares interruption
	Stream        = "stream"    // --format jsonl
	NoStream      = "no-stream" // --format json, on a command that streams by default
	TokenLimit    = "token-limit"
	TokenOffset   = "token-offset"
	TokenCount    = "token-count"
	Tokenizer     = "tokenizer"
	SchemaVersion = "schema-version" // on a command that declares versions of its data

	IgnoreErrors    = "ignore-errors"
	OutputDir       = "output-dir"
	SkillFormat     = "skill-format"
	MCPSchemaFile   = "mcp-schema-file"
	MCPServerURL    = "mcp-server-url"
	ShowSideEffects = "show-side-effects"
	ShowStateFiles  = "show-state-files"
)

// Names of the built-in flags of the input area.
const (
	InputFile        = "input-file"         // on commands that declare Meta.Stdin
	RawPayload       = "raw-payload"        // on commands that declare Meta.RawPayload
	NoFollowSymlinks = "no-follow-symlinks" // on commands that declare Meta.Traverses
	MaxDepth         = "max-depth"          // on commands that declare Meta.Traverses
)

// job's flag: wait for the job to end.
const Wait = "wait"

// Names of the built-in flags of long work.
const (
	// HeartbeatMS sets how often a long-running command tells an agent
	// it is alive with a JSON heartbeat (the CLI Agent Spec's O-038).
	HeartbeatMS = "heartbeat-ms"
	// HeartbeatInterval sets how often, in seconds, a long-running
	// command writes "[<elapsed>s] <status>" on stderr (O-012).
	HeartbeatInterval = "heartbeat-interval"
	// IdempotencyKey, on a mutating or destructive command, makes a
	// repeated call answer the first one's data with effect noop (C-007).
	IdempotencyKey = "idempotency-key"
	// ResumeFrom, on a command that declares steps, starts at the step
	// named (O-010).
	ResumeFrom = "resume-from"
	// RollbackOnFailure, on a command that declares steps and
	// rollback, undoes them when it fails (O-011).
	RollbackOnFailure = "rollback-on-failure"
)

// Names of the built-in flags that say how much to show and where the
// command works.
const (
	Debug            = "debug"
	WarningsAsErrors = "warnings-as-errors"
	Unmask           = "unmask"
	Cwd              = "cwd"
	NonInteractive   = "non-interactive"
	Retries          = "retries"
	RetryDelay       = "retry-delay"
)

// The global flag that picks a saved profile, and the one that shows the
// configuration in force.
const (
	Profile    = "profile"
	ShowConfig = "show-config"
)

// Flags a command gets from its trust and safety declarations.
const (
	Headless              = "headless"        // a login: no browser (Meta.Auth)
	TokenEnvVar           = "token-env-var"   // a login: the variable holding a token (Meta.Auth)
	Live                  = "live"            // a safe-default command: run for real (Meta.SafeDefault)
	Global                = "global"          // a config writer: the user's configuration (Meta.ConfigWrite)
	Proxy                 = "proxy"           // network I/O: through this proxy (Meta.Network)
	NoProxy               = "no-proxy"        // network I/O: directly (Meta.Network)
	ConnectTimeout        = "connect-timeout" // network I/O: bound on each connection (Meta.Network)
	NoInjectionProtection = "no-injection-protection"
	InstanceID            = "instance-id"
	NoUpdateCheck         = "no-update-check"
)

// check-permissions' flag: the command whose permissions to check.
const For = "for"

// Width sets the column at which prose on stderr wraps.
const Width = "width"
