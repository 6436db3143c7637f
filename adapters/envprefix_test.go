package adapters_test

import (
	"strings"
	"testing"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/schema"
)

// TestEnvPrefixStrict: a spec-strict app's ported command may read a name
// without the tool's prefix only after the prefixed name of the same
// setting (REQ-F-073): alone or first it is refused at registration, naming
// the flag and the variable. Behind the prefixed name, a universal
// exception, a sensitive flag's secret, an unported command and an app
// that is not spec-strict are accepted, so adopting Duet breaks no app.
func TestEnvPrefixStrict(t *testing.T) {
	for _, tt := range []struct {
		name      string
		env       []string
		sensitive bool
		unported  bool
		strict    bool
		says      string // "" when Prepare succeeds
	}{
		{name: "alone", env: []string{"AWS_REGION"}, strict: true, says: `command "deploy": flag --region reads AWS_REGION, which lacks the tool's prefix TOOL_`},
		{name: "first", env: []string{"CLOUDFALL_REGION", "TOOL_REGION"}, strict: true, says: `flag --region reads CLOUDFALL_REGION`},
		{name: "after the prefixed name", env: []string{"TOOL_REGION", "AWS_REGION"}, strict: true},
		{name: "a universal exception", env: []string{"HTTPS_PROXY"}, strict: true},
		{name: "a secret", env: []string{"GITHUB_TOKEN"}, sensitive: true, strict: true},
		{name: "an unported command", env: []string{"AWS_REGION"}, unported: true, strict: true},
		{name: "not spec-strict", env: []string{"AWS_REGION"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			deploy := &schema.Command{Name: "deploy", Usage: "Deploy", Runnable: true, Declared: !tt.unported,
				Flags: []schema.Flag{{Name: "region", Type: schema.String, Usage: "the region", Env: tt.env, Sensitive: tt.sensitive}},
				Meta:  schema.Meta{Danger: schema.Safe, NoArgs: true}}
			root := &schema.Command{Name: "tool", Usage: "A tool", Commands: []*schema.Command{deploy}}
			var opts []adapters.Option
			if tt.strict {
				opts = append(opts, adapters.WithSpecStrict())
			}
			err := adapters.Prepare(root, opts...)
			switch {
			case tt.says == "" && err != nil:
				t.Errorf("Prepare: %v, want it to accept %v", err, tt.env)
			case tt.says != "" && (err == nil || !strings.Contains(err.Error(), tt.says) || !strings.Contains(err.Error(), "REQ-F-073")):
				t.Errorf("Prepare: %v, want a refusal saying %q", err, tt.says)
			}
		})
	}
}
