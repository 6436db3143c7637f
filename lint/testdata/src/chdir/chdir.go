// Package chdir is what duetvet's chdir analyzer is tested on: each line it
// must report carries a want comment.
package chdir

import (
	"os"
	"syscall"
)

func wander(dir string) error {
	if err := os.Chdir(dir); err != nil { // want `os.Chdir changes the working directory`
		return err
	}
	f, _ := os.Open(dir)
	_ = f.Chdir()             // want `os.File.Chdir changes the working directory`
	return syscall.Chdir(dir) // want `syscall.Chdir changes the working directory`
}

func restore(dir string) {
	//duetvet:allow chdir -- puts back what a command changed
	_ = os.Chdir(dir)
	_ = os.Chdir(dir) //duetvet:allow exitliteral chdir
	//duetvet:allow exitliteral -- names another analyzer
	_ = os.Chdir(dir) // want `os.Chdir changes the working directory`
}
