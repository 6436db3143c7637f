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
		Of[benchItem]()
	}
}

func BenchmarkCheck(b *testing.B) {
	s := Of[[]benchItem]()
	b.ReportAllocs()
	for b.Loop() {
		s.Check()
	}
}
