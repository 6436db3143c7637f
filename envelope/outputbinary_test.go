package envelope_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/envelope/filedigest"
	"github.com/duet-cli/duet/exitcode"
)

// pngBytes is a binary result: not valid UTF-8, with a NUL and a newline.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestOutputFileBinary (REQ-O-001, binary results): a result that is a
// single binary value is written to --output as its raw bytes, whatever
// --format is, and data describes the write as {path, bytes,
// content_type, sha256}, content_type only when the command declared one.
func TestOutputFileBinary(t *testing.T) {
	tests := []struct {
		name        string
		mode        envelope.Mode
		result      any
		contentType string
	}{
		{"Binary json", agentMode(envelope.JSON), envelope.Binary{Bytes: pngBytes, ContentType: "image/png"}, "image/png"},
		{"*Binary json", agentMode(envelope.JSON), &envelope.Binary{Bytes: pngBytes, ContentType: "image/png"}, "image/png"},
		{"[]byte json", agentMode(envelope.JSON), pngBytes, ""},
		{"Binary without content type", agentMode(envelope.JSON), envelope.Binary{Bytes: pngBytes}, ""},
		{"Binary tsv", agentMode(envelope.TSV), envelope.Binary{Bytes: pngBytes, ContentType: "image/png"}, "image/png"},
		{"Binary jsonl", agentMode(envelope.JSONL), envelope.Binary{Bytes: pngBytes, ContentType: "image/png"}, "image/png"},
		{"empty", agentMode(envelope.JSON), envelope.Binary{ContentType: "image/png"}, "image/png"},
		{"text at a person", humanMode(), envelope.Binary{Bytes: pngBytes, ContentType: "image/png"}, "image/png"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out.png")
			out, stdout, _ := newOutput(envelope.Settings{Mode: tt.mode, OutputFile: path, Digest: filedigest.SHA256})
			out.Result(tt.result)
			if fail := out.Finish(fixedMeta(), nil); fail != nil {
				t.Fatalf("Finish reported %v", fail)
			}
			file, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("the bytes were not written: %v", err)
			}
			var raw []byte
			switch v := tt.result.(type) {
			case envelope.Binary:
				raw = v.Bytes
			case *envelope.Binary:
				raw = v.Bytes
			case []byte:
				raw = v
			}
			if !bytes.Equal(file, raw) {
				t.Errorf("file = %q, want the raw bytes %q", file, raw)
			}
			want := envelope.Written{Path: path, Bytes: len(file), ContentType: tt.contentType, SHA256: sha256Hex(file)}
			if !tt.mode.Agent {
				// The description of the write, rendered as any result is.
				shown, wantStdout, _ := newOutput(envelope.Settings{Mode: humanMode()})
				shown.Result(want)
				shown.Finish(fixedMeta(), nil)
				if diff := cmp.Diff(wantStdout.String(), stdout.String()); diff != "" {
					t.Errorf("stdout (-want +got):\n%s", diff)
				}
				return
			}
			env := decodeOne(t, stdout.Bytes())
			if !env.OK || env.Error != nil || env.Meta["exit_code"] != float64(0) {
				t.Errorf("stdout envelope ok=%v error=%v exit_code=%v, want a success: %s", env.OK, env.Error, env.Meta["exit_code"], stdout)
			}
			if diff := cmp.Diff(want, decodeWritten(t, env.Data)); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
			var keys map[string]any
			if err := json.Unmarshal(env.Data, &keys); err != nil {
				t.Fatal(err)
			}
			if _, ok := keys["content_type"]; ok != (tt.contentType != "") {
				t.Errorf("data = %s: content_type present only when declared", env.Data)
			}
		})
	}
}

// TestOutputFileBinaryNoDigest: without Settings.Digest the write is
// described without sha256.
func TestOutputFileBinaryNoDigest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.png")
	out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), OutputFile: path})
	out.Result(envelope.Binary{Bytes: pngBytes, ContentType: "image/png"})
	if fail := out.Finish(fixedMeta(), nil); fail != nil {
		t.Fatalf("Finish reported %v", fail)
	}
	want := envelope.Written{Path: path, Bytes: len(pngBytes), ContentType: "image/png"}
	if diff := cmp.Diff(want, decodeWritten(t, decodeOne(t, stdout.Bytes()).Data)); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
}

// TestOutputFileBinaryOnFailure: a failed run of a command with a binary
// result leaves no file, and stdout carries the error envelope it would
// without --output.
func TestOutputFileBinaryOnFailure(t *testing.T) {
	fail := func() *envelope.Error {
		return envelope.Errorf(exitcode.NotFound, "REPORT_NOT_FOUND", "report r9 does not exist")
	}
	plain, want, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
	plain.Result(envelope.Binary{Bytes: pngBytes, ContentType: "image/png"})
	plain.Finish(fixedMeta(), fail())

	path := filepath.Join(t.TempDir(), "out.png")
	out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), OutputFile: path})
	out.Result(envelope.Binary{Bytes: pngBytes, ContentType: "image/png"})
	if got := out.Finish(fixedMeta(), fail()); got == nil || envelope.ExitCode(got) != int(exitcode.NotFound) {
		t.Errorf("Finish = %v, want the failure", got)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a failed run left a file at %s (stat: %v)", path, err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 0 {
		t.Errorf("a failed run left %v in the directory", entries)
	}
	if diff := cmp.Diff(want.String(), stdout.String()); diff != "" {
		t.Errorf("stdout differs from the error envelope without --output (-want +got):\n%s", diff)
	}
}

// TestBinaryWithoutOutputFile: without --output a binary result stays in
// the envelope, base64 in the wrapper (REQ-F-017).
func TestBinaryWithoutOutputFile(t *testing.T) {
	out, stdout, _ := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON)})
	out.Result(envelope.Binary{Bytes: pngBytes, ContentType: "image/png"})
	if fail := out.Finish(fixedMeta(), nil); fail != nil {
		t.Fatalf("Finish reported %v", fail)
	}
	var got envelope.Binary
	if err := got.UnmarshalJSON(decodeOne(t, stdout.Bytes()).Data); err != nil {
		t.Fatalf("data is not the binary wrapper: %v\n%s", err, stdout)
	}
	if diff := cmp.Diff(envelope.Binary{Bytes: pngBytes, ContentType: "image/png"}, got); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
}
