package engine

import "errors"

func isContextFull(err error) bool { return errors.Is(err, ErrContextFull) }
