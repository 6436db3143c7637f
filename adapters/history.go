package adapters

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/schema"
)

// finishDiscovery ends Prepare for the discovery built-ins: help names the
// environment variables Duet reads for the tool, and the tree is held to
// the previous release's (WithHistory).
func finishDiscovery(root *schema.Command, cfg *config) []error {
	prefix := envelope.EnvName(root.Name, "") // the usage of Duet's flags says <TOOL>_NAME
	root.Walk(func(c *schema.Command) {
		for i := range c.Flags {
			if f := &c.Flags[i]; f.Builtin || c.Builtin {
				f.Usage = strings.ReplaceAll(f.Usage, "<TOOL>_", prefix)
			}
		}
	})
	for i := range root.Flags {
		f := &root.Flags[i]
		if !f.Builtin {
			continue
		}
		switch f.Name {
		case flagname.Format:
			f.Usage += fmt.Sprintf("; $%sFORMAT sets it, $%sMAX_OUTPUT_BYTES caps an answer's bytes", prefix, prefix)
		case flagname.Debug:
			f.Usage += "; $" + prefix + "DEBUG sets it"
		case flagname.Profile:
			f.Usage += "; profiles are kept in $" + prefix + "CONFIG_DIR"
		}
	}
	if len(cfg.discovery.history) == 0 {
		return nil
	}
	return checkHistory(root, cfg.discovery.history, cfg.version)
}

// historyDoc is what WithHistory reads of the previous release's describe.
type historyDoc struct {
	FrameworkVersion string                  `json:"framework_version"`
	Commands         map[string]historyEntry `json:"commands"`
	GlobalFlags      json.RawMessage         `json:"global_flags"` // only the compact describe has them
}

type historyEntry struct {
	Flags        map[string]struct{ Deprecated string } `json:"flags"`
	ExitCodes    map[string]json.RawMessage             `json:"exit_codes"`
	IntroducedIn string                                 `json:"introduced_in"`
	DeprecatedIn string                                 `json:"deprecated_in"`
}

// checkHistory holds the tree to the previous release's: every command,
// flag and exit code it had is still here, unless it was deprecated there.
// The tree's commands learn when they were introduced: from the previous
// release, or this version for those it did not have.
func checkHistory(root *schema.Command, raw []byte, version string) []error {
	var doc historyDoc
	var env struct {
		OK   *bool           `json:"ok"`
		Data json.RawMessage `json:"data"`
	}
	if json.Unmarshal(raw, &env) == nil && env.OK != nil && len(env.Data) > 0 {
		raw = env.Data
	}
	if err := json.Unmarshal(raw, &doc); err != nil || doc.Commands == nil {
		return []error{fmt.Errorf("history: not a describe document: %v", errors.Join(err, errors.New("no commands")))}
	}
	if doc.GlobalFlags != nil {
		// The compact form leaves out what commands share, so a flag of
		// every command would seem gone: the history needs every document.
		return []error{errors.New("history: a compact describe document: give what `describe --full` answered")}
	}
	var errs []error
	root.Walk(func(c *schema.Command) {
		if c.Builtin || builtinAbove(c) || c.Meta.IntroducedIn != "" {
			return
		}
		if prev, ok := doc.Commands[c.DotPath()]; ok {
			c.Meta.IntroducedIn = prev.IntroducedIn
			if prev.IntroducedIn == "" { // the previous release did not say: it had it, at least
				c.Meta.IntroducedIn = doc.FrameworkVersion
			}
		} else if version != "" && version != "dev" {
			c.Meta.IntroducedIn = version
		}
	})
	for _, path := range slices.Sorted(maps.Keys(doc.Commands)) {
		prev := doc.Commands[path]
		c := root.Find(path)
		if c != nil && (c.Builtin || builtinAbove(c)) || c == nil && isDuetCommand(strings.Split(path, ".")[0]) {
			continue // Duet's own, not the app's to keep
		}
		gone := func(what string) error {
			return fmt.Errorf("history: %s of %s %s is gone without having been deprecated: keep it a release with Meta.DeprecatedIn (or the flag's Deprecated) and a replacement first",
				what, doc.FrameworkVersion, path)
		}
		if c == nil {
			if prev.DeprecatedIn == "" {
				errs = append(errs, gone("command"))
			}
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(prev.Flags)) {
			if c.Flag(name) == nil && prev.Flags[name].Deprecated == "" && prev.DeprecatedIn == "" && !isBuiltinFlag(name) {
				errs = append(errs, gone("flag --"+name+" of"))
			}
		}
		codes := c.ExitCodes()
		for _, key := range slices.Sorted(maps.Keys(prev.ExitCodes)) {
			code, err := strconv.Atoi(key)
			if err != nil || prev.DeprecatedIn != "" {
				continue
			}
			if _, ok := codes[exitcode.Code(code)]; !ok {
				errs = append(errs, gone("exit code "+key+" of"))
			}
		}
	}
	return errs
}

func builtinAbove(c *schema.Command) bool {
	for p := c.Parent; p != nil; p = p.Parent {
		if p.Builtin {
			return true
		}
	}
	return false
}

// isDuetCommand reports whether name is one of Duet's built-in commands,
// those its features add included (feature/changelog ...): a release that
// leaves a feature out drops its commands, as the app did not.
func isDuetCommand(name string) bool {
	switch name {
	case describeCommand, profileCommand, "changelog", "generate-skills", "mcp-validate":
		return true
	}
	return isDiscoveryCommand(name)
}
