//go:build !unix

package mcp

import "os/exec"

// ownGroup does nothing where there are no process groups.
func ownGroup(*exec.Cmd) {}

// signalGroup stops cmd's process: there is no group to signal, nor a
// SIGTERM to answer, so it is killed either way.
func signalGroup(cmd *exec.Cmd, _ bool) { _ = cmd.Process.Kill() }
