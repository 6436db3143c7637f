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

func (g *Group) merge(h Group) {
	g.Runs += h.Runs
	g.DurationSecs += h.DurationSecs
	g.TotalCostUSD += h.TotalCostUSD
	g.InputTokens += h.InputTokens
	g.OutputTokens += h.OutputTokens
	g.CachedTokens += h.CachedTokens
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
// it, with the log's length then and the runs still going; a later Tally
// folds only the events appended since. The file is a cache: deleted,
// stale or written by another version, it is rebuilt from the log — as it
// is when an event arrives for a run it counts as ended, or when useCache
// is false. cached reports whether the cache was used.
func (rs Runs) Tally(useCache bool) (groups []Group, skipped int, cached bool, err error) {
	f, err := os.Open(rs.log())
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
	whole, err := wholeLines(f, info.Size())
	if err != nil {
		return nil, 0, false, fmt.Errorf("read %s: %w", rs.log(), err)
	}
	var t *tally
	fresh := false
	if useCache {
		t, fresh = rs.readTally(f, whole)
	}
	if !fresh {
		t, err = buildTally(f, whole)
	} else if whole > t.Offset {
		var ok bool
		ok, err = t.fold(io.NewSectionReader(f, t.Offset, whole-t.Offset))
		if err == nil && !ok { // an ended run changed: count again
			t, err = buildTally(f, whole)
			fresh = false
		}
	}
	if err != nil {
		return nil, 0, false, fmt.Errorf("read %s: %w", rs.log(), err)
	}
	cached = fresh // and still so after the events since were folded on
	if !fresh || whole > t.Offset {
		t.Offset = whole
		rs.writeTally(f, t) // best effort: a cache not written is rebuilt
	}
	skipped = t.Skipped
	if info.Size() > whole { // a torn last line, as List counts it
		skipped++
	}
	return t.groups(), skipped, cached, nil
}

// tally is runs.tally.json.
type tally struct {
	V       int    `json:"v"`
	Offset  int64  `json:"offset"` // the bytes of the log folded: whole lines
	Check   uint32 `json:"check"`  // the CRC-32 of the checked bytes before Offset
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
	// checked is how many bytes before the offset the cache's checksum
	// covers: a log rewritten or replaced since is told from the one folded.
	checked = 4 << 10
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
	sum, err := checksum(f, t.Offset)
	if err != nil || sum != t.Check {
		return nil, false
	}
	return t, true
}

// writeTally replaces the cache whole, so a reader never sees half of one.
func (rs Runs) writeTally(f io.ReaderAt, t *tally) {
	sum, err := checksum(f, t.Offset)
	if err != nil {
		return
	}
	t.V, t.Check = tallyVersion, sum
	b, err := json.Marshal(t)
	if err != nil {
		return
	}
	atomicfile.Write(rs.TallyPath(), b, 0o644)
}

func checksum(f io.ReaderAt, offset int64) (uint32, error) {
	from := max(0, offset-checked)
	buf := make([]byte, offset-from)
	if _, err := f.ReadAt(buf, from); err != nil && !(errors.Is(err, io.EOF) && len(buf) == 0) {
		return 0, err
	}
	return crc32.ChecksumIEEE(buf), nil
}

// wholeLines returns the length of the log up to the end of its last
// newline: what follows is a line being written, or torn by a crash.
func wholeLines(f io.ReaderAt, size int64) (int64, error) {
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
	t := &tally{Skipped: skipped, Groups: []Group{}, Open: []*Run{}}
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
