package sample

import (
	"slices"
	"strings"
)

// Vocab is what NewBreakers needs of a tokenizer; *tokenizer.Tokenizer
// satisfies it.
type Vocab interface {
	NVocab() int
	// Decode is llama_detokenize (NewBreakers asks for one token with
	// special tokens shown).
	Decode(ids []int32, removeSpecial, unparseSpecial bool) string
	// Encode is llama_tokenize (NewBreakers asks for plain text: no BOS,
	// no special-token parsing).
	Encode(text string, addSpecial, parseSpecial bool) []int32
}

// Limits llama.cpp puts on sequence breakers: longer strings are cut to
// MaxBreakerLen bytes and the token tail of a breaker to 20 tokens.
const (
	MaxBreakerLen     = 40
	maxBreakerTailLen = 20
)

// Breakers are DRY's sequence breakers turned into token sequences the way
// llama.cpp's get_overlapping_token_sequences does, so that a breaker is
// recognised whatever way the text was tokenized: every token whose text
// contains a breaker string is a breaker on its own; a token whose text
// ends with a prefix of a breaker starts one, completed by the tokenization
// of the rest of the string. Building them scans the whole vocabulary once
// per string; a Breakers value is immutable and may be shared by any number
// of Samplers.
type Breakers struct {
	strs  []string
	heads map[int32][][]int32 // head token -> tails; an empty tail is a one-token breaker
}

// NewBreakers processes breaker strings against v. Empty strings are
// skipped and long ones cut to MaxBreakerLen bytes, as in llama.cpp.
func NewBreakers(v Vocab, strs []string) *Breakers {
	b := &Breakers{strs: slices.Clone(strs), heads: map[int32][][]int32{}}
	var work []string
	for _, s := range strs {
		if s == "" {
			continue
		}
		if len(s) > MaxBreakerLen {
			s = s[:MaxBreakerLen]
		}
		work = append(work, s)
	}
	if len(work) == 0 {
		return b
	}
	ids := make([]int32, 1)
	for id := range v.NVocab() {
		ids[0] = int32(id)
		word := v.Decode(ids, false, true)
		for _, s := range work {
			b.addOverlaps(v, int32(id), word, s)
		}
	}
	return b
}

// BreakersFromTokens builds Breakers from token sequences directly (each
// sequence's first token is the head), as llama.cpp's test entry point
// does; strs are only reported by Strings.
func BreakersFromTokens(seqs [][]int32) *Breakers {
	b := &Breakers{heads: map[int32][][]int32{}}
	for _, s := range seqs {
		if len(s) > 0 {
			b.add(s[0], slices.Clone(s[1:]))
		}
	}
	return b
}

// Strings returns the breaker strings as given.
func (b *Breakers) Strings() []string {
	if b == nil {
		return nil
	}
	return slices.Clone(b.strs)
}

// addOverlaps records the breakers s forms with token id, whose text is word.
func (b *Breakers) addOverlaps(v Vocab, id int32, word, s string) {
	if strings.Contains(word, s) {
		b.add(id, nil)
		return
	}
	for pos := strings.IndexByte(word, s[0]); pos >= 0; {
		i := 1
		for ; i < len(s) && pos+i < len(word); i++ {
			if word[pos+i] != s[i] {
				break
			}
		}
		if i == len(s) || pos+i == len(word) { // word ends with s[:i]
			tail := v.Encode(s[i:], false, false)
			if len(tail) > maxBreakerTailLen {
				tail = tail[:maxBreakerTailLen]
			}
			b.add(id, tail)
		}
		next := strings.IndexByte(word[pos+1:], s[0])
		if next < 0 {
			break
		}
		pos += 1 + next
	}
}

// add records a tail for head unless the same tail is already there.
func (b *Breakers) add(head int32, tail []int32) {
	for _, t := range b.heads[head] {
		if slices.Equal(t, tail) {
			return
		}
	}
	b.heads[head] = append(b.heads[head], tail)
}

// single reports whether tok is a one-token breaker.
func (b *Breakers) single(tok int32) bool {
	if b == nil {
		return false
	}
	for _, t := range b.heads[tok] {
		if len(t) == 0 {
			return true
		}
	}
	return false
}

// tails returns the tails of breakers that start with tok.
func (b *Breakers) tails(tok int32) [][]int32 {
	if b == nil {
		return nil
	}
	return b.heads[tok]
}
