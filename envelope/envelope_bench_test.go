package envelope_test

import (
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/duet-cli/duet/envelope"
)

// benchRecord is one record of the benchmarked list: six fields of the usual
// kinds.
type benchRecord struct {
	ID       string    `json:"id"`
	Name     string    `json:"name"`
	Status   string    `json:"status"`
	Size     int64     `json:"size"`
	Archived bool      `json:"archived"`
	Created  time.Time `json:"created"`
}

func benchRecords(n int) []benchRecord {
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	recs := make([]benchRecord, n)
	for i := range recs {
		recs[i] = benchRecord{
			ID:       fmt.Sprintf("r%05d", i),
			Name:     fmt.Sprintf("record number %d", i),
			Status:   []string{"open", "running", "done"}[i%3],
			Size:     int64(i) * 1031,
			Archived: i%7 == 0,
			Created:  base.Add(time.Duration(i) * time.Minute),
		}
	}
	return recs
}

// countingWriter counts what the Output writes to stdout.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// encodeOnce records recs on a fresh Output and finishes it, as the lifecycle
// does for a command that returns a list.
func encodeOnce(b *testing.B, s envelope.Settings, recs []benchRecord) {
	out := envelope.New(&s)
	if err := out.Result(recs); err != nil {
		b.Fatal(err)
	}
	meta := envelope.Meta{SchemaVersion: envelope.SchemaVersion, ToolVersion: "1.0.0", Command: "list", RequestID: "req_bench"}
	if fail := out.Finish(meta, nil); fail != nil {
		b.Fatal(fail)
	}
}

// BenchmarkEncode10k encodes a 10,000-record list. The json case is the
// default agent envelope: at about 1.3 MB the list is over the 1 MiB cap, so
// it includes cutting the list to fit; json-uncapped raises the cap to show
// the encoding alone. SetBytes is the size written to stdout.
func BenchmarkEncode10k(b *testing.B) {
	recs := benchRecords(10_000)
	cases := []struct {
		name string
		s    envelope.Settings
	}{
		{"json", envelope.Settings{Mode: envelope.Mode{Agent: true, Format: envelope.JSON}}},
		{"json-uncapped", envelope.Settings{Mode: envelope.Mode{Agent: true, Format: envelope.JSON}, MaxBytes: 64 << 20}},
		{"tsv", envelope.Settings{Mode: envelope.Mode{Agent: true, Format: envelope.TSV}}},
		{"text", envelope.Settings{Mode: envelope.Mode{Format: envelope.Text}}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var cw countingWriter
			s := c.s
			s.Stdout, s.Stderr = &cw, io.Discard
			encodeOnce(b, s, recs)
			b.SetBytes(cw.n)
			s.Stdout = io.Discard
			b.ReportAllocs()
			for b.Loop() {
				encodeOnce(b, s, recs)
			}
		})
	}
}
