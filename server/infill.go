package server

import (
	"encoding/json"
	"strings"

	"github.com/valyala/fasthttp"
)

// POST /infill is llama-server's fill-in-the-middle route: the request
// carries input_prefix, input_suffix, optional input_extra (context files
// [{filename, text}]) and an optional prompt (text the middle starts
// with), plus every /completion field; the answer is /completion's. The
// prompt is built from the vocabulary's FIM tokens exactly as
// llama-server's format_prompt_infill does (see infillPrompt); a
// vocabulary without prefix, suffix and middle tokens gets 501.

// fimVocab is what /infill needs of a vocabulary beyond Tokenizer
// (*tokenizer.Tokenizer satisfies it): llama_vocab_fim_* ids, -1 when the
// vocabulary has none.
type fimVocab interface {
	FIMPre() int32
	FIMSuf() int32
	FIMMid() int32
	FIMRep() int32
	FIMSep() int32
}

// infillFields are /infill's own fields.
type infillFields struct {
	InputPrefix json.RawMessage `json:"input_prefix"`
	InputSuffix json.RawMessage `json:"input_suffix"`
	InputExtra  json.RawMessage `json:"input_extra"`
	Prompt      json.RawMessage `json:"prompt"`
}

// extraChunk is one input_extra entry, tokenized.
type extraChunk struct {
	filename string
	text     string
}

// fimLayout sizes the infill prompt as llama-server does: nBatch is -b,
// nPredict the server's default -n, nCtx the slot's context.
type fimLayout struct {
	nBatch, nPredict, nCtx int
	spm                    bool // --spm-infill: suffix before prefix
}

// fimSnippet separates input_extra chunks when the vocabulary has no
// file-separator token (llama-server's k_chunk_prefix_str).
const fimSnippet = "\n\n--- snippet ---\n\n"

// infillPrompt lays out the FIM prompt, repo-level pattern
// (arXiv:2409.12186) as in llama-server:
//
//	[FIM_REP]myproject\n[FIM_SEP]filename0\nextra0…[FIM_SEP]filename\n
//	[BOS][FIM_PRE]prefix prompt[FIM_SUF]suffix[FIM_MID]
//
// (with --spm-infill the suffix part comes before the prefix part). The
// prefix keeps its last 3/4·nBatch tokens, the suffix its first
// nBatch/4 - 2 - len(prompt); the extra context fills what is left of the
// context after nBatch and 2·nPredict, keeping its end.
func infillPrompt(tk Tokenizer, v fimVocab, l fimLayout, prefix, suffix, prompt []int32, extra []extraChunk) []int32 {
	enc := func(s string) []int32 { return tk.Encode(s, false, false) }
	var ext []int32
	if v.FIMRep() >= 0 {
		ext = append(append(ext, v.FIMRep()), enc("myproject\n")...)
	}
	for _, c := range extra {
		if v.FIMSep() >= 0 {
			ext = append(append(ext, v.FIMSep()), enc(c.filename+"\n")...)
		} else {
			ext = append(ext, enc(fimSnippet)...)
		}
		ext = append(ext, enc(c.text)...)
	}
	if v.FIMSep() >= 0 {
		ext = append(append(ext, v.FIMSep()), enc("filename\n")...)
	}
	nPrefix := min(len(prefix), 3*(l.nBatch/4))
	nSuffix := min(len(suffix), max(0, l.nBatch/4-(2+len(prompt))))
	nExtra := min(max(0, l.nCtx-l.nBatch-2*l.nPredict), len(ext))

	pre := append([]int32{v.FIMPre()}, prefix[len(prefix)-nPrefix:]...)
	pre = append(pre, prompt...)
	suf := append([]int32{v.FIMSuf()}, suffix[:nSuffix]...)
	first, second := pre, suf
	if l.spm {
		first, second = suf, pre
	}
	var out []int32
	out = append(out, ext[len(ext)-nExtra:]...)
	if tk.AddBOS() && tk.BOS() >= 0 {
		out = append(out, tk.BOS())
	}
	out = append(out, first...)
	out = append(out, second...)
	return append(out, v.FIMMid())
}

// fimMissing names the FIM tokens a vocabulary lacks, as llama-server's
// 501 does ("prefix token is missing. …"); "" when it has them.
func fimMissing(tk Tokenizer) (fimVocab, string) {
	v, ok := tk.(fimVocab)
	if !ok {
		return nil, "the vocabulary has no fill-in-the-middle tokens"
	}
	var b strings.Builder
	for _, t := range []struct {
		id   int32
		name string
	}{{v.FIMPre(), "prefix"}, {v.FIMSuf(), "suffix"}, {v.FIMMid(), "middle"}} {
		if t.id < 0 {
			b.WriteString(t.name + " token is missing. ")
		}
	}
	return v, strings.TrimSpace(b.String())
}

