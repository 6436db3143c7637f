package adapters

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/duet-cli/duet/internal/flagname"
	"github.com/duet-cli/duet/internal/jobstore"
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
	Type      string `json:"type"`           // file or directory
	Kind      string `json:"kind,omitempty"` // what a command declares it (C-011), such as output, which cleanup keeps
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
	ownFiles, ownEffects := inv.duetState()
	files, effects = append(files, ownFiles...), append(effects, ownEffects...)
	data := map[string]any{}
	var text strings.Builder
	if showState {
		reports := make([]stateFileReport, 0, len(files))
		for _, f := range files {
			r := stateFileReport{Path: inv.expandPath(f.Path), Purpose: f.Purpose}
			if size, ok := pathSize(r.Path); ok { // a directory's: the files in it
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
		seen := map[string]bool{}
		kinds := inv.declaredKinds()
		for _, e := range effects {
			r := sideEffectReport{Path: inv.expandPath(e.Path), Type: e.Kind, Kind: string(kinds[e.Path]), Purpose: e.Purpose}
			if seen[r.Path] {
				continue // declared by a command, and Duet's own state besides
			}
			seen[r.Path] = true
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

// duetState is what Duet itself keeps for the tool (REQ-O-028): the audit
// log when it is on, with its rotated files; the jobs store of an app with
// jobs; the idempotency store of an app with a command that takes
// --idempotency-key. Each is a state file, summarised, and a side effect.
func (inv *invocation) duetState() ([]StateFile, []SideEffect) {
	var files []StateFile
	var effects []SideEffect
	if path := inv.auditLogPath(); path != "" {
		files = append(files, StateFile{Path: path, Purpose: "the audit log: one JSON line per invocation (audit-log reads it)", Summary: auditSummary})
		effects = append(effects, SideEffect{Path: path, Kind: "file", Purpose: "the audit log (log): a line appended per invocation, rotated to " + filepath.Base(rotatedAuditLog(path, 1)) + " and on"})
		for n := 1; n <= inv.cfg.auditLimits.withDefaults().Keep; n++ {
			if rotated := rotatedAuditLog(path, n); fileExists(rotated) {
				effects = append(effects, SideEffect{Path: rotated, Kind: "file", Purpose: "a rotated audit log (log)"})
			}
		}
	}
	state, err := inv.stateDir()
	if err != nil {
		return files, effects // no home: nothing of the stores can be there
	}
	if j := inv.root.Sub(jobCommand); j != nil && j.Builtin {
		dir := filepath.Join(state, "jobs")
		files = append(files, StateFile{Path: dir, Purpose: "the tool's jobs: their status, answers and output (job list, job status)", Summary: jobsSummary})
		effects = append(effects, SideEffect{Path: dir, Kind: "directory", Purpose: "the jobs store: a record, lock and output files per job (cleanup --scope jobs, logs)"})
	}
	for _, st := range inv.featureStates(state) {
		files = append(files, st.File)
		effects = append(effects, st.Effect)
	}
	return files, effects
}

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// auditSummary is what status says of the audit log: how many entries the
// current file holds, never what they say.
func auditSummary(path string) (any, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return map[string]int{"entries": bytes.Count(raw, []byte("\n"))}, nil
}

// jobsSummary is what status says of the jobs store: how many jobs, by
// status.
func jobsSummary(dir string) (any, error) {
	jobs, err := (&jobstore.Store{Dir: dir}).List(time.Now())
	if err != nil {
		return nil, err
	}
	by := map[string]int{}
	for _, j := range jobs {
		by[string(j.Status)]++
	}
	return map[string]any{"jobs": len(jobs), "by_status": by}, nil
}

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
// leading ~, $VAR and ${VAR}, an XDG base directory that is unset to its
// default under the home — and makes it absolute.
func (inv *invocation) expandPath(path string) string {
	getenv := inv.cfg.getenv
	if path == "~" || strings.HasPrefix(path, "~/") {
		path = getenv("HOME") + path[1:]
	}
	path = os.Expand(path, func(name string) string {
		if v := getenv(name); v != "" {
			return v
		}
		if under := xdgDefault(name); under != "" {
			return filepath.Join(getenv("HOME"), under)
		}
		return ""
	})
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// xdgDefault is where an XDG base directory is when its variable is
// unset, under the home directory; "" for any other variable.
func xdgDefault(name string) string {
	switch name {
	case "XDG_STATE_HOME":
		return ".local/state"
	case "XDG_DATA_HOME":
		return ".local/share"
	case "XDG_CONFIG_HOME":
		return ".config"
	case "XDG_CACHE_HOME":
		return ".cache"
	}
	return ""
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
