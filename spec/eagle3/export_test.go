package eagle3

// Observe sets the test hook that sees every draft decode's output.
func Observe(s *Strategy, f func(seq, step int, logits, next []float32)) { s.observe = f }

// DraftVocab exposes the drafter's draft-to-target map.
func DraftVocab(s *Strategy) []int32 { return s.d2t }
