// Package argsfile hands a child process that is the app itself its
// command line in a file only its user can read, instead of on the command
// line, which every local user sees in ps and where one argument cannot
// pass 128 KiB (a prompt, a document). The parent writes the file and names
// it in the child's environment; the child's Main takes it, removing it,
// before anything reads the command line.
package argsfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
)

// Env names the file in the child's environment.
const Env = "DUET_ARGS_FILE"

// maxSize bounds the file the child reads: a command line of 16 MiB is no
// command line.
const maxSize = 16 << 20

// Write writes args to a new file in dir (the system's temporary directory
// when ""), readable by this user alone, and returns its path and the
// environment entry that names it. The caller removes the file once the
// child has exited, should the child not have.
func Write(dir string, args []string) (path, env string, err error) {
	//duetvet:allow untracked -- the caller removes it once the child has exited, and the child once it has read it
	f, err := os.CreateTemp(dir, "duet-args-*.json") // mode 0600
	if err != nil {
		return "", "", fmt.Errorf("argsfile: %w", err)
	}
	err = json.NewEncoder(f).Encode(args)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", "", fmt.Errorf("argsfile: %w", err)
	}
	return f.Name(), Env + "=" + f.Name(), nil
}

// Hand writes args to a file for a child, and returns env (this process's
// environment when nil) with the entry that names it, and the function
// that removes the file once the child has exited (the child removes it
// once read; not if it never started).
func Hand(env, args []string) (childEnv []string, remove func(), err error) {
	path, entry, err := Write("", args)
	if err != nil {
		return nil, nil, err
	}
	if env == nil {
		env = os.Environ()
	}
	return append(slices.Clone(env), entry), func() { os.Remove(path) }, nil
}

// Take reads the command line the parent left in the file Env names,
// removes the file and unsets Env, so that no process this one starts
// takes it too. ok is false when Env is not set. A file that is not this
// user's alone, or not a command line, is an error.
func Take() (args []string, ok bool, err error) {
	path, ok := os.LookupEnv(Env)
	if !ok {
		return nil, false, nil
	}
	os.Unsetenv(Env)
	defer os.Remove(path)
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return nil, true, fmt.Errorf("argsfile: %w", err)
	case !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0:
		return nil, true, fmt.Errorf("argsfile: %s is not a file only its owner can read (%s)", path, fi.Mode())
	case fi.Size() > maxSize:
		return nil, true, fmt.Errorf("argsfile: %s holds %d bytes, more than a command line", path, fi.Size())
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, true, fmt.Errorf("argsfile: %w", err)
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, true, fmt.Errorf("argsfile: %s: %w", path, err)
	}
	if args == nil {
		return nil, true, errors.New("argsfile: " + path + " holds no command line")
	}
	return args, true, nil
}
