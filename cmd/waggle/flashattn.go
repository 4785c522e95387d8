package main

import (
	"fmt"
	"strings"
)

// parseFlashAttn reads -fa/--flash-attn the way llama.cpp does (on,
// enabled, true, 1 / off, disabled, false, 0 / auto, -1). auto selects the
// exact path: it is the one Waggle's parity goldens pin to llama.cpp, and
// the flash path is no faster on the CPU at the contexts measured (see
// engine/attention_flash.go), so auto keeps the default unchanged.
func parseFlashAttn(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "enabled", "true", "1":
		return true, nil
	case "off", "disabled", "false", "0", "auto", "-1", "":
		return false, nil
	}
	return false, fmt.Errorf("--flash-attn: %q is not on, off or auto", v)
}
