package server

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// Request fields are checked as strictly as OpenAI's own API checks them:
// every top-level field of a request body must be one the route's request
// struct declares (its json tags, embedded structs included), one of the
// ignoredFields below, or it is a 400 naming it. A field that OpenAI or
// llama-server defines but this server does not implement is a 400 saying
// so (notSupported), never silently dropped. Nested objects (messages,
// tools) are not checked: clients echo assistant messages back with fields
// of their own.

// ignoredFields are OpenAI fields with no meaning for a local server:
// accepted and ignored.
var ignoredFields = map[string]bool{
	"user":              true, // end-user id for abuse monitoring
	"store":             true, // keep the completion for distillation/evals
	"metadata":          true, // tags for stored completions
	"service_tier":      true, // OpenAI's capacity tiers
	"prompt_cache_key":  true, // OpenAI's cache routing hint (caching here is by prefix)
	"safety_identifier": true, // end-user id for abuse monitoring
}

// notSupported lists fields OpenAI or llama-server define that this server
// does not implement yet. The entry for a field is deleted when a request
// struct gains it (a declared field is accepted even while listed).
var notSupported = map[string]string{
	"functions":           "functions (use tools)",
	"function_call":       "function_call (use tools)",
	"image_data":          "images",
	"multimodal_data":     "multimodal input",
	"modalities":          "output modalities",
	"audio":               "audio output",
	"prediction":          "predicted outputs",
	"web_search_options":  "web search",
	"reasoning_effort":    "reasoning_effort (use chat_template_kwargs or --reasoning-budget)",
	"verbosity":           "verbosity",
	"lora":                "per-request LoRA adapters",
	"id_slot":             "choosing a slot",
	"t_max_predict_ms":    "t_max_predict_ms",
	"n_indent":            "n_indent",
	"post_sampling_probs": "post_sampling_probs",
	"timings_per_token":   "timings_per_token",
	"return_progress":     "return_progress",
	"penalize_nl":         "penalize_nl",
}

// fieldSets caches the declared top-level json names per request type.
var fieldSets sync.Map // reflect.Type → map[string]bool

// declaredFields returns the json names t (a struct) declares, following
// embedded structs as encoding/json does.
func declaredFields(t reflect.Type) map[string]bool {
	if v, ok := fieldSets.Load(t); ok {
		return v.(map[string]bool)
	}
	names := map[string]bool{}
	collectFields(t, names)
	fieldSets.Store(t, names)
	return names
}

func collectFields(t reflect.Type, names map[string]bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case tag == "-":
		case tag == "" && f.Anonymous:
			collectFields(f.Type, names)
		case tag != "":
			names[tag] = true
		case f.IsExported():
			names[f.Name] = true
		}
	}
}

// checkFields applies the policy above to the keys of a top-level object.
// The first offending field (in name order, so the answer is stable) is
// reported.
func checkFields(body []byte, v any) *apiError {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil // the typed decode reports it
	}
	known := declaredFields(reflect.TypeOf(v))
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if known[k] || ignoredFields[k] {
			continue
		}
		if what, ok := notSupported[k]; ok {
			return badRequest(k, "%s is not supported by this server (field %q)", what, k)
		}
		return badRequest(k, "unrecognized request field %q", k)
	}
	return nil
}
