package server

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/waggle-llm/waggle/spec"
)

// specRequest holds llama.cpp's per-request speculative fields, whose
// names contain a dot ("speculative.n_max").
type specRequest struct {
	NMax        *int            `json:"speculative.n_max"`
	NMin        *int            `json:"speculative.n_min"`
	Type        json.RawMessage `json:"speculative.type"`
	treeRequest                 // speculative_tree.go
}

// maxDraft bounds speculative.n_max and n_min (llama.cpp's argument range).
const maxDraft = 1024

// specOptions validates the request's speculative fields against the
// strategies the server was started with. A type the server does not run
// is a 400; "none" turns speculation off for the request.
func (s *Server) specOptions(r *specRequest) (spec.RequestOptions, *apiError) {
	var o spec.RequestOptions
	for _, f := range []struct {
		v    *int
		dst  *int
		name string
	}{{r.NMax, &o.NMax, "speculative.n_max"}, {r.NMin, &o.NMin, "speculative.n_min"}} {
		if f.v == nil {
			continue
		}
		if *f.v < 0 || *f.v > maxDraft {
			return o, badRequest(f.name, "%s must be in [0, %d], got %d", f.name, maxDraft, *f.v)
		}
		*f.dst = *f.v
	}
	if e := treeOptions(&r.treeRequest, &o); e != nil {
		return o, e
	}
	types, e := specTypes(r.Type)
	if e != nil {
		return o, e
	}
	for _, t := range types {
		if t == "none" {
			o.Off = true
			continue
		}
		if !s.runsStrategy(t) {
			return o, badRequest("speculative.type", "speculative type %q was requested but the server was not started with it (--spec-type %s)", t, s.specNames())
		}
		o.Types = append(o.Types, t)
	}
	if o.Off {
		o.Types = nil
	}
	return o, nil
}

// specTypes reads speculative.type: a name, a comma-separated list, or a
// JSON list of names.
func specTypes(raw json.RawMessage) ([]string, *apiError) {
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" {
		return nil, nil
	}
	var one string
	var list []string
	if json.Unmarshal(raw, &one) == nil {
		list = strings.Split(one, ",")
	} else if json.Unmarshal(raw, &list) != nil {
		return nil, badRequest("speculative.type", "speculative.type must be a string or a list of strings")
	}
	out := list[:0]
	for _, n := range list {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	if len(out) == 0 || len(out) > 16 {
		return nil, badRequest("speculative.type", "speculative.type must name 1 to 16 strategies")
	}
	return out, nil
}

// runsStrategy reports whether the server's chain has strategy name.
func (s *Server) runsStrategy(name string) bool {
	if s.sched.sp == nil {
		return false
	}
	for _, st := range s.sched.sp.Chain.Stats() {
		if st.Name == name {
			return true
		}
	}
	return false
}

// specNames lists the server's strategies for error messages.
func (s *Server) specNames() string {
	if s.sched.sp == nil || s.sched.sp.Chain.Len() == 0 {
		return "none"
	}
	var names []string
	for _, st := range s.sched.sp.Chain.Stats() {
		names = append(names, st.Name)
	}
	return strings.Join(names, ",")
}

// speculates reports whether the server was started with strategies.
func (s *Server) speculates() bool { return s.sched.sp != nil && s.sched.sp.Chain.Len() > 0 }

// wantsSpec decides whether a task runs through the Speculator: the server
// speculates, the request did not turn it off, it needs no per-token
// logprobs (the speculative path has no logit row per emitted token) and
// no positive reasoning budget (which forces tokens), and its sampler is
// the engine's. Budget 0 is fine: it disables thinking in the template.
func (s *Server) wantsSpec(o spec.RequestOptions, logprobs bool, smp Sampler) bool {
	if !s.speculates() || o.Off || logprobs || s.cfg.ReasoningBudget > 0 {
		return false
	}
	var probe spec.Slot
	return setConcrete(&probe.Sampler, smp)
}

// setConcrete stores v in *dst when v's dynamic type is T. It lets the
// server hand its Sampler to spec.Slot without naming engine/sample.
func setConcrete[T any](dst *T, v any) bool {
	x, ok := v.(T)
	if ok {
		*dst = x
	}
	return ok
}

// startSpec prefills every newly assigned speculative slot through the
// Speculator, which samples and records the first token.
func (s *scheduler) startSpec() {
	for _, sl := range s.slots {
		if sl.t == nil || !sl.specOn || sl.generating {
			continue
		}
		t := sl.t
		ss := &sl.spec
		setConcrete(&ss.Sampler, t.smp)
		ss.Seq, ss.NPredict, ss.IsEOG, ss.Opts = int32(sl.id), t.nPredict, s.tok.IsEOG, t.specOpts
		tok, err := s.sp.Start(ss, t.prompt)
		if err != nil {
			s.failSlot(sl, err)
			continue
		}
		s.metrics.decoded(1, 0)
		sl.cached = append(sl.cached[:0], t.prompt...)
		sl.pending = nil
		if !s.emitToken(sl, tok, nil) {
			ss.Stop()
		}
	}
}

// specStep runs one speculative cycle (draft, verify in one batch, roll
// back) for every generating speculative slot.
func (s *scheduler) specStep() {
	s.specSlots = s.specSlots[:0]
	for _, sl := range s.slots {
		if sl.t != nil && sl.specOn && sl.generating && !sl.spec.Done() {
			s.specSlots = append(s.specSlots, &sl.spec)
		}
	}
	if len(s.specSlots) == 0 {
		return
	}
	t0 := time.Now()
	if err := s.sp.Step(s.specSlots, s.specEmit); err != nil {
		s.decodeFailed(err)
		return
	}
	s.metrics.decoded(len(s.specSlots), time.Since(t0))
}

// specEmitFn is the emit callback of Speculator.Step: the previous token
// is now in the KV cache; tok is the newest. False stops the sequence.
func (s *scheduler) specEmitFn(ss *spec.Slot, tok int32) bool {
	sl := s.slots[ss.Seq]
	if sl.t == nil {
		return false
	}
	sl.cached = append(sl.cached, sl.last)
	if s.grammarFailed(sl) {
		return false
	}
	return s.emitToken(sl, tok, nil)
}

// failSlot ends the slot's task with err and forgets its cache.
func (s *scheduler) failSlot(sl *slot, err error) {
	sl.t.send(event{done: true, err: err})
	s.release(sl)
	sl.cached = sl.cached[:0]
	_ = s.sess.Truncate(sl.id, 0)
}
