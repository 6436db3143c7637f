// Command scorecard renders duet-check's report as its markdown scorecard:
// it reads the envelope `duet-check check --format json` printed on stdin
// and writes what `--markdown` would have, for the same run.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/duet-cli/duet/conformance"
)

func main() {
	var answer struct {
		Data *conformance.Report `json:"data"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&answer); err != nil || answer.Data == nil {
		fmt.Fprintln(os.Stderr, "scorecard: stdin is not duet-check's report envelope:", err)
		os.Exit(2)
	}
	if err := answer.Data.WriteMarkdown(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "scorecard:", err)
		os.Exit(1)
	}
}
