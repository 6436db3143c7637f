package envelope

import (
	"encoding/json"
	"strconv"

	"github.com/duet-cli/duet/internal/jsonw"
)

// Alternative is a flag that does, without a person, what a command would
// otherwise need one for: the text an editor would have asked for, say.
type Alternative struct {
	Flag        string `json:"flag"` // as typed: "--message"
	Description string `json:"description,omitempty"`
}

func appendAlternatives(b []byte, alts []Alternative) []byte {
	if len(alts) == 0 {
		return b
	}
	b = append(b, `,"alternatives":[`...)
	for i, a := range alts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"flag":`...)
		b = jsonw.String(b, a.Flag)
		b = optString(b, "description", a.Description)
		b = append(b, '}')
	}
	return append(b, ']')
}

// Background records a process the command started to outlive it (the CLI
// Agent Spec's C-010): the command's data, an object, gets background_pid
// and cleanup_command — the command that stops it — unless the command set
// them itself. A command that recorded no result answers with just these.
// The lifecycle calls it, after the command, for a command that declares
// schema.Meta.Background and started one; a command calls it to name the
// cleanup of this very process (with its id), and the first call stands.
func (o *Output) Background(pid int, cleanupCommand string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.background != nil {
		return
	}
	o.background = [][2]string{
		{"background_pid", strconv.Itoa(pid)},
		{"cleanup_command", string(jsonw.String(nil, cleanupCommand))},
	}
	if !o.hasResult && o.streamed == 0 {
		o.result, o.hasResult = map[string]any{}, true
	}
}

// backgroundData adds the members Background recorded to an object's
// data, those it does not have already.
func (o *Output) backgroundData(p payload) payload {
	if p.list || len(o.background) == 0 || len(p.one) < 2 || p.one[0] != '{' {
		return p
	}
	var have map[string]json.RawMessage
	if json.Unmarshal(p.one, &have) != nil {
		return p
	}
	b := []byte{'{'}
	for _, kv := range o.background {
		if _, ok := have[kv[0]]; ok {
			continue
		}
		b = append(jsonw.String(b, kv[0]), ':')
		b = append(b, kv[1]...)
		b = append(b, ',')
	}
	if len(b) == 1 {
		return p
	}
	if rest := p.one[1:]; len(have) > 0 {
		b = append(b, rest...)
	} else {
		b[len(b)-1] = '}'
	}
	p.one = b
	return p
}
