//go:build unix

package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/internal/speckit"
)

// TestKitAgrees runs the spec's own kit (conformance/run.py) and duet-check
// kit on the same profile of onething — a CLI not built on Duet — and of
// copies of it that each break one thing, and holds the two to the same
// verdicts, check for check (speckit.Agree). Which checks fail is held too,
// so that two checkers failing nothing, or everything, cannot agree by
// accident.
func TestKitAgrees(t *testing.T) {
	check, baseline := buildWith(t, "onething", "baseline")
	dir := filepath.Dir(check)
	tests := []struct {
		variant string
		failing []string
	}{
		{"baseline", nil},
		{"textonly", []string{"json_envelope"}},
		{"helpstdout", []string{"help_off_stdout"}},
		{"badflagok", []string{"invalid_input_exit_2"}},
		{"stdinhang", []string{"no_hang_stdin_open"}},
		{"crash", []string{"json_envelope"}},       // exit 1 is in the table
		{"prompt", []string{"no_hang_stdin_open"}}, // it waits for an answer
	}
	// Every copy is written before any check starts: a copy still open
	// for writing while another check forks cannot be run (ETXTBSY).
	raw, err := os.ReadFile(baseline)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests[1:] {
		if err := os.WriteFile(filepath.Join(dir, tt.variant), raw, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range tests {
		t.Run(tt.variant, func(t *testing.T) {
			t.Parallel()
			res := speckit.Agree(t, speckit.Profile{
				Tool:           tt.variant,
				Command:        []string{filepath.Join(dir, tt.variant)},
				TimeoutSeconds: 2,
				Probes: []speckit.Probe{
					{Name: "list", Argv: []string{"list"}, Kind: speckit.Read},
					{Name: "show", Argv: []string{"show", "n1"}, Kind: speckit.Read},
					{Name: "status", Argv: []string{"status"}, Kind: speckit.Read},
					{Name: "made-up flag", Argv: []string{"list", "--bogus"}, Kind: speckit.Invalid},
				},
			}, check)
			var failing []string
			for _, c := range res.Failed() {
				failing = append(failing, c.ID)
			}
			if diff := cmp.Diff(tt.failing, failing); diff != "" {
				t.Errorf("failing checks (-want +got):\n%s\n%s", diff, res.Failures())
			}
		})
	}
}

// TestKitRefusesProfiles: a profile the spec's kit would not run is
// refused the same way, exit 2 INVALID_PROFILE with the reason, and nothing
// runs.
func TestKitRefusesProfiles(t *testing.T) {
	check, target := buildWith(t, "onething", "baseline")
	dir := t.TempDir()
	probe := `{"name":"list","argv":["list"],"kind":"read"}`
	valid := func(command, probes string) string {
		return `{"schema_version":"1.0","tool":"t","command":[` + command + `],"timeout_seconds":5,"probes":[` + probes + `]}`
	}
	self, _ := json.Marshal(target)
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, profile, path, want string }{
		{name: "not JSON", profile: `{"schema_version":`, want: "profile is not valid JSON"},
		{name: "no probes", profile: `{"schema_version":"1.0","tool":"t","command":["x"],"timeout_seconds":5}`, want: "profile does not match conformance-profile.json"},
		{name: "timeout over 120", profile: `{"schema_version":"1.0","tool":"t","command":[` + string(self) + `],"timeout_seconds":121,"probes":[]}`, want: "profile does not match conformance-profile.json"},
		{name: "destructive without a dry run", profile: valid(string(self), `{"name":"rm","argv":["rm"],"kind":"destructive"}`), want: "profile does not match conformance-profile.json"},
		{name: "signal on a read probe", profile: valid(string(self), `{"name":"l","argv":["list"],"kind":"read","signal":"INT","after_lines":1}`), want: "profile does not match conformance-profile.json"},
		{name: "two probes of one name", profile: valid(string(self), probe+","+probe), want: "probe names must be unique"},
		{name: "no such program", profile: valid(`"./nowhere/tool"`, probe), want: "profile command does not exist"},
		{name: "not on PATH", profile: valid(`"duet-no-such-tool"`, probe), want: "profile command \"duet-no-such-tool\" is not on PATH"},
		{name: "no file", path: filepath.Join(dir, "absent.json"), want: "profile not found"},
		{name: "a FIFO", path: fifo, want: "profile not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path
			if path == "" {
				path = filepath.Join(dir, "profile.json")
				if err := os.WriteFile(path, []byte(tt.profile), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out, err := exec.Command(check, "kit", "--format", "json", path).Output()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Fatalf("duet-check kit: %v, want exit 2; stdout:\n%s", err, out)
			}
			var env struct {
				Data  any `json:"data"`
				Error struct {
					Code, Message string
				} `json:"error"`
			}
			if err := json.Unmarshal(out, &env); err != nil {
				t.Fatalf("not one envelope: %v\n%s", err, out)
			}
			if env.Error.Code != "INVALID_PROFILE" || !strings.HasPrefix(env.Error.Message, tt.want) || env.Data != nil {
				t.Errorf("error %s %q, data %v; want INVALID_PROFILE starting %q and no data", env.Error.Code, env.Error.Message, env.Data, tt.want)
			}
			if tt.path == "" {
				if _, err := speckit.RunFile(t, path); !errors.As(err, new(*speckit.KitError)) {
					t.Errorf("the spec's kit on the same profile: %v, want its refusal", err)
				}
			}
		})
	}
}
