package tokenizer

// A small binary heap over a reusable slice, so merge queues cost no
// allocation once the session's buffers have grown. less(a, b) means a is
// popped before b.

func heapPush[T any](h []T, x T, less func(a, b *T) bool) []T {
	h = append(h, x)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !less(&h[i], &h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return h
}

func heapPop[T any](h []T, less func(a, b *T) bool) (T, []T) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		l, best := 2*i+1, i
		if l < len(h) && less(&h[l], &h[best]) {
			best = l
		}
		if r := l + 1; r < len(h) && less(&h[r], &h[best]) {
			best = r
		}
		if best == i {
			break
		}
		h[i], h[best] = h[best], h[i]
		i = best
	}
	return top, h
}
