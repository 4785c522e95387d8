package server

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"

	"github.com/valyala/fasthttp"
)

// The chat page at GET / (and /index.html), as llama-server's web UI: one
// HTML file with its script and style inline, embedded in the binary, no
// build step and no outside assets. --no-webui removes the route (404).
// The page talks to the API of the server that serves it: it streams
// /v1/chat/completions, shows reasoning folded, stops a reply with an
// AbortController, and shows the model and slots from /v1/models, /props
// and /slots.

//go:embed webui/index.html
var webPage []byte

// webCSP allows the page its own inline script and style (by hash) and
// requests to its own origin, nothing else.
var webCSP = "default-src 'none'; script-src " + inlineHash(webPage, "script") +
	"; style-src " + inlineHash(webPage, "style") +
	"; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// inlineHash is the CSP source of the first <tag>…</tag> block of page:
// 'sha256-…' of its content.
func inlineHash(page []byte, tag string) string {
	_, rest, _ := bytes.Cut(page, []byte("<"+tag+">"))
	body, _, _ := bytes.Cut(rest, []byte("</"+tag+">"))
	sum := sha256.Sum256(body)
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

func (s *Server) handleWebUI(ctx *fasthttp.RequestCtx) {
	h := &ctx.Response.Header
	h.Set("Content-Security-Policy", webCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	ctx.SetContentType("text/html; charset=utf-8")
	ctx.SetBody(webPage)
}
