package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/rocesim/cosim/cosim"
)

// window is one window of the run: sent to every model, then its replies
// routed.
type window struct {
	start, end uint64
	// more: a source had frames left after this window's (for the stall
	// check, as of when the window was built).
	more bool
}

// step runs one window [r.cycle, end) on every model in lock step; a live
// run may stretch it up to limit to let the tap frames it takes get
// through.
func (r *run) step(ctx context.Context, end, limit uint64) error {
	w := r.build(end, limit)
	err := r.timedParallel(func(n *node) error {
		return n.m.StepInto(ctx, n.window, &n.reply)
	})
	if err != nil {
		return err
	}
	r.record()
	return r.routeReplies(w)
}

// send builds the next window and sends it to every model without waiting
// for the replies (recv reads them).
func (r *run) send(ctx context.Context, end, limit uint64) (*window, error) {
	w := r.build(end, limit)
	err := r.timedParallel(func(n *node) error {
		return n.m.Send(ctx, n.window)
	})
	if err != nil {
		return nil, err
	}
	r.record()
	return w, nil
}

// recv reads every model's reply to w, the oldest window in flight, and
// routes them.
func (r *run) recv(ctx context.Context, w *window) error {
	err := r.timedParallel(func(n *node) error {
		return n.m.Recv(ctx, &n.reply)
	})
	if err != nil {
		return err
	}
	return r.routeReplies(w)
}

// build fills every model's next window, [r.front, end), with its source,
// link and host frames; a live run may stretch it up to limit.
func (r *run) build(end, limit uint64) *window {
	start := r.front
	for _, n := range r.nodes {
		// The last window's frames are in n.sent by now: reuse the slice.
		n.window = cosim.Window{Frames: n.window.Frames[:0]}
		if r.sentWindows == 0 {
			n.window.CSRWrites = n.config
			n.window.MemWrites = n.memInit
		} else {
			n.window.MemWrites = nil
		}
	}
	batch := r.batch
	if batch == nil {
		batch = r.check.batch()
	}
	batch, end = r.takeTaps(end, limit, batch)
	for _, n := range r.nodes {
		n.window.Target = end
	}
	for _, s := range r.sources {
		n := s.node
		pcap := uint16(r.srcPcap[s])
		for _, f := range s.due(end) {
			n.window.Frames = append(n.window.Frames, cosim.Frame{Port: uint16(s.port), Cycle: max(f.cycle, start), Data: f.data, Bad: f.bad})
			batch = r.check.flush(append(batch, job{kind: jobRecord, pcap: pcap, cycle: f.cycle, data: f.data}))
		}
	}
	for _, l := range r.links {
		n := l.toNode
		n.window.Frames = l.deliver(end, n.window.Frames)
	}
	if r.session {
		batch = r.buildSession(start, end, batch)
	}
	for _, n := range r.nodes {
		for _, w := range n.workloads {
			n.window.Frames = w.Due(n.name, end, n.window.Frames)
		}
	}
	for _, n := range r.nodes {
		// Frames from several sources may share a port: keep arrival
		// order. With one source per port they usually come in order.
		if !slices.IsSortedFunc(n.window.Frames, byPortCycle) {
			slices.SortStableFunc(n.window.Frames, byPortCycle)
		}
	}
	r.batch = batch
	r.front = end
	_, more := r.nextSource()
	return &window{start: start, end: end, more: more}
}

// record notes what each model was given (Step and Send numbered the
// frames).
func (r *run) record() {
	r.sentWindows++
	for _, n := range r.nodes {
		for _, f := range n.window.Frames {
			n.sent[f.Port].Push(f)
			r.in++
		}
	}
}

