package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// Bounds on what one request may ask for.
const (
	maxJSONDepth = 64
	maxChoices   = 16 // n
	maxStops     = 16
	maxStopLen   = 256
	maxTopProbs  = 20
	maxPrompts   = 16 // prompts in one /v1/completions request
)

// rawRequest holds every field of the generation routes (request_fields.go
// says what happens to others). Polymorphic fields stay raw.
type rawRequest struct {
	Model               string           `json:"model"`
	Messages            []rawMessage     `json:"messages"`
	Prompt              json.RawMessage  `json:"prompt"`
	MaxTokens           *int             `json:"max_tokens"`
	MaxCompletionTokens *int             `json:"max_completion_tokens"`
	NPredict            *int             `json:"n_predict"`
	Temperature         *float64         `json:"temperature"`
	TopP                *float64         `json:"top_p"`
	TopK                *int             `json:"top_k"`
	MinP                *float64         `json:"min_p"`
	TypicalP            *float64         `json:"typical_p"`
	PresencePenalty     *float64         `json:"presence_penalty"`
	FrequencyPenalty    *float64         `json:"frequency_penalty"`
	RepeatPenalty       *float64         `json:"repeat_penalty"`
	RepeatLastN         *int             `json:"repeat_last_n"`
	Seed                *int64           `json:"seed"`
	Stop                json.RawMessage  `json:"stop"`
	N                   *int             `json:"n"`
	Logprobs            json.RawMessage  `json:"logprobs"`
	TopLogprobs         *int             `json:"top_logprobs"`
	NProbs              *int             `json:"n_probs"`
	Stream              bool             `json:"stream"`
	StreamOptions       *streamOptions   `json:"stream_options"`
	CachePrompt         *bool            `json:"cache_prompt"`
	ReasoningFormat     string           `json:"reasoning_format"`
	ChatTemplateKwargs  map[string]any   `json:"chat_template_kwargs"`
	Tools               json.RawMessage  `json:"tools"`
	AddGenerationPrompt *bool            `json:"add_generation_prompt"`
	Echo                bool             `json:"echo"`
	BestOf              *int             `json:"best_of"`
	Suffix              *json.RawMessage `json:"suffix"`
	NKeep               *int             `json:"n_keep"`
	NDiscard            *int             `json:"n_discard"`
	ReturnTokens        bool             `json:"return_tokens"` // /completion: fill "tokens"
	specRequest
	grammarRequest
	samplingRequest
	diffusionRequest
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type rawMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	Name             string          `json:"name"`
	ToolCallID       string          `json:"tool_call_id"`
	ToolCalls        json.RawMessage `json:"tool_calls"`
}

// decodeRequest parses a body into v (a pointer to a request struct): it
// checks the nesting depth first, requires a JSON object, maps decoder
// errors onto 400s that name the field in JSON's terms, and applies the
// field policy of request_fields.go.
func decodeRequest(body []byte, v any) *apiError {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return badRequest("", "the request body is empty; send a JSON object")
	}
	if err := checkDepth(body, maxJSONDepth); err != nil {
		return badRequest("", "%v", err)
	}
	if trimmed[0] != '{' {
		if !json.Valid(trimmed) {
			return badRequest("", "the request body is not valid JSON; send a JSON object")
		}
		return badRequest("", "the request body must be a JSON object, got %s", jsonValueKind(trimmed))
	}
	if err := json.Unmarshal(body, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			f := jsonField(te.Field)
			return badRequest(f, "field %q must be %s, got %s", f, jsonTypeName(te.Type), jsonValueName(te.Value))
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return badRequest("", "invalid JSON at byte %d: %v", se.Offset, se)
		}
		return badRequest("", "invalid JSON body: %v", err)
	}
	return checkFields(body, v)
}

// jsonTypeName names a Go type by the JSON value it decodes from.
func jsonTypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// jsonValueName names a JSON value as encoding/json's UnmarshalTypeError
// describes it ("string", "number 1.5", "array", "object", "bool").
func jsonValueName(v string) string {
	switch {
	case v == "bool":
		return "a boolean"
	case v == "array", v == "object":
		return "an " + v
	case strings.HasPrefix(v, "number "):
		return "the " + v
	}
	return "a " + v
}

