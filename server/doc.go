// Package server is Waggle's OpenAI-compatible HTTP front end on fasthttp,
// shaped after llama-server so that its users can switch without surprises:
// the same routes (/v1/chat/completions, /v1/completions, /completion,
// /tokenize, /props, /slots, /metrics, …), request fields, response and SSE
// shapes, timings object and error objects.
//
// One scheduler goroutine owns the engine Session (which is not safe for
// concurrent use). It runs --parallel slots, one KV sequence each, and
// continuous batching: every step decodes one token for each generating
// slot plus a chunk of pending prompts, in one engine.Batch. Requests wait
// for a slot in a bounded queue; a full queue answers 503 with Retry-After.
//
// With Config.Speculator set (waggle serve --spec-type …), one
// spec.Speculator runs over the same session: each slot keeps one
// long-lived spec.Slot, newly assigned speculative slots are prefilled
// through Speculator.Start, and after the plain batch each step runs one
// Speculator.Step that drafts for every speculative slot and verifies all
// drafts in one batch (speculative.go).
//
// The server reaches the tokenizer and the sampler through small interfaces
// (Tokenizer, Sampler) because its import rules allow only engine,
// engine/chat, spec and fasthttp; cmd/waggle wires the concrete ones.
package server
