package server

import "github.com/waggle-llm/waggle/spec"

// treeRequest holds BeeLlama's per-request tree and confidence fields for
// DFlash: the branch budget (DDTree nodes beyond the main path), the
// legacy total tree budget, and p_min.
type treeRequest struct {
	BranchBudget *int     `json:"speculative.branch_budget"`
	TreeBudget   *int     `json:"speculative.tree_budget"`
	PMin         *float32 `json:"speculative.p_min"`
}

// treeOptions validates the tree fields into o (after n_max is read): a
// legacy tree_budget T becomes max(0, T - n_max) branch nodes unless
// branch_budget is given too, as BeeLlama converts it; n_max is the
// request's or, when it gave none, 16 (the default depth).
func treeOptions(r *treeRequest, o *spec.RequestOptions) *apiError {
	for _, f := range []struct {
		v    *int
		name string
	}{{r.BranchBudget, "speculative.branch_budget"}, {r.TreeBudget, "speculative.tree_budget"}} {
		if f.v != nil && (*f.v < 0 || *f.v > maxDraft) {
			return badRequest(f.name, "%s must be in [0, %d], got %d", f.name, maxDraft, *f.v)
		}
	}
	switch {
	case r.BranchBudget != nil:
		o.BranchBudget, o.HasBranchBudget = *r.BranchBudget, true
	case r.TreeBudget != nil:
		nMax := 16
		if o.NMax > 0 {
			nMax = o.NMax
		}
		o.BranchBudget, o.HasBranchBudget = max(0, *r.TreeBudget-nMax), true
	}
	if r.PMin != nil {
		if !(*r.PMin >= 0 && *r.PMin <= 1) {
			return badRequest("speculative.p_min", "speculative.p_min must be in [0, 1], got %v", *r.PMin)
		}
		o.PMin, o.HasPMin = *r.PMin, true
	}
	return nil
}
