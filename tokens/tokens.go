// Package tokens counts text as a language model reads it, for the token
// budgets an agent asks for (--token-limit, --token-offset, --token-count).
//
// [Estimate], the default, needs no vocabulary: it reads text in the runs a
// byte-pair encoder splits it into — words, numbers, punctuation, spaces —
// and counts each as OpenAI's cl100k_base encoding would to within a few
// percent on JSON and prose, at no cost to a program's size or start. An
// app that wants a model's exact count registers one (see package
// tokens/tiktoken and adapters.WithTokenizer); its vocabulary then ships
// in the app's binary.
package tokens

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A Tokenizer counts text as a language model reads it.
type Tokenizer interface {
	// Count returns how many tokens s is.
	Count(s string) int
	// Cut returns the longest prefix of s of at most n tokens, ending on a
	// token boundary.
	Cut(s string, n int) string
}

// Estimate is the tokenizer that needs no vocabulary.
var Estimate Tokenizer = estimate{}

type estimate struct{}

func (estimate) Count(s string) int {
	n := 0
	for _, r := range runs(s) {
		n += r.tokens
	}
	return n
}

func (e estimate) Cut(s string, n int) string {
	used := 0
	for _, r := range runs(s) {
		if used+r.tokens > n {
			// A long word is several tokens: keep the ones that fit.
			cut := s[:r.start]
			if r.per > 0 && n > used {
				cut = s[:r.start+prefixBytes(s[r.start:r.end], (n-used)*r.per)]
			}
			for e.Count(cut) > n {
				_, size := utf8.DecodeLastRuneInString(cut)
				cut = cut[:len(cut)-size]
			}
			return cut
		}
		used += r.tokens
	}
	return s
}

// run is a stretch of s a byte-pair encoder reads as one kind of thing, and
// the tokens it is; per is the characters of one token of a long run.
type run struct {
	start, end int
	tokens     int
	per        int
}

// The characters per token of a run of letters and of digits: cl100k_base
// holds most English words whole and splits digits in threes.
const (
	lettersPerToken = 6
	digitsPerToken  = 3
	punctPerToken   = 4
)

func runs(s string) []run {
	var out []run
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		start := i
		switch {
		case r == ' ' && i+size < len(s) && isWord(nextRune(s[i+size:])):
			// A space before a word is part of the word's token.
			i += size
			j := scan(s, i, isWord)
			out = append(out, wordRun(s, start, j))
			i = j
		case unicode.IsSpace(r):
			i = scan(s, i, unicode.IsSpace)
			out = append(out, run{start: start, end: i, tokens: 1})
		case unicode.IsDigit(r):
			i = scan(s, i, unicode.IsDigit)
			n := utf8.RuneCountInString(s[start:i])
			out = append(out, run{start: start, end: i, tokens: ceilDiv(n, digitsPerToken), per: digitsPerToken})
		case isWord(r):
			i = scan(s, i, isWord)
			out = append(out, wordRun(s, start, i))
		case strings.ContainsRune("/.-@#$", r) && i+size < len(s) && isWord(nextRune(s[i+size:])):
			// /home, .go, -flag: the sign is part of the word's token.
			i += size
			j := scan(s, i, isWord)
			out = append(out, wordRun(s, i, j))
			out[len(out)-1].start = start
			i = j
		default:
			// JSON's ":" and "," and {" are one token each.
			i = scan(s, i, isPunct)
			out = append(out, run{start: start, end: i, tokens: ceilDiv(utf8.RuneCountInString(s[start:i]), punctPerToken), per: punctPerToken})
		}
	}
	return out
}

func wordRun(s string, start, end int) run {
	n := 0
	for _, r := range strings.TrimPrefix(s[start:end], " ") {
		if r < utf8.RuneSelf {
			n++
		} else {
			n += lettersPerToken / 2 // other scripts take more tokens a character
		}
	}
	return run{start: start, end: end, tokens: ceilDiv(n, lettersPerToken), per: lettersPerToken}
}

func isWord(r rune) bool { return unicode.IsLetter(r) || r == '_' }

func isPunct(r rune) bool { return !isWord(r) && !unicode.IsDigit(r) && !unicode.IsSpace(r) }

func nextRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func scan(s string, i int, in func(rune) bool) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !in(r) {
			break
		}
		i += size
	}
	return i
}

// prefixBytes is the length in bytes of the first chars characters of s.
func prefixBytes(s string, chars int) int {
	i := 0
	for ; chars > 0 && i < len(s); chars-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
