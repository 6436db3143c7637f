package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Profile is a conformance profile, the spec's own form for directing its
// conformance kit (schemas/conformance-profile.json, schema_version 1.0):
// the command under test and the probes to run on it. Where [Check] finds
// out for itself what a CLI does, [RunProfile] runs what a profile's
// author named, on the sandbox the author pointed it at.
type Profile struct {
	SchemaVersion string `json:"schema_version"`
	Tool          string `json:"tool"`
	// Command is the prefix of every probe's command line. LoadProfile
	// resolves its first word as the kit does: a path with a slash against
	// the profile's directory, a bare name on PATH.
	Command        []string       `json:"command"`
	TimeoutSeconds float64        `json:"timeout_seconds"`
	Manifest       []string       `json:"manifest,omitempty"`
	ArgumentOrder  *ArgumentOrder `json:"argument_order,omitempty"`
	Probes         []Probe        `json:"probes"`
}

// ProbeKind is what a probe's command does, which decides the checks it
// feeds.
type ProbeKind string

// The probe kinds of a profile.
const (
	ReadProbe        ProbeKind = "read"        // changes nothing and succeeds
	DestructiveProbe ProbeKind = "destructive" // refuses unconfirmed; previews with its DryRunFlag
	InvalidProbe     ProbeKind = "invalid"     // invalid input: exits 2
	StreamProbe      ProbeKind = "stream"      // writes a JSONL stream (REQ-O-004)
)

// Probe is one command a profile directs the kit to run.
type Probe struct {
	Name       string    `json:"name"`
	Argv       []string  `json:"argv"`
	Kind       ProbeKind `json:"kind"`
	DryRunFlag string    `json:"dry_run_flag,omitempty"`
	// A stream probe's: how long it may run (the profile's timeout when
	// zero), and whether to interrupt it (Signal "INT") after AfterLines
	// lines.
	DeadlineSeconds float64 `json:"deadline_seconds,omitempty"`
	Signal          string  `json:"signal,omitempty"`
	AfterLines      int     `json:"after_lines,omitempty"`
}

// ArgumentOrder is the profile's probe of where a global option may go
// (REQ-F-067, REQ-F-079): before the command path, between it and a local
// option, after that, and given twice with different values.
type ArgumentOrder struct {
	CommandPath    []string `json:"command_path"`
	LocalArgs      []string `json:"local_args"`
	GlobalFlag     string   `json:"global_flag"`
	Value          string   `json:"value"`
	AlternateValue string   `json:"alternate_value"`
	// Positional, when set, also checks that a local option after it takes
	// effect rather than being read as another positional.
	Positional string `json:"positional,omitempty"`
}

// ProfileError is why a profile cannot direct a run: nothing ran.
type ProfileError struct {
	Path   string
	Reason string
}

func (e *ProfileError) Error() string { return e.Reason }

// maxProfile bounds what LoadProfile reads: a profile is a page of JSON.
const maxProfile = 1 << 20

// LoadProfile reads the profile at path and checks it as the kit does:
// valid against conformance-profile.json, probe names unique, an
// argument_order's two values different, and its command found. Every
// failure is a *ProfileError.
func LoadProfile(path string) (*Profile, error) {
	fail := func(format string, a ...any) error {
		return &ProfileError{Path: path, Reason: fmt.Sprintf(format, a...)}
	}
	// A FIFO or a device would block or never end: only a file is read.
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return nil, fail("profile not found: %s", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fail("profile cannot be read: %v", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxProfile+1))
	switch {
	case err != nil:
		return nil, fail("profile cannot be read: %v", err)
	case len(raw) > maxProfile:
		return nil, fail("profile is larger than %d bytes", maxProfile)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fail("profile is not valid JSON: %v", err)
	}
	s, err := schemas()
	if err != nil {
		return nil, fail("checker: %v", err)
	}
	if err := s.profile.Validate(doc); err != nil {
		return nil, fail("profile does not match conformance-profile.json: %s", oneLine(err))
	}
	var p Profile
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fail("profile does not match conformance-profile.json: %v", err)
	}
	if len(p.Command) == 0 {
		return nil, fail("profile command is empty")
	}
	seen := map[string]bool{}
	for _, probe := range p.Probes {
		if seen[probe.Name] {
			return nil, fail("probe names must be unique")
		}
		seen[probe.Name] = true
	}
	if o := p.ArgumentOrder; o != nil && o.Value == o.AlternateValue {
		return nil, fail("argument_order.alternate_value must differ from value")
	}
	if p.Command[0], err = resolveCommand(p.Command[0], filepath.Dir(path)); err != nil {
		return nil, fail("%v", err)
	}
	return &p, nil
}

// resolveCommand finds the profile's program as the kit does: a path with
// a slash against the profile's directory, a bare name on PATH.
func resolveCommand(name, base string) (string, error) {
	if !strings.Contains(name, "/") {
		found, err := exec.LookPath(name)
		if err != nil {
			return "", fmt.Errorf("profile command %q is not on PATH", name)
		}
		return found, nil
	}
	if !filepath.IsAbs(name) {
		abs, err := filepath.Abs(filepath.Join(base, name))
		if err != nil {
			return "", err
		}
		name = abs
	}
	if fi, err := os.Stat(name); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("profile command does not exist: %s", name)
	}
	return name, nil
}

// timeout is the profile's timeout_seconds as a duration.
func (p *Profile) timeout() time.Duration {
	return seconds(p.TimeoutSeconds)
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
