package rc

import "github.com/rocesim/cosim/golden/roce"

// wqe is a send work request in the send queue.
type wqe struct {
	wr       WorkRequest
	first    roce.PSN // first PSN, assigned when the first packet is sent
	n        uint32   // PSNs the message uses
	started  bool
	got      uint32   // READ: response packets received, in order
	reqStart roce.PSN // READ: PSN of the latest request; responses restart there
}

func (w *wqe) last() roce.PSN { return w.first.Add(int(w.n) - 1) }

// holds reports whether psn belongs to the started WQE w.
func (w *wqe) holds(psn roce.PSN) bool {
	d := psn.Diff(w.first)
	return d >= 0 && d < int(w.n)
}

// requester is the sending half of a QP (rxe_req.c and rxe_comp.c).
//
// PSNs: una is the oldest PSN not yet acknowledged, nextPSN the first
// never sent, cursor the next to send (below nextPSN after a go-back-N).
// The send queue is a ring; the started WQEs are a prefix of it.
type requester struct {
	sq       []wqe
	head     int // ring index of the oldest WQE
	count    int // WQEs in the ring
	started  int // WQEs with PSNs assigned (a prefix)
	cur      int // ring offset (from head) of the WQE holding cursor
	cursor   roce.PSN
	nextPSN  roce.PSN
	una      roce.PSN
	reads    int // READs started and not completed
	maxReads int
	window   int

	retryLeft, rnrLeft uint8
	startedRetry       bool // a go-back-N is under way and nothing progressed since

	timerOn  bool
	deadline uint64
	rnrWait  bool
	rnrUntil uint64
	rnrPSN   roce.PSN
}

func (r *requester) init(c QPConfig) {
	r.sq = make([]wqe, c.SQDepth)
	r.cursor, r.nextPSN, r.una = c.SendPSN, c.SendPSN, c.SendPSN
	r.maxReads, r.window = c.MaxReads, c.Window
	r.retryLeft, r.rnrLeft = c.RetryCnt, c.RNRRetry
}

func (r *requester) at(off int) *wqe { return &r.sq[(r.head+off)%len(r.sq)] }

func (r *requester) post(q *qp, wr WorkRequest) error {
	if r.count == len(r.sq) {
		return ErrQueueFull
	}
	*r.at(r.count) = wqe{wr: wr, n: npkts(wr.Length, q.cfg.PMTU)}
	r.count++
	return nil
}

// ready reports whether a packet is waiting at the cursor and the window
// and the READ limit let it go.
func (r *requester) ready(q *qp) bool {
	if r.cur >= r.count {
		return false
	}
	w := r.at(r.cur)
	last := r.cursor
	if !w.started {
		if w.wr.Op == OpRead && r.reads >= r.maxReads {
			return false
		}
		if w.wr.Op == OpRead {
			last = r.nextPSN.Add(int(w.n) - 1)
		}
	} else if w.wr.Op == OpRead {
		last = w.last()
	}
	// A READ longer than the whole window may go once nothing is
	// outstanding before it; otherwise it could never be sent.
	return last.Diff(r.una) < r.window || r.cursor == r.una
}

