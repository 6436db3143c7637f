package state

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/duet-cli/duet/examples/meridian/internal/lines"
	"github.com/duet-cli/duet/internal/atomicfile"
)

// Group is the runs of a space that share a status, model, agent and chat,
// summed: what `run stats` needs of them, whatever it filters on.
type Group struct {
	Status       string  `json:"status"`
	Model        string  `json:"model,omitempty"`
	Agent        string  `json:"agent,omitempty"`
	SessionID    string  `json:"session_id,omitempty"`
	Runs         int     `json:"runs"`
	DurationSecs float64 `json:"duration_secs,omitempty"`
	TotalCostUSD float64 `json:"total_cost_usd,omitempty"`
	InputTokens  int64   `json:"input_tokens,omitempty"`
	OutputTokens int64   `json:"output_tokens,omitempty"`
	CachedTokens int64   `json:"cached_tokens,omitempty"`
}

type groupKey struct{ status, model, agent, session string }

func (g *Group) key() groupKey { return groupKey{g.Status, g.Model, g.Agent, g.SessionID} }

func (g *Group) add(r *Run) {
	g.Runs++
	g.DurationSecs += deref(r.DurationSecs)
	g.TotalCostUSD += deref(r.TotalCostUSD)
	g.InputTokens += deref(r.InputTokens)
	g.OutputTokens += deref(r.OutputTokens)
	g.CachedTokens += deref(r.CachedTokens)
}

func deref[T int64 | float64](p *T) T {
	if p == nil {
		return 0
	}
	return *p
}

// Tally sums the space's runs by Group, as folding the whole log would, and
// counts the lines that did not parse. A run that has ended changes no more,
// so what the log said of the ended runs is kept in runs.tally.json beside
// it, with the log's length then, a checksum of those bytes and the runs
// still going; a later Tally checks the log still begins with those bytes
// (reading them is several times faster than folding them) and folds only
// the events appended since. The file is a cache that cannot go stale:
// deleted, damaged, from another version, or not the log's — edited,
// replaced — it is rebuilt from the log, as it is when an event arrives
// for a run it counts as ended, or when useCache is false. cached reports
// whether the cache was used.
func (rs Runs) Tally(useCache bool) (groups []Group, skipped int, cached bool, err error) {
	f, err := os.Open(rs.LogPath())
	if errors.Is(err, fs.ErrNotExist) {
		return []Group{}, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, 0, false, err
	}
	t, cached, err := rs.tally(f, info.Size(), useCache)
	if err != nil {
		return nil, 0, false, fmt.Errorf("read %s: %w", rs.LogPath(), err)
	}
	skipped = t.Skipped
	if info.Size() > t.Offset { // a torn last line, as List counts it
		skipped++
	}
	return t.groups(), skipped, cached, nil
}

// tally returns the tally of the whole lines of the log f of size bytes,
// from the cache if useCache and it describes the log, and leaves the
// cache describing them.
func (rs Runs) tally(f io.ReaderAt, size int64, useCache bool) (t *tally, cached bool, err error) {
	whole, err := wholeLines(f, size)
	if err != nil {
		return nil, false, err
	}
	if useCache {
		t, cached = rs.readTally(f, whole)
	}
	if cached && whole > t.Offset {
		sum := &checksum{t.Check}
		tail := io.TeeReader(io.NewSectionReader(f, t.Offset, whole-t.Offset), sum)
		if cached, err = t.fold(tail); err != nil {
			return nil, false, err
		}
		t.Check = sum.crc
	} else if cached {
		return t, true, nil // nothing new: the cache is as it was
	}
	if !cached {
		if t, err = buildTally(f, whole); err != nil {
			return nil, false, err
		}
	}
	t.V, t.Offset = tallyVersion, whole
	if b, err := json.Marshal(t); err == nil {
		atomicfile.Write(rs.TallyPath(), b, 0o644) // best effort: a cache not written is rebuilt
	}
	return t, cached, nil
}

// tally is runs.tally.json.
type tally struct {
	V       int    `json:"v"`
	Offset  int64  `json:"offset"` // the bytes of the log folded: whole lines
	Check   uint32 `json:"check"`  // their CRC-32C
	Skipped int    `json:"skipped"`
	// Ended are the ids r<N> of the runs that have ended, as ranges [from,
	// to]; EndedOther any other ids (Meridian writes none).
	Ended      [][2]int `json:"ended"`
	EndedOther []string `json:"ended_other,omitempty"`
	Groups     []Group  `json:"groups"` // the ended runs
	Open       []*Run   `json:"open"`   // the runs still going, whole
}

const (
	tallyVersion = 1
	// refold is the length of log past the cache beyond which it is read
	// again in parallel from the start rather than in one pass from the
	// cache: a few megabytes are faster folded on.
	refold = 16 << 20
)

// TallyPath is runs.tally.json, the cache of Tally.
func (rs Runs) TallyPath() string { return filepath.Join(rs.Dir, "runs.tally.json") }

// readTally reads the cache and reports whether it describes the first
// bytes of this log, up to at most whole, and is near enough its end.
func (rs Runs) readTally(f io.ReaderAt, whole int64) (*tally, bool) {
	b, err := os.ReadFile(rs.TallyPath())
	if err != nil {
		return nil, false
	}
	t := &tally{}
	if json.Unmarshal(b, t) != nil || t.V != tallyVersion || t.Offset < 0 || t.Offset > whole || whole-t.Offset > refold {
		return nil, false
	}
	sum := &checksum{}
	if err := sum.read(f, 0, t.Offset); err != nil || sum.crc != t.Check {
		return nil, false
	}
	return t, true
}

// checksum is a running CRC-32C (Castagnoli, which CPUs compute in
// hardware) of the bytes written to it.
type checksum struct{ crc uint32 }