// jsonValueKind names the JSON value that b (valid JSON) starts with.
func jsonValueKind(b []byte) string {
	switch b[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// jsonField drops the Go names of embedded structs (specRequest,
// samplingRequest, ...) that encoding/json puts in front of a field's path.
func jsonField(path string) string {
	for {
		head, rest, ok := strings.Cut(path, ".")
		if !ok || !strings.HasSuffix(head, "Request") {
			return path
		}
		path = rest
	}
}

// checkDepth rejects JSON nested deeper than limit before it is decoded.
func checkDepth(b []byte, limit int) error {
	depth, inStr, esc := 0, false, false
	for _, c := range b {
		switch {
		case inStr && esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case inStr && c == '"':
			inStr = false
		case inStr:
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			if depth++; depth > limit {
				return fmt.Errorf("JSON nested deeper than %d levels", limit)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}

// sampling applies the request's sampling fields over the defaults and
// checks their ranges.
func (r *rawRequest) sampling(def SamplingParams) (SamplingParams, *apiError) {
	p := def
	f32 := func(dst *float32, v *float64, name string, lo, hi float64) *apiError {
		if v == nil {
			return nil
		}
		if math.IsNaN(*v) || *v < lo || *v > hi {
			return badRequest(name, "%s must be in [%g, %g], got %g", name, lo, hi, *v)
		}
		*dst = float32(*v)
		return nil
	}
	checks := []*apiError{
		f32(&p.Temp, r.Temperature, "temperature", -1e9, 1e9),
		f32(&p.TopP, r.TopP, "top_p", 0, 1),
		f32(&p.MinP, r.MinP, "min_p", 0, 1),
		f32(&p.TypicalP, r.TypicalP, "typical_p", 0, 1),
		f32(&p.PresencePenalty, r.PresencePenalty, "presence_penalty", -2, 2),
		f32(&p.FrequencyPenalty, r.FrequencyPenalty, "frequency_penalty", -2, 2),
		f32(&p.RepeatPenalty, r.RepeatPenalty, "repeat_penalty", 1e-6, 1e6),
	}
	for _, e := range checks {
		if e != nil {
			return p, e
		}
	}
	if r.TopK != nil {
		if *r.TopK < -1 {
			return p, badRequest("top_k", "top_k must be >= 0 (0 or -1: off), got %d", *r.TopK)
		}
		p.TopK = max(*r.TopK, 0)
	}
	if r.RepeatLastN != nil {
		if *r.RepeatLastN < -1 {
			return p, badRequest("repeat_last_n", "repeat_last_n must be >= -1, got %d", *r.RepeatLastN)
		}
		p.RepeatLastN = *r.RepeatLastN
	}
	if r.Seed != nil {
		if *r.Seed < -1 || *r.Seed > math.MaxUint32 {
			return p, badRequest("seed", "seed must be -1 (random) or in [0, 4294967295], got %d", *r.Seed)
		}
		p.Seed = uint32(*r.Seed) // -1 wraps to 0xFFFFFFFF: random
	}
	return p, nil
}

// maxTokens resolves n_predict, max_completion_tokens, max_tokens (in
// llama-server's order of precedence); -1 means until the context is full.
func (r *rawRequest) maxTokens(def int) (int, *apiError) {
	for _, f := range []struct {
		v    *int
		name string
	}{{r.NPredict, "n_predict"}, {r.MaxCompletionTokens, "max_completion_tokens"}, {r.MaxTokens, "max_tokens"}} {
		if f.v != nil {
			if *f.v < -1 {
				return 0, badRequest(f.name, "%s must be -1 (no limit) or >= 0, got %d", f.name, *f.v)
			}
			return *f.v, nil
		}
	}
	return def, nil
}

// stops parses "stop": a string or a list of strings.
func (r *rawRequest) stops() ([]string, *apiError) {
	if len(r.Stop) == 0 || string(r.Stop) == "null" {
		return nil, nil
	}
	var one string
	var list []string
	if json.Unmarshal(r.Stop, &one) == nil {
		list = []string{one}
	} else if err := json.Unmarshal(r.Stop, &list); err != nil {
		return nil, badRequest("stop", "stop must be a string or a list of strings")
	}
	if len(list) > maxStops {
		return nil, badRequest("stop", "at most %d stop strings", maxStops)
	}
	out := list[:0]
	for _, s := range list {
		if len(s) > maxStopLen {
			return nil, badRequest("stop", "stop strings are limited to %d bytes", maxStopLen)
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// choices resolves n.
func (r *rawRequest) choices() (int, *apiError) {
	if r.N == nil {
		return 1, nil
	}
	if *r.N < 1 || *r.N > maxChoices {
		return 0, badRequest("n", "n must be in [1, %d], got %d", maxChoices, *r.N)
	}
	return *r.N, nil
}

// logprobs resolves (logprobs, top_logprobs, n_probs). In chat, logprobs
// is a boolean and top_logprobs the count; in /v1/completions logprobs is
// the count itself; n_probs is llama.cpp's native name.
func (r *rawRequest) logprobs(chat bool) (bool, int, *apiError) {
	n := 0
	want := false
	raw := strings.TrimSpace(string(r.Logprobs))
	switch {
	case raw == "" || raw == "null" || raw == "false":
	case raw == "true":
		want = true
	default:
		if err := json.Unmarshal(r.Logprobs, &n); err != nil || chat {
			return false, 0, badRequest("logprobs", "logprobs must be a boolean (chat) or an integer (completions)")
		}
		want = true
	}
	if r.TopLogprobs != nil {
		if !want {
			return false, 0, badRequest("top_logprobs", "top_logprobs needs logprobs to be true")
		}
		n = *r.TopLogprobs
	}
	if r.NProbs != nil && *r.NProbs > 0 {
		want, n = true, *r.NProbs
	}
	if n < 0 || n > maxTopProbs {
		return false, 0, badRequest("top_logprobs", "top_logprobs must be in [0, %d], got %d", maxTopProbs, n)
	}
	return want, n, nil
}

// unsupported rejects OpenAI fields llama-server also refuses.
func (r *rawRequest) unsupported() *apiError {
	switch {
	case r.Echo:
		return badRequest("echo", "only echo=false is supported")
	case r.BestOf != nil && *r.BestOf != 1:
		return badRequest("best_of", "best_of is not supported")
	case r.Suffix != nil && string(*r.Suffix) != "null":
		return badRequest("suffix", "suffix is not supported")
	}
	return nil
}
