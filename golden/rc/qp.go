package rc

import (
	"github.com/rocesim/cosim/golden/dcqcn"
	"github.com/rocesim/cosim/golden/roce"
)

// qp is one RC QP: requester (send queue, PSNs, retries), responder
// (expected PSN, MSN, receive queue, READ resources) and the DCQCN state.
type qp struct {
	n        *Node
	idx      int    // in Node.qps
	tAt      uint64 // timerAt as of the last noteTimers: every path that moves a timer calls it
	tOK      bool
	cfg      QPConfig
	hdr      header // the QP's frames
	cnpHdr   header // its CNPs: the same, tagged with the CNP priority
	tos      uint8
	ackCyc   uint64 // local ACK timeout in cycles, 0 = disabled
	ackEvery uint32 // AckReq on every ackEvery-th packet of a message
	err      bool   // error state: nothing sent, everything received dropped
	counters Counters

	req      requester
	resp     responder
	rp       dcqcn.ReactionPoint
	np       dcqcn.NotificationPoint
	lastResp bool // the last packet came from the responder half
	// cnpWaiting: a CNP for this QP waits in the node's queue.
	cnpWaiting bool
	// nextSend is the first cycle at which the rate limiter lets the QP
	// send its next paced packet.
	nextSend uint64
}

func newQP(n *Node, c QPConfig) *qp {
	q := &qp{n: n, cfg: c}
	q.hdr = makeHeader(n.cfg.MAC, c.RemoteMAC, n.ip, c.RemoteIP.As4(), c.UDPSrcPort, makeTag(c.VLAN, c.Priority, c.VID))
	q.cnpHdr = makeHeader(n.cfg.MAC, c.RemoteMAC, n.ip, c.RemoteIP.As4(), c.UDPSrcPort,
		makeTag(c.VLAN, n.cfg.CNPPriority, c.VID))
	dscp := n.cfg.DSCP
	if c.DSCP != 0 {
		dscp = c.DSCP // the QP's own, for its priority in the switches
	}
	q.tos = dscp<<2 | ecnECT0
	q.ackCyc = TimeoutCycles(c.Timeout, n.cfg.ClockHz)
	q.ackEvery = uint32(max(1, min(AckReqInterval, c.Window/2)))
	q.req.init(c)
	q.resp.init(c)
	if n.cfg.DCQCN.LineRate != 0 {
		q.rp.Reset(&n.cfg.DCQCN)
	}
	return q
}

// paced reports whether the rate limiter holds packets back: only while
// the rate is below line rate (alpha may still be decaying after that).
func (q *qp) paced() bool {
	return q.n.cfg.DCQCN.LineRate != 0 && q.rp.Rate() < q.n.cfg.DCQCN.LineRate
}

// sent accounts a paced packet of n bytes sent at now.
func (q *qp) sentPaced(bytes int, now uint64) {
	if q.n.cfg.DCQCN.LineRate == 0 {
		return
	}
	paced := q.paced() // the rate this packet went out at
	q.rp.OnSent(bytes, now)
	if paced {
		q.nextSend = now + q.rp.Rate().Cycles(bytes)
	} else {
		q.nextSend = now
	}
}

func (q *qp) advance(now uint64) {
	if q.n.cfg.DCQCN.LineRate != 0 {
		q.rp.Advance(now)
	}
	if q.err {
		return
	}
	r := &q.req
	if r.rnrWait && now >= r.rnrUntil {
		r.rnrWait = false
	}
	if r.timerOn && now >= r.deadline {
		if r.una == r.nextPSN {
			r.timerOn = false
		} else {
			q.retry(r.una, ReqRetryTimeout, now)
		}
	}
}

// earliest keeps the smallest of the cycles it is given.
type earliest struct {
	c  uint64
	ok bool
}

func (e *earliest) take(x uint64) {
	if !e.ok || x < e.c {
		e.c, e.ok = x, true
	}
}