// routeReplies routes every model's reply to w and hands the checker its
// jobs. The jobs of a window sent since (its source frames' records) may
// come first in the batch: they only go to the sources' own pcapng files,
// so what every file and the scoreboard see comes in the order of lock
// step.
func (r *run) routeReplies(w *window) error {
	r.windows++
	batch := r.batch
	for _, n := range r.nodes {
		if len(n.reply.Accepts) > 0 || len(n.reply.Frames) > 0 {
			r.lastProgress = w.end
		}
		var err error
		if batch, err = r.route(n, w.end, batch); err != nil {
			r.batch = batch
			return err
		}
	}
	r.check.submit(batch)
	r.batch = nil
	more := w.more
	if r.front == w.end {
		_, more = r.nextSource() // nothing sent since: ask now, as lock step always did
	}
	if more {
		r.lastProgress = w.end
	}
	r.cycle = w.end
	return nil
}

// byPortCycle orders a window's frames by port, then arrival.
func byPortCycle(a, b cosim.Frame) int {
	if a.Port != b.Port {
		return cmp.Compare(a.Port, b.Port)
	}
	return cmp.Compare(a.Cycle, b.Cycle)
}

// route takes a model's reply: it matches accepts to the frames sent, puts
// outputs on their links and queues everything for the checker.
func (r *run) route(n *node, end uint64, batch []job) ([]job, error) {
	rep := &n.reply
	n.busy, n.queued = rep.Done.Busy, rep.Done.FramesQueued
	n.stalls = Stalls{Source: rep.Done.SrcStalls, Sink: rep.Done.SinkStalls}
	for _, a := range rep.Accepts {
		q := &n.sent[a.Port]
		if q.Len() == 0 || q.Items()[0].Seq != a.Seq {
			return batch, fmt.Errorf("model %s accepted %s #%d, which is not the next frame sent there", n.name, portRef{n.name, int(a.Port)}.in(), a.Seq)
		}
		f := q.Pop()
		batch = r.check.flush(append(batch, job{kind: jobAccept, n: n, port: a.Port, seq: a.Seq, cycle: a.Cycle,
			last: a.LastCycle, data: f.Data, bad: f.Bad}))
		if r.cfg.Observer != nil {
			r.cfg.Observer.Accepted(n.name, int(a.Port), a.Cycle, a.LastCycle, f.Data)
		}
	}
	batch = append(batch, job{kind: jobAdvance, n: n, cycle: end})
	for _, f := range rep.Frames {
		if ps := n.pausers[int(f.Port)]; ps != nil {
			if enable, times, ok := pfcFrame(f.Data); ok {
				for _, p := range ps {
					p.s.pause(enable, times, f.LastCycle+p.latency)
				}
			}
		}
		for _, w := range n.workloads {
			w.Emitted(n.name, int(f.Port), f.Data, f.LastCycle) // a host reads it
		}
		if r.cfg.Observer != nil {
			r.cfg.Observer.Emitted(n.name, f)
		}
		if !n.unchecked[f.Port] {
			batch = append(batch, job{kind: jobObserve, n: n, port: f.Port, cycle: f.Cycle, data: f.Data, bad: f.Bad})
		}
		rec := job{kind: jobRecord, cycle: f.Cycle, data: f.Data}
		if l := n.links[int(f.Port)]; l != nil {
			fault, out := l.send(f.LastCycle, f.Data)
			rec.pcap = uint16(l.pcap)
			if fault&faultLost != 0 {
				r.drops["link_loss"]++
				rec.note = noteLost
			}
			if fault&faultCorrupted != 0 {
				r.faults["link_corrupt"]++
				rec.note, rec.data = noteCorrupted, out
			}
			if fault&faultDuplicated != 0 {
				r.faults["link_duplicate"]++
				rec.note = max(rec.note, noteDuplicated)
			}
			if fault&faultReordered != 0 {
				r.faults["link_reorder"]++
				rec.note = max(rec.note, noteReordered)
			}
			if fault&faultCorrupted != 0 && fault&(faultDuplicated|faultReordered) != 0 {
				rec.note = noteCorruptedDuplicated
				if fault&faultReordered != 0 {
					rec.note = noteCorruptedReordered
				}
			}
		} else {
			rec.pcap = uint16(n.sinks[int(f.Port)])
			if t, ok := n.taps[int(f.Port)]; ok {
				t.end.Deliver(f.Cycle, f.Data) // at once: a host is waiting for it
			}
		}
		batch = r.check.flush(append(batch, rec))
	}
	return batch, nil
}
