package sample

// logitBias adds each bias to its token's logit, entry by entry, as
// llama_sampler_logit_bias does: by index while the array is in vocabulary
// order, otherwise by searching for the id (a token missing from the
// array is skipped). It does not change the order.
func (cs *cands) logitBias(bias []LogitBias) {
	if len(bias) == 0 {
		return
	}
	if cs.ident {
		for _, b := range bias {
			if int(b.Token) < len(cs.c) {
				cs.c[b.Token].Logit += b.Bias
			}
		}
		return
	}
	for i := range cs.c {
		for _, b := range bias {
			if cs.c[i].ID == b.Token {
				cs.c[i].Logit += b.Bias
				break // llama.cpp applies the first matching entry only here
			}
		}
	}
}
