//go:build !unix

package proc

// closeOnExec has nothing to do: a handle is inherited only when it is
// passed.
func closeOnExec() {}
