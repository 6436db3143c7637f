package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/duet-cli/duet/examples/meridian/internal/state"
	"github.com/duet-cli/duet/proc"
)

// Changes is what a run changed in the project's working tree (Agent
// Mesh's files written and diff): the working tree when the harness
// ended against the working tree when it started, untracked files
// included and ignored ones not, as git sees them. The supervisor writes it
// as output/changes.json, and the whole diff as output/diff.patch.
type Changes struct {
	// Files are the paths changed, relative to the project root, with how:
	// added, modified, deleted, renamed (from → to) or type_changed.
	Files []FileChange `json:"files"`
	// Diff is the unified diff, at most maxDiff bytes of it; the whole is
	// output/diff.patch.
	Diff          string `json:"diff,omitempty"` // run show gives it as result.artifacts.git_diff
	DiffBytes     int    `json:"diff_bytes"`
	DiffTruncated bool   `json:"diff_truncated,omitempty"`
	// Concurrent are the other runs (space/run) and chats (space/chat) of
	// the project that worked in the same tree while this run did: the
	// diff may hold their edits as well as this run's.
	Concurrent []string `json:"concurrent,omitempty"`
	// LargeUntracked counts the untracked files over 1 MiB, which are not
	// compared.
	LargeUntracked int `json:"large_untracked,omitempty"`
	// Note says why there is no diff, when there is none to take (not a
	// git repository, git missing).
	Note string `json:"note,omitempty"`
}

// FileChange is one path a run changed.
type FileChange struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	From   string `json:"from,omitempty"` // a renamed file's old path
}

// Files of a run directory that record what the run changed.
const (
	changesFile = "changes.json"
	diffFile    = "diff.patch"
	startTree   = "start.tree" // the tree when the harness started
)

// maxDiff is the most of a diff changes.json and run show carry.
const maxDiff = 64 << 10

// excluded are Meridian's own state in the tree, which the run does not
// change itself: the files of each space but its fs/ (work product, which
// is the run's to change).
var excluded = []string{
	":(exclude,glob).meridian/.spaces/*/*",
	":(exclude,glob).meridian/.spaces/*/runs/**",
	":(exclude,glob).meridian/.spaces/*/sessions/**",
}

// snapshot writes the tree of the working directory root to git's object
// store and returns its id, through an index of its own (a copy of the
// repository's, so that unchanged files are not read again): the
// repository's index, HEAD and working tree are left as they are.
func snapshot(ctx context.Context, root, scratch string) (tree string, large int, err error) {
	var stdin io.Reader
	git := func(env []string, args ...string) ([]byte, error) {
		cmd := gitCommand(ctx, root, args...)
		cmd.Env = append(cmd.Environ(), env...)
		cmd.Stdin, stdin = stdin, nil
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
		}
		return out, nil
	}
	if _, err := git(nil, "rev-parse", "--show-toplevel"); err != nil {
		return "", 0, errNotGit
	}
	indexPath, err := git(nil, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return "", 0, err
	}
	index := scratch + ".index"
	defer os.Remove(index)
	if raw, err := os.ReadFile(strings.TrimSpace(string(indexPath))); err == nil {
		if err := os.WriteFile(index, raw, 0o644); err != nil {
			return "", 0, err
		}
	}
	env := []string{"GIT_INDEX_FILE=" + index}
	// Tracked files go in as they are; untracked ones only up to
	// maxUntracked bytes each: a run must not copy a large file it never
	// touched (a build's output, a dataset) into the repository's objects
	// at every start.
	if _, err := git(env, append([]string{"add", "--update", "--", "."}, excluded...)...); err != nil {
		return "", 0, err
	}
	others, err := git(env, append([]string{"ls-files", "-z", "--others", "--exclude-standard", "--", "."}, excluded...)...)
	if err != nil {
		return "", 0, err
	}
	var small []string
	for _, p := range strings.Split(strings.TrimSuffix(string(others), "\x00"), "\x00") {
		if info, err := os.Lstat(filepath.Join(root, p)); p != "" && (err != nil || info.Size() > maxUntracked) {
			large++
		} else if p != "" {
			small = append(small, p)
		}
	}
	if len(small) > 0 {
		stdin = strings.NewReader(strings.Join(small, "\x00"))
		if _, err := git(env, "add", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
			return "", 0, err
		}
	}
	out, err := git(env, "write-tree")
	if err != nil {
		return "", 0, err
	}
	return strings.TrimSpace(string(out)), large, nil
}

