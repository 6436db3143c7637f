package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/duet-cli/duet/internal/atomicfile"
	"github.com/duet-cli/duet/internal/tomlstr"
)

// Scaffold returns the config.toml that `meridian init` writes: every key
// commented out with its built-in value and a one-line description, grouped
// by section. It is generated from the same table as [Loaded.Settings], so
// it cannot name a key Load does not know or show a default Load does not
// use. Descriptions are trailing comments on the key's own line, so that
// uncommenting a line gives valid TOML whose comment still says what it is.
func Scaffold() []byte {
	var b bytes.Buffer
	b.WriteString("# Meridian configuration\n")
	b.WriteString("# Uncomment and modify options to override defaults.\n")
	b.WriteString("# The values shown are the built-in defaults; a file given with --config or\n")
	b.WriteString("# MERIDIAN_CONFIG overrides this one.\n")
	defaults := Default()
	ks := keys()
	for start := 0; start < len(ks); {
		end := start
		for end < len(ks) && ks[end].section == ks[start].section {
			end++
		}
		section := ks[start:end]
		lines := make([]string, len(section))
		width := 0
		for i, k := range section {
			lines[i] = fmt.Sprintf("# %s = %s", k.name, tomlValue(k.get(&defaults)))
			width = max(width, len(lines[i]))
		}
		fmt.Fprintf(&b, "\n# [%s]\n", section[0].section)
		for i, k := range section {
			fmt.Fprintf(&b, "%-*s  # %s\n", width, lines[i], k.doc)
		}
		start = end
	}
	return b.Bytes()
}

// tomlValue writes a setting's value as TOML: the values of [Setting] are
// bools and strings only.
func tomlValue(v any) string {
	switch v := v.(type) {
	case bool:
		return fmt.Sprint(v)
	case string:
		return tomlstr.Quote(v)
	}
	panic(fmt.Sprintf("config: no TOML form for %T", v))
}

// Init creates the .meridian directory dir if need be and writes the
// [Scaffold] to dir/config.toml unless that file already exists. It returns
// the file's path and whether it wrote it; running it again changes
// nothing. An existing file is never overwritten, not even by another Init
// racing this one: the scaffold is written in full to a temporary file and
// then hard-linked into place, which fails if the name is taken.
func Init(dir string) (path string, created bool, err error) {
	path = filepath.Join(dir, FileName)
	if _, err := os.Lstat(path); err == nil {
		return path, false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return path, false, fmt.Errorf("init config: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return path, false, fmt.Errorf("init config: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+FileName+".*.init")
	if err != nil {
		return path, false, fmt.Errorf("init config: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	// atomicfile syncs the content before the link makes it visible, so a
	// crash cannot leave a config.toml that is there but empty.
	if err := atomicfile.Write(tmp.Name(), Scaffold(), 0o644); err != nil {
		return path, false, fmt.Errorf("init config: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return path, false, nil
		}
		return path, false, fmt.Errorf("init config: %w", err)
	}
	// Make the new name survive a crash, as atomicfile does for its rename.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return path, true, nil
}
