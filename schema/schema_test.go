package schema

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestFlagInheritanceAndShadowing(t *testing.T) {
	root := &Command{Name: "tool", Flags: []Flag{
		{Name: "config", Short: "c", Persistent: true, Usage: "root"},
		{Name: "verbose", Persistent: true, Usage: "root"},
		{Name: "local", Usage: "root only"},
	}}
	group := &Command{Name: "group", Parent: root, Flags: []Flag{{Name: "config", Short: "C", Persistent: true, Usage: "group"}}}
	leaf := &Command{Name: "leaf", Parent: group, Flags: []Flag{{Name: "verbose", Aliases: []string{"loud"}, Usage: "leaf"}}}

	var got []string
	for f := range leaf.Accepted() {
		got = append(got, f.Name+"/"+f.Usage)
	}
	if diff := cmp.Diff([]string{"verbose/leaf", "config/group"}, got); diff != "" {
		t.Errorf("leaf.Accepted() (-want +got):\n%s", diff)
	}

	tests := []struct {
		cmd       *Command
		name, who string // who is the Usage of the flag found, "" for none
	}{
		{leaf, "verbose", "leaf"},
		{leaf, "loud", "leaf"},
		{leaf, "config", "group"},
		{leaf, "C", "group"},
		{leaf, "c", ""}, // root's --config is shadowed, and its short with it
		{leaf, "local", ""},
		{leaf, "", ""},
		{group, "verbose", "root"},
		{group, "c", ""},
		{root, "local", "root only"},
		{root, "c", "root"},
	}
	for _, tt := range tests {
		f := tt.cmd.Flag(tt.name)
		who := ""
		if f != nil {
			who = f.Usage
		}
		if who != tt.who {
			t.Errorf("%s.Flag(%q) found %q, want %q", tt.cmd.Name, tt.name, who, tt.who)
		}
	}
}

// TestDocumentOutputError checks that a declared output schema that cannot be
// built fails the document with an error naming the command, and that a
// command without one, or with a nil hand-written one, has no output schema.
func TestDocumentOutputError(t *testing.T) {
	root := &Command{Name: "tool"}
	bad := &Command{Name: "watch", Path: []string{"watch"}, Parent: root, Meta: Meta{Output: Of[chan int]()}}
	none := &Command{Name: "none", Path: []string{"none"}, Parent: root, Meta: Meta{Output: Schema(nil)}}
	root.Commands = []*Command{bad, none}

	for _, doc := range []func(bool) (Doc, error){bad.Document, bad.Entry} {
		_, err := doc(true)
		if err == nil || !strings.Contains(err.Error(), `command "watch": output schema:`) {
			t.Errorf("document of watch: error %v, want one naming the command", err)
		}
	}
	for _, c := range []*Command{root, none} {
		d, err := c.Document(true)
		if err != nil || d.OutputSchema != nil {
			t.Errorf("%s: Document() = output %v, error %v; want no output schema", c.Name, d.OutputSchema, err)
		}
	}
}

// TestTimeoutMaxLifetime: a command that declares Interruption.MaxLifetime
// has it as its time limit, over its Timeout and the default; one that
// declares none keeps them (REQ-F-011, REQ-C-033).
func TestTimeoutMaxLifetime(t *testing.T) {
	for _, tt := range []struct {
		name string
		meta Meta
		want time.Duration
	}{
		{"neither", Meta{}, DefaultTimeout},
		{"Timeout", Meta{Timeout: time.Minute}, time.Minute},
		{"NoTimeout", Meta{Timeout: NoTimeout}, 0},
		{"interruption without MaxLifetime", Meta{Timeout: time.Minute, Interruption: &Interruption{Detach: true}}, time.Minute},
		{"MaxLifetime", Meta{Interruption: &Interruption{Detach: true, MaxLifetime: time.Hour}}, time.Hour},
		{"MaxLifetime over Timeout", Meta{Timeout: NoTimeout, Interruption: &Interruption{Resume: true, MaxLifetime: time.Hour}}, time.Hour},
	} {
		if got := (&Command{Meta: tt.meta}).Timeout(); got != tt.want {
			t.Errorf("%s: Timeout() = %s, want %s", tt.name, got, tt.want)
		}
	}
}
