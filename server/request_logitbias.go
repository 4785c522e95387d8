package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// logitBias reads logit_bias in llama-server's forms: an object
// {"token id or text": bias} (OpenAI's) or a list of [id or text, bias]
// pairs, in document order. A bias is a number, or false to ban the token;
// a text is tokenized (no special tokens) and every token gets the bias.
func (s *Server) logitBias(raw json.RawMessage) ([]LogitBias, *apiError) {
	raw = bytes.TrimSpace(raw)
	var out []LogitBias
	var e *apiError
	switch {
	case string(raw) == "null":
		return nil, nil
	case len(raw) > 0 && raw[0] == '[':
		e = s.biasPairs(raw, &out)
	case len(raw) > 0 && raw[0] == '{':
		e = eachMember(raw, func(k string, v json.RawMessage) *apiError {
			key, _ := json.Marshal(k)
			if _, err := strconv.Atoi(k); err == nil {
				key = []byte(k) // a token id
			}
			return s.addBias(&out, key, v)
		})
	default:
		e = badRequest("logit_bias", "logit_bias must be an object or a list of [token, bias] pairs")
	}
	return out, e
}

// biasPairs reads the list form.
func (s *Server) biasPairs(raw []byte, out *[]LogitBias) *apiError {
	var pairs []json.RawMessage
	if err := json.Unmarshal(raw, &pairs); err != nil {
		return badRequest("logit_bias", "logit_bias must be an object or a list of [token, bias] pairs")
	}
	for _, pr := range pairs {
		var kv []json.RawMessage
		if err := json.Unmarshal(pr, &kv); err != nil || len(kv) != 2 {
			return badRequest("logit_bias", "each logit_bias entry must be a [token id or text, bias] pair, got %s", clip(pr))
		}
		if e := s.addBias(out, kv[0], kv[1]); e != nil {
			return e
		}
	}
	return nil
}

// addBias appends the bias val for the token(s) of key.
func (s *Server) addBias(out *[]LogitBias, key, val json.RawMessage) *apiError {
	b, e := biasValue(val)
	if e != nil {
		return e
	}
	toks, e := s.biasTokens(key)
	if e != nil {
		return e
	}
	for _, t := range toks {
		*out = append(*out, LogitBias{Token: t, Bias: b})
	}
	if len(*out) > maxLogitBias {
		return badRequest("logit_bias", "logit_bias may hold at most %d tokens", maxLogitBias)
	}
	return nil
}

// biasValue reads a bias: a finite number, or false (-Inf).
func biasValue(v json.RawMessage) (float32, *apiError) {
	var f float64
	if err := json.Unmarshal(v, &f); err == nil {
		if b := float32(f); !math.IsInf(float64(b), 0) {
			return b, nil
		}
		return 0, badRequest("logit_bias", "logit_bias value %s is out of range", clip(v))
	}
	if string(bytes.TrimSpace(v)) == "false" {
		return float32(math.Inf(-1)), nil
	}
	return 0, badRequest("logit_bias", "a logit_bias value must be a number or false, got %s", clip(v))
}

// biasTokens resolves a key: a token id (a JSON integer, or an object key
// that is one) or a text, tokenized without special tokens.
func (s *Server) biasTokens(key json.RawMessage) ([]int32, *apiError) {
	nv := s.cfg.Tokenizer.NVocab()
	var id int64
	if err := json.Unmarshal(key, &id); err == nil {
		if id < 0 || id >= int64(nv) {
			return nil, badRequest("logit_bias", "logit_bias token id %d is outside the vocabulary [0, %d)", id, nv)
		}
		return []int32{int32(id)}, nil
	}
	var text string
	if err := json.Unmarshal(key, &text); err != nil {
		return nil, badRequest("logit_bias", "a logit_bias token must be an id or a text, got %s", clip(key))
	}
	return s.cfg.Tokenizer.Encode(text, false, false), nil
}

// eachMember calls f for the members of a JSON object in document order
// (llama-server's JSON keeps it; a Go map would not).
func eachMember(raw []byte, f func(string, json.RawMessage) *apiError) *apiError {
	dec := json.NewDecoder(bytes.NewReader(raw))
	bad := badRequest("logit_bias", "logit_bias is not a valid JSON object")
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return bad
	}
	for dec.More() {
		t, err := dec.Token()
		k, ok := t.(string)
		if err != nil || !ok {
			return bad
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return bad
		}
		if e := f(k, v); e != nil {
			return e
		}
	}
	if _, err := dec.Token(); err != nil && !errors.Is(err, io.EOF) {
		return bad
	}
	return nil
}

// clip shortens a JSON value for an error message.
func clip(b []byte) string {
	const n = 40
	if len(b) <= n {
		return string(b)
	}
	return fmt.Sprintf("%s…", b[:n])
}
