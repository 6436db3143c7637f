//go:build !unix

package adapters

import (
	"errors"

	"github.com/duet-cli/duet/internal/jobstore"
)

var errNoJobs = errors.New("async commands run detached only on Unix systems")

func spawnJob(*jobstore.Store, *jobstore.Job, string, []string, []string) error { return errNoJobs }

func keepJobLock() {}

func terminate(int) error { return errNoJobs }
