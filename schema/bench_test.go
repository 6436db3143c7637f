package schema

import (
	"testing"
	"time"
)

// benchItem is the shape of a typical command result.
type benchItem struct {
	ID       string    `json:"id" doc:"stable id such as t3"`
	Title    string    `json:"title"`
	Priority string    `json:"priority"`
	Done     bool      `json:"done"`
	Tags     []string  `json:"tags,omitempty"`
	Created  time.Time `json:"created"`
}

func BenchmarkOf(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Of[benchItem]().Schema(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheck(b *testing.B) {
	s := mustSchema(b, Of[[]benchItem]())
	b.ReportAllocs()
	for b.Loop() {
		s.Check()
	}
}