// maxUntracked is the largest untracked file a run's diff compares.
const maxUntracked = 1 << 20

var errNotGit = errors.New("the project is not in a git repository: no diff is taken")

// gitCommand is git run in the project's root, paths and all in the C
// locale (proc), its output never paged.
func gitCommand(ctx context.Context, root string, args ...string) *proc.Cmd {
	return proc.Command(ctx, "git", append([]string{"-C", root, "--no-pager"}, args...)...)
}

// recordStart keeps the tree the harness starts in, for recordChanges.
func recordStart(ctx context.Context, root, dir string) {
	tree, _, err := snapshot(ctx, root, filepath.Join(dir, startTree))
	if err != nil {
		tree = "error: " + err.Error()
	}
	os.WriteFile(filepath.Join(dir, startTree), []byte(tree), 0o644)
}

// recordChanges compares the tree now with the one recordStart kept and
// writes output/changes.json and output/diff.patch. What it cannot take is
// said in the note: a run's outcome never depends on it.
func recordChanges(ctx context.Context, root, dir string, started time.Time, self string) {
	ch := Changes{Files: []FileChange{}}
	defer func() {
		raw, _ := json.Marshal(ch)
		os.WriteFile(filepath.Join(dir, outputDir, changesFile), raw, 0o644)
	}()
	raw, err := os.ReadFile(filepath.Join(dir, startTree))
	before := strings.TrimSpace(string(raw))
	switch {
	case err != nil:
		ch.Note = "the tree at the start was not kept: " + err.Error()
		return
	case strings.HasPrefix(before, "error: "):
		ch.Note = strings.TrimPrefix(before, "error: ")
		return
	}
	after, large, err := snapshot(ctx, root, filepath.Join(dir, "end.tree"))
	if err != nil {
		ch.Note = err.Error()
		return
	}
	ch.LargeUntracked = large
	if ch.Files, err = changedFiles(ctx, root, before, after); err != nil {
		ch.Note = err.Error()
		return
	}
	if err := writeDiff(ctx, root, before, after, filepath.Join(dir, outputDir, diffFile), &ch); err != nil {
		ch.Note = err.Error()
	}
	ch.Concurrent = concurrent(dir, started, time.Now(), self)
}

// changedFiles lists what differs between two trees.
func changedFiles(ctx context.Context, root, before, after string) ([]FileChange, error) {
	out, err := gitCommand(ctx, root, "diff", "--name-status", "-z", "-M", before, after).Output()
	if err != nil {
		return nil, fmt.Errorf("git diff --name-status: %w", err)
	}
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	files := []FileChange{}
	for i := 0; i+1 < len(fields); i += 2 {
		code := fields[i]
		fc := FileChange{Path: fields[i+1], Status: statusName(code[0])}
		if code[0] == 'R' || code[0] == 'C' {
			if i+2 >= len(fields) {
				break
			}
			fc.From, fc.Path = fields[i+1], fields[i+2]
			i++
		}
		files = append(files, fc)
	}
	return files, nil
}

func statusName(code byte) string {
	switch code {
	case 'A':
		return "added"
	case 'D':
		return "deleted"
	case 'R':
		return "renamed"
	case 'C':
		return "copied"
	case 'T':
		return "type_changed"
	}
	return "modified"
}

// writeDiff writes the whole diff to path and its first maxDiff bytes into
// ch.
func writeDiff(ctx context.Context, root, before, after, path string, ch *Changes) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := gitCommand(ctx, root, "diff", "--no-color", "--no-ext-diff", "-M", before, after)
	var head bytes.Buffer
	counted := &countingWriter{}
	cmd.Stdout = io.MultiWriter(f, counted, &limitWriter{w: &head, n: maxDiff})
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git diff: %w", err)
	}
	ch.Diff, ch.DiffBytes, ch.DiffTruncated = head.String(), counted.n, counted.n > maxDiff
	return nil
}

type countingWriter struct{ n int }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

