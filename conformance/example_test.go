//go:build unix

package conformance_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/duet-cli/duet/conformance"
)

// Any binary can be checked: /bin/false answers nothing, not even --help,
// so nothing is discovered; help and version fail, and since no failure of
// it names a made-up word, what it does with bad input is not judged.
func ExampleCheck() {
	r, err := conformance.Check(context.Background(), conformance.Target{Path: "/bin/false"}, conformance.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.OK(), r.Discovery, r.Failed()[:3])
	// Output: false none [F-048 F-068 O-041]
}

// A profile directs the spec's own kit at a command: here GNU true(1),
// which exits 0 and prints nothing, but its --help on stdout. It never
// hangs and colours nothing, but answers no envelope, so Level 1 fails;
// the checks the profile gives no probe for are skipped.
func ExampleRunProfile() {
	dir, err := os.MkdirTemp("", "profile")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "true.json")
	profile := `{"schema_version": "1.0", "tool": "true", "command": ["true"], "timeout_seconds": 5,
		"probes": [{"name": "run", "argv": [], "kind": "read"}]}`
	if err := os.WriteFile(path, []byte(profile), 0o644); err != nil {
		panic(err)
	}
	p, err := conformance.LoadProfile(path)
	if err != nil {
		panic(err)
	}
	res := conformance.RunProfile(context.Background(), p)
	fmt.Println(res.Levels.Level1, res.Summary)
	for _, c := range res.Checks {
		if c.Status == conformance.CheckFail {
			fmt.Println(c.ID, c.Failures[0].Detail)
		}
	}
	// Output:
	// fail {5 2 7}
	// json_envelope stdout is empty
	// help_off_stdout --help wrote prose to stdout in a non-TTY; route it to stderr
}
