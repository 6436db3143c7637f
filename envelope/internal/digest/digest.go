// Package digest holds the hash a binary result written with --output is
// described with, which package envelope/filedigest sets: envelope itself
// links no crypto (adapters' TestStartCostDeps).
package digest

// SHA256 returns the lowercase hex SHA-256 digest of b; nil unless the app
// imports envelope/filedigest.
var SHA256 func(b []byte) string