// next fills p with the packet at the cursor and moves the cursor on.
func (r *requester) next(q *qp, p *txPacket, now uint64) {
	w := r.at(r.cur)
	if !w.started {
		w.first, w.started = r.nextPSN, true
		r.started++
		if w.wr.Op == OpRead {
			r.reads++
		}
	}
	retransmit := r.cursor.Diff(r.nextPSN) < 0
	i := uint32(r.cursor.Diff(w.first))
	pmtu := uint32(q.cfg.PMTU)
	p.psn = r.cursor
	if w.wr.Op == OpRead {
		// A READ asks for everything from the cursor on (a partly answered
		// READ is re-requested for the rest, IBA 9.7).
		off := i * pmtu
		p.op = roce.RCReadRequest
		p.ackReq = true
		p.va, p.rkey, p.dmaLen = w.wr.RemoteAddr+uint64(off), w.wr.RKey, w.wr.Length-min(off, w.wr.Length)
		w.reqStart = r.cursor
		r.cursor = w.last().Add(1)
	} else {
		off := i * pmtu
		p.payload = int(min(pmtu, w.wr.Length-off))
		p.addr = w.wr.LocalAddr + uint64(off)
		first, last := i == 0, i == w.n-1
		p.op = opFor(w.wr.Op, first, last)
		p.ackReq = last || (i+1)%q.ackEvery == 0
		if first && w.wr.Op.isWrite() {
			p.va, p.rkey, p.dmaLen = w.wr.RemoteAddr, w.wr.RKey, w.wr.Length
		}
		p.imm = w.wr.Imm
		r.cursor = r.cursor.Add(1)
	}
	if r.cursor.Diff(r.nextPSN) > 0 {
		r.nextPSN = r.cursor
	}
	if r.cursor.Diff(w.last()) > 0 {
		r.cur++
	}
	q.counters[TxPackets]++
	if retransmit {
		q.counters[TxRetransmits]++
	}
	if !r.timerOn && q.ackCyc != 0 {
		r.timerOn, r.deadline = true, now+q.ackCyc
	}
}

// opFor is the requester's opcode choice (IBA 9.7.4): ONLY when the
// message fits one packet, else FIRST, MIDDLE..., LAST; the immediate only
// on LAST or ONLY.
func opFor(op Op, first, last bool) roce.OpCode {
	var base roce.OpCode
	if op.isWrite() {
		base = roce.RCWriteFirst
	}
	switch {
	case first && last:
		if op.hasImm() {
			return base + (roce.RCSendOnlyImm - roce.RCSendFirst)
		}
		return base + (roce.RCSendOnly - roce.RCSendFirst)
	case first:
		return base
	case last:
		if op.hasImm() {
			return base + (roce.RCSendLastImm - roce.RCSendFirst)
		}
		return base + (roce.RCSendLast - roce.RCSendFirst)
	}
	return base + (roce.RCSendMiddle - roce.RCSendFirst)
}

// ackBefore acknowledges every PSN before limit: it completes the SEND and
// WRITE requests that end before limit, in order, and moves una up to
// limit. It stops at a READ that is not fully answered, since only its
// responses complete it; gap reports that limit lies beyond the READ's
// next missing response (they were lost: an implied NAK). It reports
// whether una moved.
func (r *requester) ackBefore(q *qp, limit roce.PSN, now uint64) (progress, gap bool) {
	for r.started > 0 {
		w := r.at(0)
		if w.wr.Op == OpRead {
			need := w.first.Add(int(w.got))
			if need.Diff(limit) < 0 {
				limit, gap = need, true
			}
			break
		}
		if w.last().Diff(limit) >= 0 {
			break
		}
		q.n.complete(Completion{Cycle: now, QPN: q.cfg.QPN, ID: w.wr.ID, Op: w.wr.Op, Bytes: w.wr.Length})
		r.pop()
	}
	if limit.Diff(r.una) > 0 {
		r.una = limit
		if r.cursor.Diff(r.una) < 0 { // acknowledged beyond a go-back-N cursor
			r.seek(r.una)
		}
		r.progress(q, now)
		return true, gap
	}
	return false, gap
}

// pop removes the head WQE.
func (r *requester) pop() {
	if r.cur > 0 {
		r.cur--
	}
	r.head = (r.head + 1) % len(r.sq)
	r.count--
	r.started--
}

// progress resets the retry state on a new acknowledgement (rxe
// reset_retry_counters) and restarts the ACK timer.
func (r *requester) progress(q *qp, now uint64) {
	r.retryLeft, r.rnrLeft = q.cfg.RetryCnt, q.cfg.RNRRetry
	r.startedRetry = false
	r.restartTimer(q, now)
}

