package eagle3

// flush fuses the staged rows, writes every sequence's known pairs into the
// drafter's cache and seeds the given jobs, in as few drafter passes as the
// batch size allows (one when everything fits). A job's seed is the pair
// (Last, feature of the last committed position) at that position, and
// its logits are output j.out of the last pass. It reports whether the
// passes succeeded; a job whose sequence could not be brought up to date
// is left not live.
func (s *Strategy) flush(jobs []job) bool {
	s.fuseStaged()
	nb := s.dr.Options().NBatch
	s.resetBatch()
	for _, st := range s.seqs {
		if st == nil {
			continue
		}
		st.next = st.kv
		if s.dr.SeqLen(st.id) > st.kv {
			_ = s.dr.Truncate(st.id, st.kv)
		}
	}
	ok := true
	for _, st := range s.seqs {
		for ok && st != nil && st.next <= st.lastPair() {
			if s.batch.Len() == nb {
				if ok = s.decode(); !ok {
					break
				}
			}
			s.addRow(st, st.toks[st.next+1], st.next, s.featureOf(st, st.next), false)
			st.next++
		}
	}
	if ok && s.batch.Len()+len(jobs) > nb {
		ok = s.decode()
	}
	for i := range jobs {
		j := &jobs[i]
		last := len(j.st.toks) - 1
		j.live = ok && j.st.next == last
		if j.live {
			j.out = s.nOut
			s.addRow(j.st, j.r.Last, last, s.featureOf(j.st, last), true)
		}
	}
	if ok && s.batch.Len() > 0 {
		ok = s.decode()
	}
	s.clearStage()
	if !ok {
		for i := range jobs {
			jobs[i].live = false
		}
	}
	return ok
}

// fuseStaged computes the features of the staged rows (into gbuf) and
// keeps them by position.
func (s *Strategy) fuseStaged() {
	if s.nStaged == 0 {
		return
	}
	s.dr.Fuse(s.gbuf, s.stage, s.nStaged)
	for _, st := range s.seqs {
		if st == nil || st.stagedN == 0 {
			continue
		}
		first := len(st.toks) - st.stagedN
		for k := range st.stagedN {
			i := st.staged0 + k
			st.putFeature(first+k, s.gbuf[i*s.d:(i+1)*s.d])
		}
	}
}

// featureOf returns the feature of position pos of st: from this flush's
// fused rows, else the kept ones, else zeros (a position the drafter
// never saw, or one too old to be kept).
func (s *Strategy) featureOf(st *sequence, pos int) []float32 {
	if first := len(st.toks) - st.stagedN; st.stagedN > 0 && pos >= first {
		i := st.staged0 + pos - first
		return s.gbuf[i*s.d : (i+1)*s.d]
	}
	if g := st.feature(pos); g != nil {
		return g
	}
	return s.zero
}

// clearStage empties the stage after a flush.
func (s *Strategy) clearStage() {
	s.nStaged = 0
	for _, st := range s.seqs {
		if st != nil {
			st.stagedN = 0
		}
	}
}

// addRow appends (tok, g) at pos of st's sequence to the batch.
func (s *Strategy) addRow(st *sequence, tok int32, pos int, g []float32, output bool) {
	s.addNode(st, tok, pos, -1, g, output)
}

// addNode appends (tok, g) at pos of st's sequence to the batch as a tree
// node under batch token parent (-1: an ordinary token), counting outputs
// in s.nOut.
func (s *Strategy) addNode(st *sequence, tok int32, pos int, parent int32, g []float32, output bool) {
	i := s.batch.Len()
	copy(s.feats[i*s.d:(i+1)*s.d], g)
	if parent < 0 {
		s.batch.Add(tok, int32(pos), int32(st.id), output)
	} else {
		s.batch.AddNode(tok, int32(pos), int32(st.id), parent, output)
	}
	if output {
		s.nOut++
	}
}

// decode runs the batch on the drafter and empties it. On success every
// sequence's written pairs count; on failure (the drafter's cache is left
// as it was) the pairs of the batch are to be written again.
func (s *Strategy) decode() bool {
	err := s.dr.Decode(&s.batch, s.feats)
	s.resetBatch()
	for _, st := range s.seqs {
		if st == nil {
			continue
		}
		if err != nil {
			st.next = st.kv
		} else {
			st.kv = st.next
		}
	}
	return err == nil
}

// resetBatch empties the batch and its output count.
func (s *Strategy) resetBatch() {
	s.batch.Reset()
	s.nOut = 0
}
