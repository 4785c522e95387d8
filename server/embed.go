package server

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/waggle-llm/waggle/engine"
)

// Embeddings, as llama-server serves them with --embeddings:
// POST /v1/embeddings (OpenAI's shape) and /embeddings, /embedding
// (llama.cpp's: a list of {index, embedding: [vectors]}). The input is a
// string, a list of token ids, a list mixing strings and ids, or a list
// of those (one embedding each). The model's pooling (or --pooling) turns
// the final normalised hidden states into one vector, normalised by
// embd_normalize (default 2: Euclidean); pooling none gives one raw
// vector per token and only the native routes accept it.

// maxEmbedInputs bounds the inputs of one request (OpenAI's limit).
const maxEmbedInputs = 2048

// embedRequest is the body of the embedding routes.
type embedRequest struct {
	Model          string          `json:"model"`
	Input          json.RawMessage `json:"input"`
	Content        json.RawMessage `json:"content"`
	EncodingFormat *string         `json:"encoding_format"`
	EmbdNormalize  *int            `json:"embd_normalize"`
}

// resolvePooling picks the pooling of the embedding routes (--pooling, or
// the model's) and checks that the session can compute embeddings; it
// runs in New when --embeddings is on.
func (c *APIConfig) resolvePooling(sess engine.Session) error {
	if !c.Embeddings {
		return nil
	}
	if _, ok := sess.(engine.Embedder); !ok {
		return fmt.Errorf("server: --embeddings: this model cannot compute embeddings")
	}
	p := c.ModelPooling
	if c.Pooling != "" {
		var err error
		if p, err = engine.ParsePooling(c.Pooling); err != nil {
			return fmt.Errorf("server: --pooling: %w", err)
		}
	} else if c.poolingErr != nil {
		return fmt.Errorf("server: the model's pooling type: %w (override it with --pooling)", c.poolingErr)
	}
	if _, err := engine.NewPooler(p); err != nil {
		return fmt.Errorf("server: --pooling: %w", err)
	}
	c.Pooling = p.String()
	return nil
}

// pooling is the resolved pooling of the embedding routes.
func (c *APIConfig) pooling() engine.Pooling {
	p, _ := engine.ParsePooling(c.Pooling)
	return p
}

func (s *Server) handleEmbeddings(ctx *fasthttp.RequestCtx, oai bool) {
	if !s.cfg.Embeddings {
		writeError(ctx, notSupportedError("This server does not support embeddings. Start it with `--embeddings`"))
		return
	}
	pooling := s.cfg.pooling()
	if oai && pooling == engine.PoolingNone {
		writeError(ctx, badRequest("", "Pooling type 'none' is not OAI compatible. Please use a different pooling type"))
		return
	}
	var r embedRequest
	if e := decodeRequest(ctx.PostBody(), &r); e != nil {
		writeError(ctx, e)
		return
	}
	raw := r.Input
	if len(raw) == 0 {
		raw, oai = r.Content, false // "content" is llama.cpp's field: native answer
	}
	if len(raw) == 0 {
		writeError(ctx, badRequest("input", "\"input\" or \"content\" must be provided"))
		return
	}
	b64, e := encodingFormat(r.EncodingFormat)
	if e != nil {
		writeError(ctx, e)
		return
	}
	inputs, e := s.embedInputs(raw)
	if e != nil {
		writeError(ctx, e)
		return
	}
	norm := 2
	if r.EmbdNormalize != nil {
		norm = *r.EmbdNormalize
	}
	results, e := s.runEmbeddings(inputs, pooling, norm)
	if e != nil {
		writeError(ctx, e)
		return
	}
	if !oai {
		out := make([]map[string]any, len(results))
		for i, rows := range results {
			out[i] = map[string]any{"index": i, "embedding": rows}
		}
		s.writeJSON(ctx, out)
		return
	}
	s.writeJSON(ctx, oaiEmbeddings(s.ModelID(), inputs, results, b64))
}

// encodingFormat reads encoding_format: float (default) or base64.
func encodingFormat(f *string) (bool, *apiError) {
	switch {
	case f == nil || *f == "float":
		return false, nil
	case *f == "base64":
		return true, nil
	}
	return false, badRequest("encoding_format", "encoding_format must be float or base64, got %q", *f)
}

