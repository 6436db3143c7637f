package speckit_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestVendoredKitIsTheSpecs holds every file vendored unchanged to the
// reference copy of the spec, byte for byte, so nobody edits the judge
// (run.py) or what it reads besides Duet's own manifest schema.
func TestVendoredKitIsTheSpecs(t *testing.T) {
	spec := specDir(t)
	for _, file := range []string{
		"conformance/run.py",
		"conformance/README.md",
		"LICENSE",
		"schemas/response-envelope.json",
		"schemas/conformance-profile.json",
	} {
		t.Run(file, func(t *testing.T) {
			ours, err := os.ReadFile(filepath.Join("kit", filepath.FromSlash(file)))
			if err != nil {
				t.Fatal(err)
			}
			theirs, err := os.ReadFile(filepath.Join(spec, filepath.FromSlash(file)))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ours, theirs) {
				t.Errorf("kit/%s differs from the spec's %s (%d bytes here, %d there): copy it again, never edit it here", file, file, len(ours), len(theirs))
			}
		})
	}
}

// TestKitHasOnlyWhatItLoads keeps kit/schemas to the files run.py reads:
// it loads every schemas/*.json into its registry, so a stray file there
// would be part of the judge.
func TestKitHasOnlyWhatItLoads(t *testing.T) {
	got, err := filepath.Glob(filepath.Join("kit", "schemas", "*"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join("kit", "schemas", "conformance-profile.json"),
		filepath.Join("kit", "schemas", "manifest-response.json"),
		filepath.Join("kit", "schemas", "response-envelope.json"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kit/schemas (-want +got):\n%s", diff)
	}
}
