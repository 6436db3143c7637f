//go:build linux

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// ---------------------------------------------------------------------------
// REQ-F-054 Stdin payload size cap with --input-file fallback.

// records returns n JSON lines of size bytes each, newline included.
func records(n, size int) string {
	var b strings.Builder
	for range n {
		b.WriteString(`{"v":"` + strings.Repeat("x", size-9) + `"}` + "\n")
	}
	return b.String()
}

// feed runs args with stdin reading payload, as a shell pipeline gives it.
func (sb *sandbox) feed(t *testing.T, payload string, extra []string, args ...string) result {
	t.Helper()
	cmd := sb.command(sb.dir, extra, args...)
	cmd.Stdin = strings.NewReader(payload)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return wait(t, cmd, &stdout, &stderr)
}

// TestF054BufferedCap: REQ-F-054 criteria 1 to 4 on `restore`, which reads
// its payload whole (Meta.Stdin): 65537 bytes are refused, exit 2
// STDIN_TOO_LARGE, with a hint naming --input-file and nothing restored;
// 65535 bytes are restored; --input-file is there without being declared,
// and reads the larger file.
func TestF054BufferedCap(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	doc := func(n int) string { return `{"v":"` + strings.Repeat("x", n-8) + `"}` }
	env := expect(t, "restore 65537", sb.feed(t, doc(65537), nil, "restore"), 2)
	want(t, "restore 65537", env, map[string]any{"error.code": "STDIN_TOO_LARGE", "error.context.limit_bytes": 65536.0, "data": nil})
	if hint, _ := get(env, "error.hint").(string); !strings.Contains(hint, "--input-file") {
		t.Errorf("the hint %q does not name --input-file", hint)
	}
	if exists(sb.path("data", "e2eapp", "settings.json")) {
		t.Fatal("a refused payload was restored")
	}
	want(t, "restore 65535", expect(t, "restore 65535", sb.feed(t, doc(65535), nil, "restore"), 0), map[string]any{"data.bytes": 65535.0})
	if flags := flagNames(sb.schemaOf(t, "restore")); !strings.Contains(strings.Join(flags, " "), "input-file") {
		t.Errorf("restore --schema has no --input-file: %v", flags)
	}
	big := sb.path("big.json")
	if err := os.WriteFile(big, []byte(doc(200_000)), 0o600); err != nil {
		t.Fatal(err)
	}
	want(t, "restore --input-file", expect(t, "restore --input-file", sb.run(t, "restore", "--input-file", big), 0), map[string]any{"data.bytes": 200000.0})
}

// TestF054LineMode: REQ-F-054's line-mode criteria (v1.8) on `load`, which
// declares Meta.StdinLines. 300 lines of 320 bytes (96000, over the
// buffered cap) are all applied, exit 0, even with E2EAPP_MAX_STDIN_BYTES
// at 1000, which caps buffered stdin only; --input-file reads the same
// lines from a file, and "--input-file -" from stdin; a third line of 1048577 bytes ends the run with exit
// 1 LINE_TOO_LARGE, not retryable, context.line 3, after the first two
// lines were applied, from stdin and from a file alike.
func TestF054LineMode(t *testing.T) {
	t.Parallel()
	payload := records(300, 320)
	if len(payload) != 96000 {
		t.Fatalf("payload of %d bytes", len(payload))
	}
	tooLong := records(2, 100) + `"` + strings.Repeat("y", 1048575) + `"` + "\n" + records(1, 100)
	t.Run("stdin", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		for _, extra := range [][]string{nil, {"E2EAPP_MAX_STDIN_BYTES=1000"}} {
			env := expect(t, "load", sb.feed(t, payload, extra, "load"), 0)
			want(t, "load", env, map[string]any{"data.lines": 300.0, "meta.effect": "updated"})
		}
		if got := readFile(t, sb.path("data", "e2eapp", "loaded")); got != payload+payload {
			t.Errorf("loaded %d bytes, want every line of both runs (%d)", len(got), 2*len(payload))
		}
	})
	t.Run("input file", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		file := sb.path("lines.ndjson")
		if err := os.WriteFile(file, []byte(payload), 0o600); err != nil {
			t.Fatal(err)
		}
		want(t, "load --input-file", expect(t, "load --input-file", sb.run(t, "load", "--input-file", file), 0), map[string]any{"data.lines": 300.0})
		want(t, "load --input-file -", expect(t, "load --input-file -", sb.feed(t, payload, nil, "load", "--input-file", "-"), 0), map[string]any{"data.lines": 300.0})
	})
	for _, from := range []string{"stdin", "input file"} {
		t.Run("a line too long, "+from, func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t)
			var r result
			if from == "stdin" {
				r = sb.feed(t, tooLong, []string{"E2EAPP_MAX_STDIN_BYTES=10000000"}, "load")
			} else {
				file := sb.path("lines.ndjson")
				if err := os.WriteFile(file, []byte(tooLong), 0o600); err != nil {
					t.Fatal(err)
				}
				r = sb.run(t, "load", "--input-file", file)
			}
			env := expect(t, "load", r, 1)
			want(t, "load", env, map[string]any{"error.code": "LINE_TOO_LARGE", "error.retryable": false, "error.context.line": 3.0, "error.context.limit_bytes": 1048576.0})
			if got := readFile(t, sb.path("data", "e2eapp", "loaded")); got != records(2, 100) {
				t.Errorf("loaded %q, want the two lines before the long one", got)
			}
		})
	}
}

