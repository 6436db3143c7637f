// Package describe renders a whole command tree for agents: the manifest that
// `describe` prints (every command by dot path, with an etag), and an AGENTS.md
// written from the same tree.
package describe

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc64"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
	"github.com/duet-cli/duet/internal/errcode"
	"github.com/duet-cli/duet/internal/jsonw"
	"github.com/duet-cli/duet/schema"
)

// Manifest is the whole tree as `describe` prints it: the CLI Agent Spec's
// ManifestResponse, with a flat map from dot path to command document.
type Manifest struct {
	SchemaVersion    string                `json:"schema_version"`
	Tool             string                `json:"tool"`
	FrameworkVersion string                `json:"framework_version"`
	Etag             string                `json:"etag"`
	Commands         map[string]schema.Doc `json:"commands"`
	// Profiles describes the tool's saved profiles, for a tool that has
	// profileable flags: local state, so it is written after the commands
	// and left out of the etag, which describes the tree.
	Profiles any `json:"profiles,omitempty"`

	raw []byte // the encoding made while computing the etag

	// What the spec's manifest says and describe's documents do not:
	// the global options once, and each command's place in the tree.
	globals []globalFlag
	entries map[string]entryFacts

	agents AgentsInfo // discovery: what AGENTS.md adds (WithAgents)
}

// New builds the manifest of root's tree as seen by an agent (agent true) or a
// person: commands marked for the other audience and hidden commands are left
// out. version is the tool's version. It fails when a command's declared
// output schema cannot be built, naming every such command.
func New(root *schema.Command, version string, agent bool) (Manifest, error) {
	return build(root, version, agent, (*schema.Command).Entry)
}

// Full is [New] with each command's whole document, as `<command> --schema`
// gives it — its parameters and input schema too: what `tool --schema`
// answers. It is the larger document; describe is the one to read first.
func Full(root *schema.Command, version string, agent bool) (Manifest, error) {
	return build(root, version, agent, (*schema.Command).Document)
}

func build(root *schema.Command, version string, agent bool, document func(*schema.Command, bool) (schema.Doc, error)) (Manifest, error) {
	type listed struct {
		path string
		cmd  *schema.Command
	}
	var cmds []listed
	var walk func(c *schema.Command)
	walk = func(c *schema.Command) {
		if c.Hidden || !c.VisibleTo(agent) {
			return
		}
		cmds = append(cmds, listed{c.DotPath(), c})
		for _, s := range c.Commands {
			walk(s)
		}
	}
	walk(root)
	slices.SortFunc(cmds, func(a, b listed) int { return strings.Compare(a.path, b.path) })
	paths := make([]string, len(cmds))
	for i, c := range cmds {
		paths[i] = c.path
	}

	m := Manifest{
		SchemaVersion:    schema.DocVersion,
		Tool:             root.Name,
		FrameworkVersion: version,
		Commands:         make(map[string]schema.Doc, len(cmds)),
	}

	// Documents are built and encoded in contiguous runs of the sorted
	// paths, one run per processor, and the runs join in order: a large
	// tree describes in a fraction of the time. The first run writes into
	// the manifest's own buffer, after its head, so only the others are
	// copied.
	head, slot := m.head(true)
	docs := make([]schema.Doc, len(cmds))
	errs := make([]error, len(cmds))
	runs := min(runtime.GOMAXPROCS(0), len(cmds)/parallelMin+1)
	bodies := make([][]byte, runs)
	var wg sync.WaitGroup
	for r := range runs {
		lo, hi := r*len(cmds)/runs, (r+1)*len(cmds)/runs
		buf := make([]byte, 0, docSize*(hi-lo))
		if r == 0 {
			buf = append(make([]byte, 0, len(head)+docSize*len(cmds)), head...)
		}
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				docs[i], errs[i] = document(cmds[i].cmd, agent)
			}
			bodies[r] = appendDocs(buf, paths[lo:hi], docs[lo:hi])
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Manifest{}, fmt.Errorf("describe: %w", err)
	}
	for i, d := range docs {
		m.Commands[paths[i]] = d
	}
	m.globals = globalsOf(root)
	m.entries = make(map[string]entryFacts, len(cmds))
	for _, c := range cmds {
		m.entries[c.path] = factsOf(c.cmd)
	}
	m.raw, m.Etag = m.finish(bodies, len(head)-1, slot, true)
	return m, nil
}

