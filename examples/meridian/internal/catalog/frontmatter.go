package catalog

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// document is a markdown file split at its front matter.
type document struct {
	path string
	// fields are the front matter's keys in file order; empty when the file
	// has no front matter.
	fields []field
	// body is the markdown after the front matter (the whole file when it
	// has none).
	body string
}

// field is one key of the front matter.
type field struct {
	key   string
	value *yaml.Node
	line  int // in the file
}

// parseDocument splits content into YAML front matter and body. Front matter
// is optional; when the first line is "---" it runs to the next line that
// is "---", and must be a YAML mapping. Errors are [*FileError]s with lines
// counted in the file, not in the front matter.
func parseDocument(path string, content []byte) (*document, error) {
	text := strings.TrimPrefix(string(content), "\ufeff")
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t\r") != "---" {
		return &document{path: path, body: text}, nil
	}
	var yamlText string
	found := false
	for off := 0; off < len(rest); {
		line, _, _ := strings.Cut(rest[off:], "\n")
		next := off + len(line) + 1
		if strings.TrimRight(line, " \t\r") == "---" {
			yamlText = rest[:off]
			found = true
			rest = rest[min(next, len(rest)):]
			break
		}
		off = next
	}
	if !found {
		return nil, &FileError{Path: path, Line: 1, Msg: "front matter opened with --- is never closed with a --- line"}
	}
	doc := &document{path: path, body: rest}
	// Line 1 of the YAML is line 2 of the file.
	const offset = 1
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(yamlText), &root); err != nil {
		return nil, yamlError(path, offset, err)
	}
	if root.Kind == 0 { // empty front matter
		return doc, nil
	}
	m := root.Content[0]
	if m.Kind == yaml.ScalarNode && m.Tag == "!!null" {
		return doc, nil
	}
	if m.Kind != yaml.MappingNode {
		return nil, &FileError{Path: path, Line: m.Line + offset, Msg: "front matter must be a mapping of keys to values"}
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, &FileError{Path: path, Line: k.Line + offset, Msg: "front matter keys must be strings"}
		}
		if seen[k.Value] {
			return nil, &FileError{Path: path, Line: k.Line + offset, Key: k.Value, Msg: "key is defined twice"}
		}
		seen[k.Value] = true
		doc.fields = append(doc.fields, field{key: k.Value, value: v, line: k.Line + offset})
	}
	return doc, nil
}

func (d *document) errorf(f field, format string, args ...any) error {
	return &FileError{Path: d.path, Line: f.line, Key: f.key, Msg: fmt.Sprintf(format, args...)}
}

// str reads a field as a string: any scalar is taken as written (so that
// `description: 2024` is "2024"), null is "", anything else is an error.
func (d *document) str(f field) (string, error) {
	switch {
	case f.value.Kind == yaml.AliasNode:
		return d.str(field{f.key, f.value.Alias, f.line})
	case f.value.Kind == yaml.ScalarNode && f.value.Tag == "!!null":
		return "", nil
	case f.value.Kind == yaml.ScalarNode:
		return f.value.Value, nil
	}
	return "", d.errorf(f, "want a string")
}

// list reads a field as a list of strings: a YAML sequence of scalars, or
// one string of comma-separated items (`skills: a, b`), as people write
// them in Claude Code's front matter. Null is an empty list.
func (d *document) list(f field) ([]string, error) {
	v := f.value
	if v.Kind == yaml.AliasNode {
		v = v.Alias
	}
	switch {
	case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		return nil, nil
	case v.Kind == yaml.ScalarNode:
		var out []string
		for item := range strings.SplitSeq(v.Value, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
		return out, nil
	case v.Kind == yaml.SequenceNode:
		out := make([]string, 0, len(v.Content))
		for _, item := range v.Content {
			if item.Kind != yaml.ScalarNode || item.Tag == "!!null" {
				return nil, d.errorf(f, "want a list of strings")
			}
			out = append(out, item.Value)
		}
		return out, nil
	}
	return nil, d.errorf(f, "want a list of strings")
}

// value decodes a field into a plain Go value, for keys Meridian keeps
// without knowing them.
func (d *document) value(f field) (any, error) {
	var v any
	if err := f.value.Decode(&v); err != nil {
		return nil, d.errorf(f, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return v, nil
}

// yamlLine matches the position go.yaml.in/yaml puts in its messages.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlError turns a YAML syntax error into a [*FileError] whose line is
// counted in the file: offset is the number of file lines before the YAML.
func yamlError(path string, offset int, err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &FileError{Path: path, Line: n + offset, Msg: "front matter: " + m[2]}
	}
	return &FileError{Path: path, Msg: "front matter: " + strings.TrimPrefix(msg, "yaml: ")}
}
