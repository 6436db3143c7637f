// Package wrapped holds what every adapter's App does alike around its
// framework: finding whether the app declares anything, and preparing its
// neutral command tree once. The framework-specific parts (reading the
// framework's commands, wrapping their actions) are the adapter's.
package wrapped

import (
	"sync"

	"github.com/duet-cli/duet/adapters"
	"github.com/duet-cli/duet/schema"
)

// Declared reports whether cmd or a command below it carries Duet
// declarations, as declared says of one command; subs lists a command's
// subcommands.
func Declared[C any](cmd C, declared func(C) bool, subs func(C) []C) bool {
	if declared(cmd) {
		return true
	}
	for _, sub := range subs(cmd) {
		if Declared(sub, declared, subs) {
			return true
		}
	}
	return false
}

// Tree is an app's neutral command tree, prepared once. An app that
// declares something is prepared by Wrap, which reports what does not
// hold; one that declares nothing, when the tree is first needed — what
// adapters.Prepare checks comes from declarations, so it holds.
type Tree struct {
	once sync.Once
	err  error
}

// Prepare builds the tree, completes and checks it (adapters.Prepare with
// opts, the options the app was wrapped with) and hands it to install,
// which wraps the framework's actions — the first time it is called; then
// it returns what the first call found.
func (t *Tree) Prepare(build func() *schema.Command, opts []adapters.Option, install func(*schema.Command)) error {
	t.once.Do(func() {
		tree := build()
		t.err = adapters.Prepare(tree, opts...)
		install(tree)
	})
	return t.err
}
