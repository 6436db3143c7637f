package envelope_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
)

// TestStreamLines: REQ-O-004's numbered and mutating streams, as a jsonl
// stream writes them: item lines numbered from 1 (none on the terminal
// line), "_count" on the summary, meta.items_emitted on an error that ends
// the stream; events with their effect, counted in the summary's
// "effects"; a dry run's would_ effects; no numbering where an item has a
// "_seq" of its own or is not an object; a stream that failed after a live
// change not retryable.
func TestStreamLines(t *testing.T) {
	type event struct {
		effect envelope.Effect
		item   any
	}
	item := func(id string) map[string]string { return map[string]string{"id": id} }
	tests := []struct {
		name   string
		dryRun bool
		events []event
		fail   *envelope.Error
		want   []string
	}{
		{
			name:   "numbered items",
			events: []event{{"", item("a")}, {"", item("b")}, {"", item("c")}},
			want:   []string{`{"_seq":1,"id":"a"}`, `{"_seq":2,"id":"b"}`, `{"_seq":3,"id":"c"}`, `"_count":3`},
		},
		{
			name:   "a failure after two items",
			events: []event{{"", item("a")}, {"", item("b")}},
			fail:   envelope.Errorf(exitcode.Unavailable, "UPSTREAM_DOWN", "gone").WithRetry(0, envelope.RetryImmediate),
			want:   []string{`{"_seq":1,"id":"a"}`, `{"_seq":2,"id":"b"}`, `"items_emitted":2`, `"retryable":true`},
		},
		{
			name: "a failure before the first item",
			fail: envelope.Errorf(exitcode.Unavailable, "UPSTREAM_DOWN", "gone"),
			want: []string{`"items_emitted":0`},
		},
		{
			name:   "an item with a _seq of its own",
			events: []event{{"", map[string]int{"_seq": 7}}, {"", map[string]int{"_seq": 9}}},
			want:   []string{`{"_seq":7}`, `{"_seq":9}`, `"total":2,"duration_ms"`},
		},
		{
			name:   "items that are not objects",
			events: []event{{"", "a"}, {"", "b"}},
			want:   []string{`"a"`, `"b"`, `"total":2,"duration_ms"`},
		},
		{
			name:   "events",
			events: []event{{envelope.Created, item("a")}, {envelope.Created, item("b")}, {envelope.Noop, item("c")}},
			want: []string{`{"_seq":1,"effect":"created","id":"a"}`, `{"_seq":2,"effect":"created","id":"b"}`, `{"_seq":3,"effect":"noop","id":"c"}`,
				`"effects":{"created":2,"noop":1}`, `"effect":"created"`},
		},
		{
			name:   "events in a dry run",
			dryRun: true,
			events: []event{{envelope.Created, item("a")}, {envelope.Created, item("b")}, {envelope.Noop, item("c")}},
			want: []string{`{"_seq":1,"effect":"would_create","id":"a"}`, `{"_seq":3,"effect":"would_noop","id":"c"}`,
				`"dry_run":true,"effects":{"would_create":2,"would_noop":1}`},
		},
		{
			name:   "a failure after a change",
			events: []event{{envelope.Created, item("a")}},
			fail:   envelope.Errorf(exitcode.Unavailable, "UPSTREAM_DOWN", "gone").WithRetry(0, envelope.RetryImmediate),
			want:   []string{`"retryable":false`, `"items_emitted":1`, `"effects":{"created":1}`},
		},
		{
			name:   "a dry run's failure",
			dryRun: true,
			events: []event{{envelope.Created, item("a")}},
			fail:   envelope.Errorf(exitcode.Unavailable, "UPSTREAM_DOWN", "gone").WithRetry(0, envelope.RetryImmediate),
			want:   []string{`"retryable":true`, `"dry_run":true`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSONL), DryRun: tt.dryRun})
			for _, e := range tt.events {
				var err error
				if e.effect == "" {
					err = out.Item(e.item)
				} else {
					err = out.Event(e.effect, e.item)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			out.Finish(fixedMeta(), tt.fail)
			all := lines(t, stdout.Bytes())
			if len(all) != len(tt.events)+1 {
				t.Fatalf("%d lines, want %d items and the terminal line:\n%s", len(all), len(tt.events), stdout)
			}
			if strings.Contains(string(all[len(all)-1]), `"_seq"`) {
				t.Errorf("the terminal line is numbered: %s", all[len(all)-1])
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("the stream does not have %s:\n%s", w, stdout)
				}
			}
		})
	}
}

// TestEventsBuffered: a buffered answer's events are its data, each with
// its effect, and meta.effects counts them.
func TestEventsBuffered(t *testing.T) {
	out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
	out.Event(envelope.Updated, map[string]string{"id": "a"})
	out.Event(envelope.Deleted, map[string]string{"id": "b"})
	out.Finish(fixedMeta(), nil)
	w := decodeOne(t, stdout.Bytes())
	if diff := cmp.Diff(`[{"effect":"updated","id":"a"},{"effect":"deleted","id":"b"}]`, string(w.Data)); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
	want := map[string]any{"updated": 1.0, "deleted": 1.0}
	if diff := cmp.Diff(want, w.Meta["effects"]); diff != "" {
		t.Errorf("meta.effects (-want +got):\n%s", diff)
	}
	if w.Meta["effect"] != "updated" {
		t.Errorf("meta.effect %v, want updated (several kinds of change)", w.Meta["effect"])
	}
}
