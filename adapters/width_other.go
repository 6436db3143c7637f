//go:build !unix

package adapters

import "io"

// ttyColumns is 0 where Duet does not ask the terminal its size: $COLUMNS
// or --width set the width there.
func ttyColumns(io.Writer) int { return 0 }
