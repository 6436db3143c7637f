package describe_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/internal/describe"
	"github.com/duet-cli/duet/schema"
)

// TestSpecEnvHomes: every variable has one home (REQ-F-073, ManifestResponse
// 3.13): a login's token is in its token_env_vars and not its
// secret_env_vars; the lifecycle's defaults of --format (with the
// deprecated <TOOL>_OUTPUT after <TOOL>_FORMAT), --instance-id, --profile
// and --no-update-check are in those flags' env_vars; root env_vars holds
// Duet's other variables and the app's own (WithEnvVar), each described,
// prefixed or right after its prefixed name, and none of them anywhere else.
func TestSpecEnvHomes(t *testing.T) {
	root := &schema.Command{Name: "gen", Usage: "A generated tool", Commands: []*schema.Command{{
		Name: "login", Usage: "Log in", Runnable: true,
		Meta: schema.Meta{Danger: schema.Mutating, NoArgs: true, Scopes: []string{},
			Auth: &schema.Auth{Headless: false, TokenEnv: []string{"GEN_TOKEN"}}},
	}}}
	if err := adapters.Prepare(root); err != nil {
		t.Fatal(err)
	}
	m := manifest(t, root).WithAgents(describe.AgentsInfo{Env: []describe.EnvVar{
		{Name: "GEN_LEDGER", Type: "path", Description: "the ledger"},
		{Name: "GEN_TOKEN", Type: "string", Description: "a secret, homed elsewhere"},
	}})
	spec := m.Spec()

	login := spec.Commands["login"]
	if diff := cmp.Diff([]string{"GEN_TOKEN"}, login.TokenEnvVars); diff != "" || len(login.SecretEnvVars) != 0 {
		t.Errorf("login: token_env_vars (-want +got):\n%s\nsecret_env_vars %v, want none", diff, login.SecretEnvVars)
	}
	for flag, want := range map[string][]describe.SpecEnvVar{
		"format":          {{Name: "GEN_FORMAT"}}, // GEN_OUTPUT only with WithLegacyOutput (TestSpecLegacyOutputEnv)
		"debug":           {{Name: "GEN_DEBUG"}},
		"instance-id":     {{Name: "GEN_INSTANCE_ID"}},
		"no-update-check": {{Name: "GEN_NO_UPDATE"}},
	} {
		if diff := cmp.Diff(want, spec.Flags[flag].EnvVars); diff != "" {
			t.Errorf("--%s env_vars (-want +got):\n%s", flag, diff)
		}
	}

	var names []string
	for i, v := range spec.EnvVars {
		names = append(names, v.Name)
		if v.Description == "" {
			t.Errorf("root env_vars: %s has no description", v.Name)
		}
		if len(v.Name) < 4 || v.Name[:4] != "GEN_" {
			if i == 0 || spec.EnvVars[i-1].Name != "GEN_TRACE_ID" || v.Name != "TOOL_TRACE_ID" {
				t.Errorf("root env_vars: %s lacks the prefix and follows no prefixed name of its setting", v.Name)
			}
		}
	}
	for _, want := range []string{"GEN_MAX_OUTPUT_BYTES", "GEN_CONFIG_DIR", "GEN_AUDIT_LOG", "GEN_SESSION_ID", "GEN_LEDGER"} {
		if !slices.Contains(names, want) {
			t.Errorf("root env_vars %v lacks %s", names, want)
		}
	}
	for _, other := range []string{"GEN_TOKEN", "GEN_FORMAT", "GEN_DEBUG", "GEN_OUTPUT"} {
		if slices.Contains(names, other) {
			t.Errorf("root env_vars %v repeats %s, which has another home", names, other)
		}
	}
}

// TestSpecLegacyOutputEnv: <TOOL>_OUTPUT is --format's deprecated default
// only in an app that keeps Duet's earlier --output json
// (WithLegacyOutput): only there does the manifest list it.
func TestSpecLegacyOutputEnv(t *testing.T) {
	root := &schema.Command{Name: "gen", Usage: "A generated tool", Commands: []*schema.Command{{
		Name: "list", Usage: "List", Runnable: true, Meta: schema.Meta{Danger: schema.Safe, NoArgs: true},
	}}}
	if err := adapters.Prepare(root); err != nil {
		t.Fatal(err)
	}
	for legacy, want := range map[bool][]describe.SpecEnvVar{
		false: {{Name: "GEN_FORMAT"}},
		true:  {{Name: "GEN_FORMAT"}, {Name: "GEN_OUTPUT", Deprecated: true}},
	} {
		spec := manifest(t, root).WithAgents(describe.AgentsInfo{LegacyOutput: legacy}).Spec()
		if diff := cmp.Diff(want, spec.Flags["format"].EnvVars); diff != "" {
			t.Errorf("legacy output %v: --format env_vars (-want +got):\n%s", legacy, diff)
		}
	}
}
