package sample

// topK keeps the k highest logits, sorted; k <= 0 is a no-op
// (llama_sampler_top_k).
func (cs *cands) topK(k int) {
	if k <= 0 {
		return
	}
	k = min(k, len(cs.c))
	if !cs.sorted {
		cs.sortTop(k)
	}
	cs.c = cs.c[:k]
	cs.sorted = true
}

// topPFirstWindow is how many candidates top-p sorts before it knows whether
// it needs more, and topPSortAll the size up to which it sorts everything at
// once, as in llama.cpp. Past the first window this package grows the sorted
// prefix fourfold at a time where llama.cpp sorts the rest at once; only the
// speed differs, since the prefix is the same either way.
const (
	topPFirstWindow = 256
	topPSortAll     = 1024
)

// topP keeps the smallest descending prefix whose float32 cumulative
// probability reaches p, and at least minKeep tokens (llama_sampler_top_p).
// The result is sorted.
func (cs *cands) topP(p float32, minKeep int) {
	if p >= 1 {
		return
	}
	cs.softmax()
	n := len(cs.c)
	window := n
	if !cs.sorted && n > topPSortAll {
		window = topPFirstWindow
		cs.sortTop(window)
	} else if !cs.sorted {
		cs.sortAll()
	}
	var cum float32
	last := n
	for i := 0; i < n; i++ {
		cum += cs.c[i].P
		if cum >= p && i+1 >= minKeep {
			last = i + 1
			break
		}
		if i == window-1 && window < n {
			grow := min(4*window, n)
			rest := cands{c: cs.c[window:]}
			rest.sortTop(grow - window)
			window = grow
		}
	}
	cs.c = cs.c[:last]
	cs.sorted = true
}

// minP keeps tokens whose probability is at least p times the largest,
// compared in logit space as llama_sampler_min_p does. Unsorted input keeps
// its order when at least max(1, minKeep) tokens pass; otherwise the array is
// sorted and cut, keeping minKeep tokens.
func (cs *cands) minP(p float32, minKeep int) {
	if p <= 0 || len(cs.c) == 0 {
		return
	}
	if !cs.sorted && cs.minPUnsorted(p, minKeep) {
		return
	}
	if !cs.sorted {
		cs.sortAll()
	}
	minLogit := cs.c[0].Logit + logf(p)
	i := 1
	for ; i < len(cs.c); i++ {
		if cs.c[i].Logit < minLogit && i >= minKeep {
			break
		}
	}
	cs.c = cs.c[:i]
}

// minPUnsorted filters in place, keeping order, and reports success.
func (cs *cands) minPUnsorted(p float32, minKeep int) bool {
	maxLogit := float32(-maxFloat32)
	for _, c := range cs.c {
		maxLogit = max(maxLogit, c.Logit)
	}
	minLogit := maxLogit + logf(p)
	kept := 0
	for _, c := range cs.c {
		if c.Logit >= minLogit {
			kept++
		}
	}
	if kept == 0 || kept < minKeep {
		return false
	}
	j := 0
	cs.ident = false
	for _, c := range cs.c {
		if c.Logit >= minLogit {
			cs.c[j] = c
			j++
		}
	}
	cs.c = cs.c[:j]
	return true
}

const maxFloat32 = 3.40282346638528859811704183484516925440e+38
