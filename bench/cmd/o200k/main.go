// Command o200k prints how many o200k_base tokens its standard input is, as
// OpenAI's tokenizer counts them: the measure bench/tokens.sh reports in.
//
//	o200k < answer          the whole input
//	o200k -part data        one top-level member of an answer: of a JSON
//	                        envelope as written, of a TOON one its section
//	                        (the key's line and those indented under it),
//	                        of a JSONL answer every line but the summary
//	o200k -commands         no count: the keys of data.commands of a JSON
//	                        envelope (describe's), one per line
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/duet-cli/duet/tokens/tiktoken"
)

func main() {
	part := flag.String("part", "", "count only this top-level member of the envelope (data, meta, …)")
	commands := flag.Bool("commands", false, "print the keys of data.commands instead of a count")
	flag.Parse()
	in, err := io.ReadAll(os.Stdin)
	if err == nil && *commands {
		var env struct {
			Data struct{ Commands map[string]json.RawMessage }
		}
		if err = json.Unmarshal(in, &env); err == nil {
			for _, k := range slices.Sorted(maps.Keys(env.Data.Commands)) {
				fmt.Println(k)
			}
			return
		}
	}
	if err == nil && *part != "" {
		in, err = member(in, *part)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "o200k:", err)
		os.Exit(1)
	}
	fmt.Println(tiktoken.O200k().Count(string(in)))
}

// member finds one top-level member of an answer.
func member(in []byte, name string) ([]byte, error) {
	lines := bytes.SplitAfter(bytes.TrimRight(in, "\n"), []byte("\n"))
	switch {
	case len(lines) > 1 && in[0] == '{': // jsonl: items, then the summary
		if name == "data" {
			return bytes.Join(lines[:len(lines)-1], nil), nil
		}
		return member(lines[len(lines)-1], name)
	case in[0] == '{':
		var env map[string]json.RawMessage
		if err := json.Unmarshal(in, &env); err != nil {
			return nil, err
		}
		raw, ok := env[name]
		if !ok {
			return nil, fmt.Errorf("no member %q", name)
		}
		return raw, nil
	}
	// TOON: a top-level key starts a line; what belongs to it is indented.
	var out []byte
	in_ := false
	for _, l := range lines {
		if len(l) > 0 && l[0] != ' ' {
			key := l
			if i := bytes.IndexAny(l, "[:"); i >= 0 {
				key = l[:i]
			}
			in_ = string(key) == name
		}
		if in_ {
			out = append(out, l...)
		}
	}
	if out == nil {
		return nil, fmt.Errorf("no section %q", name)
	}
	return out, nil
}
