package state

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"runtime"
	"slices"

	"github.com/duet-cli/duet/examples/meridian/internal/lines"
)

// List folds the log into runs, in id order. Lines that do not parse — a
// partial line left by a crash mid-append — are skipped; skipped counts
// them. Prompts are not kept: they are in each run's input.md, and a list of
// many runs would hold them all. The runs are the fold's own, not copies:
// read them, do not keep them longer than the list.
//
// A large log is read in parallel, one part per core, split at line
// boundaries. Folding is "the last non-empty value of each field wins", so
// what each part says of a run can be folded on its own and the parts laid
// over one another in order — except the events of a run that come before
// its first start in a part, which count only if an earlier part started
// the run; they are kept apart (slot.head) until the merge knows.
func (rs Runs) List() (runs []*Run, skipped int, err error) {
	f, err := os.Open(rs.LogPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	runs, skipped, err = foldFile(f, info.Size(), min(runtime.GOMAXPROCS(0), int(info.Size()/partSize)+1))
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", rs.LogPath(), err)
	}
	return runs, skipped, nil
}

// foldFile folds a log of size bytes read in n parts.
func foldFile(f io.ReaderAt, size int64, n int) ([]*Run, int, error) {
	parts, err := split(f, size, n)
	if err != nil {
		return nil, 0, err
	}
	tables := make([]*table, len(parts)-1)
	errs := make([]error, len(tables))
	done := make(chan int, len(tables))
	for i := range tables {
		go func() {
			tables[i], errs[i] = foldPart(io.NewSectionReader(f, parts[i], parts[i+1]-parts[i]))
			done <- i
		}()
	}
	for range tables {
		<-done
	}
	if err := errors.Join(errs...); err != nil {
		return nil, 0, err
	}
	all := tables[0]
	all.start()
	for _, t := range tables[1:] {
		all.merge(t)
	}
	return all.runs(), all.skipped, nil
}

// partSize is the least a part of the log read in parallel holds.
const partSize = 4 << 20

// split returns the offsets that cut a file of size bytes into n parts at
// line boundaries: parts[i] to parts[i+1].
func split(f io.ReaderAt, size int64, n int) ([]int64, error) {
	parts := []int64{0}
	buf := make([]byte, 64<<10)
	for i := 1; i < n; i++ {
		off := size * int64(i) / int64(n)
		for off < size {
			m, err := f.ReadAt(buf, off)
			if j := slices.Index(buf[:m], '\n'); j >= 0 {
				off += int64(j) + 1
				break
			}
			off += int64(m)
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
		}
		if off > parts[len(parts)-1] && off < size {
			parts = append(parts, off)
		}
	}
	return append(parts, size), nil
}

// table is what one part of the log says of each run. Ids are r1, r2 ...:
// run rN is slot N-1 of fixed-size blocks, in order, with no map, no sorting
// and no copying as the log grows. Any other id (which Meridian never
// writes) goes to other.
type table struct {
	blocks  []*[blockSize]slot
	other   map[string]*slot
	skipped int
}

// slot is one run in one part: body folds its events from its first start
// event of the part on (body.ID is set once there is one), head those before.
type slot struct {
	body  Run
	head  *Run
	early int // events in head
}

const blockSize = 1024

// maxSlot bounds the blocks, against an id such as r999999999.
const maxSlot = 1 << 22

func (t *table) slot(id string) *slot {
	if n, ok := numbered(id, "r"); ok && n <= maxSlot {
		for len(t.blocks) < (n+blockSize-1)/blockSize {
			t.blocks = append(t.blocks, nil)
		}
		b := &t.blocks[(n-1)/blockSize]
		if *b == nil {
			*b = new([blockSize]slot)
		}
		return &(*b)[(n-1)%blockSize]
	}
	if t.other == nil {
		t.other = map[string]*slot{}
	}
	s := t.other[id]
	if s == nil {
		s = &slot{}
		t.other[id] = s
	}
	return s
}

func foldPart(r io.Reader) (*table, error) {
	t := &table{}
	var ev Event
	d := decoder{intern: map[string]string{}}
	long, err := lines.Each(r, maxLine, func(line []byte) {
		if !d.decode(line, &ev) || ev.ID == "" {
			t.skipped++
			return
		}
		s := t.slot(ev.ID)
		switch {
		case s.body.ID != "":
			fold(&s.body, ev.Run)
		case ev.Event == "start":
			s.body.ID = ev.ID
			fold(&s.body, ev.Run)
		default:
			if s.head == nil {
				s.head = &Run{}
			}
			fold(s.head, ev.Run)
			s.early++
		}
	})
	t.skipped += long
	return t, err
}

// start makes t the beginning of the log: events before a run's first start
// have nothing to overlay.
func (t *table) start() {
	t.each(func(s *slot) {
		t.skipped += s.early
		s.head, s.early = nil, 0
	})
}

// merge lays u, the part of the log after t's, over t.
func (t *table) merge(u *table) {
	t.skipped += u.skipped
	apply := func(dst, src *slot) {
		if dst.body.ID == "" {
			t.skipped += src.early // no start before them
			dst.body = src.body
			return
		}
		if src.head != nil {
			fold(&dst.body, *src.head)
		}
		if src.body.ID != "" {
			fold(&dst.body, src.body)
		}
	}
	for i, b := range u.blocks {
		if b == nil {
			continue
		}
		for len(t.blocks) <= i {
			t.blocks = append(t.blocks, nil)
		}
		if t.blocks[i] == nil { // runs t has not seen: the block is taken as it is
			for j := range b {
				t.skipped += b[j].early
				b[j].head, b[j].early = nil, 0
			}
			t.blocks[i] = b
			continue
		}
		for j := range b {
			if b[j].body.ID != "" || b[j].head != nil {
				apply(&t.blocks[i][j], &b[j])
			}
		}
	}
	for id, s := range u.other {
		apply(t.slot(id), s)
	}
}

func (t *table) each(fn func(*slot)) {
	for _, b := range t.blocks {
		if b != nil {
			for i := range b {
				fn(&b[i])
			}
		}
	}
	for _, s := range t.other {
		fn(s)
	}
}

// runs returns the started runs: other ids by name, then r1, r2 ...
func (t *table) runs() []*Run {
	n := 0
	t.each(func(s *slot) {
		if s.body.ID != "" {
			n++
		}
	})
	out := make([]*Run, 0, n)
	for _, id := range slices.Sorted(maps.Keys(t.other)) {
		if s := t.other[id]; s.body.ID != "" {
			out = append(out, &s.body)
		}
	}
	for _, b := range t.blocks {
		if b == nil {
			continue
		}
		for i := range b {
			if b[i].body.ID != "" {
				out = append(out, &b[i].body)
			}
		}
	}
	return out
}