// limitWriter keeps the first n bytes written and drops the rest.
type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// concurrent names the runs and chats of the project, in any space, that
// were alive between started and ended, but self (space/run).
func concurrent(runDir string, started, ended time.Time, self string) []string {
	spaces := filepath.Dir(filepath.Dir(filepath.Dir(runDir))) // .meridian/.spaces
	entries, err := os.ReadDir(spaces)
	if err != nil {
		return nil
	}
	overlaps := func(from, to string) bool {
		s, err := time.Parse(time.RFC3339, from)
		if err != nil || s.After(ended) {
			return false
		}
		e, err := time.Parse(time.RFC3339, to)
		return to == "" || err != nil || !e.Before(started.Truncate(time.Second))
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(spaces, e.Name())
		if all, _, err := (state.Runs{Dir: dir}).List(); err == nil {
			for _, r := range all {
				if name := e.Name() + "/" + r.ID; name != self && overlaps(r.StartedAt, r.FinishedAt) {
					out = append(out, name)
				}
			}
		}
		if events, err := (state.Sessions{Dir: dir}).Events(); err == nil {
			open := map[string]string{} // chat → the start of its latest life
			for _, ev := range events {
				switch ev.Event {
				case "start":
					open[ev.SessionID] = ev.StartedAt
				case "stop":
					if from, ok := open[ev.SessionID]; ok && overlaps(from, ev.StoppedAt) {
						out = append(out, e.Name()+"/"+ev.SessionID)
					}
					delete(open, ev.SessionID)
				}
			}
			for chat, from := range open {
				if overlaps(from, "") {
					out = append(out, e.Name()+"/"+chat)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// readChanges reads what a run changed, when the supervisor recorded it.
func readChanges(dir string) *Changes {
	raw, err := os.ReadFile(filepath.Join(dir, outputDir, changesFile))
	if err != nil {
		return nil
	}
	var ch Changes
	if json.Unmarshal(raw, &ch) != nil {
		return nil
	}
	return &ch
}

// Normalized is a run that ended as Agent Mesh's runners answer (seed 001's
// output contract): whether it succeeded, where it worked, when, for how
// long, what it cost, and what it changed.
type Normalized struct {
	Agent      string    `json:"agent"` // the harness
	Mode       string    `json:"mode"`  // headless: a run has nobody at its terminal
	Cwd        string    `json:"cwd"`
	OK         bool      `json:"ok"`
	ExitCode   *int      `json:"exit_code"`
	StartedAt  string    `json:"started_at"`
	EndedAt    string    `json:"ended_at,omitempty"`
	DurationMS *int64    `json:"duration_ms"`
	Artifacts  Artifacts `json:"artifacts"`
	Usage      Usage     `json:"usage"`
}

// Artifacts are what a run wrote in the project: its files, and the diff.
type Artifacts struct {
	FilesWritten []string `json:"files_written"`
	GitDiff      string   `json:"git_diff"`
}

// Usage is what a run's harness reported it used; null where it did not.
type Usage struct {
	InputTokens       *int64   `json:"input_tokens"`
	OutputTokens      *int64   `json:"output_tokens"`
	CachedInputTokens *int64   `json:"cached_input_tokens"`
	CostUSD           *float64 `json:"cost_usd"`
}

// normalize is the run's normalized result; it takes the diff out of ch,
// which would otherwise carry it twice.
func normalize(run state.Run, cwd string, ch *Changes) *Normalized {
	n := &Normalized{Agent: run.Harness, Mode: "headless", Cwd: cwd, OK: run.Status == state.Succeeded, ExitCode: run.ExitCode,
		StartedAt: run.StartedAt, EndedAt: run.FinishedAt, Artifacts: Artifacts{FilesWritten: []string{}},
		Usage: Usage{InputTokens: run.InputTokens, OutputTokens: run.OutputTokens, CachedInputTokens: run.CachedTokens, CostUSD: run.TotalCostUSD}}
	if run.DurationSecs != nil {
		ms := int64(*run.DurationSecs * 1000)
		n.DurationMS = &ms
	}
	if ch != nil {
		for _, f := range ch.Files {
			if f.Status != "deleted" {
				n.Artifacts.FilesWritten = append(n.Artifacts.FilesWritten, f.Path)
			}
		}
		n.Artifacts.GitDiff, ch.Diff = ch.Diff, ""
	}
	return n
}
