package mcp

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/duet-cli/duet/schema"
)

// PathOutsideProject is the code of a file argument that lies outside the
// project the server serves (schema.InProject).
const PathOutsideProject = "PATH_OUTSIDE_PROJECT"

// outside reports why the file v, a value of a flag confined to the
// project, lies outside root (the project directory, as projectRoot
// resolves it), or "" when it lies inside. A relative v is taken from root,
// where the server's own runner runs the command. The path is followed as
// the kernel follows it — each symbolic link, dangling ones too, where it
// points, ".." from where the link led — so a link inside that points out
// is outside. "-" is stdin, never a file.
func outside(root string, scope schema.PathScope, v string) string {
	if scope != schema.InProject || root == "" || v == "" || v == "-" {
		return ""
	}
	if strings.HasPrefix(v, "~") {
		return "a path from a home directory is outside the project " + root
	}
	hops := 0
	real, err := follow(root, v, &hops)
	if err != nil {
		return "the path cannot be followed: " + err.Error()
	}
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "it leads to " + real + ", outside the project " + root
	}
	return ""
}

// follow is where path p leads from the directory dir (itself free of
// links), component by component. Past the first that does not exist the
// rest is taken as written: the command creates it there, if anything.
func follow(dir, p string, hops *int) (string, error) {
	cur := dir
	if filepath.IsAbs(p) {
		cur = string(filepath.Separator)
	}
	for _, part := range strings.Split(p, string(filepath.Separator)) {
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if *hops++; *hops > 40 {
			return "", errors.New("too many symbolic links")
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if cur, err = follow(cur, target, hops); err != nil {
			return "", err
		}
	}
	return cur, nil
}

// projectRoot is dir, or the directory the server was started in when dir
// is "", with every symbolic link resolved: what outside measures paths
// against, found once for the server.
func projectRoot(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		dir = wd
	}
	return filepath.EvalSymlinks(dir)
}
