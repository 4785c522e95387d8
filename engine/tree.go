package engine

import "fmt"

// CheckPath checks TreeSession.KeepPath's arguments against a sequence of
// n positions: the root and the path lie in it and the path's positions
// increase (a child is always stored after its parent).
func CheckPath(n, root int, path []int32) error {
	if root < 0 || root >= n {
		return fmt.Errorf("tree root %d outside the sequence's %d positions", root, n)
	}
	prev := root
	for _, p := range path {
		if int(p) <= prev || int(p) >= n {
			return fmt.Errorf("tree path %v (root %d) is not increasing within the sequence's %d positions", path, root, n)
		}
		prev = int(p)
	}
	return nil
}
