package server

import (
	"encoding/json"
	"reflect"

	"github.com/valyala/fasthttp"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/chat"
)

// APIConfig holds the settings of the routes beyond chat and completions:
// embeddings, infill and the web page. Config embeds it.
type APIConfig struct {
	// Embeddings is --embeddings: /v1/embeddings, /embeddings and
	// /embedding answer; without it they answer 501, as llama-server.
	Embeddings bool
	// Pooling is --pooling (none, mean, cls, last); empty means
	// ModelPooling.
	Pooling string
	// ModelPooling is the GGUF's <arch>.pooling_type (ConfigFor reads it;
	// none when the file has none, as for generative models).
	ModelPooling engine.Pooling
	// SPMInfill is --spm-infill: /infill puts the suffix before the
	// prefix, for models trained that way.
	SPMInfill bool
	// NoWebUI is --no-webui: GET / answers 404 instead of the chat page.
	NoWebUI bool

	// poolingErr is a pooling_type ConfigFor could not read; it matters
	// only when embeddings are on and --pooling does not override it.
	poolingErr error
}

// apiConfigFor reads the model's pooling type.
func apiConfigFor(l *engine.Loaded) APIConfig {
	var c APIConfig
	if l.File != nil {
		c.ModelPooling, c.poolingErr = engine.ModelPooling(l.File)
	}
	return c
}

// withAPIRoutes adds the routes of this file's family to the table: the
// OpenAI Responses and Anthropic Messages APIs, infill, embeddings, the
// web page, and a 501 for every llama-server route Waggle does not have.
// A path and method the table already holds keeps its handler.
func (s *Server) withAPIRoutes(t map[string]map[string]route) map[string]map[string]route {
	post := func(fn func(*fasthttp.RequestCtx)) map[string]route { return map[string]route{"POST": {fn: fn}} }
	add := map[string]map[string]route{
		"/v1/responses":             post(s.handleResponses),
		"/responses":                post(s.handleResponses),
		"/v1/messages":              post(s.handleMessages),
		"/v1/messages/count_tokens": post(s.handleCountTokens),
		"/infill":                   post(s.handleInfill),
		"/v1/embeddings":            post(func(ctx *fasthttp.RequestCtx) { s.handleEmbeddings(ctx, true) }),
		"/embeddings":               post(func(ctx *fasthttp.RequestCtx) { s.handleEmbeddings(ctx, false) }),
		"/embedding":                post(func(ctx *fasthttp.RequestCtx) { s.handleEmbeddings(ctx, false) }),
	}
	if !s.cfg.NoWebUI {
		page := map[string]route{"GET": {fn: s.handleWebUI, public: true}}
		add["/"], add["/index.html"] = page, page
	}
	merge(add, absentRoutes())
	merge(t, add)
	return t
}

// merge adds to t every path and method of add that t lacks.
func merge(t, add map[string]map[string]route) {
	for path, methods := range add {
		if t[path] == nil {
			t[path] = map[string]route{}
		}
		for verb, r := range methods {
			if _, ok := t[path][verb]; !ok {
				t[path][verb] = r
			}
		}
	}
}

// absentRoutes answers llama-server's routes that Waggle does not serve
// with 501 and the reason, never a 404 that looks like a typo.
func absentRoutes() map[string]map[string]route {
	out := map[string]map[string]route{}
	add := func(why string, methods []string, paths ...string) {
		fn := func(ctx *fasthttp.RequestCtx) { writeError(ctx, notSupportedError("%s", why)) }
		for _, p := range paths {
			m := map[string]route{}
			for _, verb := range methods {
				m[verb] = route{fn: fn}
			}
			out[p] = m
		}
	}
	post, both := []string{"POST"}, []string{"GET", "POST"}
	add("reranking is not supported: Waggle has no reranker models (llama-server: --reranking)", post,
		"/rerank", "/reranking", "/v1/rerank", "/v1/reranking")
	add("LoRA adapters are not supported", both, "/lora-adapters")
	add("audio transcription is not supported: Waggle has no audio models", post,
		"/v1/audio/transcriptions", "/audio/transcriptions")
	add("changing global properties is not supported", post, "/props")
	add("the router mode (several models per server) is not supported", post, "/models/load", "/models/unload")
	add("the web UI's CORS proxy is not supported", both, "/cors-proxy")
	add("the web UI's tool server is not supported", both, "/tools")
	return out
}

// notSupportedError is llama-server's ERROR_TYPE_NOT_SUPPORTED: 501.
func notSupportedError(format string, args ...any) *apiError {
	return newError(fasthttp.StatusNotImplemented, "not_supported_error", format, args...)
}

// splitter separates a choice's text into content, reasoning and tool
// calls for the chat-shaped routes, as chat does: the reasoning parser,
// reasoning_format none's thinkPrefill before the first content, and the
// answer parser (tool calls, or a JSON answer) over the content.
type splitter struct {
	p       *chat.Reasoning
	prefill string
	a       *answer // nil: the content stays as generated
}

// splitterOf is choice i's splitter.
func (run *chatRun) splitterOf(i int) *splitter {
	sp := &splitter{p: run.parsers[i], prefill: run.prefill[i]}
	if run.answers != nil {
		sp.a = run.answers[i]
	}
	return sp
}

// Add returns what is certain after text.
func (sp *splitter) Add(text string) (content, reasoning string, calls []chat.ToolCall) {
	c, r := sp.p.Add(text)
	c, calls = sp.answer(c, false)
	return sp.withPrefill(c, false), r, calls
}

// Flush returns the rest at the end of the choice.
func (sp *splitter) Flush() (content, reasoning string, calls []chat.ToolCall) {
	c, r := sp.p.Flush()
	c, calls = sp.answer(c, true)
	return sp.withPrefill(c, true), r, calls
}

func (sp *splitter) answer(c string, done bool) (string, []chat.ToolCall) {
	if sp.a == nil {
		return c, nil
	}
	return sp.a.add(c, done)
}

func (sp *splitter) withPrefill(c string, final bool) string {
	if c != "" || final {
		c, sp.prefill = sp.prefill+c, ""
	}
	return c
}

// all is the whole choice: Add then Flush.
func (sp *splitter) all(text string) (content, reasoning string, calls []chat.ToolCall) {
	c1, r1, k1 := sp.Add(text)
	c2, r2, k2 := sp.Flush()
	return c1 + c2, r1 + r2, append(k1, k2...)
}

// decodeSplit decodes a body whose top-level fields belong to two request
// structs: own's fields (a route's own API: Responses, Messages, infill)
// into own, every other field into r, each under decodeRequest's checks,
// so a field neither declares is still a 400.
func decodeSplit(body []byte, own any, r *rawRequest) *apiError {
	keys := declaredFields(reflect.TypeOf(own))
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return decodeRequest(body, own) // not an object: decodeRequest says why
	}
	mine, rest := map[string]json.RawMessage{}, map[string]json.RawMessage{}
	for k, v := range obj {
		if keys[k] {
			mine[k] = v
		} else {
			rest[k] = v
		}
	}
	b, _ := json.Marshal(mine)
	if e := decodeRequest(b, own); e != nil {
		return e
	}
	b, _ = json.Marshal(rest)
	return decodeRequest(b, r)
}