func (r *requester) restartTimer(q *qp, now uint64) {
	r.timerOn = q.ackCyc != 0 && r.una != r.nextPSN && !r.rnrWait
	r.deadline = now + q.ackCyc
}

// seek moves the cursor to psn, a PSN already sent (or nextPSN).
func (r *requester) seek(psn roce.PSN) {
	r.cursor = psn
	r.cur = r.started
	for i := 0; i < r.started; i++ {
		if r.at(i).holds(psn) {
			r.cur = i
			break
		}
	}
}

// retry starts a go-back-N from psn, spending one retry (IBA 9.7;
// rxe_comp.c COMPST_ERROR_RETRY), or fails the oldest request when
// retry_cnt is spent.
func (q *qp) retry(psn roce.PSN, why Counter, now uint64) {
	r := &q.req
	if r.retryLeft == 0 {
		q.counters[ReqRetryExceeded]++
		q.fail(StatusRetryExceeded, now)
		return
	}
	r.retryLeft--
	r.startedRetry = true
	r.seek(psn)
	q.counters[why]++
	q.n.event(now, q, why, psn)
	r.timerOn, r.deadline = q.ackCyc != 0, now+q.ackCyc
}

// fail completes the oldest request with status and moves the QP to error.
func (q *qp) fail(status Status, now uint64) {
	r := &q.req
	if r.count > 0 {
		w := r.at(0)
		q.n.complete(Completion{Cycle: now, QPN: q.cfg.QPN, ID: w.wr.ID, Op: w.wr.Op, Status: status})
		if r.started == 0 {
			r.started = 1 // pop expects a started head
		}
		r.pop()
	}
	q.toError(now)
}

func (r *requester) flush(q *qp, now uint64) {
	for r.count > 0 {
		w := r.at(0)
		q.n.complete(Completion{Cycle: now, QPN: q.cfg.QPN, ID: w.wr.ID, Op: w.wr.Op, Status: StatusFlushed})
		r.head = (r.head + 1) % len(r.sq)
		r.count--
	}
	r.started, r.cur, r.reads = 0, 0, 0
	r.timerOn, r.rnrWait = false, false
}

// response handles an ACK, a NAK or a READ response for this QP.
func (q *qp) response(b *roce.BTH, now uint64) {
	r := &q.req
	psn := b.PSN
	if psn.Diff(r.una) < 0 {
		q.counters[ReqStaleAck]++
		return
	}
	if psn.Diff(r.nextPSN) > 0 || (psn == r.nextPSN && b.OpCode != roce.RCAcknowledge) {
		q.counters[ReqBogusAck]++
		return
	}
	switch b.OpCode {
	case roce.RCAcknowledge:
		q.onAck(b, now)
	case roce.RCReadResponseFirst, roce.RCReadResponseMiddle, roce.RCReadResponseLast, roce.RCReadResponseOnly:
		q.onReadResponse(b, now)
	default: // ATOMIC ACKNOWLEDGE: we never ask for atomics
		q.counters[ReqBadResponse]++
	}
}

