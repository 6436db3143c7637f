package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/adapters/urfave"
	"github.com/duet-cli/duet/internal/spec"
)

// TestRegistryScore: the command's figure is the registry's, as package spec
// computes it, for an agent and for a person.
func TestRegistryScore(t *testing.T) {
	reqs, _ := spec.Requirements()
	modes, _ := spec.Modes()
	verdicts, err := spec.Registry()
	if err != nil {
		t.Fatal(err)
	}
	want := spec.Coverage(reqs, modes, verdicts).Percent()

	var stdout, stderr bytes.Buffer
	code := urfave.Run(context.Background(), newApp(), []string{"--output", "json"}, adapters.WithStdio(strings.NewReader(""), &stdout, &stderr), adapters.WithEnv(nil))
	var env struct {
		Data Coverage `json:"data"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &env); err != nil || code != 0 {
		t.Fatalf("exit %d, stdout %s, stderr %s", code, stdout.String(), stderr.String())
	}
	if env.Data.Registry.Percent != want {
		t.Errorf("registry percent = %v, want %v", env.Data.Registry.Percent, want)
	}

	stdout.Reset()
	code = urfave.Run(context.Background(), newApp(), []string{"--output", "text"}, adapters.WithStdio(strings.NewReader(""), &stdout, &stderr), adapters.WithEnv(nil))
	if line := "registry "; code != 0 || !strings.Contains(stdout.String(), line) {
		t.Errorf("exit %d, text lacks %q:\n%s", code, line, stdout.String())
	}
}
