package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/schema"
)

// ProjectFile is the name of a project's configuration file: the nearest
// directory at or above the working directory (--cwd) holding one is the
// project's root.
const ProjectFile = ".e2eapp.json"

// RegionEnv sets --region.
const RegionEnv = "E2EAPP_REGION"

// defaultRegion is --region's built-in default.
const defaultRegion = "local"

// configKeys are the keys a configuration file may hold; any other is
// warned about (CONFIG_UNKNOWN_KEY).
var configKeys = map[string]bool{"region": true}

// configCommands are the commands that show what every answer's meta says and what the configuration flags change: schema version, request and trace ids, cwd, config sources, --no-config, --cwd, --context, --schema-version, --warnings-as-errors, retries.
func configCommands() []*cli.Command {
	locate := urfave.Annotate(&cli.Command{
		Name:  "locate",
		Usage: "Say where the tool stands: its directories, the project root, the configuration read and the region it gives",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "region", Usage: "the region to work in (else the configuration files', else " + defaultRegion + ")", Sources: cli.EnvVars(RegionEnv)},
			&cli.StringFlag{Name: "path", Value: "./src/index.ts", Usage: "a path, relative or absolute, to give back as a path"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			choice := out.Config()
			settings, err := readConfig(choice.Files)
			if err != nil {
				return err
			}
			for _, u := range settings.unknown {
				out.Warn("CONFIG_UNKNOWN_KEY", fmt.Sprintf("%s sets %q, which e2eapp does not know", u[0], u[1]), "remove it from "+u[0])
			}
			region, from := defaultRegion, "default"
			switch {
			case c.IsSet("region"):
				region, from = c.String("region"), "flag or environment"
			case settings.region != "":
				region, from = settings.region, "file:"+settings.regionFrom
			}
			data := map[string]any{
				"region":      region,
				"region_from": from,
				"files_read":  settings.read,
				"cwd":         out.Cwd(),
				"process_dir": wd,
				"path":        envelope.Path(c.String("path")),
				"abs":         out.Abs("notes/todo.txt"),
				"dir_after":   processDir{},
			}
			if root := projectRoot(out.Cwd()); root != "" {
				out.ProjectRoot(root)
				data["project_root"] = root
			}
			return out.Result(data)
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, Flags: map[string]schema.FlagMeta{"region": {Profile: true}}})

	jot := urfave.Annotate(&cli.Command{
		Name:      "jot",
		Usage:     "Write a line of text to a file, a relative path resolved against --cwd",
		ArgsUsage: "<file>",
		Flags:     []cli.Flag{&cli.StringFlag{Name: "text", Usage: "the line to write", Required: true}},
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			file := c.Args().First()
			abs := out.Abs(file)
			if err := os.MkdirAll(filepath.Dir(string(abs)), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(string(abs), []byte(c.String("text")+"\n"), 0o644); err != nil {
				return err
			}
			out.Effect(envelope.Created)
			return out.Result(map[string]any{"file": envelope.Path(file)})
		},
	}, schema.Meta{Danger: schema.Mutating, Args: []schema.Arg{{Name: "file", Required: true, Type: schema.String, Usage: "the file to write"}}})

	wander := urfave.Annotate(&cli.Command{
		Name:  "wander",
		Usage: "Change the process's working directory, as a careless library would, and say where it was left",
		Flags: []cli.Flag{&cli.StringFlag{Name: "to", Usage: "the directory to change to", Required: true}},
		Action: func(ctx context.Context, c *cli.Command) error {
			//duetvet:allow chdir -- the behaviour under test: Duet puts the directory back (F-041)
			if err := os.Chdir(c.String("to")); err != nil {
				return err
			}
			wd, _ := os.Getwd()
			return envelope.From(ctx).Result(map[string]any{"dir_during": wd, "dir_after": processDir{}, "path": envelope.Path("here.txt")})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true})

	upstream := urfave.Annotate(&cli.Command{
		Name:  "upstream",
		Usage: "Call an upstream service that refuses the first --fail calls, retrying within --retries",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "fail", Usage: "how many calls the upstream refuses before it answers"},
			&cli.StringFlag{Name: "attempts", Usage: "append one line per call to this file: its number and the time, in Unix nanoseconds"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			out := envelope.From(ctx)
			calls := 0
			err := out.Retry(ctx, func(context.Context) error {
				calls++
				if p := c.String("attempts"); p != "" {
					f, err := os.OpenFile(string(out.Abs(p)), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
					if err != nil {
						return envelope.Errorf(exitcode.GeneralError, "ATTEMPTS_UNWRITABLE", "%v", err).WithoutRetry()
					}
					_, err = fmt.Fprintf(f, "%d %d\n", calls, time.Now().UnixNano())
					if cerr := f.Close(); err == nil {
						err = cerr
					}
					if err != nil {
						return envelope.Errorf(exitcode.GeneralError, "ATTEMPTS_UNWRITABLE", "%v", err).WithoutRetry()
					}
				}
				if calls <= int(c.Int("fail")) {
					return envelope.Errorf(exitcode.Unavailable, "UPSTREAM_DOWN", "the upstream refused call %d", calls)
				}
				return nil
			})
			if err != nil {
				return err
			}
			return out.Result(map[string]int{"calls": calls})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, Retries: 3, RetryDelay: 20 * time.Millisecond})

	inventory := urfave.Annotate(&cli.Command{
		Name:  "inventory",
		Usage: "Count the hosts of the fleet; version 2 of its data renamed v1's host_count to hosts.total",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "fail", Usage: "fail instead of counting"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Bool("fail") {
				return envelope.Errorf(exitcode.Unavailable, "FLEET_UNREACHABLE", "the fleet did not answer")
			}
			return envelope.From(ctx).Result(inventoryV2{Hosts: hostCounts{Total: 3, Healthy: 2}})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, Output: schema.Of[inventoryV2](), SchemaVersion: 2, MinSchemaVersion: 1,
		Compat: func(version int, data any) (any, error) {
			d, ok := data.(inventoryV2)
			if !ok || version != 1 {
				return nil, errors.New("inventory: no such version of its data")
			}
			return inventoryV1{HostCount: d.Hosts.Total}, nil
		}})

	ledger := urfave.Annotate(&cli.Command{
		Name:  "ledger",
		Usage: "Show the ledger's balance; version 3 of its data, and 2 still given, 1 no longer",
		Action: func(ctx context.Context, _ *cli.Command) error {
			return envelope.From(ctx).Result(ledgerV3{Balance: money{Cents: 1250, Currency: "EUR"}})
		},
	}, schema.Meta{Danger: schema.Safe, NoArgs: true, Output: schema.Of[ledgerV3](), SchemaVersion: 3, MinSchemaVersion: 2,
		Compat: func(version int, data any) (any, error) {
			d, ok := data.(ledgerV3)
			if !ok || version != 2 {
				return nil, errors.New("ledger: no such version of its data")
			}
			return ledgerV2{Balance: strconv.Itoa(d.Balance.Cents/100) + "." + fmt.Sprintf("%02d", d.Balance.Cents%100) + " " + d.Balance.Currency}, nil
		}})

	return []*cli.Command{locate, jot, wander, upstream, inventory, ledger}
}

// inventoryV2 is version 2 of inventory's data.
type inventoryV2 struct {
	Hosts hostCounts `json:"hosts"`
}

type hostCounts struct {
	Total   int `json:"total"`
	Healthy int `json:"healthy"`
}

// inventoryV1 is version 1 of inventory's data.
type inventoryV1 struct {
	HostCount int `json:"host_count"`
}

// ledgerV3 is version 3 of ledger's data.
type ledgerV3 struct {
	Balance money `json:"balance"`
}

type money struct {
	Cents    int    `json:"cents"`
	Currency string `json:"currency"`
}

// ledgerV2 is version 2 of ledger's data: the balance as text.
type ledgerV2 struct {
	Balance string `json:"balance"`
}

// processDir encodes as the process's working directory when the answer is
// encoded: after the command returned, once Duet is done with it.
type processDir struct{}

// MarshalJSON encodes the working directory at the time of encoding.
func (processDir) MarshalJSON() ([]byte, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return json.Marshal(wd)
}

// configOptions are the Duet options the config commands need.
func configOptions() []urfave.Option {
	return []urfave.Option{adapters.WithConfig(adapters.Config{
		Files: configFiles,
		Settings: func(_ context.Context, _ adapters.ConfigQuery, files []string) ([]adapters.Setting, error) {
			s, err := readConfig(files)
			if err != nil {
				return nil, err
			}
			if s.region == "" {
				return []adapters.Setting{{Key: "region", Value: defaultRegion}}, nil
			}
			return []adapters.Setting{{Key: "region", Value: s.region, Source: s.regionFrom}}, nil
		},
	})}
}

// configFiles are e2eapp's configuration files, highest precedence first:
// the project's (ProjectFile at the project root) and the user's
// ($XDG_CONFIG_HOME/e2eapp/config.json).
func configFiles(q adapters.ConfigQuery) []string {
	var files []string
	if root := projectRoot(q.Dir); root != "" {
		files = append(files, filepath.Join(root, ProjectFile))
	}
	dir := q.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		if home := q.Getenv("HOME"); home != "" {
			dir = filepath.Join(home, ".config")
		}
	}
	if dir != "" {
		files = append(files, filepath.Join(dir, Name, "config.json"))
	}
	return files
}

// projectRoot is the nearest directory at or above dir holding a
// ProjectFile, or "".
func projectRoot(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, ProjectFile)); err == nil && !fi.IsDir() {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// configSettings is what the configuration files read give.
type configSettings struct {
	region, regionFrom string
	read               []string    // the files read, in order
	unknown            [][2]string // file and key of each unknown key
}

// readConfig reads the files, highest precedence first. A file that is not
// a JSON object is an error: the app cannot tell what it meant.
func readConfig(files []string) (configSettings, error) {
	s := configSettings{read: []string{}}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return s, envelope.Errorf(exitcode.GeneralError, "CONFIG_UNREADABLE", "cannot read %s: %v", f, err)
		}
		s.read = append(s.read, f)
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			return s, envelope.Errorf(exitcode.GeneralError, "CONFIG_INVALID", "%s is not a JSON object: %v", f, err).
				WithSuggestion("fix " + f + ", or pass --no-config")
		}
		for _, k := range slices.Sorted(maps.Keys(doc)) {
			v := doc[k]
			if !configKeys[k] {
				s.unknown = append(s.unknown, [2]string{f, k})
				continue
			}
			if r, ok := v.(string); ok && s.region == "" {
				s.region, s.regionFrom = r, f
			}
		}
	}
	return s, nil
}
