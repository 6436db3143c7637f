//go:build !unix

package sessiondir

import "io/fs"

// alive cannot tell here: a session is judged by its age alone.
func alive(int) bool { return false }

// private cannot tell here: the system's own temp directory is per user.
func private(fs.FileInfo) bool { return true }

// canTell says whether alive can tell a process is gone.
const canTell = false
