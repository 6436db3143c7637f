package envelope_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/exitcode"
)

// answer is what a command gives its Output in the --output tests: a
// result, or items streamed one by one, and a warning.
type answer func(out *envelope.Output)

func listResult(out *envelope.Output) {
	out.Warn("STALE_CACHE", "the cache is 2 days old", "run 'tool sync'")
	out.Result(records())
}

func streamedItems(out *envelope.Output) {
	out.Warn("STALE_CACHE", "the cache is 2 days old", "run 'tool sync'")
	for _, r := range records() {
		if err := out.Item(r); err != nil {
			panic(err)
		}
	}
}

// decodeWritten decodes the data of a --output answer: what was written
// where, and nothing else.
func decodeWritten(t *testing.T, data json.RawMessage) envelope.Written {
	t.Helper()
	var w envelope.Written
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		t.Fatalf("data is not {path, bytes, content_type}: %v\n%s", err, data)
	}
	return w
}

// TestOutputFileHoldsTheAnswer (REQ-O-001): with --output, the file holds
// byte for byte what stdout would have held in the --format representation,
// streamed items included, and stdout holds one envelope whose data
// describes the write: {path, bytes, content_type}.
func TestOutputFileHoldsTheAnswer(t *testing.T) {
	tests := []struct {
		name        string
		format      envelope.Format
		answer      answer
		contentType string
	}{
		{"json", envelope.JSON, listResult, "application/json"},
		{"tsv", envelope.TSV, listResult, "text/tab-separated-values"},
		{"jsonl result", envelope.JSONL, listResult, "application/x-ndjson"},
		{"jsonl stream", envelope.JSONL, streamedItems, "application/x-ndjson"},
		{"tsv stream", envelope.TSV, streamedItems, "text/tab-separated-values"},
		{"toon", envelope.TOON, listResult, "text/toon"},
		{"id", envelope.ID, listResult, "text/plain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// What stdout holds without --output.
			plain, wantFile, _ := newOutput(envelope.Settings{Mode: agentMode(tt.format)})
			tt.answer(plain)
			if fail := plain.Finish(fixedMeta(), nil); fail != nil {
				t.Fatalf("Finish without --output reported %v", fail)
			}

			dir := t.TempDir()
			path := filepath.Join(dir, "answer.out")
			out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(tt.format), OutputFile: path})
			tt.answer(out)
			if stdout.Len() != 0 {
				t.Fatalf("stdout before Finish = %q, want nothing: items go to the file", stdout)
			}
			if fail := out.Finish(fixedMeta(), nil); fail != nil {
				t.Fatalf("Finish reported %v", fail)
			}
			file, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("the answer was not written: %v", err)
			}
			if diff := cmp.Diff(wantFile.String(), string(file)); diff != "" {
				t.Errorf("file differs from what stdout would hold (-stdout +file):\n%s", diff)
			}

			env := decodeOne(t, stdout.Bytes())
			if !env.OK || env.Error != nil || env.Meta["exit_code"] != float64(0) {
				t.Errorf("stdout envelope ok=%v error=%v exit_code=%v, want a success: %s", env.OK, env.Error, env.Meta["exit_code"], stdout)
			}
			want := envelope.Written{Path: path, Bytes: len(file), ContentType: tt.contentType}
			if diff := cmp.Diff(want, decodeWritten(t, env.Data)); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
			if got := envelope.MediaType(tt.format); got != tt.contentType {
				t.Errorf("MediaType(%s) = %q, want %q", tt.format, got, tt.contentType)
			}
			// The page in the file keeps its pagination, for the next page (a
			// result without a window has none).
			if _, ok := env.Meta["pagination"]; ok != strings.Contains(tt.name, "stream") {
				t.Errorf("meta.pagination = %v", env.Meta["pagination"])
			}
			if diff := cmp.Diff([]envelope.Warning{{Code: "STALE_CACHE", Message: "the cache is 2 days old. Next: run 'tool sync'"}}, env.Warnings); diff != "" {
				t.Errorf("stdout warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOutputFileRelativePath: a relative --output path resolves against
// --cwd, and data names the file by its absolute path.
func TestOutputFileRelativePath(t *testing.T) {
	dir := t.TempDir()
	out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), OutputFile: "r.json", Cwd: dir})
	out.Result(object())
	out.Finish(fixedMeta(), nil)
	want := filepath.Join(dir, "r.json")
	if got := decodeWritten(t, decodeOne(t, stdout.Bytes()).Data).Path; got != want {
		t.Errorf("data.path = %q, want %q", got, want)
	}
	if _, err := os.Stat(want); err != nil {
		t.Errorf("no file at %s: %v", want, err)
	}
}

