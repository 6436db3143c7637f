// Package tiktoken gives the exact counts of OpenAI's byte-pair encodings,
// cl100k_base and o200k_base, as tiktoken-go embeds them. Their
// vocabularies add about 9 MB to a program; register them only in an app
// whose agents need exact counts:
//
//	urfave.Wrap(app, adapters.WithTokenizer(tiktoken.Cl100kBase, tiktoken.Cl100k()))
package tiktoken

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/duet-cli/duet/tokens"
)

// The names of the encodings, as --tokenizer takes them.
const (
	Cl100kBase = "cl100k_base"
	O200kBase  = "o200k_base"
)

// Cl100k returns the cl100k_base encoding; its vocabulary is built on first use.
func Cl100k() tokens.Tokenizer { return bpe{codec: sync.OnceValue(codec.NewCl100kBase)} }

// O200k returns the o200k_base encoding; its vocabulary is built on first use.
func O200k() tokens.Tokenizer { return bpe{codec: sync.OnceValue(codec.NewO200kBase)} }

type bpe struct{ codec func() *codec.Codec }

func (t bpe) Count(s string) int {
	n, err := t.codec().Count(s)
	if err != nil { // invalid UTF-8 is not in an answer: JSON replaced it
		return len(s)
	}
	return n
}

func (t bpe) Cut(s string, n int) string {
	_, toks, err := t.codec().Encode(s)
	if err != nil || n >= len(toks) {
		return s
	}
	cut := strings.Join(toks[:max(n, 0)], "")
	// A token may end inside a character: end on the last whole one.
	for len(cut) > 0 && !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return cut
}
