package describe_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/internal/describe"
	"github.com/duet-cli/duet/schema"
)

// TestSpecSecretNotInEnvVars: a secret is never a flag's value (REQ-C-016,
// ManifestResponse 3.4): the variable a sensitive flag reads is listed in
// the command's secret_env_vars and in no flag's env_vars, while another
// flag's variable stays in its env_vars.
func TestSpecSecretNotInEnvVars(t *testing.T) {
	root := &schema.Command{Name: "gen", Usage: "A generated tool", Commands: []*schema.Command{{
		Name: "sync", Usage: "Sync", Runnable: true,
		Flags: []schema.Flag{
			{Name: "api-key", Type: schema.String, Usage: "the API key", Env: []string{"GEN_API_KEY"}, Sensitive: true},
			{Name: "region", Type: schema.String, Usage: "the region", Env: []string{"GEN_REGION"}},
		},
		Meta: schema.Meta{Danger: schema.Safe, NoArgs: true},
	}}}
	sync := manifest(t, root).Spec().Commands["sync"]
	if got := sync.Flags["api-key"].EnvVars; got != nil {
		t.Errorf("--api-key's env_vars = %v, want none", got)
	}
	if diff := cmp.Diff([]describe.SpecEnvVar{{Name: "GEN_REGION"}}, sync.Flags["region"].EnvVars); diff != "" {
		t.Errorf("--region's env_vars (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"GEN_API_KEY"}, sync.SecretEnvVars); diff != "" {
		t.Errorf("secret_env_vars (-want +got):\n%s", diff)
	}
}