// TestOutputFileOnFailure: a failed run leaves no file (REQ-O-001), and
// stdout carries the error envelope it would carry without --output —
// data.partial for an interrupted run included.
func TestOutputFileOnFailure(t *testing.T) {
	notFound := func() *envelope.Error {
		return envelope.Errorf(exitcode.NotFound, "SPACE_NOT_FOUND", "space s9 does not exist")
	}
	tests := []struct {
		name   string
		format envelope.Format
		answer answer
		fail   func() *envelope.Error
	}{
		{"json", envelope.JSON, listResult, notFound},
		{"tsv", envelope.TSV, listResult, notFound},
		{"jsonl after two items", envelope.JSONL, streamedItems, notFound},
		{"interrupted", envelope.JSON, listResult, func() *envelope.Error {
			return envelope.Errorf(exitcode.Interrupted, "CANCELLED", "cancelled by SIGINT").Interrupted("SIGINT")
		}},
		{"with a failure payload", envelope.JSON, listResult, func() *envelope.Error { return notFound().WithResult() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The error envelope an agent reads without --output.
			plain, plainOut, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
			tt.answer(plain)
			plain.Finish(fixedMeta(), tt.fail())
			decodeOne(t, plainOut.Bytes()) // one envelope

			path := filepath.Join(t.TempDir(), "answer.out")
			out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(tt.format), OutputFile: path})
			tt.answer(out)
			got := out.Finish(fixedMeta(), tt.fail())
			if got == nil || envelope.ExitCode(got) != envelope.ExitCode(tt.fail()) {
				t.Errorf("Finish = %v, want the failure", got)
			}
			if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a failed run left a file at %s (stat: %v)", path, err)
			}
			if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 0 {
				t.Errorf("a failed run left %v in the directory", entries)
			}
			if diff := cmp.Diff(plainOut.String(), stdout.String()); diff != "" {
				t.Errorf("stdout differs from the error envelope without --output (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOutputFileWriteFails: when the file cannot be written the run fails
// with OUTPUT_WRITE_FAILED (exit 1), and stdout says so with data null.
func TestOutputFileWriteFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "r.json")
	out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), OutputFile: path})
	out.Result(records())
	got := out.Finish(fixedMeta(), nil)
	if got == nil || got.Code != "OUTPUT_WRITE_FAILED" || envelope.ExitCode(got) != 1 {
		t.Fatalf("Finish = %v, want OUTPUT_WRITE_FAILED", got)
	}
	env := decodeOne(t, stdout.Bytes())
	if env.OK || env.Error == nil || env.Error.Code != "OUTPUT_WRITE_FAILED" || string(env.Data) != "null" || env.Meta["exit_code"] != float64(1) {
		t.Errorf("envelope = %s, want OUTPUT_WRITE_FAILED with data null and exit_code 1", stdout)
	}
	if _, ok := env.Meta["pagination"]; ok {
		t.Errorf("meta.pagination of an answer never written: %v", env.Meta["pagination"])
	}
}

// TestOutputFileForAPerson: a person gets the answer's text rendering in
// the file, and on stdout the description of the write as text; a failure
// leaves no file and goes to stderr.
func TestOutputFileForAPerson(t *testing.T) {
	plain, wantFile, _ := newOutput(envelope.Settings{Mode: humanMode()})
	listResult(plain)
	plain.Finish(fixedMeta(), nil)

	path := filepath.Join(t.TempDir(), "answer.txt")
	out, stdout, stderr := newOutput(envelope.Settings{Mode: humanMode(), OutputFile: path})
	listResult(out)
	if fail := out.Finish(fixedMeta(), nil); fail != nil {
		t.Fatalf("Finish reported %v", fail)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantFile.String(), string(file)); diff != "" {
		t.Errorf("file differs from what stdout would hold (-stdout +file):\n%s", diff)
	}
	// The description of the write, rendered as any result is.
	shown, wantStdout, _ := newOutput(envelope.Settings{Mode: humanMode()})
	shown.Result(envelope.Written{Path: path, Bytes: len(file), ContentType: "text/plain"})
	shown.Finish(fixedMeta(), nil)
	if diff := cmp.Diff(wantStdout.String(), stdout.String()); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	if json.Valid(stdout.Bytes()) || !strings.Contains(stdout.String(), path) {
		t.Errorf("stdout = %q, want text naming %s", stdout, path)
	}
	if want := "WARNING [STALE_CACHE]: the cache is 2 days old. Next: run 'tool sync'\n"; stderr.String() != want {
		t.Errorf("stderr = %q, want the warning once: %q", stderr, want)
	}

	t.Run("failure", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "answer.txt")
		out, stdout, stderr := newOutput(envelope.Settings{Mode: humanMode(), OutputFile: path})
		listResult(out)
		out.Finish(fixedMeta(), envelope.Errorf(exitcode.NotFound, "SPACE_NOT_FOUND", "space s9 does not exist"))
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a failed run left a file (stat: %v)", err)
		}
		if stdout.Len() != 0 || !strings.Contains(stderr.String(), "ERROR [SPACE_NOT_FOUND]") {
			t.Errorf("stdout %q, stderr %q; want nothing, then the error", stdout, stderr)
		}
	})
	t.Run("failure with a payload", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "answer.txt")
		out, stdout, stderr := newOutput(envelope.Settings{Mode: humanMode(), OutputFile: path})
		out.RenderText(func(w io.Writer) error { _, err := io.WriteString(w, "the report\n"); return err })
		out.Result(map[string]int{"found": 2})
		out.Finish(fixedMeta(), envelope.Errorf(80, "NONCONFORMANT", "found problems").WithResult())
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a failed run left a file (stat: %v)", err)
		}
		if stdout.String() != "the report\n" || !strings.Contains(stderr.String(), "NONCONFORMANT") {
			t.Errorf("stdout %q, stderr %q; want the report, then the error, as without --output", stdout, stderr)
		}
	})
	t.Run("rendering fails", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "answer.txt")
		out, stdout, stderr := newOutput(envelope.Settings{Mode: humanMode(), OutputFile: path})
		out.RenderText(func(io.Writer) error { return errors.New("no view") })
		out.Result(map[string]int{"n": 1})
		got := out.Finish(fixedMeta(), nil)
		if got == nil || envelope.ExitCode(got) != 1 {
			t.Errorf("Finish = %v, want a failure", got)
		}
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a failed run left a file (stat: %v)", err)
		}
		if stdout.Len() != 0 || strings.Count(stderr.String(), "ERROR ") != 1 || !strings.Contains(stderr.String(), "no view") {
			t.Errorf("stdout %q, stderr %q; want nothing, then the error once", stdout, stderr)
		}
	})
}
