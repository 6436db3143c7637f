package adapters

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/duet-cli/duet/internal/flagname"
)

// maxStrayWarning is how much of what a command printed beside its result
// a warning quotes.
const maxStrayWarning = 2000

// strayOutput deals with what a command wrote to stdout itself — a library
// announcing itself, a forgotten fmt.Println — while it answered through
// envelope.Output (the CLI Agent Spec's F-060): stdout holds the envelope
// alone. Prose becomes a THIRD_PARTY_STDOUT warning quoting it; a JSON
// document is dropped, lest an agent read two answers; under --debug or
// --verbose it is on stderr too, attributed. Printed before a failure, it
// goes to stderr, where it may explain the failure.
func (inv *invocation) strayOutput(printed []byte, total int64, failed bool) {
	quiet := inv.call.on(flagname.Quiet)
	if failed {
		if !quiet {
			io.WriteString(inv.cfg.stderr, string(printed))
		}
		return
	}
	if inv.call.on(flagname.Debug) || inv.call.on(flagname.Verbose) {
		for _, line := range strings.SplitAfter(string(printed), "\n") {
			if line != "" {
				io.WriteString(inv.cfg.stderr, "[stdout, not the answer] "+line)
			}
		}
		if !bytes.HasSuffix(printed, []byte("\n")) {
			io.WriteString(inv.cfg.stderr, "\n")
		}
	}
	doc := bytes.TrimSpace(printed)
	if len(doc) > 0 && (doc[0] == '{' || doc[0] == '[') && json.Valid(doc) {
		return // a second answer: dropped
	}
	text := strings.TrimSpace(string(printed))
	if len(text) > maxStrayWarning {
		cut := maxStrayWarning
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	next := "it is not part of the answer; the tool's author should answer through envelope.Output only"
	if int64(len(printed)) < total || len(text) < len(strings.TrimSpace(string(printed))) {
		next = fmt.Sprintf("%d bytes were printed in all; %s", total, next)
	}
	inv.out.Warn("THIRD_PARTY_STDOUT", text, next)
}