func (c *checksum) Write(p []byte) (int, error) {
	c.crc = crc32.Update(c.crc, crc32.MakeTable(crc32.Castagnoli), p)
	return len(p), nil
}

// read adds the bytes of f from offset from to offset to.
func (c *checksum) read(f io.ReaderAt, from, to int64) error {
	_, err := io.CopyBuffer(c, io.NewSectionReader(f, from, to-from), make([]byte, 1<<20))
	return err
}

// wholeLines returns the length of the log up to the end of its last
// newline: what follows is a line being written, or torn by a crash. A log
// that ends in a newline, as it nearly always does, costs one byte read:
// every append asks.
func wholeLines(f io.ReaderAt, size int64) (int64, error) {
	var last [1]byte
	if size == 0 {
		return 0, nil
	}
	if _, err := f.ReadAt(last[:], size-1); err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	if last[0] == '\n' {
		return size, nil
	}
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		start := max(0, end-int64(len(buf)))
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

// buildTally folds the first whole bytes of the log, in parallel.
func buildTally(f io.ReaderAt, whole int64) (*tally, error) {
	runs, skipped, err := foldFile(f, whole, min(runtime.GOMAXPROCS(0), int(whole/partSize)+1))
	if err != nil {
		return nil, err
	}
	sum := &checksum{}
	if err := sum.read(f, 0, whole); err != nil {
		return nil, err
	}
	t := &tally{Check: sum.crc, Skipped: skipped, Groups: []Group{}, Open: []*Run{}}
	t.settle(runs)
	return t, nil
}

// ended reports whether a run has its final status.
func ended(r *Run) bool {
	return r.Status == Succeeded || r.Status == Failed || r.Status == Cancelled
}

// settle sums the runs that have ended into the groups and keeps the others
// open: t.Open is replaced.
func (t *tally) settle(runs []*Run) {
	index := map[groupKey]int{}
	for i := range t.Groups {
		index[t.Groups[i].key()] = i
	}
	var ids []int
	t.Open = []*Run{}
	for _, r := range runs {
		if !ended(r) {
			r.Prompt = ""
			t.Open = append(t.Open, r)
			continue
		}
		g := Group{Status: r.Status, Model: r.Model, Agent: r.Agent, SessionID: r.SessionID}
		i, ok := index[g.key()]
		if !ok {
			i = len(t.Groups)
			t.Groups = append(t.Groups, g)
			index[g.key()] = i
		}
		t.Groups[i].add(r)
		if n, ok := numbered(r.ID, "r"); ok {
			ids = append(ids, n)
		} else {
			t.EndedOther = append(t.EndedOther, r.ID)
		}
	}
	t.Ended = addRanges(t.Ended, ids)
	slices.SortFunc(t.Groups, func(a, b Group) int {
		return cmp.Or(strings.Compare(a.Status, b.Status), strings.Compare(a.Model, b.Model),
			strings.Compare(a.Agent, b.Agent), strings.Compare(a.SessionID, b.SessionID))
	})
}

// addRanges adds ids to rs, sorted disjoint ranges, keeping them so.
func addRanges(rs [][2]int, ids []int) [][2]int {
	if len(ids) == 0 {
		return rs
	}
	slices.Sort(ids)
	for _, n := range ids {
		rs = append(rs, [2]int{n, n})
	}
	slices.SortFunc(rs, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	out := rs[:1]
	for _, r := range rs[1:] {
		if last := &out[len(out)-1]; r[0] <= last[1]+1 {
			last[1] = max(last[1], r[1])
		} else {
			out = append(out, r)
		}
	}
	return out
}

func (t *tally) hasEnded(id string) bool {
	n, ok := numbered(id, "r")
	if !ok {
		return slices.Contains(t.EndedOther, id)
	}
	_, found := slices.BinarySearchFunc(t.Ended, n, func(r [2]int, n int) int {
		switch {
		case r[1] < n:
			return -1
		case r[0] > n:
			return 1
		}
		return 0
	})
	return found
}

// fold folds the events of r, the log after t.Offset, into t as List would
// fold them after what t holds. It reports false, leaving t unusable, at an
// event for a run t counts as ended.
func (t *tally) fold(r io.Reader) (bool, error) {
	runs := map[string]*Run{}
	for _, o := range t.Open {
		runs[o.ID] = o
	}
	order := slices.Clone(t.Open)
	d := decoder{intern: map[string]string{}}
	var ev Event
	changedEnded := false
	long, err := lines.Each(r, maxLine, func(line []byte) {
		if changedEnded {
			return
		}
		if !d.decode(line, &ev) || ev.ID == "" {
			t.Skipped++
			return
		}
		run := runs[ev.ID]
		switch {
		case run != nil:
			fold(run, ev.Run)
		case t.hasEnded(ev.ID):
			changedEnded = true
		case ev.Event == "start":
			run = &Run{ID: ev.ID}
			fold(run, ev.Run)
			runs[ev.ID] = run
			order = append(order, run)
		default: // before the run's start: List skips it too
			t.Skipped++
		}
	})
	if err != nil || changedEnded {
		return false, err
	}
	t.Skipped += long
	t.settle(order)
	return true, nil
}

// groups is the answer: the ended runs' groups with the open runs added.
func (t *tally) groups() []Group {
	out := slices.Clone(t.Groups)
	for _, r := range t.Open {
		g := Group{Status: r.Status, Model: r.Model, Agent: r.Agent, SessionID: r.SessionID}
		if i := slices.IndexFunc(out, func(h Group) bool { return h.key() == g.key() }); i >= 0 {
			out[i].add(r)
		} else {
			g.add(r)
			out = append(out, g)
		}
	}
	return out
}
