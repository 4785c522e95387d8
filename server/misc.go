package server

import (
	"bytes"
	"unicode/utf8"

	"github.com/valyala/fasthttp"
)

// maxTokenizeIDs bounds /detokenize input.
const maxTokenizeIDs = 1 << 20

func (s *Server) handleTokenize(ctx *fasthttp.RequestCtx) {
	var r struct {
		Content      *string `json:"content"`
		AddSpecial   bool    `json:"add_special"`
		ParseSpecial *bool   `json:"parse_special"`
		WithPieces   bool    `json:"with_pieces"`
	}
	if e := decodeRequest(ctx.PostBody(), &r); e != nil {
		writeError(ctx, e)
		return
	}
	if r.Content == nil {
		writeError(ctx, badRequest("content", "content is required"))
		return
	}
	parse := r.ParseSpecial == nil || *r.ParseSpecial
	ids := s.cfg.Tokenizer.Encode(*r.Content, r.AddSpecial, parse)
	if !r.WithPieces {
		s.writeJSON(ctx, map[string]any{"tokens": nonNil(ids)})
		return
	}
	out := make([]map[string]any, len(ids))
	for i, id := range ids {
		piece := s.cfg.Tokenizer.Piece(id, true)
		var p any = piece
		if !utf8.ValidString(piece) {
			p = byteList(piece)
		}
		out[i] = map[string]any{"id": id, "piece": p}
	}
	s.writeJSON(ctx, map[string]any{"tokens": out})
}

func nonNil(ids []int32) []int32 {
	if ids == nil {
		return []int32{}
	}
	return ids
}

func (s *Server) handleDetokenize(ctx *fasthttp.RequestCtx) {
	var r struct {
		Tokens []int64 `json:"tokens"`
	}
	if e := decodeRequest(ctx.PostBody(), &r); e != nil {
		writeError(ctx, e)
		return
	}
	if len(r.Tokens) > maxTokenizeIDs {
		writeError(ctx, badRequest("tokens", "at most %d tokens", maxTokenizeIDs))
		return
	}
	nv := int64(s.cfg.Tokenizer.NVocab())
	var b bytes.Buffer
	for _, id := range r.Tokens {
		if id < 0 || id >= nv {
			writeError(ctx, badRequest("tokens", "token id %d is outside the vocabulary [0, %d)", id, nv))
			return
		}
		b.WriteString(s.cfg.Tokenizer.Piece(int32(id), true))
	}
	s.writeJSON(ctx, map[string]any{"content": b.String()})
}

func (s *Server) handleApplyTemplate(ctx *fasthttp.RequestCtx) {
	var r rawRequest
	if e := decodeRequest(ctx.PostBody(), &r); e != nil {
		writeError(ctx, e)
		return
	}
	_, text, _, e := s.chatPrompt(&r)
	if e != nil {
		writeError(ctx, e)
		return
	}
	s.writeJSON(ctx, map[string]any{"prompt": text})
}

func (s *Server) handleModels(ctx *fasthttp.RequestCtx) {
	info := s.cfg.Model.Info()
	s.writeJSON(ctx, map[string]any{"object": "list", "data": []map[string]any{{
		"id": s.ModelID(), "object": "model", "created": s.started.Unix(), "owned_by": "waggle",
		"meta": map[string]any{"n_vocab": info.NVocab, "n_ctx_train": info.NCtxTrain, "n_embd": info.NEmbd,
			"n_params": info.NParams, "size": info.WeightSize},
	}}})
}

// buildInfo is /props' build_info (Config.BuildInfo, else "waggle").
func (s *Server) buildInfo() string {
	if s.cfg.BuildInfo == "" {
		return "waggle"
	}
	return s.cfg.BuildInfo
}

func (s *Server) handleHealth(ctx *fasthttp.RequestCtx) {
	if s.stopping.Load() {
		writeError(ctx, newError(503, "unavailable_error", "the server is shutting down"))
		return
	}
	s.writeJSON(ctx, map[string]any{"status": "ok"})
}

