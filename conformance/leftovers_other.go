//go:build !linux

package conformance

// leftovers finds nothing where there is no /proc to look in.
func leftovers(string) []leftover { return nil }

// runTagOf knows no process where there is no /proc to look in.
func runTagOf(int) string { return "" }