const (
	docSize     = 6 << 10 // above a typical entry's encoded size: growing would copy megabytes
	parallelMin = 128     // commands below which one goroutine encodes them all
)

// MarshalJSON writes the manifest. A manifest from [New] was encoded once,
// to compute its etag, and is not encoded again.
func (m Manifest) MarshalJSON() ([]byte, error) {
	raw, err := m.tree()
	if err != nil || m.Profiles == nil {
		return raw, err
	}
	profiles, err := json.Marshal(m.Profiles)
	if err != nil {
		return nil, fmt.Errorf("describe: profiles: %w", err)
	}
	raw = append(raw[:len(raw)-1:len(raw)-1], `,"profiles":`...)
	return append(append(raw, profiles...), '}'), nil
}

// tree returns the manifest without profiles.
func (m Manifest) tree() ([]byte, error) {
	if m.raw != nil {
		return m.raw, nil
	}
	paths := slices.Sorted(maps.Keys(m.Commands)) // encoding/json's map order
	docs := make([]schema.Doc, len(paths))
	for i, p := range paths {
		docs[i] = m.Commands[p]
	}
	head, slot := m.head(false)
	raw, _ := m.finish([][]byte{appendDocs(head, paths, docs)}, len(head)-1, slot, false)
	return raw, nil
}

// appendDocs appends `"path":document` members, comma-separated.
func appendDocs(b []byte, paths []string, docs []schema.Doc) []byte {
	var enc schema.DocEncoder
	for i, d := range docs {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.String(b, paths[i])
		b = append(b, ':')
		var err error
		if b, err = enc.Append(b, d); err != nil {
			// Documents hold strings, numbers and schemas parsed from JSON.
			panic(fmt.Sprintf("describe: encode %s: %v", paths[i], err))
		}
	}
	return b
}

// head writes the manifest up to the opening brace of its commands, and
// where the etag's digits go. With stamp, the etag is a placeholder.
func (m Manifest) head(stamp bool) (b []byte, slot int) {
	etag := m.Etag
	if stamp {
		etag = strings.Repeat("0", etagLen)
	}
	b = append(b, `{"schema_version":`...)
	b = jsonw.String(b, m.SchemaVersion)
	b = append(b, `,"tool":`...)
	b = jsonw.String(b, m.Tool)
	b = append(b, `,"framework_version":`...)
	b = jsonw.String(b, m.FrameworkVersion)
	b = append(b, `,"etag":`...)
	slot = len(b) + 1 // after the opening quote
	b = jsonw.String(b, etag)
	return append(b, `,"commands":{`...), slot
}

// finish joins the runs of encoded commands, the first of which starts with
// the head, and closes the manifest. With stamp, the etag is computed from the
// commands as written (from start, their opening brace) and put in its slot.
func (m Manifest) finish(runs [][]byte, start, slot int, stamp bool) (raw []byte, etag string) {
	b := runs[0]
	for _, run := range runs[1:] {
		if len(run) == 0 {
			continue
		}
		if b[len(b)-1] != '{' {
			b = append(b, ',')
		}
		b = append(b, run...)
	}
	b = append(b, '}')
	etag = m.Etag
	if stamp {
		etag = etagOf(m, b[start:])
		copy(b[slot:], etag)
	}
	return append(b, '}'), etag
}

// etagLen is the length of an etag in hex digits.
const etagLen = 16

// etagOf is a stable digest of the manifest's content, the etag excluded: it
// changes only when a command, flag or declaration changes. An etag detects
// change, it does not resist forgery, so a CRC-64 serves: a cryptographic hash
// took a fifth of the time of describing a 1,000-command tree. (hash/crc64
// builds its tables on first use; hash/crc32 builds one in its init, which
// every start of a wrapped binary would pay for.)
func etagOf(m Manifest, commands []byte) string {
	ecma := crc64.MakeTable(crc64.ECMA)
	head := []byte(m.SchemaVersion + "\x00" + m.Tool + "\x00" + m.FrameworkVersion + "\x00")
	return fmt.Sprintf("%016x", crc64.Update(crc64.Checksum(head, ecma), ecma, commands))
}

// DeclarationError is the answer when the tool's declarations cannot be
// described (New, Tools, a command's document): the tool's bug, not the
// caller's.
func DeclarationError(err error) *envelope.Error {
	return envelope.Errorf(exitcode.GeneralError, errcode.InvalidDeclaration, "%v", err).
		WithSuggestion("this is a bug in the tool's declarations; adaptertest.AssertDeclarations finds it in a test")
}
