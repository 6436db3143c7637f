package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/feature/level3"
	"github.com/duet-cli/duet/schema"
)

// The stores commands: what a tool keeps on disk besides its state — a
// cache of what it fetched (--no-cache, --cache-ttl), logs, scratch files
// and the products it writes — and what it needs installed. e2eapp gets
// resolve; the rest are e2eapp-stores (Stores), a second tool, because
// e2eapp has a status command of its own, where Duet's built-in status
// and its --show-side-effects would be.

// RegistryEnv names the registry resolve and fetch read: a JSON file
// mapping a package's name to its latest version. e2eapp stands in for a
// tool that asks a remote registry.
const RegistryEnv = "E2EAPP_REGISTRY"

// StoresName is the name of the second tool: its environment variables are
// E2EAPP_STORES_*.
const StoresName = "e2eapp-stores"

// storesCommands are the stores commands of e2eapp.
func storesCommands() []*cli.Command {
	resolve := urfave.Annotate(&cli.Command{
		Name:      "resolve",
		Usage:     "Resolve a package's latest version from the registry, from the cache when it is fresh",
		ArgsUsage: "<package>",
		Action: func(ctx context.Context, c *cli.Command) error {
			return resolveCached(ctx, c.Args().First(), filepath.Join(cacheHome(), Name, "resolve"))
		},
	}, schema.Meta{Danger: schema.Safe, SideEffects: []schema.SideEffect{
		{Path: "${XDG_CACHE_HOME}/" + Name + "/resolve", Kind: schema.CacheFile, TTL: time.Hour},
	}})
	return []*cli.Command{resolve}
}

// storesOptions are the Duet options the stores commands need.
func storesOptions() []urfave.Option { return nil }

// resolveCached answers a package's latest version: from its entry in dir
// when Duet says the cache may be used and is fresh enough, else from the
// registry, keeping the answer in dir unless the caller turned the cache
// off (--no-cache, --cache-ttl 0): then dir is neither read nor written.
func resolveCached(ctx context.Context, pkg, dir string) error {
	out := envelope.From(ctx)
	if pkg == "" {
		return envelope.Errorf(exitcode.ArgError, "ARG_ERROR", "name the package to resolve")
	}
	entry := filepath.Join(dir, pkg)
	if out.CacheFresh(entry) {
		if v, err := os.ReadFile(entry); err == nil {
			out.UsedCache()
			return out.Result(map[string]string{"package": pkg, "version": string(v), "source": "cache"})
		}
	}
	v, err := registryVersion(pkg)
	if err != nil {
		return err
	}
	if !out.CacheOff() {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("caching %s: %w", pkg, err)
		}
		if err := os.WriteFile(entry, []byte(v), 0o600); err != nil {
			return fmt.Errorf("caching %s: %w", pkg, err)
		}
	}
	return out.Result(map[string]string{"package": pkg, "version": v, "source": "registry"})
}

// registryVersion looks pkg up in the registry RegistryEnv names.
func registryVersion(pkg string) (string, error) {
	path := os.Getenv(RegistryEnv)
	if path == "" {
		return "", envelope.Errorf(exitcode.Precondition, "NO_REGISTRY", "no registry: set %s", RegistryEnv)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading the registry: %w", err)
	}
	var versions map[string]string
	if err := json.Unmarshal(raw, &versions); err != nil {
		return "", fmt.Errorf("reading the registry %s: %w", path, err)
	}
	v, ok := versions[pkg]
	if !ok {
		return "", envelope.Errorf(exitcode.NotFound, "NOT_FOUND", "no package %q in the registry", pkg)
	}
	return v, nil
}

// cacheHome is $XDG_CACHE_HOME, else ~/.cache.
func cacheHome() string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache")
}

// dataHome is $XDG_DATA_HOME, else ~/.local/share.
func dataHome() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".local", "share")
}

