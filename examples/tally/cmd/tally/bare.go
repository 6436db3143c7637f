//go:build bare

package main

import (
	"os"

	"github.com/spf13/cobra"
)

func run(root *cobra.Command) {
	if err := root.Execute(); err != nil {
		os.Exit(1)
	}
}
