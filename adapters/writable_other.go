//go:build !unix

package adapters

import "os"

// canWrite reports whether the process may create files in dir: where
// there is no access(2), by creating one.
func canWrite(dir string) bool {
	f, err := os.CreateTemp(dir, ".duet-doctor-*")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}
