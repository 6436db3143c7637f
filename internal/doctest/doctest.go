// Package doctest holds the test that keeps the Go in the repository's
// Markdown honest: a whole program (a block that starts with package) is
// built against this version of Duet, and a fragment is parsed and every
// name it takes from a Duet package is looked up in that package. It has
// no code of its own.
package doctest
