package speckit_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// specDir is the reference copy of the spec beside the repository
// (<repo>/../shared/reference/cli-agent-spec), as seen from this package's
// directory, where go test runs its tests. Tests that compare against it
// skip without it.
func specDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "reference", "cli-agent-spec")
	if _, err := os.Stat(filepath.Join(dir, "schemas", "manifest-response.md")); err != nil {
		t.Skipf("the CLI Agent Spec reference copy is not beside the repository (%v); nothing to compare with", err)
	}
	return dir
}

// schemaFile is Duet's ManifestResponse 3.21 schema, as the kit loads it.
const schemaFile = "kit/schemas/manifest-response.json"

// compileSchema compiles the manifest schema, or the definition at
// fragment ("#/definitions/ExitCodeEntry") within it, as draft-07.
func compileSchema(t *testing.T, fragment string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	const url = "file:///speckit/kit/schemas/manifest-response.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url + fragment)
	if err != nil {
		t.Fatalf("compile %s%s: %v", schemaFile, fragment, err)
	}
	return s
}

// instance decodes JSON text the way the validator needs it (numbers as
// json.Number, so 1 and 1.5 keep their kinds).
func instance(t *testing.T, text []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, text)
	}
	return v
}

// errorLocations are the instance locations of the innermost errors a
// validation reports, the places a reader would fix, as URI-fragment JSON
// pointers: "#" is the document, "#/commands/c/flags" a command's flags.
func errorLocations(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var locs []string
	var walk func(e *jsonschema.ValidationError, parent string)
	walk = func(e *jsonschema.ValidationError, parent string) {
		if k, ok := e.ErrorKind.(*kind.PropertyNames); ok {
			// jsonschema v6.0.3 reuses a buffer for this error's
			// InstanceLocation, so build it from the parent's: the bad key
			locs = append(locs, parent+"/"+pointerToken(k.Property))
			return
		}
		loc := "#"
		for _, tok := range e.InstanceLocation {
			loc += "/" + pointerToken(tok)
		}
		if len(e.Causes) == 0 {
			locs = append(locs, loc)
		}
		for _, c := range e.Causes {
			walk(c, loc)
		}
	}
	walk(ve, "#")
	slices.Sort(locs)
	return slices.Compact(locs)
}

// pointerToken escapes a key for a JSON pointer (RFC 6901).
func pointerToken(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// example is one ```json block of a spec document.
type example struct {
	label string // the bold line above it, without the asterisks
	kind  string // Valid, Invalid, or "" when the label says neither
	json  []byte
}

// exampleLabel is how the spec's schema documents label an example:
// **Valid — what it shows** or **Invalid — what it breaks**.
var exampleLabel = regexp.MustCompile(`^\*\*(Valid|Invalid) — (.+)\*\*$`)

// docExamples returns every ```json block of the Markdown file at path,
// classified by the nearest non-empty line above it.
func docExamples(t *testing.T, path string) []example {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var (
		out     []example
		above   string
		current *example
	)
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case current != nil && line == "```":
			out = append(out, *current)
			current = nil
		case current != nil:
			current.json = append(append(current.json, line...), '\n')
		case line == "```json":
			current = &example{label: strings.Trim(above, "*")}
			if m := exampleLabel.FindStringSubmatch(above); m != nil {
				current.kind, current.label = m[1], m[2]
			}
		case strings.TrimSpace(line) != "":
			above = line
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if current != nil {
		t.Fatalf("%s: a ```json block is never closed", path)
	}
	return out
}

// merge returns base with patch's top-level keys set over it; a key whose
// patch value is null is removed. Both are JSON objects.
func merge(t *testing.T, base, patch string) map[string]any {
	t.Helper()
	var b, p map[string]any
	if err := json.Unmarshal([]byte(base), &b); err != nil {
		t.Fatalf("base %s: %v", base, err)
	}
	if patch != "" {
		if err := json.Unmarshal([]byte(patch), &p); err != nil {
			t.Fatalf("patch %s: %v", patch, err)
		}
	}
	for k, v := range p {
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
	}
	return b
}
