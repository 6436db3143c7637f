// Command o200k prints how many o200k_base tokens its standard input is, as
// OpenAI's tokenizer counts them: the measure bench/tokens.sh reports in.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/duet-cli/duet/tokens/tiktoken"
)

func main() {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "o200k:", err)
		os.Exit(1)
	}
	fmt.Println(tiktoken.O200k().Count(string(in)))
}
