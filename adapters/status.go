package adapters

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/internal/profile"
)

// stateFileReport is one state file as `tool status` answers it.
type stateFileReport struct {
	Path      string `json:"path"`
	Purpose   string `json:"purpose"`
	Exists    bool   `json:"exists"`
	SizeBytes *int64 `json:"size_bytes"`
	Summary   any    `json:"summary"`
}

// sideEffectReport is one path the tool writes to.
type sideEffectReport struct {
	Path      string `json:"path"`
	Type      string `json:"type"`
	Purpose   string `json:"purpose"`
	Exists    bool   `json:"exists"`
	SizeBytes *int64 `json:"size_bytes"` // a directory's: the files in it, at any depth
}

// status answers `tool status`: the tool's state files (--show-state-files)
// and the paths it writes to (--show-side-effects), both when neither is
// asked for. Duet's own profiles file is among them, for a tool with
// profiles. Every path is absolute; nothing is changed.
func (inv *invocation) status(context.Context) error {
	c := inv.call
	showState, showEffects := c.bool(flagname.ShowStateFiles), c.bool(flagname.ShowSideEffects)
	if !showState && !showEffects {
		showState, showEffects = true, true
	}
	cfg := inv.cfg.discovery
	files, effects := slicesClone(cfg.stateFiles), slicesClone(cfg.sideEffects)
	effects = append(effects, inv.declaredSideEffects()...)
	if p := inv.root.Sub(profileCommand); p != nil && p.Builtin {
		if path, err := profile.Path(inv.root.Name, inv.cfg.getenv); err == nil {
			files = append([]StateFile{{Path: path, Purpose: "saved flag profiles, and the default one", Summary: profileSummary}}, files...)
			effects = append([]SideEffect{
				{Path: path, Kind: "file", Purpose: "saved flag profiles (profile save, use, delete)"},
				{Path: path + ".lock", Kind: "file", Purpose: "the lock that orders changes to the profiles"},
			}, effects...)
		}
	}
	data := map[string]any{}
	var text strings.Builder
	if showState {
		reports := make([]stateFileReport, 0, len(files))
		for _, f := range files {
			r := stateFileReport{Path: inv.expandPath(f.Path), Purpose: f.Purpose}
			if info, err := os.Stat(r.Path); err == nil {
				size := info.Size()
				r.Exists, r.SizeBytes = true, &size
				if f.Summary != nil {
					if s, err := f.Summary(r.Path); err == nil {
						r.Summary = s
					} else {
						r.Summary = map[string]string{"error": err.Error()}
					}
				}
			}
			reports = append(reports, r)
			fmt.Fprintf(&text, "state  %s  %s%s\n", r.Path, r.Purpose, sizeNote(r.Exists, r.SizeBytes))
		}
		data["state_files"] = reports
	}
	if showEffects {
		reports := make([]sideEffectReport, 0, len(effects))
		for _, e := range effects {
			r := sideEffectReport{Path: inv.expandPath(e.Path), Type: e.Kind, Purpose: e.Purpose}
			if r.Type == "" {
				r.Type = "file"
			}
			if size, ok := pathSize(r.Path); ok {
				r.Exists, r.SizeBytes = true, &size
			}
			reports = append(reports, r)
			fmt.Fprintf(&text, "writes %s  %s%s\n", r.Path, r.Purpose, sizeNote(r.Exists, r.SizeBytes))
		}
		data["side_effects"] = reports
	}
	inv.out.RenderText(func(w io.Writer) error {
		if text.Len() == 0 {
			_, err := io.WriteString(w, "No state files or side effects declared.\n")
			return err
		}
		_, err := io.WriteString(w, text.String())
		return err
	})
	return inv.out.Result(data)
}

func slicesClone[T any](s []T) []T { return append([]T(nil), s...) }

func sizeNote(exists bool, size *int64) string {
	if !exists {
		return " (absent)"
	}
	return fmt.Sprintf(" (%d bytes)", *size)
}

// profileSummary is what status says of the profiles file: the default
// profile and the profiles' names, never their values.
func profileSummary(path string) (any, error) {
	f, err := (&profile.Store{Path: path}).Load()
	if err != nil {
		return nil, err
	}
	var def *string
	if f.Default != "" {
		def = &f.Default
	}
	return map[string]any{"default": def, "profiles": f.Names()}, nil
}

// expandPath expands a declared path from the invocation's environment — a
// leading ~, $VAR and ${VAR} — and makes it absolute.
func (inv *invocation) expandPath(path string) string {
	if path == "~" || strings.HasPrefix(path, "~/") {
		path = inv.cfg.getenv("HOME") + path[1:]
	}
	path = os.Expand(path, inv.cfg.getenv)
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// pathSize returns the size of a file, or of the files under a directory.
func pathSize(path string) (int64, bool) {
	info, err := os.Stat(path)
	if err != nil {
		return 0, false
	}
	if !info.IsDir() {
		return info.Size(), true
	}
	var total int64
	filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if i, err := d.Info(); err == nil {
				total += i.Size()
			}
		}
		return nil
	})
	return total, true
}
