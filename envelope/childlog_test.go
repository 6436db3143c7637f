package envelope_test

import (
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/envelope"
)

// TestChildLog shows where a wrapped program's log goes (REQ-F-038,
// REQ-O-008): a command that declares it streams it to stderr whoever
// reads, unless --quiet; one that does not shows it only to a person
// watching stderr. Stdout holds only the answer either way.
func TestChildLog(t *testing.T) {
	const log = "PLAY [web]\nok: [host]\n"
	tests := []struct {
		name string
		s    envelope.Settings
		want string
	}{
		{"declared, agent", envelope.Settings{Mode: agentMode(envelope.JSON), Hush: true, ChildLog: true}, log},
		{"declared, script in CI", envelope.Settings{Mode: humanMode(), Hush: true, ChildLog: true}, log},
		{"declared, agent --verbose", envelope.Settings{Mode: agentMode(envelope.JSON), Verbose: true, ChildLog: true}, log},
		{"declared, agent --debug", envelope.Settings{Mode: agentMode(envelope.JSON), Debug: true, ChildLog: true}, log},
		{"declared, --quiet", envelope.Settings{Mode: agentMode(envelope.JSON), Quiet: true, Hush: true, ChildLog: true}, ""},
		{"declared, person --quiet", envelope.Settings{Mode: humanMode(), Quiet: true, ChildLog: true}, ""},
		{"undeclared, agent", envelope.Settings{Mode: agentMode(envelope.JSON), Hush: true}, ""},
		{"undeclared, agent --verbose", envelope.Settings{Mode: agentMode(envelope.JSON), Verbose: true}, ""},
		{"undeclared, nobody watches", envelope.Settings{Mode: humanMode(), Hush: true}, ""},
		{"undeclared, person", envelope.Settings{Mode: humanMode()}, log},
		{"undeclared, person --quiet", envelope.Settings{Mode: humanMode(), Quiet: true}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stdout, stderr := newOutput(tt.s)
			w := out.ChildLog()
			io.WriteString(w, log)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, stderr.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout before the answer: %q", stdout)
			}
		})
	}
}

// TestChildLogLines shows that the log reaches stderr in whole lines: a
// line written in pieces waits for its end, an unfinished last line is
// written when the command finishes, secrets are redacted and escape
// sequences removed off a terminal.
func TestChildLogLines(t *testing.T) {
	out, stdout, stderr := newOutput(envelope.Settings{Mode: agentMode(envelope.JSON), Hush: true, ChildLog: true, Secrets: []string{"hunter2"}})
	w := out.ChildLog()
	io.WriteString(w, "TASK [dep")
	if stderr.Len() != 0 {
		t.Fatalf("half a line written: %q", stderr)
	}
	io.WriteString(w, "loy]\n\x1b[32mok\x1b[0m: token=hunter2\nchanged=")
	if diff := cmp.Diff("TASK [deploy]\nok: token=[REDACTED]\n", stderr.String()); diff != "" {
		t.Errorf("after two writes (-want +got):\n%s", diff)
	}
	io.WriteString(w, "1")
	out.Finish(fixedMeta(), nil) // the author forgot Close
	if diff := cmp.Diff("TASK [deploy]\nok: token=[REDACTED]\nchanged=1\n", stderr.String()); diff != "" {
		t.Errorf("after the answer (-want +got):\n%s", diff)
	}
	if got := decodeOne(t, stdout.Bytes()); !got.OK {
		t.Errorf("the answer: %+v", got)
	}
}