func (s *Server) handleMetrics(ctx *fasthttp.RequestCtx) {
	ctx.SetContentType("text/plain; version=0.0.4")
	s.metrics.write(ctx, len(s.sched.queue), len(s.sched.slots))
	if s.speculates() {
		writeSpec(ctx, s.sched.sp.Chain.Stats())
	}
}

// handleProps reports, as llama-server does, the per-slot context
// (n_ctx_seq: -c/-np, or -c with a unified KV pool) as
// default_generation_settings.n_ctx, not the -c total.
func (s *Server) handleProps(ctx *fasthttp.RequestCtx) {
	s.writeJSON(ctx, map[string]any{
		"default_generation_settings": map[string]any{
			"id": 0, "n_ctx": s.NCtx(), "speculative": s.speculates(), "is_processing": false,
			"params": s.defaultSettings(),
		},
		"total_slots": len(s.sched.slots), "model_path": s.cfg.ModelPath, "model_alias": s.ModelID(), "chat_template": s.tmpl.Source(),
		"modalities": map[string]bool{"vision": false, "audio": false}, "build_info": s.buildInfo(),
		"is_sleeping":     false,
		"waggle_kv_cache": s.kvCacheProps(), "waggle_prompt_cache": s.promptCacheProps(),
	})
}

// kvCacheProps is Waggle's /props report of the KV cache (llama-server has
// no such field; the name says it is Waggle's): the K and V types by their
// --cache-type-k/-v names, whether attention runs the flash path
// (--flash-attn), the memory they take, and the pool's shape.
// The cache's shape is fixed at start, so reading it here is race-free;
// free cells come from the scheduler's last published step.
func (s *Server) kvCacheProps() map[string]any {
	o, c := s.sess.Options(), s.sess.Cache()
	k, v := c.Bytes()
	return map[string]any{
		"type_k": o.TypeK.String(), "type_v": o.TypeV.String(), "flash_attn": o.FlashAttn,
		"bytes_k": k, "bytes_v": v, "size_mib": float64(k+v) / (1 << 20),
		"cells": c.NumPages() * c.PageSize(), "page_size": c.PageSize(),
		"free_cells": s.sched.freePages.Load() * int64(c.PageSize()),
		"n_seq":      o.NSeq, "n_ctx_seq": s.NCtx(), "unified": o.KVUnified,
		"context_shift": s.cfg.ContextShift, "slot_save": s.cfg.SlotSavePath != "",
	}
}

// promptCacheProps reports the --cache-ram prompt cache: the budget as
// configured (MiB; -1 no limit, 0 off) and what it holds now.
func (s *Server) promptCacheProps() map[string]any {
	st := s.sched.host.Stats()
	return map[string]any{
		"cache_ram_mib": s.cfg.CacheRAMMiB, "max_tokens": st.MaxTokens,
		"entries": st.Entries, "tokens": st.Tokens, "bytes": st.Bytes,
		"evicted": st.Evicted, "loaded": st.Loaded,
	}
}

// handleSlots reports each slot from the snapshot the scheduler publishes
// every step (it may be one step stale); n_ctx is the per-slot context.
func (s *Server) handleSlots(ctx *fasthttp.RequestCtx) {
	if s.cfg.DisableSlots {
		writeError(ctx, newError(fasthttp.StatusNotImplemented, "not_supported_error", "This server does not support slots endpoint. Start it with `--slots`"))
		return
	}
	out := make([]map[string]any, len(s.sched.slots))
	for i := range s.sched.slots {
		out[i] = map[string]any{"id": i, "n_ctx": s.NCtx(), "speculative": s.speculates()}
	}
	busy := s.sched.snapshot()
	for i, b := range busy {
		out[i]["is_processing"] = b
	}
	s.writeJSON(ctx, out)
}
