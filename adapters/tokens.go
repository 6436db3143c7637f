package adapters

import (
	"github.com/duet-cli/duet/envelope"
	"github.com/duet-cli/duet/tokens"
)

// defaultTokenizer is what --tokenizer names unless the app registers its
// own (WithTokenizer): package tokens' estimate, which costs a program
// nothing to carry.
const defaultTokenizer = "estimate"

// WithTokenizer registers a tokenizer --tokenizer can name, such as
// tiktoken.Cl100k() as tiktoken.Cl100kBase; the first registered is the
// default. Without one, token budgets are counted by tokens.Estimate.
func WithTokenizer(name string, t tokens.Tokenizer) Option {
	return func(c *config) {
		c.tokenizers = append(c.tokenizers, namedTokenizer{name, t})
	}
}

type namedTokenizer struct {
	name string
	t    tokens.Tokenizer
}

// tokenizerNames are the values --tokenizer takes, the default first.
func (c *config) tokenizerNames() []string {
	names := make([]string, 0, len(c.tokenizers)+1)
	for _, t := range c.tokenizers {
		names = append(names, t.name)
	}
	return append(names, defaultTokenizer)
}

// tokenizerNamed returns the tokenizer called name, or the default.
func (c *config) tokenizerNamed(name string) envelope.Tokenizer {
	for _, t := range c.tokenizers {
		if t.name == name || name == "" {
			return t.t
		}
	}
	return tokens.Estimate
}