// Stores returns e2eapp-stores' command tree, annotated for Duet: fetch
// caches packages, logs each fetch and leaves a scratch directory; report
// renders a dashboard, its product, into the cache directory beside the
// data it is made from; pack needs two programs, one at any version;
// notarize runs on macOS only. Duet gives it status, doctor and cleanup.
func Stores() *cli.Command {
	cache := "${XDG_CACHE_HOME}/" + StoresName
	fetch := urfave.Annotate(&cli.Command{
		Name:      "fetch",
		Usage:     "Fetch a package's metadata into the cache, logging the fetch",
		ArgsUsage: "<package>",
		Action:    storesFetch,
	}, schema.Meta{Danger: schema.Safe, SideEffects: []schema.SideEffect{
		// Every entry of the cache directory is cached data, bar the
		// dashboard report writes there (an output: cleanup keeps it).
		{Path: cache + "/*", Kind: schema.CacheFile, TTL: time.Hour, ClearWith: StoresName + " cleanup --scope cache"},
		// The fetch log is JSON lines, as the audit log beside it is.
		{Path: "${XDG_DATA_HOME}/" + StoresName + "/*.jsonl", Kind: schema.LogFile, ClearWith: StoresName + " cleanup --scope logs"},
		{Path: "${TMPDIR}/" + StoresName + "-fetch-{package}", Kind: schema.TempFile, ClearWith: StoresName + " cleanup --scope temp"},
	}})
	report := urfave.Annotate(&cli.Command{
		Name:   "report",
		Usage:  "Render the dashboard of the fetched packages, into the cache directory beside them",
		Action: storesReport,
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, SideEffects: []schema.SideEffect{
		{Path: cache + "/dashboard", Kind: schema.OutputFile},
	}})
	pack := urfave.Annotate(&cli.Command{
		Name:  "pack",
		Usage: "Format and pack the fetched packages (runs e2e-fmt, any version, and e2e-packer 2.0.0 or later)",
		Action: func(ctx context.Context, _ *cli.Command) error {
			return envelope.From(ctx).Result(map[string]bool{"packed": true})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, Tools: map[string]string{"e2e-fmt": "*", "e2e-packer": "2.0.0"}})
	notarize := urfave.Annotate(&cli.Command{
		Name:  "notarize",
		Usage: "Notarize the pack with Apple's notary service (macOS only)",
		Action: func(ctx context.Context, _ *cli.Command) error {
			return envelope.From(ctx).Result(map[string]bool{"notarized": true})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, Platforms: []string{"darwin"}})
	return urfave.Annotate(&cli.Command{
		Name:     StoresName,
		Usage:    "fetch packages, report on them and pack them",
		Commands: []*cli.Command{fetch, report, pack, notarize},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true})
}

// StoresOptions are the Duet options e2eapp-stores is wrapped with: the
// cleanup command, and two dependencies — e2e-indexer at any version (it
// has no --version: its check is a probe) and e2e-signer from 1.2.0,
// tested up to 1.9.0 — and how the programs pack needs are installed.
func StoresOptions() []urfave.Option {
	return []urfave.Option{
		adapters.WithVersion(Version),
		adapters.WithSpecStrict(),
		adapters.WithFeatures(level3.Features()...),
		adapters.WithCleanupCommand(),
		adapters.WithDependency(adapters.Dependency{Name: "e2e-indexer", CheckCommand: "e2e-indexer --probe",
			VersionRegex: `indexer (\d+\.\d+\.\d+)`, MinVersion: "*", FixCommand: "e2e-install e2e-indexer"}),
		adapters.WithDependency(adapters.Dependency{Name: "e2e-signer", CheckCommand: "e2e-signer --version",
			VersionRegex: `signer v(\d+\.\d+\.\d+)`, MinVersion: "1.2.0", MaxVersion: "1.9.0", FixCommand: "e2e-install e2e-signer"}),
		// How doctor's fix installs what pack needs: e2e-install stands
		// for the tool's package manager.
		adapters.WithToolInstall("e2e-fmt", "e2e-install e2e-fmt"),
		adapters.WithToolInstall("e2e-packer", "e2e-install e2e-packer"),
	}
}

// storesFetch caches a package's version from the registry, appends a line
// to the fetch log and leaves its scratch directory, as a tool that
// unpacks into a temp directory and never cleans it up does.
func storesFetch(ctx context.Context, c *cli.Command) error {
	pkg := c.Args().First()
	if pkg == "" {
		return envelope.Errorf(exitcode.ArgError, "ARG_ERROR", "name the package to fetch")
	}
	v, err := registryVersion(pkg)
	if err != nil {
		return err
	}
	scratch := filepath.Join(os.TempDir(), StoresName+"-fetch-"+pkg)
	writes := map[string]string{
		filepath.Join(cacheHome(), StoresName, pkg+".json"): fmt.Sprintf(`{"package":%q,"version":%q}`, pkg, v),
		filepath.Join(scratch, "unpacked"):                  v,
	}
	for path, content := range writes {
		if err := writeFile(path, content); err != nil {
			return err
		}
	}
	log := filepath.Join(dataHome(), StoresName, "fetch.jsonl")
	if err := os.MkdirAll(filepath.Dir(log), 0o700); err != nil {
		return fmt.Errorf("the fetch log: %w", err)
	}
	f, err := os.OpenFile(log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("the fetch log: %w", err)
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, `{"package":%q,"version":%q}`+"\n", pkg, v); err != nil {
		return fmt.Errorf("the fetch log: %w", err)
	}
	return envelope.From(ctx).Result(map[string]string{"package": pkg, "version": v})
}

// storesReport renders the dashboard: an index of the cached packages.
func storesReport(ctx context.Context, _ *cli.Command) error {
	dir := filepath.Join(cacheHome(), StoresName)
	entries, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	page := "<h1>packages</h1>\n"
	for _, e := range entries {
		page += "<p>" + filepath.Base(e) + "</p>\n"
	}
	index := filepath.Join(dir, "dashboard", "index.html")
	if err := writeFile(index, page); err != nil {
		return err
	}
	return envelope.From(ctx).Result(map[string]any{"dashboard": index, "packages": len(entries)})
}

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
