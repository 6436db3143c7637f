//go:build !unix

package walk

import "io/fs"

// idOf has no device and inode to give here: loops are found with
// os.SameFile against the directories being walked.
func idOf(fs.FileInfo) (fileID, bool) { return fileID{}, false }
