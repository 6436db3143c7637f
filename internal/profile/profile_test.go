package profile_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/internal/profile"
)

func TestPath(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"override", map[string]string{"MY_TOOL_CONFIG_DIR": "/etc/mt", "HOME": "/home/x"}, "/etc/mt/profiles.json"},
		{"XDG", map[string]string{"XDG_CONFIG_HOME": "/xdg", "HOME": "/home/x"}, "/xdg/my-tool/profiles.json"},
		{"home", map[string]string{"HOME": "/home/x"}, "/home/x/.config/my-tool/profiles.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := profile.Path("my-tool", func(k string) string { return tt.env[k] })
			if err != nil || got != tt.want {
				t.Errorf("Path() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if got := profile.EnvName("my-tool"); got != "MY_TOOL_PROFILE" {
		t.Errorf("EnvName = %q", got)
	}
}

func TestValidName(t *testing.T) {
	for _, name := range []string{"prod", "us-east.1", "A_b"} {
		if err := profile.ValidName(name); err != nil {
			t.Errorf("ValidName(%q) = %v", name, err)
		}
	}
	for _, name := range []string{"", ".hidden", "-x", "a/b", "a b", "../up", string(make([]byte, 65))} {
		if profile.ValidName(name) == nil {
			t.Errorf("ValidName(%q) accepted it", name)
		}
	}
}

func TestUpdateAndLoad(t *testing.T) {
	s := &profile.Store{Path: filepath.Join(t.TempDir(), "cfg", "profiles.json")}
	f, err := s.Load()
	if err != nil || len(f.Profiles) != 0 {
		t.Fatalf("Load of a missing file = %+v, %v; want no profiles", f, err)
	}
	save := func(name, flag, value string) {
		t.Helper()
		err := s.Update(context.Background(), func(f *profile.File) error {
			f.Profiles[name] = profile.Profile{Flags: map[string]string{flag: value}}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	save("prod", "region", "us-east-1")
	save("dev", "region", "eu-west-1")
	if err := s.Update(context.Background(), func(f *profile.File) error { f.Default = "dev"; return nil }); err != nil {
		t.Fatal(err)
	}
	f, err = s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"dev", "prod"}, f.Names()); diff != "" || f.Default != "dev" || f.SchemaVersion != profile.SchemaVersion {
		t.Errorf("names (-want +got):\n%s default %q version %d", diff, f.Default, f.SchemaVersion)
	}
	info, err := os.Stat(s.Path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, %v; want 0600", info.Mode().Perm(), err)
	}
	// A failing change writes nothing.
	before, _ := os.ReadFile(s.Path)
	boom := errors.New("boom")
	if err := s.Update(context.Background(), func(f *profile.File) error { delete(f.Profiles, "prod"); return boom }); !errors.Is(err, boom) {
		t.Errorf("Update = %v, want the change's error", err)
	}
	if after, _ := os.ReadFile(s.Path); string(after) != string(before) {
		t.Errorf("a failed change rewrote the file")
	}
}

func TestCorrupt(t *testing.T) {
	tests := []struct{ name, content string }{
		{"not JSON", `{"schema_version": 1, "profiles": {`},
		{"trailing data", `{"schema_version": 1, "profiles": {}} {}`},
		{"newer version", `{"schema_version": 2, "profiles": {}}`},
		{"no version", `{"profiles": {}}`},
		{"dangling default", `{"schema_version": 1, "default": "gone", "profiles": {}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &profile.Store{Path: filepath.Join(t.TempDir(), "profiles.json")}
			if err := os.WriteFile(s.Path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := s.Load()
			var corrupt *profile.CorruptError
			if !errors.As(err, &corrupt) || corrupt.Path != s.Path {
				t.Fatalf("Load() = %v, want a CorruptError naming the file", err)
			}
			err = s.Update(context.Background(), func(f *profile.File) error {
				f.Profiles["new"] = profile.Profile{}
				return nil
			})
			if !errors.As(err, &corrupt) {
				t.Errorf("Update() = %v, want the CorruptError", err)
			}
			if got, _ := os.ReadFile(s.Path); string(got) != tt.content {
				t.Errorf("the corrupt file was changed to %q", got)
			}
		})
	}
}

// TestConcurrentSaves runs 16 processes (this test binary, re-executed) that
// each save a profile of their own into one file at the same time: none is
// lost.
func TestConcurrentSaves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "profiles.json")
	const n = 16
	cmds := make([]*exec.Cmd, n)
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^TestHelperSave$")
		cmds[i].Env = append(os.Environ(), "PROFILE_HELPER_PATH="+path, "PROFILE_HELPER_NAME=p"+strconv.Itoa(i))
	}
	for _, c := range cmds {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("process %d: %v", i, err)
		}
	}
	f, err := (&profile.Store{Path: path}).Load()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range n {
		want = append(want, "p"+strconv.Itoa(i))
	}
	if got := f.Names(); len(got) != n {
		t.Errorf("profiles saved: %v, want all of %v", got, want)
	}
	for _, name := range want {
		if f.Profiles[name].Flags["who"] != name {
			t.Errorf("profile %s = %+v", name, f.Profiles[name])
		}
	}
}

// TestHelperSave is one process of TestConcurrentSaves; run alone it does
// nothing.
func TestHelperSave(t *testing.T) {
	path, name := os.Getenv("PROFILE_HELPER_PATH"), os.Getenv("PROFILE_HELPER_NAME")
	if path == "" {
		t.Skip("a helper of TestConcurrentSaves")
	}
	err := (&profile.Store{Path: path}).Update(context.Background(), func(f *profile.File) error {
		f.Profiles[name] = profile.Profile{Flags: map[string]string{"who": name}}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
