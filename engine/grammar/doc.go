// Package grammar constrains generation to a GBNF grammar with llama.cpp's
// syntax and semantics (src/llama-grammar.cpp): Parse reads and checks the
// grammar, an Index decodes a vocabulary once, and a Matcher follows the
// generated tokens and tells the sampler which may come next (it is a
// sample.Constraint).
//
// The runtime is llama.cpp's pushdown automaton: a set of parse stacks over
// the grammar's elements, advanced code point by code point, with UTF-8
// sequences split across tokens carried as a partial sequence. What differs
// is how the work is shared, not what is computed:
//   - stacks are interned (equal stacks are one id), and the advanced stacks
//     after each terminal are memoized;
//   - sets of stacks are interned too, with their transitions on each code
//     point, so the parse states form a DFA built lazily;
//   - Filter walks a trie of the vocabulary's decoded pieces, so a prefix
//     shared by many tokens is matched once, and keeps the accepted-token
//     bitsets of recent states.
//
// Bad grammars are errors, never panics: undefined rules, a missing root,
// left recursion, repetitions above 2000 (llama.cpp's limit), grammars
// above MaxSourceBytes or MaxElements, parentheses nested deeper than
// MaxNesting. A grammar so ambiguous that more than MaxStacks parses are
// alive at once fails the Matcher with ErrTooComplex.
//
// Deliberate differences from llama.cpp: a NUL byte in the grammar text is
// an error (llama.cpp stops reading there); {m,n} with n < m is an error
// (llama.cpp loops); a failed Matcher allows only end-of-generation tokens
// and reports Err instead of aborting the process.
package grammar