// TestF054LinesArriveAsWritten: REQ-F-054, "the handler receives line 1
// before the producer writes line 2". The test is the producer: it writes
// one line to load's stdin and writes the next only once the first is
// applied — a command that read stdin whole first would never apply it,
// and the test fails at its deadline.
func TestF054LinesArriveAsWritten(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	cmd := sb.command(sb.dir, nil, "load")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	loaded := sb.path("data", "e2eapp", "loaded")
	for i, line := range []string{`{"n":1}`, `{"n":2}`, `{"n":3}`} {
		if _, err := stdin.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for !strings.HasSuffix(readFile(t, loaded), line+"\n") {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("line %d was not applied within 20 s of being written, the next not yet written: %q", i+1, readFile(t, loaded))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	stdin.Close()
	err = cmd.Wait()
	want(t, "load", expect(t, "load", result{stdout: stdout.String(), stderr: stderr.String(), code: exitCode(err)}, 0), map[string]any{"data.lines": 3.0})
}

// TestF054ManifestStdinMode: REQ-F-054's last criterion (ManifestResponse
// 3.8): the manifest's CommandEntry.stdin says how each command reads
// stdin — buffered with its cap for restore, lines with the line cap for
// load — and a command that reads no payload has none.
func TestF054ManifestStdinMode(t *testing.T) {
	t.Parallel()
	commands, _ := newSandbox(t).manifest(t)["commands"].(map[string]any)
	for cmd, stdin := range map[string]any{
		"restore": map[string]any{"mode": "buffered", "max_bytes": 65536.0},
		"load":    map[string]any{"mode": "lines", "max_line_bytes": 1048576.0},
		"status":  nil,
	} {
		if got := get(commands, cmd+".stdin"); !cmp.Equal(got, stdin) {
			t.Errorf("%s: stdin %v, want %v", cmd, got, stdin)
		}
	}
}

// ---------------------------------------------------------------------------
// REQ-O-039 --input-file for large payloads.

// TestO039InputFile: REQ-O-039's criteria. restore reads a 10 MB document
// from --input-file, and the same 10 MB on stdin is refused, exit 2
// STDIN_TOO_LARGE with a hint naming --input-file; "--input-file -" is
// stdin, as a pipe is. load, a line-mode command, reads a 10 MB file of
// short lines through --input-file, and one whose third line is over the
// cap exits 1 LINE_TOO_LARGE, context.line 3 (TestF054LineMode).
func TestO039InputFile(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	big := `{"v":"` + strings.Repeat("x", 10<<20) + `"}`
	file := sb.path("big.json")
	if err := os.WriteFile(file, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	want(t, "restore --input-file", expect(t, "restore --input-file", sb.run(t, "restore", "--input-file", file), 0), map[string]any{"data.bytes": float64(len(big))})
	env := expect(t, "restore, 10 MB on stdin", sb.feed(t, big, nil, "restore"), 2)
	want(t, "restore, 10 MB on stdin", env, map[string]any{"error.code": "STDIN_TOO_LARGE"})
	if hint, _ := get(env, "error.hint").(string); !strings.Contains(hint, "--input-file") {
		t.Errorf("the hint %q does not name --input-file", hint)
	}
	want(t, "restore --input-file -", expect(t, "restore --input-file -", sb.feed(t, `{"a":1}`, nil, "restore", "--input-file", "-"), 0), map[string]any{"data.settings": 1.0})

	lines := records((10<<20)/100, 100)
	file = sb.path("lines.ndjson")
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	want(t, "load --input-file", expect(t, "load --input-file", sb.run(t, "load", "--input-file", file), 0), map[string]any{"data.lines": float64((10 << 20) / 100)})
}

// ---------------------------------------------------------------------------
// REQ-O-004 Streaming output: numbered and mutating streams, and the
// records consumer of another command's stream.

// streamLines runs args (with extra environment) and splits stdout into its
// JSON lines, decoded.
func (sb *sandbox) streamLines(t *testing.T, extra []string, args ...string) ([]map[string]any, result) {
	t.Helper()
	r := sb.runEnv(t, extra, args...)
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: line %q is not a JSON object: %v", args, l, err)
		}
		out = append(out, m)
	}
	return out, r
}

// TestO004NumberedMutatingStream: REQ-O-004's numbered and mutating-stream
// criteria on `provision`, a streaming mutating command. Creating two hosts
// and finding one unchanged streams three item lines numbered _seq 1 to 3,
// each with its own effect, and a summary with _count 3 and effects
// {created: 2, noop: 1}; with heartbeats between, no heartbeat line is
// numbered. --dry-run creates nothing, every line a would_ effect, the
// summary dry_run and effects {would_create: 2, would_noop: 1}. A stream
// that fails after two items ends on an error envelope, the last line, with
// meta.items_emitted 2 (0 before the first), and exits with its exit code;
// after a created item it is not retryable, after a noop only it is; a dry
// run's failure says dry_run.
func TestO004NumberedMutatingStream(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	hosts := sb.path("data", "e2eapp", "hosts")
	if err := os.MkdirAll(hosts, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hosts, "old"), []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	itemsOf := func(t *testing.T, lines []map[string]any) (seqs []any, effects []any) {
		for _, l := range lines[:len(lines)-1] {
			if l["heartbeat"] == true {
				if _, ok := l["_seq"]; ok {
					t.Errorf("a heartbeat line is numbered: %v", l)
				}
				continue
			}
			seqs, effects = append(seqs, l["_seq"]), append(effects, l["effect"])
		}
		return seqs, effects
	}

	lines, r := sb.streamLines(t, nil, "provision", "a", "old", "b", "--format", "jsonl", "--dry-run")
	if r.code != 0 {
		t.Fatalf("provision --dry-run: exit %d\n%s", r.code, r.stdout)
	}
	seqs, effects := itemsOf(t, lines)
	if diff := cmp.Diff([]any{1.0, 2.0, 3.0}, seqs); diff != "" {
		t.Errorf("dry run _seq (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"would_create", "would_noop", "would_create"}, effects); diff != "" {
		t.Errorf("dry run effects (-want +got):\n%s", diff)
	}
	want(t, "the dry run's summary", lines[len(lines)-1], map[string]any{"_summary": true, "_count": 3.0, "dry_run": true,
		"effects": map[string]any{"would_create": 2.0, "would_noop": 1.0}})
	if exists(filepath.Join(hosts, "a")) || exists(filepath.Join(hosts, "b")) {
		t.Fatal("the dry run created a host")
	}

	lines, r = sb.streamLines(t, nil, "provision", "a", "old", "b", "--format", "jsonl", "--pause", "150ms", "--heartbeat-ms", "50")
	if r.code != 0 {
		t.Fatalf("provision: exit %d\n%s", r.code, r.stdout)
	}
	seqs, effects = itemsOf(t, lines)
	if diff := cmp.Diff([]any{1.0, 2.0, 3.0}, seqs); diff != "" {
		t.Errorf("_seq (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"created", "noop", "created"}, effects); diff != "" {
		t.Errorf("effects (-want +got):\n%s", diff)
	}
	want(t, "the summary", lines[len(lines)-1], map[string]any{"_summary": true, "_count": 3.0, "meta.exit_code": 0.0,
		"effects": map[string]any{"created": 2.0, "noop": 1.0}})
	if len(lines) == 4 {
		t.Log("no heartbeat line came between the items (a loaded machine); _seq was checked on the items alone")
	}

	for _, tt := range []struct {
		name      string
		args      []string
		emitted   float64
		retryable bool
	}{
		{"after two items, one created", []string{"c", "old", "z", "--fail-at", "z"}, 2, false},
		{"after a noop only", []string{"old", "z", "--fail-at", "z"}, 1, true},
		{"before the first item", []string{"z", "--fail-at", "z"}, 0, true},
		{"a dry run, after an item", []string{"d", "z", "--fail-at", "z", "--dry-run"}, 1, true},
	} {
		lines, r := sb.streamLines(t, nil, append([]string{"provision", "--format", "jsonl"}, tt.args...)...)
		last := lines[len(lines)-1]
		if r.code != 12 || len(lines) != int(tt.emitted)+1 {
			t.Errorf("%s: exit %d, %d lines; want 12 and %v items before the error envelope\n%s", tt.name, r.code, len(lines), tt.emitted, r.stdout)
		}
		want(t, tt.name, last, map[string]any{"ok": false, "error.code": "UPSTREAM_UNREACHABLE", "meta.exit_code": 12.0,
			"meta.items_emitted": tt.emitted, "error.retryable": tt.retryable})
		if slices.Contains(tt.args, "--dry-run") && get(last, "meta.dry_run") != true {
			t.Errorf("%s: meta.dry_run %v, want true", tt.name, get(last, "meta.dry_run"))
		}
	}
}

// TestO004RecordsConsumer: REQ-O-004's records-consumer criteria on
// `apply`, which declares Meta.Records, fed by `provision`'s real jsonl
// stream through a pipe between the two processes (and by a file or
// hand-written streams): records reach it without _seq; items, a heartbeat
// and the summary → 2 records, exit 0; an error envelope on line 2 → exit 1
// UPSTREAM_FAILED with context.line 2, upstream.code, _trusted false and
// upstream_exit_code; two items and the end of stdin → UPSTREAM_INCOMPLETE,
// line 2, records 2; a line that is not an object, or a record without its
// required name → RECORD_INVALID with the line; all not retryable; a file
// of two items and no summary through --input-file → 2 records, exit 0.
// The manifest declares stdin mode records with the record schema.
func TestO004RecordsConsumer(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	registered := sb.path("data", "e2eapp", "registered")
	pipeline := func(t *testing.T, producer ...string) result {
		t.Helper()
		prod := sb.command(sb.dir, nil, append([]string{"provision", "--format", "jsonl"}, producer...)...)
		cons := sb.command(sb.dir, nil, "apply")
		pipe, err := prod.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cons.Stdin = pipe
		if err := prod.Start(); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		cons.Stdout, cons.Stderr = &stdout, &stderr
		r := wait(t, cons, &stdout, &stderr)
		prod.Wait()
		return r
	}
	os.Remove(registered)
	want(t, "provision | apply", expect(t, "provision | apply", pipeline(t, "h1", "h2"), 0), map[string]any{"data.registered": 2.0})
	if got := readFile(t, registered); got != `{"effect":"created","name":"h1"}`+"\n"+`{"effect":"created","name":"h2"}`+"\n" {
		t.Errorf("registered %q: want both records, without _seq", got)
	}
	env := expect(t, "a failing provision | apply", pipeline(t, "h3", "h4", "--fail-at", "h4"), 1)
	want(t, "a failing provision | apply", env, map[string]any{"error.code": "UPSTREAM_FAILED", "error.retryable": false,
		"error.context.line": 2.0, "error.context.upstream.code": "UPSTREAM_UNREACHABLE", "error.context._trusted": false, "error.context._source": "external", "error.context.upstream_exit_code": 12.0})

	item := func(n int, name string) string {
		return fmt.Sprintf(`{"_seq":%d,"effect":"created","name":%q}`, n, name)
	}
	summary := `{"_summary":true,"total":2,"_count":2,"duration_ms":1,"warnings":[],"meta":{"exit_code":0}}`
	for _, tt := range []struct {
		name    string
		stream  string
		code    int
		want    map[string]any
		records int
	}{
		{"two items, a heartbeat and the summary", item(1, "a") + "\n" + `{"status":"running","heartbeat":true,"elapsed_ms":5}` + "\n" + item(2, "b") + "\n" + summary + "\n",
			0, map[string]any{"data.registered": 2.0}, 2},
		{"two items and the end of stdin", item(1, "a") + "\n" + item(2, "b") + "\n",
			1, map[string]any{"error.code": "UPSTREAM_INCOMPLETE", "error.retryable": false, "error.context.line": 2.0, "error.context.records": 2.0}, 2},
		{"a line that is not an object", item(1, "a") + "\n" + `"b"` + "\n",
			1, map[string]any{"error.code": "RECORD_INVALID", "error.retryable": false, "error.context.line": 2.0}, 1},
		{"a record without its name", `{"_seq":1,"effect":"created"}` + "\n",
			1, map[string]any{"error.code": "RECORD_INVALID", "error.retryable": false, "error.context.line": 1.0, "error.context.field": "name"}, 0},
	} {
		os.Remove(registered)
		want(t, tt.name, expect(t, tt.name, sb.feed(t, tt.stream, nil, "apply"), tt.code), tt.want)
		if got := strings.Count(readFile(t, registered), "\n"); got != tt.records {
			t.Errorf("%s: %d records registered, want %d", tt.name, got, tt.records)
		}
	}
	file := sb.path("hosts.jsonl")
	if err := os.WriteFile(file, []byte(item(1, "a")+"\n"+item(2, "b")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want(t, "apply --input-file", expect(t, "apply --input-file", sb.run(t, "apply", "--input-file", file), 0), map[string]any{"data.registered": 2.0})

	commands, _ := sb.manifest(t)["commands"].(map[string]any)
	want(t, "manifest", map[string]any{"apply": commands["apply"]}, map[string]any{"apply.stdin.mode": "records",
		"apply.stdin.record_schema.required": []any{"name"}, "apply.stdin.max_line_bytes": 1048576.0})
}

// TestO004StreamingDefault: REQ-O-004 criteria 7 to 10 on the built
// binary. `hosts` declares streaming_default: an agent's bare call gets
// jsonl (numbered items, then the summary with pagination), --no-stream one
// envelope of the same items, and the manifest says streaming_default;
// --stream on `status`, which does not stream, answers with a
// STREAMING_NOT_SUPPORTED warning.
func TestO004StreamingDefault(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	expect(t, "provision", sb.run(t, "provision", "h1", "h2"), 0)
	lines, r := sb.streamLines(t, nil, "hosts")
	if r.code != 0 || len(lines) != 3 {
		t.Fatalf("hosts: exit %d, %d lines; want 2 items and the summary\n%s", r.code, len(lines), r.stdout)
	}
	want(t, "hosts", map[string]any{"first": lines[0], "summary": lines[2]}, map[string]any{"first._seq": 1.0, "first.name": "h1",
		"summary._summary": true, "summary._count": 2.0, "summary.meta.pagination.total": 2.0})
	want(t, "hosts --no-stream", expect(t, "hosts --no-stream", sb.run(t, "hosts", "--no-stream"), 0),
		map[string]any{"data": []any{map[string]any{"name": "h1"}, map[string]any{"name": "h2"}}})
	commands, _ := sb.manifest(t)["commands"].(map[string]any)
	if get(commands, "hosts.streaming_default") != true || get(commands, "status.streaming_default") != nil {
		t.Errorf("manifest: hosts streaming_default %v, status %v", get(commands, "hosts.streaming_default"), get(commands, "status.streaming_default"))
	}
	lines, r = sb.streamLines(t, nil, "status", "--stream")
	if last := lines[len(lines)-1]; r.code != 0 || get(last, "warnings.0.code") != "STREAMING_NOT_SUPPORTED" {
		t.Errorf("status --stream: exit %d, last line %v; want the STREAMING_NOT_SUPPORTED warning", r.code, last)
	}
}
