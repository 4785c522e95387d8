package server

import (
	"encoding/json"
	"fmt"

	"github.com/valyala/fasthttp"
)

// apiError is an error answered as OpenAI's error object:
// {"error":{"message","type","param","code"}}. Code is the HTTP status, as
// llama-server sends it; the extra fields carry the numbers of a
// context-size error.
type apiError struct {
	Status  int    `json:"-"`
	Message string `json:"message"`
	Type    string `json:"type"`
	Param   any    `json:"param"`
	Code    int    `json:"code"`
	NPrompt int    `json:"n_prompt_tokens,omitempty"`
	NCtx    int    `json:"n_ctx,omitempty"`
}

func (e *apiError) Error() string { return e.Message }

func newError(status int, typ, format string, args ...any) *apiError {
	return &apiError{Status: status, Type: typ, Message: fmt.Sprintf(format, args...), Code: status}
}

// badRequest is an invalid_request_error naming the offending field.
func badRequest(param, format string, args ...any) *apiError {
	e := newError(fasthttp.StatusBadRequest, "invalid_request_error", format, args...)
	if param != "" {
		e.Param = param
	}
	return e
}

func contextError(nPrompt, nCtx int) *apiError {
	e := newError(fasthttp.StatusBadRequest, "exceed_context_size_error",
		"the request exceeds the available context size: the prompt has %d tokens, the context holds %d per slot", nPrompt, nCtx)
	e.NPrompt, e.NCtx = nPrompt, nCtx
	return e
}

func (e *apiError) body() []byte {
	b, _ := json.Marshal(map[string]*apiError{"error": e})
	return b
}

func writeError(ctx *fasthttp.RequestCtx, e *apiError) {
	ctx.Response.Reset()
	ctx.SetStatusCode(e.Status)
	ctx.SetContentType("application/json; charset=utf-8")
	if e.Status == fasthttp.StatusServiceUnavailable {
		ctx.Response.Header.Set("Retry-After", "1")
	}
	if e.Status == fasthttp.StatusUnauthorized {
		ctx.Response.Header.Set("WWW-Authenticate", `Bearer realm="waggle"`)
	}
	ctx.SetBody(e.body())
}
