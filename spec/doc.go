// Package spec is Waggle's speculative decoding: a chain of drafting
// strategies shaped like llama.cpp's common_speculative, the verify, accept
// and rollback loop built only on engine.Session verbs, adaptive draft
// depth, and per-strategy statistics.
//
// One cycle for a sequence whose KV cache holds every token but the last
// emitted one (Last):
//
//  1. the chain asks its strategies, in a fixed priority order, for a draft
//     continuing History+Last; the first non-empty draft wins;
//  2. the target decodes [Last, d1..dk] in one batch with every position an
//     output;
//  3. row i is the target's distribution after d1..di: draft tokens are
//     accepted while the target agrees (greedy: its argmax equals d(i+1);
//     sampled: the standard min(1, p/q) rule with a residual resample), and
//     the target's own token at the first disagreement (or after the whole
//     draft) is emitted as well, so every cycle emits at least one token;
//  4. the cells of rejected drafts are removed with Session.Truncate.
//
// Greedy output is therefore identical, token for token, to plain greedy
// decoding (as far as the engine's batched logits equal its one-token
// logits), and sampled output has exactly the target's distribution. Every
// strategy here drafts deterministically, so the drafter's distribution q is
// a point mass on the drafted token.
//
// Strategies live in subpackages (spec/ngram, spec/ngramcache, spec/copyspec,
// spec/suffix, spec/recycle, spec/draft) and register themselves by name;
// a program blank-imports the ones it offers, exactly as it does with model
// architectures.
package spec