// timerAt returns the QP's earliest timer deadline.
func (q *qp) timerAt() (uint64, bool) {
	var e earliest
	if q.n.cfg.DCQCN.LineRate != 0 {
		if x, ok := q.rp.NextEvent(); ok {
			e.take(x)
		}
	}
	if !q.err {
		if q.req.rnrWait {
			e.take(q.req.rnrUntil)
		}
		if q.req.timerOn {
			e.take(q.req.deadline)
		}
	}
	return e.c, e.ok
}

// nextEvent is the earliest cycle the QP may send or a timer fires: its
// timers, and its next packet (at once, or when the rate limiter lets it),
// not before resume (the end of a pause of its priority).
func (q *qp) nextEvent(resume uint64) (uint64, bool) {
	var e earliest
	if c, ok := q.timerAt(); ok {
		e.take(c)
	}
	if q.err {
		if j := q.resp.head(); j != nil && j.kind == jobAck {
			e.take(resume) // the NAK that moved the QP to error still goes out
		}
		return e.c, e.ok
	}
	send := resume
	if q.paced() {
		send = max(q.nextSend, resume)
	}
	if j := q.resp.head(); j != nil {
		if j.kind == jobRead {
			e.take(send)
		} else {
			e.take(resume)
		}
	}
	if !q.req.rnrWait && q.req.ready(q) {
		e.take(send)
	}
	return e.c, e.ok
}

// poll builds the QP's next packet, if it may send one at now. The
// responder half (ACK, NAK, READ responses, in request order) and the
// requester half take turns when both have a packet ready, so that a long
// READ response stream cannot starve the QP's own requests into timeouts.
func (q *qp) poll(now uint64, buf []byte) ([]byte, bool) {
	if q.err {
		// In the error state only the NAK that caused it is sent (rxe sends
		// it before rxe_qp_error); toError dropped every other job.
		if j := q.resp.head(); j != nil && j.kind == jobAck {
			var p txPacket
			q.resp.next(q, &p)
			return build(buf, &q.hdr, q.tos, q.cfg.RemoteQPN, &p, q.n.mem), true
		}
		return nil, false
	}
	held := q.paced() && now < q.nextSend
	j := q.resp.head()
	respReady := j != nil && !(j.kind == jobRead && held)
	reqReady := !q.req.rnrWait && !held && q.req.ready(q)
	var p txPacket
	switch {
	case respReady && (!reqReady || !q.lastResp):
		q.resp.next(q, &p)
		q.lastResp = true
	case reqReady:
		q.req.next(q, &p, now)
		q.lastResp = false
	default:
		return nil, false
	}
	f := build(buf, &q.hdr, q.tos, q.cfg.RemoteQPN, &p, q.n.mem)
	if p.op != roce.RCAcknowledge {
		q.sentPaced(len(f), now)
	}
	return f, true
}

// toError moves the QP to the error state: every outstanding work
// request, send and receive, completes with StatusFlushed (IBA 10.3.1,
// rxe_qp_error), and the QP sends and accepts nothing more.
func (q *qp) toError(now uint64) {
	if q.err {
		return
	}
	q.err = true
	q.req.flush(q, now)
	q.resp.flush(q, now)
	q.resp.dropJobs()
}

func (q *qp) postSend(wr WorkRequest, now uint64) error {
	if q.err {
		q.n.complete(Completion{Cycle: now, QPN: q.cfg.QPN, ID: wr.ID, Op: wr.Op, Status: StatusFlushed})
		return nil
	}
	return q.req.post(q, wr)
}

func (q *qp) postRecv(rr RecvRequest, now uint64) error {
	if q.err {
		q.n.complete(Completion{Cycle: now, QPN: q.cfg.QPN, Recv: true, ID: rr.ID, Status: StatusFlushed})
		return nil
	}
	return q.resp.post(rr)
}

// npkts is the number of PSNs a message of length bytes uses: one per
// packet, at least one (IBA 9.7).
func npkts(length uint32, pmtu int) uint32 {
	if length == 0 {
		return 1
	}
	return (length + uint32(pmtu) - 1) / uint32(pmtu)
}
