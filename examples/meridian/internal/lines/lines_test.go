package lines_test

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/examples/meridian/internal/lines"
)

func TestEach(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // longer than the reader's buffer
	tests := []struct {
		name    string
		in      string
		max     int
		want    []string
		skipped int
	}{
		{"lines", "a\nb\n", 10, []string{"a", "b"}, 0},
		{"crlf and blank lines", "a\r\n\nb\n", 10, []string{"a", "b"}, 0},
		{"torn last line", "a\n{\"id\":", 10, []string{"a", `{"id":`}, 0},
		{"too long", "a\n" + long + "\nb\n", 1 << 10, []string{"a", "b"}, 1},
		{"long but allowed", long + "\nb", 1 << 20, []string{long, "b"}, 0},
		{"empty", "", 10, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Whole, and one byte at a time: the result must not depend on how reads fall.
			for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
				var got []string
				skipped, err := lines.Each(r, tc.max, func(b []byte) { got = append(got, string(b)) })
				if err != nil || skipped != tc.skipped {
					t.Errorf("Each = %d skipped, %v; want %d", skipped, err, tc.skipped)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("lines (-want +got):\n%s", diff)
				}
			}
		})
	}
}
