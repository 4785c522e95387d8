package server

import (
	"bufio"
	"encoding/json"
	"errors"
	"time"

	"github.com/valyala/fasthttp"
)

// sse writes Server-Sent Events; a failed flush means the client left.
type sse struct {
	w   *bufio.Writer
	err error
}

func (s *sse) data(v any) {
	if s.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		s.err = err
		return
	}
	s.raw(b)
}

func (s *sse) raw(b []byte) {
	if s.err != nil {
		return
	}
	s.w.WriteString("data: ")
	s.w.Write(b)
	s.w.WriteString("\n\n")
	s.err = s.w.Flush()
}

// streamJob answers with an SSE stream: emit turns each event batch into
// chunks, finish writes the closing chunks. A client that disconnects
// cancels the job, which frees its slots at the next step.
func (s *Server) streamJob(ctx *fasthttp.RequestCtx, j *job, emit func(*sse, event), finish func(*sse, []event)) {
	ctx.SetContentType("text/event-stream; charset=utf-8")
	ctx.Response.Header.Set("Cache-Control", "no-cache")
	ctx.Response.Header.Set("X-Accel-Buffering", "no")
	ctx.SetBodyStreamWriter(func(w *bufio.Writer) {
		out := &sse{w: w}
		defer j.cancel() // no-op when finished; frees slots otherwise
		last := make([]event, len(j.tasks))
		timer := time.NewTimer(time.Until(j.deadline) + time.Second)
		defer timer.Stop()
		for left := len(j.tasks); left > 0 && out.err == nil; {
			evs := j.box.take(timer.C)
			if evs == nil {
				j.streamError(out, newError(504, "server_error", "the request timed out"))
				return
			}
			for _, ev := range evs {
				if errors.Is(ev.err, errShutdown) {
					ev = event{index: ev.index, done: true, finish: "length", stopType: "limit", slot: -1}
				}
				if ev.err != nil {
					j.streamError(out, newError(500, "server_error", "%v", ev.err))
					return
				}
				emit(out, ev)
				if ev.done {
					last[ev.index] = ev
					left--
				}
			}
		}
		if out.err == nil {
			finish(out, last)
		}
	})
}

// streamError writes an error that ends a stream: the job's own shape when
// it has one (Anthropic's event: error), else data: {"error": …}.
func (j *job) streamError(out *sse, e *apiError) {
	if j.onStreamError != nil {
		j.onStreamError(out, e)
		return
	}
	out.data(map[string]*apiError{"error": e})
}
