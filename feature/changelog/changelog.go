// Package changelog is the feature that adds `tool changelog [--since V]`
// (the CLI Agent Spec's REQ-O-029): the changes to what the tool accepts
// and answers, by release, newest first, so that an agent that last used
// version V reads what changed since instead of the whole manifest.
//
//	urfave.Main(app, adapters.WithFeatures(level3.Features()...),
//		adapters.WithFeatures(changelog.New(entries...)))
//
// level3.Features() has a changelog with no entries ("No changes
// recorded."); an app's own, given after it, replaces it.
package changelog

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/internal/version"
	"github.com/duet-cli/duet/schema"
)

// Entry is one release's changes to what the tool accepts and answers.
// Fields are named as an agent reads them: "data.url", "flag --count",
// "command run.spawn".
type Entry struct {
	Version  string   `json:"version"`
	Date     string   `json:"date"` // YYYY-MM-DD
	Breaking bool     `json:"breaking"`
	Added    []string `json:"added"`
	Removed  []string `json:"removed"`
	Changed  []string `json:"changed"`
}

// New returns the feature with the tool's history, one entry per release,
// in any order.
func New(entries ...Entry) adapters.Feature { return feature{slices.Clone(entries)} }

type feature struct{ entries []Entry }

var _ adapters.Commander = feature{}

func (feature) Name() string { return "changelog" }

// Commands is changelog.
func (f feature) Commands() []adapters.Command {
	return []adapters.Command{{
		Node: &schema.Command{
			Name: "changelog", Usage: "List the changes to this tool's commands and output, newest first",
			Runnable: true, NoArgs: true,
			Flags: []schema.Flag{{Name: flagname.Since, Type: schema.String, Usage: "only the versions after this one, such as 1.0.0"}},
			Meta: schema.Meta{Danger: schema.Safe, NoArgs: true,
				Examples: []schema.Example{{Description: "what changed since 1.0.0", Command: "changelog --since 1.0.0"}}},
		},
		Run: f.run,
	}}
}

// run answers changelog: the entries after --since, newest first, as
// data.entries.
func (f feature) run(_ context.Context, inv *adapters.Invocation) error {
	since, _ := inv.Flag(flagname.Since)
	if since != "" && !version.Valid(since) {
		return envelope.Validationf("INVALID_VERSION", "--since %q is not a version such as 1.2.0", since).WithField(flagname.Since)
	}
	entries := []Entry{}
	for _, e := range f.entries {
		if since == "" || version.Compare(e.Version, since) > 0 {
			e.Added, e.Removed, e.Changed = orEmpty(e.Added), orEmpty(e.Removed), orEmpty(e.Changed)
			entries = append(entries, e)
		}
	}
	slices.SortStableFunc(entries, func(a, b Entry) int { return version.Compare(b.Version, a.Version) })
	out := inv.Output()
	out.RenderText(func(w io.Writer) error {
		if len(entries) == 0 {
			_, err := fmt.Fprintln(w, "No changes recorded.")
			return err
		}
		for _, e := range entries {
			mark := ""
			if e.Breaking {
				mark = " (breaking)"
			}
			fmt.Fprintf(w, "%s  %s%s\n", e.Version, e.Date, mark)
			for _, change := range [...]struct {
				word  string
				items []string
			}{{"added", e.Added}, {"removed", e.Removed}, {"changed", e.Changed}} {
				for _, it := range change.items {
					fmt.Fprintf(w, "  %s %s\n", change.word, it)
				}
			}
		}
		return nil
	})
	return out.Result(map[string]any{"entries": entries})
}

func orEmpty(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}
