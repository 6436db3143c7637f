//go:build !unix

package adapters

import "errors"

// captureProcess is not available here: the capture takes what the
// framework writes to its streams.
func captureProcess(int) (*capture, error) {
	return nil, errors.New("no descriptor capture on this system")
}
