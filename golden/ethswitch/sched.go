package ethswitch

// Egress: the scheduler's picks (README "Egress scheduling") and the beats
// of the frame leaving (README step 3, "Departure").

// pick runs the scheduler of egress port e at cycle t, whose transmitter is
// free (idle, or its last beat was taken at t). Candidates: the oldest PFC
// frame waiting, never paused; then a queue that is non-empty and not
// paused at t, by strict priority or DRR. Copies queued at t are not in
// the queues yet (decisions run after the picks), so every copy present is
// visible at t.
func (m *Model) pick(e int, t uint64) {
	p := &m.ports[e]
	if p.pfcq.len() > 0 {
		prio := p.pfcq.pop()
		f := p.pfcWait[prio]
		p.pfcWait[prio] = nil
		m.start(e, t, Out{Frame: f, Ingress: -1, Seq: -1, Queue: -1}, -1)
		return
	}
	if m.r.ctrl&CtrlSched == 0 {
		for q := NumQueues - 1; q >= 0; q-- {
			if p.q[q].len() > 0 && t >= p.pauseUntil[q] {
				m.startQueue(e, q, t)
				return
			}
		}
		p.settled = true
		return
	}
	// Deficit round robin: at most NumQueues steps, one queue per step.
	for range NumQueues {
		q := p.rr
		if p.q[q].len() == 0 || t < p.pauseUntil[q] {
			if p.q[q].len() == 0 {
				p.deficit[q] = 0
			}
			p.rr, p.fresh = (q+1)%NumQueues, false
			continue
		}
		if !p.fresh {
			p.deficit[q] += uint64(m.r.quantum[q])
			p.fresh = true
		}
		if n := uint64(len(p.q[q].front().frame)); p.deficit[q] >= n {
			p.deficit[q] -= n
			m.startQueue(e, q, t)
			return
		}
		p.rr, p.fresh = (q+1)%NumQueues, false
	}
	// Out of steps: nothing this cycle. When no queue was eligible, another
	// attempt ends in the same state until one becomes eligible (every step
	// advanced rr, so NumQueues steps came back to the same queue with
	// fresh = 0, and empty queues stay at deficit 0): that is what lets Run
	// skip those cycles. When a queue was eligible but short of deficit,
	// nextEvent sees it eligible and steps the next cycle anyway.
	p.settled = true
}

// startQueue takes the head of queue q of egress e.
func (m *Model) startQueue(e, q int, t uint64) {
	ent := m.ports[e].q[q].pop()
	m.start(e, t, Out{Frame: ent.frame, Ingress: int(ent.ingress), Seq: ent.seq, Queue: q, Marked: ent.marked}, ent.slot)
}

// start begins sending o on egress e, picked at t: the first beat is valid
// at t+1.
func (m *Model) start(e int, t uint64, o Out, s int32) {
	p := &m.ports[e]
	o.Port, o.Picked = e, t
	beats := (len(o.Frame) + m.beatBytes - 1) / m.beatBytes
	p.tx = transmitter{busy: true, out: o, slot: s, beats: beats, next: t + PickToFirstBeat}
	if m.cfg.Ready == nil {
		p.tx.out.First = t + PickToFirstBeat
		p.tx.haveFirst = true
		p.tx.end = t + uint64(beats)
		p.tx.ended = true
	}
	p.settled = false
}

// scan takes the beats of egress e's frame in the cycles before limit that
// it has not looked at yet: a beat valid at c is taken at the first cycle
// from c on at which Ready is true, and the next beat is valid the cycle
// after. It stops at the last beat (ended, end = its cycle).
func (m *Model) scan(e int, limit uint64) {
	tx := &m.ports[e].tx
	for tx.next < limit {
		c := tx.next
		tx.next++
		if !m.cfg.Ready(e, c) {
			continue
		}
		if !tx.haveFirst {
			tx.out.First, tx.haveFirst = c, true
		}
		if tx.beats--; tx.beats == 0 {
			tx.end, tx.ended = c, true
			return
		}
	}
}

// finish handles the last beat of egress e taken at t: the frame is out,
// tx_* count now, and its occupancy and slot are released at the end of t.
func (m *Model) finish(e int, t uint64) {
	tx := &m.ports[e].tx
	o := tx.out
	o.Last = t
	m.outs = append(m.outs, o)
	c := &m.cnt[e]
	c[TxFrames]++
	c[TxBytes] += uint64(len(o.Frame))
	if tx.slot < 0 {
		c[TxPFC]++
	} else {
		m.rel = append(m.rel, release{e: e, q: o.Queue, slot: tx.slot, n: len(o.Frame)})
	}
	*tx = transmitter{}
}
