package chat

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A continuation's settings are the chat's first ones with the flags given
// on top, through sessions.jsonl and back.
func TestParamsOver(t *testing.T) {
	tests := []struct {
		name           string
		base, explicit Params
		want           Params
	}{
		{"kept", Params{AppendSystemPrompt: "be brief", Sandbox: "read-only"}, Params{}, Params{AppendSystemPrompt: "be brief", Sandbox: "read-only"}},
		{"overridden", Params{AppendSystemPrompt: "be brief", Sandbox: "read-only"}, Params{Sandbox: "full-access"}, Params{AppendSystemPrompt: "be brief", Sandbox: "full-access"}},
		{"added", Params{}, Params{AppendSystemPrompt: "a=b, with = signs"}, Params{AppendSystemPrompt: "a=b, with = signs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stored := DecodeParams(tt.base.Encode())
			if diff := cmp.Diff(tt.want, tt.explicit.Over(stored)); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
		})
	}
	if got := DecodeParams([]string{"--unknown=x", "--sandbox=read-only"}); got != (Params{Sandbox: "read-only"}) {
		t.Errorf("an unknown flag is not skipped: %+v", got)
	}
}

func TestChatAlias(t *testing.T) {
	for s, want := range map[string]bool{"c1": true, "c12": true, "c": false, "cx": false, "5f0c6a9e-2b7d": false, "ses_abc": false} {
		if chatAlias(s) != want {
			t.Errorf("chatAlias(%q) = %v", s, !want)
		}
	}
}
