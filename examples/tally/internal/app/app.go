// Package app is tally's command tree: a small text tool written on cobra
// the way CLIs usually are — output printed straight to stdout, cobra's
// argument validators, grouped short flags, a default command chosen with
// SetArgs, aliases, deprecations, and a command that runs until it is
// stopped. It knows nothing of Duet: cmd/tally runs it bare or wrapped,
// and examples/tally/e2e holds the two to the same bytes.
package app

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/cobra"
)

// Version is tally's version.
const Version = "1.4.2"

// New returns tally's root command.
func New() *cobra.Command {
	root := &cobra.Command{
		Use:          "tally",
		Short:        "Count lines, words and characters, and the words used most",
		SilenceUsage: true, // errors from a run print without the usage
	}
	root.AddCommand(count(), top(), words(), caseCmd(), follow(), version())
	return root
}

// Args returns the command line to run: a first word that is no command is
// a file to count, as with `tally notes.txt`.
func Args(root *cobra.Command, args []string) []string {
	if _, _, err := root.Find(args); err != nil && len(args) > 0 && !strings.HasPrefix(args[0], "__") {
		return append([]string{"count"}, args...)
	}
	return args
}

type counts struct{ lines, words, chars int }

func tallyOf(r io.Reader) (counts, error) {
	var c counts
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			c.chars += len([]rune(line))
			c.words += len(strings.Fields(line))
			if strings.HasSuffix(line, "\n") {
				c.lines++
			}
		}
		if errors.Is(err, io.EOF) {
			return c, nil
		}
		if err != nil {
			return c, err
		}
	}
}

// inputs calls fn with each file named, or with stdin when none is.
func inputs(cmd *cobra.Command, names []string, fn func(name string, r io.Reader) error) error {
	if len(names) == 0 {
		return fn("", cmd.InOrStdin())
	}
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		err = fn(name, f)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func count() *cobra.Command {
	var lines, wordsOnly, chars, bytes bool
	cmd := &cobra.Command{
		Use:     "count [file]...",
		Aliases: []string{"wc"},
		Short:   "Count the lines, words and characters of files, or of stdin",
		Example: "# lines and words of two files\ntally count -lw a.txt b.txt\n\n# the same, count being the default command\ntally a.txt b.txt",
		RunE: func(cmd *cobra.Command, args []string) error {
			chars = chars || bytes
			all := !lines && !wordsOnly && !chars
			var total counts
			err := inputs(cmd, args, func(name string, r io.Reader) error {
				c, err := tallyOf(r)
				if err != nil {
					return err
				}
				total.lines, total.words, total.chars = total.lines+c.lines, total.words+c.words, total.chars+c.chars
				printCounts(c, name, lines || all, wordsOnly || all, chars || all)
				return nil
			})
			if err == nil && len(args) > 1 {
				printCounts(total, "total", lines || all, wordsOnly || all, chars || all)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&lines, "lines", "l", false, "count lines")
	f.BoolVarP(&wordsOnly, "words", "w", false, "count words")
	f.BoolVarP(&chars, "chars", "c", false, "count characters")
	f.BoolVar(&bytes, "bytes", false, "count characters")
	_ = f.MarkDeprecated("bytes", "use -c")
	return cmd
}

func printCounts(c counts, name string, lines, words, chars bool) {
	var cols []string
	for _, col := range []struct {
		on bool
		n  int
	}{{lines, c.lines}, {words, c.words}, {chars, c.chars}} {
		if col.on {
			cols = append(cols, fmt.Sprintf("%7d", col.n))
		}
	}
	fmt.Println(strings.TrimRight(strings.Join(cols, " ")+" "+name, " "))
}

func top() *cobra.Command {
	var n int
	var ignoreCase bool
	cmd := &cobra.Command{
		Use:   "top [file]",
		Short: "Print the words used most, most used first",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if n < 1 {
				return fmt.Errorf("-n must be at least 1, not %d", n)
			}
			freq := map[string]int{}
			err := inputs(cmd, args, func(_ string, r io.Reader) error {
				s := bufio.NewScanner(r)
				s.Split(bufio.ScanWords)
				for s.Scan() {
					w := strings.TrimFunc(s.Text(), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
					if ignoreCase {
						w = strings.ToLower(w)
					}
					if w != "" {
						freq[w]++
					}
				}
				return s.Err()
			})
			if err != nil {
				return err
			}
			ranked := make([]string, 0, len(freq))
			for w := range freq {
				ranked = append(ranked, w)
			}
			slices.SortFunc(ranked, func(a, b string) int { return cmp.Or(freq[b]-freq[a], strings.Compare(a, b)) })
			for _, w := range ranked[:min(n, len(ranked))] {
				fmt.Fprintf(cmd.OutOrStdout(), "%5d %s\n", freq[w], w)
			}
			return nil
		},
	}
	cmd.Flags().IntVarP(&n, "number", "n", 10, "how many words")
	cmd.Flags().BoolVarP(&ignoreCase, "ignore-case", "i", false, "count Word and word as one")
	return cmd
}

func words() *cobra.Command {
	return &cobra.Command{
		Use:        "words [file]...",
		Short:      "Count words",
		Deprecated: "use 'tally count -w' instead",
		RunE: func(cmd *cobra.Command, args []string) error {
			return inputs(cmd, args, func(name string, r io.Reader) error {
				c, err := tallyOf(r)
				if err == nil {
					printCounts(c, name, false, true, false)
				}
				return err
			})
		},
	}
}

func caseCmd() *cobra.Command {
	return &cobra.Command{
		Use:       "case upper|lower",
		Short:     "Copy stdin to stdout in upper or lower case",
		ValidArgs: []string{"upper", "lower"},
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			to := strings.ToUpper
			if args[0] == "lower" {
				to = strings.ToLower
			}
			in, err := io.ReadAll(cmd.InOrStdin())
			if err != nil {
				return err
			}
			_, err = os.Stdout.WriteString(to(string(in)))
			return err
		},
	}
}

func follow() *cobra.Command {
	var every time.Duration
	cmd := &cobra.Command{
		Use:   "follow file",
		Short: "Print the line count of a file each time it grows, until interrupted",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			last := -1
			for {
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				c, err := tallyOf(f)
				f.Close()
				if err != nil {
					return err
				}
				if c.lines != last {
					fmt.Printf("%d lines\n", c.lines)
					last = c.lines
				}
				time.Sleep(every)
			}
		},
	}
	cmd.Flags().DurationVar(&every, "every", 100*time.Millisecond, "how often to look")
	return cmd
}

func version() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print tally's version",
		Args:  cobra.NoArgs,
		Run: func(*cobra.Command, []string) {
			fmt.Println("tally " + Version)
		},
	}
}
