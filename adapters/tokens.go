package adapters

import (
	"strings"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/duet-cli/duet/envelope"
)

// The tokenizers of --tokenizer, OpenAI's BPE encodings as tiktoken-go
// embeds them (no download): cl100k_base is the spec's usual default,
// o200k_base the newer models'. Neither is any model's exactly; both count
// JSON within a few percent of the others in use. A vocabulary is built
// only when a token flag is given.
const (
	tokenizerCl100k  = "cl100k_base"
	tokenizerO200k   = "o200k_base"
	defaultTokenizer = tokenizerCl100k
)

func tokenizerNames() []string { return []string{tokenizerCl100k, tokenizerO200k} }

// tokenizerNamed returns the tokenizer called name, or the default.
func tokenizerNamed(name string) envelope.Tokenizer {
	if name == tokenizerO200k {
		return bpe{codec.NewO200kBase()}
	}
	return bpe{codec.NewCl100kBase()}
}

type bpe struct{ c *codec.Codec }

func (t bpe) Count(s string) int {
	n, err := t.c.Count(s)
	if err != nil { // invalid UTF-8 is not in an answer: JSON replaced it
		return len(s)
	}
	return n
}

func (t bpe) Cut(s string, n int) string {
	_, tokens, err := t.c.Encode(s)
	if err != nil || n >= len(tokens) {
		return s
	}
	cut := strings.Join(tokens[:max(n, 0)], "")
	// A token may end inside a character: end on the last whole one.
	for len(cut) > 0 && !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return cut
}