func (q *qp) onAck(b *roce.BTH, now uint64) {
	r := &q.req
	psn, syn := b.PSN, b.AETH.Syndrome
	switch syn.Kind() {
	case roce.KindACK:
		if psn == r.nextPSN { // an ACK for a PSN never sent
			q.counters[ReqBogusAck]++
			return
		}
		_, gap := r.ackBefore(q, psn.Add(1), now)
		if gap {
			q.retryOnce(r.una, ReqRetryReadGap, now)
		}
	case roce.KindRNRNAK:
		r.ackBefore(q, psn, now)
		if r.rnrWait && psn == r.rnrPSN {
			q.counters[ReqRetryIgnored]++ // a copy of the RNR NAK we are waiting out
			return
		}
		if r.una != psn { // the RNR NAK was for a READ that still misses responses
			q.retryOnce(r.una, ReqRetryReadGap, now)
			return
		}
		if r.rnrLeft == 0 {
			q.counters[ReqRNRExceeded]++
			q.fail(StatusRNRRetryExceeded, now)
			return
		}
		if q.cfg.RNRRetry != 7 {
			r.rnrLeft--
		}
		q.counters[ReqRNRWait]++
		q.n.event(now, q, ReqRNRWait, psn)
		r.rnrWait, r.rnrUntil, r.rnrPSN = true, now+RNRCycles(syn.Value(), q.n.cfg.ClockHz), psn
		r.timerOn = false
		r.seek(psn)
	case roce.KindNAK:
		r.ackBefore(q, psn, now)
		switch syn.NAKCode() {
		case roce.NAKPSNSequenceError:
			q.retryOnce(r.una, ReqRetryNAK, now)
		case roce.NAKInvalidRequest:
			q.counters[ReqRemoteError]++
			q.fail(StatusRemoteInvalid, now)
		case roce.NAKRemoteAccessError:
			q.counters[ReqRemoteError]++
			q.fail(StatusRemoteAccess, now)
		default:
			q.counters[ReqRemoteError]++
			q.fail(StatusRemoteOp, now)
		}
	default:
		q.counters[ReqBadResponse]++
	}
}

// retryOnce starts a go-back-N unless one is under way with no progress
// since: a second NAK for the same loss, or a copy of the first, must not
// cause a second retransmission (rxe comp.started_retry).
func (q *qp) retryOnce(psn roce.PSN, why Counter, now uint64) {
	if q.req.startedRetry {
		q.counters[ReqRetryIgnored]++
		return
	}
	q.retry(psn, why, now)
}

func (q *qp) onReadResponse(b *roce.BTH, now uint64) {
	r := &q.req
	psn := b.PSN
	r.ackBefore(q, psn, now) // a response acknowledges every earlier request
	if r.started == 0 || r.at(0).wr.Op != OpRead {
		q.counters[ReqDuplicateResp]++
		return
	}
	w := r.at(0)
	need := w.first.Add(int(w.got))
	switch d := psn.Diff(need); {
	case d < 0:
		q.counters[ReqDuplicateResp]++
		return
	case d > 0:
		q.retryOnce(need, ReqRetryReadGap, now)
		return
	}
	// psn is the next response. Its opcode must fit its place: LAST or
	// ONLY at the READ's last PSN, FIRST or MIDDLE before it; FIRST and
	// ONLY only where a request began (the original or the latest retry),
	// MIDDLE and LAST anywhere after the first PSN, so that a late packet
	// of the original stream is as good as its replay.
	pmtu := uint32(q.cfg.PMTU)
	end, start := need == w.last(), need == w.first || need == w.reqStart
	var fits bool
	switch b.OpCode {
	case roce.RCReadResponseFirst:
		fits = !end && start
	case roce.RCReadResponseMiddle:
		fits = !end && need != w.first
	case roce.RCReadResponseLast:
		fits = end && need != w.first
	case roce.RCReadResponseOnly:
		fits = end && start
	}
	off := w.got * pmtu
	wantLen := min(pmtu, w.wr.Length-min(off, w.wr.Length))
	if !fits || uint32(len(b.Payload)) != wantLen ||
		(b.OpCode.Headers()&roce.HasAETH != 0 && b.AETH.Syndrome.Kind() != roce.KindACK) {
		q.counters[ReqBadResponse]++
		return
	}
	if wantLen > 0 {
		q.n.mem.Write(w.wr.LocalAddr+uint64(off), b.Payload)
	}
	w.got++
	if w.got == w.n {
		q.n.complete(Completion{Cycle: now, QPN: q.cfg.QPN, ID: w.wr.ID, Op: OpRead, Bytes: w.wr.Length})
		r.reads--
		r.pop()
	}
	if psn.Add(1).Diff(r.una) > 0 {
		r.una = psn.Add(1)
		if r.cursor.Diff(r.una) < 0 {
			r.seek(r.una)
		}
	}
	r.progress(q, now)
}
