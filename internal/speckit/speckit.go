// Package speckit runs the CLI Agent Spec's own conformance kit (v1.16,
// conformance/run.py) from Go tests, against binaries the tests build.
//
//	res := speckit.Run(t, speckit.Profile{
//		Tool:           "todo",
//		Command:        []string{bin},
//		TimeoutSeconds: 10,
//		Manifest:       []string{"manifest"},
//		Probes:         []speckit.Probe{{Name: "list", Argv: []string{"list"}, Kind: speckit.Read}},
//	})
//	if msg := res.Failures(); msg != "" {
//		t.Errorf("the spec's conformance kit fails:\n%s", msg)
//	}
//
// The kit is vendored in kit/ (see kit/PROVENANCE.md) and embedded, so Run
// works from any package and under -trimpath: it writes the kit and the
// profile to t.TempDir() and runs it with Python. The kit's run.py and
// README.md are the spec's, byte for byte; kit/schemas/manifest-response.json
// is Duet's transcription of ManifestResponse 3.21, because the spec's copy
// at hand is the older 2.x schema, which a correct 3.x manifest fails.
//
// The kit needs Python 3.11 or later with jsonschema (and its date-time
// format checker), referencing and rfc3339-validator: Debian's
// python3-jsonschema, python3-referencing and python3-rfc3339-validator.
// DUET_SPECKIT_PYTHON names the interpreter; otherwise Run tries python3 on
// PATH, then /usr/bin/python3. Without one, Run skips the test, unless
// DUET_REQUIRE_SPECKIT=1 (as CI sets it), when it fails it.
package speckit

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/duet-cli/duet/conformance"
)

// The environment variables Run reads.
const (
	// EnvPython names the Python interpreter that runs the kit.
	EnvPython = "DUET_SPECKIT_PYTHON"
	// EnvRequire set to 1 turns a missing interpreter from a skip into a
	// failure, so CI cannot pass by running nothing.
	EnvRequire = "DUET_REQUIRE_SPECKIT"
)

// debianPackages are what a Debian or Ubuntu machine installs to run the kit.
const debianPackages = "python3-jsonschema python3-referencing python3-rfc3339-validator"

//go:embed kit
var kit embed.FS

// The profile's types are package conformance's, which reads the same
// files (duet-check kit): a test writes what duet-check reads.
type (
	// Profile is a conformance profile (the kit's
	// schemas/conformance-profile.json, schema_version 1.0). A first word
	// of Command with a slash is made absolute against the test's working
	// directory; a bare name is looked up on PATH by the kit. A zero
	// TimeoutSeconds means 10.
	Profile       = conformance.Profile
	Probe         = conformance.Probe
	ProbeKind     = conformance.ProbeKind
	ArgumentOrder = conformance.ArgumentOrder
)

// The probe kinds.
const (
	Read        = conformance.ReadProbe
	Destructive = conformance.DestructiveProbe
	Invalid     = conformance.InvalidProbe
	Stream      = conformance.StreamProbe
)

// Run runs the kit on p and returns its result. Failing checks are the
// caller's to report (see [Result.Failures]); Run itself fails the test only
// when the kit cannot judge: the profile is invalid (the kit's exit 2, with
// its message), the kit crashes, or it outlives its time limit. It skips the
// test when no Python can run the kit, unless DUET_REQUIRE_SPECKIT=1.
func Run(t testing.TB, p Profile) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeLimit(t, p))
	defer cancel()
	_, res := runKit(ctx, t, p)
	return res
}

// runKit writes the kit and p's file, and runs the kit on it within ctx,
// failing t when the kit cannot judge.
func runKit(ctx context.Context, t testing.TB, p Profile) (prepared, Result) {
	t.Helper()
	k := prepare(t, p)
	res, err := run(ctx, k.python, k.root, k.profile)
	if err != nil {
		t.Fatalf("speckit: %v\nprofile: %s", err, k.doc)
	}
	return k, res
}

// prepared is the kit written out, and a profile for it.
type prepared struct {
	python, root, profile string
	doc                   []byte // the profile's text
}

// prepare writes the kit and p's file to a directory of t's.
func prepare(t testing.TB, p Profile) prepared {
	t.Helper()
	var k prepared
	k.python, k.root = kitDir(t)
	var err error
	if k.doc, err = document(p); err != nil {
		t.Fatalf("speckit: %v", err)
	}
	k.profile = filepath.Join(filepath.Dir(k.root), "profile.json")
	if err := os.WriteFile(k.profile, k.doc, 0o644); err != nil {
		t.Fatalf("speckit: write the profile: %v", err)
	}
	return k
}

