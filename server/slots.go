package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/valyala/fasthttp"
)

// POST /slots/{id}?action=save|restore|erase, llama-server's slot actions
// (--slot-save-path). Save writes the slot's KV sequence and tokens as a
// kvcache state file (attention rows and, for a hybrid model, the
// recurrent state, so a restored slot continues without a prefill);
// restore loads one into an idle slot, whose prompt cache then serves
// prefix reuse for the next request (for a hybrid model, whose recurrent
// state exists at the restored length alone, a prompt that continues all
// the restored tokens; a shorter shared prefix is prefilled from 0, as
// Truncate then fails with ErrNoSnapshot); erase forgets the
// slot's cache. The actions run on the scheduler goroutine (it owns the
// session), between decode steps, so a save of a long sequence pauses the
// other slots for the time of the write (llama-server does the same in its
// main loop). A busy slot is refused with 503 and Retry-After (llama-server
// instead defers the action until the slot is idle).

// slotActionPrefix is the route prefix of the slot actions.
const slotActionPrefix = "/slots/"

func (s *Server) handleSlotAction(ctx *fasthttp.RequestCtx, path string) {
	if s.cfg.SlotSavePath == "" {
		writeError(ctx, newError(fasthttp.StatusNotImplemented, "not_supported_error", "This server does not support slots action. Start it with `--slot-save-path`"))
		return
	}
	id, err := strconv.Atoi(strings.TrimPrefix(path, slotActionPrefix))
	if err != nil || id < 0 || id >= len(s.sched.slots) {
		writeError(ctx, badRequest("id_slot", "Invalid slot ID %q: slots are 0 to %d", strings.TrimPrefix(path, slotActionPrefix), len(s.sched.slots)-1))
		return
	}
	action := string(ctx.QueryArgs().Peek("action"))
	var filename string
	switch action {
	case "save", "restore":
		var body struct {
			Filename *string `json:"filename"`
		}
		if e := decodeRequest(ctx.PostBody(), &body); e != nil {
			writeError(ctx, e)
			return
		}
		if body.Filename == nil {
			writeError(ctx, badRequest("filename", "filename is required"))
			return
		}
		if err := validateFilename(*body.Filename); err != nil {
			writeError(ctx, badRequest("filename", "Invalid filename %q: %v", *body.Filename, err))
			return
		}
		filename = *body.Filename
	case "erase":
	default:
		writeError(ctx, badRequest("action", "Invalid action %q: use save, restore or erase", action))
		return
	}
	var res map[string]any
	var e *apiError
	if ce := s.control(func() { res, e = s.sched.slotAction(id, action, s.cfg.SlotSavePath, filename) }); ce != nil {
		e = ce
	}
	if e != nil {
		writeError(ctx, e)
		return
	}
	s.writeJSON(ctx, res)
}

// control runs f on the scheduler goroutine and waits until it returned.
func (s *Server) control(f func()) *apiError {
	done := make(chan struct{})
	timer := time.NewTimer(s.cfg.Timeout)
	defer timer.Stop()
	select {
	case s.sched.ctl <- func() { defer close(done); f() }:
	case <-s.sched.done:
		return newError(fasthttp.StatusServiceUnavailable, "unavailable_error", "the server is shutting down")
	case <-timer.C:
		return newError(fasthttp.StatusServiceUnavailable, "unavailable_error", "the scheduler did not take the slot action in time")
	}
	<-done
	return nil
}

// errSlotBusy is the answer for an action on a slot that runs a request.
func errSlotBusy(id int) *apiError {
	return newError(fasthttp.StatusServiceUnavailable, "unavailable_error", "slot %d is busy processing a request; retry when it is idle", id)
}

