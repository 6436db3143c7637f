package argsfile_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duet-cli/duet/internal/argsfile"
)

func TestRoundTrip(t *testing.T) {
	long := strings.Repeat("a prompt longer than any argument may be. ", 8000) // 336 KB
	want := []string{"run", "spawn", "--prompt", long, "--", "-x"}
	path, env, err := argsfile.Write(t.TempDir(), want)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the file is %v (%v), want mode 0600", fi.Mode(), err)
	}
	t.Setenv(argsfile.Env, strings.TrimPrefix(env, argsfile.Env+"="))
	got, ok, err := argsfile.Take()
	if err != nil || !ok {
		t.Fatalf("Take = %v, %v", ok, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the file is still there: %v", err)
	}
	if _, set := os.LookupEnv(argsfile.Env); set {
		t.Errorf("%s is still set: a child of the child would take it too", argsfile.Env)
	}
}

func TestTakeRefuses(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		content string
		mode    os.FileMode
	}{
		"readable by others": {`["list"]`, 0o644},
		"not JSON":           {`list --all`, 0o600},
		"null":               {`null`, 0o600},
	} {
		path := dir + "/" + strings.ReplaceAll(name, " ", "-")
		if err := os.WriteFile(path, []byte(tc.content), tc.mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(path, tc.mode)
		t.Setenv(argsfile.Env, path)
		if args, ok, err := argsfile.Take(); !ok || err == nil {
			t.Errorf("%s: Take = %q, %v, %v; want an error", name, args, ok, err)
		}
	}
	t.Setenv(argsfile.Env, dir+"/missing")
	if _, ok, err := argsfile.Take(); !ok || err == nil {
		t.Errorf("a missing file: ok %v, err %v; want an error", ok, err)
	}
}

func ExampleTake() {
	_, env, _ := argsfile.Write("", []string{"add", "a title with spaces"})
	os.Setenv(argsfile.Env, strings.TrimPrefix(env, argsfile.Env+"="))
	args, ok, err := argsfile.Take()
	fmt.Println(args, ok, err)
	// Output: [add a title with spaces] true <nil>
}