// kitDir finds a Python for the kit and writes the kit to a directory of
// t's, returning the interpreter and the kit's root.
func kitDir(t testing.TB) (python, root string) {
	t.Helper()
	python = interpreter(t)
	root = filepath.Join(t.TempDir(), "kit")
	if err := extractKit(root); err != nil {
		t.Fatalf("speckit: write the conformance kit: %v", err)
	}
	return python, root
}

// extractKit writes the embedded kit to dir, which must not exist: run.py
// finds its schemas beside its own directory, so it needs a real tree.
func extractKit(dir string) error {
	sub, err := fs.Sub(kit, "kit")
	if err != nil {
		return err
	}
	return os.CopyFS(dir, sub)
}

// document is p as the JSON file the kit reads.
func document(p Profile) ([]byte, error) {
	if len(p.Command) == 0 {
		return nil, errors.New("profile has no command")
	}
	p.Command = append([]string(nil), p.Command...)
	if first := p.Command[0]; strings.Contains(first, "/") && !filepath.IsAbs(first) {
		// the kit would resolve it against the profile's directory, a temporary one
		abs, err := filepath.Abs(first)
		if err != nil {
			return nil, err
		}
		p.Command[0] = abs
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 10
	}
	// The schema wants arrays where Go would write null for a nil slice.
	p.Probes = append([]Probe{}, p.Probes...)
	for i := range p.Probes {
		if p.Probes[i].Argv == nil {
			p.Probes[i].Argv = []string{}
		}
	}
	if o := p.ArgumentOrder; o != nil {
		c := *o
		c.CommandPath = orEmpty(c.CommandPath)
		c.LocalArgs = orEmpty(c.LocalArgs)
		p.ArgumentOrder = &c
	}
	p.SchemaVersion = "1.0"
	return json.MarshalIndent(p, "", "  ")
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// timeLimit bounds the whole kit run: every run the profile can cause at
// its per-run timeout, plus a minute, and never past the test's deadline.
// The kit kills a hung probe itself; this catches a hung kit.
func timeLimit(t testing.TB, p Profile) time.Duration {
	per := p.TimeoutSeconds
	if per == 0 {
		per = 10
	}
	runs := 2.0 // --help and the manifest
	if p.ArgumentOrder != nil {
		runs += 10 // six placements, the conflicting repeat, three positional variants
	}
	var streams float64
	for _, probe := range p.Probes {
		switch probe.Kind {
		case Stream:
			if probe.DeadlineSeconds > 0 {
				streams += probe.DeadlineSeconds
			} else {
				streams += per
			}
		case Destructive:
			runs += 4 // stdin closed, stdin open, NO_COLOR, the dry run
		default:
			runs += 3
		}
	}
	limit := time.Duration((runs*per+streams)*float64(time.Second)) + time.Minute
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if deadline, ok := d.Deadline(); ok {
			// leave the test time to report what the kit printed
			limit = min(limit, time.Until(deadline)-5*time.Second)
		}
	}
	return limit
}

// run runs the kit and reads its answer: exit 0 and 4 are results, exit 2 a
// *KitError about the profile; anything else is the kit failing.
func run(ctx context.Context, python, root, profile string) (Result, error) {
	//duetvet:allow rawexec -- the test harness runs the spec's Python kit, not user input
	cmd := exec.CommandContext(ctx, python, filepath.Join(root, "conformance", "run.py"), profile)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		return Result{}, fmt.Errorf("the conformance kit did not finish in time (%v); stderr:\n%s", ctx.Err(), tail(stderr.Bytes()))
	}
	code := 0
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return Result{}, fmt.Errorf("start the conformance kit: %w", err)
		}
		code = exit.ExitCode()
	}
	switch code {
	case 0, 4:
		res, err := Parse(stdout.Bytes())
		if err != nil {
			return Result{}, fmt.Errorf("%w; stderr:\n%s", err, tail(stderr.Bytes()))
		}
		return res, nil
	case 2:
		if _, err := Parse(stdout.Bytes()); err != nil {
			return Result{}, err // a *KitError carrying the kit's reason
		}
		return Result{}, fmt.Errorf("the conformance kit exited 2 with a result; stdout:\n%s", tail(stdout.Bytes()))
	default:
		return Result{}, fmt.Errorf("the conformance kit failed: %v; stderr:\n%s", err, tail(stderr.Bytes()))
	}
}

// tail is the end of a process's output, enough for a traceback.
func tail(b []byte) string {
	const keep = 4000
	if len(b) > keep {
		b = append([]byte("…"), b[len(b)-keep:]...)
	}
	return string(b)
}