// slotAction performs one action on an idle slot (scheduler goroutine).
func (s *scheduler) slotAction(id int, action, dir, filename string) (map[string]any, *apiError) {
	sl := s.slots[id]
	if sl.t != nil {
		return nil, errSlotBusy(id)
	}
	t0 := time.Now()
	switch action {
	case "erase":
		n := len(sl.cached)
		s.dropCache(sl)
		return map[string]any{"id_slot": id, "n_erased": n}, nil
	case "save":
		n, written, err := s.saveSlot(sl, filepath.Join(dir, filename))
		if err != nil {
			return nil, newError(fasthttp.StatusInternalServerError, "server_error", "saving slot %d to %q: %v", id, filename, err)
		}
		return map[string]any{"id_slot": id, "filename": filename, "n_saved": n, "n_written": written,
			"timings": map[string]any{"save_ms": msBetween(t0, time.Now())}}, nil
	default: // restore
		n, read, err := s.restoreSlot(sl, filepath.Join(dir, filename))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, badRequest("filename", "Unable to restore slot %d: no slot file %q in --slot-save-path", id, filename)
			}
			return nil, badRequest("filename", "Unable to restore slot %d from %q: %v", id, filename, err)
		}
		return map[string]any{"id_slot": id, "filename": filename, "n_restored": n, "n_read": read,
			"timings": map[string]any{"restore_ms": msBetween(t0, time.Now())}}, nil
	}
}

// saveSlot writes sl's sequence to path through a temporary file in the
// same folder renamed into place, so a reader never sees half a file and
// a failed save leaves an older file of that name intact.
func (s *scheduler) saveSlot(sl *slot, path string) (int, int64, error) {
	n := len(sl.cached)
	if got := s.sess.SeqLen(sl.id); got != n {
		return 0, 0, fmt.Errorf("internal: slot holds %d tokens and %d KV positions", n, got)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".waggle-slot-*.tmp")
	if err != nil {
		return 0, 0, err
	}
	written, err := s.sess.Cache().WriteState(f, sl.id, s.model, sl.cached)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return 0, 0, err
	}
	return n, written, nil
}

// restoreSlot loads the state file at path into sl. The codec checks the
// whole file before it replaces the slot's sequence; a file it refuses
// leaves the slot as it was. Token ids outside the vocabulary (possible
// only in a file written for another vocabulary with the same weights)
// are refused after the load, and the slot is then emptied.
func (s *scheduler) restoreSlot(sl *slot, path string) (int, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	if !st.Mode().IsRegular() {
		return 0, 0, fmt.Errorf("%q is not a regular file", filepath.Base(path))
	}
	toks, err := s.sess.Cache().RestoreState(f, st.Size(), sl.id, s.model)
	if err != nil {
		if s.sess.SeqLen(sl.id) != len(sl.cached) {
			s.dropCache(sl) // the codec emptied the sequence (pool full, file changed)
		}
		return 0, 0, err
	}
	for _, id := range toks {
		if id < 0 || int(id) >= s.nVocab {
			s.dropCache(sl)
			return 0, 0, fmt.Errorf("token id %d outside the vocabulary [0, %d)", id, s.nVocab)
		}
	}
	sl.cached = append(sl.cached[:0], toks...)
	sl.lastUsed = time.Now()
	return len(toks), st.Size(), nil
}

// validateFilename accepts a plain file name, as llama.cpp's
// fs_validate_filename does: 1 to 255 bytes of valid UTF-8, no path
// separator, no "..", no control characters, no ':' (a drive or stream on
// Windows), no leading or trailing space, and not "." alone.
func validateFilename(name string) error {
	switch {
	case name == "" || len(name) > 255:
		return errors.New("the name must have 1 to 255 bytes")
	case !utf8.ValidString(name):
		return errors.New("the name is not valid UTF-8")
	case strings.ContainsAny(name, `/\:`):
		return errors.New("the name must not contain a path separator or ':'")
	case strings.Contains(name, ".."):
		return errors.New(`the name must not contain ".."`)
	case name == ".":
		return errors.New(`"." is not a file name`)
	case strings.TrimSpace(name) != name:
		return errors.New("the name must not start or end with a space")
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return errors.New("the name must not contain control characters")
		}
	}
	return nil
}