// embedInputs reads the input as llama-server's tokenize_input_prompts
// does, with the special tokens added, and checks every input.
func (s *Server) embedInputs(raw json.RawMessage) ([][]int32, *apiError) {
	var list []json.RawMessage
	isList := json.Unmarshal(raw, &list) == nil
	var ids []int32
	var inputs [][]int32
	switch {
	case !isList || isMixed(list):
		one, e := s.tokenizeMixed(raw, "input", true, true)
		if e != nil {
			return nil, e
		}
		inputs = [][]int32{one}
	case json.Unmarshal(raw, &ids) == nil:
		inputs = [][]int32{ids}
	default:
		if len(list) > maxEmbedInputs {
			return nil, badRequest("input", "at most %d inputs per request", maxEmbedInputs)
		}
		for i, p := range list {
			var one []int32
			if json.Unmarshal(p, &one) != nil {
				var e *apiError
				if one, e = s.tokenizeMixed(p, fmt.Sprintf("input[%d]", i), true, true); e != nil {
					return nil, e
				}
			}
			inputs = append(inputs, one)
		}
	}
	if len(inputs) == 0 {
		return nil, badRequest("input", "input is an empty list")
	}
	for _, in := range inputs {
		if e := s.checkEmbedInput(in); e != nil {
			return nil, e
		}
	}
	return inputs, nil
}

// isMixed reports whether a list holds both strings and numbers (one
// input mixing text and token ids, llama.cpp's
// json_is_array_of_mixed_numbers_strings).
func isMixed(list []json.RawMessage) bool {
	str, num := false, false
	for _, p := range list {
		t := strings.TrimSpace(string(p))
		switch {
		case strings.HasPrefix(t, `"`):
			str = true
		case t != "" && (t[0] == '-' || t[0] >= '0' && t[0] <= '9'):
			num = true
		}
	}
	return str && num
}

func (s *Server) checkEmbedInput(in []int32) *apiError {
	switch {
	case len(in) == 0:
		return badRequest("input", "Input content cannot be empty")
	case len(in) > s.NCtx():
		return contextError(len(in), s.NCtx())
	}
	nv := int32(s.cfg.Tokenizer.NVocab())
	for _, id := range in {
		if id < 0 || id >= nv {
			return badRequest("input", "token id %d is outside the vocabulary [0, %d)", id, nv)
		}
	}
	return nil
}

// runEmbeddings spreads the inputs over at most one task per slot (each
// evaluates its share one input after another), waits for them and
// returns the results in input order.
func (s *Server) runEmbeddings(inputs [][]int32, pooling engine.Pooling, norm int) ([][][]float32, *apiError) {
	if s.stopping.Load() {
		return nil, newError(503, "unavailable_error", "the server is shutting down")
	}
	nTasks := min(len(inputs), s.NumSlots())
	j := &job{box: newMailbox(), deadline: time.Now().Add(s.cfg.Timeout)}
	for k := range nTasks {
		var share [][]int32
		for i := k; i < len(inputs); i += nTasks {
			share = append(share, inputs[i])
		}
		t, err := newEmbedTask(share, pooling, norm)
		if err != nil {
			return nil, badRequest("", "%v", err)
		}
		t.index, t.out, t.deadline = k, j.box, j.deadline
		j.tasks = append(j.tasks, t)
	}
	if e := s.submit(j); e != nil {
		return nil, e
	}
	if _, e := j.collect(); e != nil {
		return nil, e
	}
	out := make([][][]float32, len(inputs))
	for k, t := range j.tasks {
		for n, rows := range t.embed.results {
			out[k+n*nTasks] = rows
		}
	}
	return out, nil
}

// oaiEmbeddings is OpenAI's list of embeddings; base64 encodes each
// vector's little-endian float32 bytes.
func oaiEmbeddings(model string, inputs [][]int32, results [][][]float32, b64 bool) map[string]any {
	data := make([]map[string]any, len(results))
	n := 0
	for i, rows := range results {
		d := map[string]any{"index": i, "object": "embedding", "embedding": rows[0]}
		if b64 {
			buf := make([]byte, 4*len(rows[0]))
			for k, v := range rows[0] {
				binary.LittleEndian.PutUint32(buf[4*k:], math.Float32bits(v))
			}
			d["embedding"], d["encoding_format"] = base64.StdEncoding.EncodeToString(buf), "base64"
		}
		data[i] = d
		n += len(inputs[i])
	}
	return map[string]any{"object": "list", "model": model, "data": data,
		"usage": map[string]int{"prompt_tokens": n, "total_tokens": n}}
}