// infillRequest validates /infill's fields and tokenizes them.
func (s *Server) infillRequest(f infillFields) (prefix, suffix, prompt []int32, extra []extraChunk, e *apiError) {
	if len(f.InputPrefix) == 0 {
		return nil, nil, nil, nil, badRequest("input_prefix", "\"input_prefix\" is required")
	}
	if len(f.InputSuffix) == 0 {
		return nil, nil, nil, nil, badRequest("input_suffix", "\"input_suffix\" is required")
	}
	if prefix, e = s.tokenizeMixed(f.InputPrefix, "input_prefix", false, false); e != nil {
		return
	}
	if suffix, e = s.tokenizeMixed(f.InputSuffix, "input_suffix", false, false); e != nil {
		return
	}
	if p := strings.TrimSpace(string(f.Prompt)); p != "" && p != "null" {
		var text string
		if json.Unmarshal(f.Prompt, &text) != nil {
			return nil, nil, nil, nil, badRequest("prompt", "\"prompt\" must be a string")
		}
		prompt = s.cfg.Tokenizer.Encode(text, false, true)
	}
	if x := strings.TrimSpace(string(f.InputExtra)); x != "" && x != "null" {
		var chunks []struct {
			Filename *string `json:"filename"`
			Text     *string `json:"text"`
		}
		if json.Unmarshal(f.InputExtra, &chunks) != nil {
			return nil, nil, nil, nil, badRequest("input_extra", "\"input_extra\" must be an array of {\"filename\": string, \"text\": string}")
		}
		for i, c := range chunks {
			if c.Text == nil {
				return nil, nil, nil, nil, badRequest("input_extra", "input_extra[%d] must contain a \"text\" string", i)
			}
			name := "tmp"
			if c.Filename != nil {
				name = *c.Filename
			}
			extra = append(extra, extraChunk{filename: name, text: *c.Text})
		}
	}
	return prefix, suffix, prompt, extra, nil
}

// handleInfill builds the FIM prompt and answers as /completion does with
// that prompt as token ids: the request body is rewritten and handed to
// handleNative, so every /completion field and response field applies.
func (s *Server) handleInfill(ctx *fasthttp.RequestCtx) {
	v, missing := fimMissing(s.cfg.Tokenizer)
	if missing != "" {
		writeError(ctx, notSupportedError("Infill is not supported by this model: %s", missing))
		return
	}
	var f infillFields
	var r rawRequest // the /completion fields, checked here, read by handleNative
	if e := decodeSplit(ctx.PostBody(), &f, &r); e != nil {
		writeError(ctx, e)
		return
	}
	prefix, suffix, prompt, extra, e := s.infillRequest(f)
	if e != nil {
		writeError(ctx, e)
		return
	}
	l := fimLayout{nBatch: s.cfg.BatchSize, nPredict: s.cfg.NPredict, nCtx: s.NCtx(), spm: s.cfg.SPMInfill}
	ids := infillPrompt(s.cfg.Tokenizer, v, l, prefix, suffix, prompt, extra)
	var body map[string]json.RawMessage
	if err := json.Unmarshal(ctx.PostBody(), &body); err != nil {
		writeError(ctx, badRequest("", "invalid JSON body: %v", err))
		return
	}
	for _, k := range []string{"input_prefix", "input_suffix", "input_extra"} {
		delete(body, k)
	}
	body["prompt"], _ = json.Marshal(ids)
	b, _ := json.Marshal(body)
	ctx.Request.SetBody(b)
	s.handleNative(ctx)
}

// tokenizeMixed reads llama-server's mixed prompt: a string, or a list of
// strings and token ids concatenated (only the first string gets the
// special tokens addSpecial adds).
func (s *Server) tokenizeMixed(raw json.RawMessage, field string, addSpecial, parseSpecial bool) ([]int32, *apiError) {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return s.cfg.Tokenizer.Encode(text, addSpecial, parseSpecial), nil
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, badRequest(field, "%s must be a string or a list of strings and token ids", field)
	}
	var out []int32
	for i, p := range parts {
		var id int32
		switch {
		case json.Unmarshal(p, &text) == nil:
			out = append(out, s.cfg.Tokenizer.Encode(text, addSpecial && i == 0, parseSpecial)...)
		case json.Unmarshal(p, &id) == nil:
			out = append(out, id)
		default:
			return nil, badRequest(field, "%s[%d] must be a string or a token id", field, i)
		}
	}
	return out, nil
}
