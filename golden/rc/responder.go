package rc

import "github.com/rocesim/cosim/golden/roce"

// Responder jobs, sent in the order they were queued (a READ replay may
// restart its READ's job in place, see duplicate): a READ response stream
// must not be overtaken by the ACK of a later request, which would
// acknowledge the READ before its data arrived.
//
// The queue is bounded (rtl/nic README "Bounded queues"; the proof is in
// RespDepth): a positive ACK merges into a positive ACK waiting at the
// tail, a READ resource has at most one job, and at most one NAK waits.
const (
	jobAck  = iota // ACK, RNR NAK or NAK: one packet
	jobRead        // READ responses from psn on
)

// RespDepth is the most jobs a QP's responder queue holds with maxReads
// READ resources: 2*maxReads + 3. Proof: a READ job belongs to one READ
// resource and a resource has at most one job (a duplicate READ restarts
// it, a new READ drops the old one of the resource it reuses), so at most
// maxReads READ jobs; at most one NAK or RNR NAK waits; and no two
// positive ACKs are ever side by side (a new one merges into the tail, and
// removing a READ job merges the two it leaves together). So between and
// around the at most maxReads+1 other jobs there is room for maxReads+2
// ACKs. The bound is reached (behaviour case resp_queue_bound).
func RespDepth(maxReads int) int { return 2*maxReads + 3 }

type respJob struct {
	kind uint8
	res  uint8 // READ: the READ resource it replays (MaxReads is at most 255)
	psn  roce.PSN
	syn  roce.AETHSyndrome
	msn  uint32
	// READ: address, length left and packets sent so far.
	va   uint64
	left uint32
	sent uint32
	n    uint32
}

// readResource remembers an accepted READ so that a duplicate of it can be
// replayed (rxe resp_res).
type readResource struct {
	first, last roce.PSN
	va          uint64
	length      uint32
	rkey        uint32
	valid       bool
	queued      bool // a job of it waits or is under way
}

// responder is the receiving half of a QP (rxe_resp.c).
type responder struct {
	epsn    roce.PSN // expected PSN
	msn     uint32
	nakSent bool // the current gap has its NAK (or one waits from before): stay silent

	// Message in progress: opcode class and where its data goes.
	inSend, inWrite bool
	taken           bool   // the packet being checked uses a receive WQE (for classError)
	off             uint32 // SEND: bytes received so far
	wva             uint64 // WRITE: next address
	wleft           uint32 // WRITE: bytes still expected
	wlen            uint32 // WRITE: the whole length (RETH DMA length)

	rq          []RecvRequest
	rqHead, rqN int

	res     []readResource
	resNext int

	jobs    []respJob // ring of RespDepth(MaxReads) jobs
	jobHead int
	jobN    int
	jobHigh int // the most jobs ever queued at once (tests check the bound)
}

func (s *responder) init(c QPConfig) {
	s.epsn = c.RecvPSN
	s.rq = make([]RecvRequest, c.RQDepth)
	s.res = make([]readResource, c.MaxReads)
	s.jobs = make([]respJob, RespDepth(c.MaxReads))
}

func (s *responder) post(rr RecvRequest) error {
	if s.rqN == len(s.rq) {
		return ErrQueueFull
	}
	s.rq[(s.rqHead+s.rqN)%len(s.rq)] = rr
	s.rqN++
	return nil
}

func (s *responder) head() *respJob {
	if s.jobN == 0 {
		return nil
	}
	return &s.jobs[s.jobHead]
}

// job returns the job k places behind the head.
func (s *responder) job(k int) *respJob { return &s.jobs[(s.jobHead+k)%len(s.jobs)] }

func (s *responder) push(j respJob) {
	if s.jobN == len(s.jobs) {
		panic("rc: responder job queue over RespDepth: the rules of doc.go no longer bound it")
	}
	*s.job(s.jobN) = j
	s.jobN++
	s.jobHigh = max(s.jobHigh, s.jobN)
	if j.kind == jobRead {
		s.res[j.res].queued = true
	}
}

// pop retires the head job.
func (s *responder) pop() {
	s.jobHead = (s.jobHead + 1) % len(s.jobs)
	s.jobN--
}

// remove drops the job k places behind the head. Two positive ACKs it
// leaves side by side merge, as at the tail.
func (s *responder) remove(k int) {
	if j := s.job(k); j.kind == jobRead {
		s.res[j.res].queued = false
	}
	for i := k; i < s.jobN-1; i++ {
		*s.job(i) = *s.job(i + 1)
	}
	s.jobN--
	if k > 0 && k < s.jobN && s.job(k-1).positive() && s.job(k).positive() {
		b := *s.job(k)
		s.job(k-1).merge(b.psn, b.msn)
		s.remove(k)
	}
}

// positive reports whether j is a positive ACK (not yet sent: a sent
// one has left the queue).
func (j *respJob) positive() bool { return j.kind == jobAck && j.syn.Kind() == roce.KindACK }

// merge folds a positive ACK queued after j into j: ACKs are cumulative,
// so j carries the later PSN and the newer MSN.
func (j *respJob) merge(psn roce.PSN, msn uint32) {
	if psn.Diff(j.psn) > 0 {
		j.psn = psn
	}
	j.msn = msn
}

// dropJobs empties the queue (the QP went to the error state).
func (s *responder) dropJobs() {
	for i := range s.res {
		s.res[i].queued = false
	}
	s.jobN = 0
}

// readJob returns the place of resource i's READ job, or -1.
func (s *responder) readJob(i int) int {
	if !s.res[i].queued {
		return -1
	}
	for k := range s.jobN {
		if j := s.job(k); j.kind == jobRead && int(j.res) == i {
			return k
		}
	}
	return -1
}

// earlierReadAfter reports whether a READ job of a READ that starts before
// first waits behind place k.
func (s *responder) earlierReadAfter(k int, first roce.PSN) bool {
	for k++; k < s.jobN; k++ {
		if j := s.job(k); j.kind == jobRead && s.res[j.res].first.Diff(first) < 0 {
			return true
		}
	}
	return false
}

// nakWaiting reports whether a NAK or RNR NAK waits in the queue.
func (s *responder) nakWaiting() bool {
	for k := range s.jobN {
		if j := s.job(k); j.kind == jobAck && !j.positive() {
			return true
		}
	}
	return false
}

// ack queues an ACK, NAK or RNR NAK with the current MSN. A positive ACK
// merges into a positive ACK waiting at the tail: one packet then says all
// that both would have (rtl/nic README "Bounded queues").
func (s *responder) ack(psn roce.PSN, syn roce.AETHSyndrome) {
	if syn.Kind() == roce.KindACK && s.jobN > 0 {
		if t := s.job(s.jobN - 1); t.positive() {
			t.merge(psn, s.msn)
			return
		}
	}
	s.push(respJob{kind: jobAck, psn: psn, syn: syn, msn: s.msn})
}

// next fills p with the next responder packet and retires its job when done.
func (s *responder) next(q *qp, p *txPacket) {
	j := &s.jobs[s.jobHead]
	if j.kind == jobAck {
		p.op, p.psn, p.syn, p.msn = roce.RCAcknowledge, j.psn, j.syn, j.msn
		if j.syn.Kind() == roce.KindACK {
			q.counters[RespACK]++
		}
		s.pop()
		return
	}
	pmtu := uint32(q.cfg.PMTU)
	size := min(pmtu, j.left)
	switch {
	case j.n == 1:
		p.op = roce.RCReadResponseOnly
	case j.sent == 0:
		p.op = roce.RCReadResponseFirst
	case j.sent == j.n-1:
		p.op = roce.RCReadResponseLast
	default:
		p.op = roce.RCReadResponseMiddle
	}
	p.psn = j.psn.Add(int(j.sent))
	p.syn, p.msn = roce.ACKSyndrome(0x1F), j.msn
	p.addr, p.payload = j.va, int(size)
	j.va += uint64(size)
	j.left -= size
	j.sent++
	q.counters[RespReadResponses]++
	if j.sent == j.n {
		s.res[j.res].queued = false
		s.pop()
	}
}

func (s *responder) flush(q *qp, now uint64) {
	for ; s.rqN > 0; s.rqN-- {
		rr := s.rq[s.rqHead]
		s.rqHead = (s.rqHead + 1) % len(s.rq)
		q.n.complete(Completion{Cycle: now, QPN: q.cfg.QPN, Recv: true, ID: rr.ID, Status: StatusFlushed})
	}
}

// request handles a request packet (rxe_resp.c order: PSN, opcode
// sequence, opcode allowed, resources, length, R_Key and range, execute,
// acknowledge; IBA 9.7).
func (q *qp) request(b *roce.BTH, now uint64) {
	s := &q.resp
	psn, op := b.PSN, b.OpCode
	switch d := psn.Diff(s.epsn); {
	case d > 0:
		q.counters[RespOutOfSequence]++
		if s.nakSent || s.nakWaiting() {
			// One NAK per gap, and one waiting per QP: the requester's
			// go-back-N for the waiting one resends this gap too.
			s.nakSent = true
			q.counters[RespGapSilent]++
			return
		}
		s.nakSent = true
		q.counters[RespNAKSeq]++
		s.ack(s.epsn, roce.NAKSyndrome(roce.NAKPSNSequenceError))
		return
	case d < 0:
		q.duplicate(b)
		return
	}
	// Opcode sequence: inside a message only its MIDDLE or LAST may come.
	var ok bool
	switch {
	case s.inSend:
		ok = op == roce.RCSendMiddle || op == roce.RCSendLast || op == roce.RCSendLastImm
	case s.inWrite:
		ok = op == roce.RCWriteMiddle || op == roce.RCWriteLast || op == roce.RCWriteLastImm
	default:
		ok = op == roce.RCSendFirst || op == roce.RCSendOnly || op == roce.RCSendOnlyImm ||
			op == roce.RCWriteFirst || op == roce.RCWriteOnly || op == roce.RCWriteOnlyImm ||
			op == roce.RCReadRequest
	}
	isWrite := op >= roce.RCWriteFirst && op <= roce.RCWriteOnlyImm
	if !ok || (isWrite && q.cfg.Access&AccessRemoteWrite == 0) ||
		(op == roce.RCReadRequest && q.cfg.Access&AccessRemoteRead == 0) {
		q.classError(b, roce.NAKInvalidRequest, StatusRemoteInvalidReq, now)
		return
	}
	// Resources (rxe check_resource, before the length): a SEND starting
	// and a WRITE with immediate ending need a receive WQE.
	needWQE := op == roce.RCSendFirst || op == roce.RCSendOnly || op == roce.RCSendOnlyImm ||
		op == roce.RCWriteLastImm || op == roce.RCWriteOnlyImm
	if needWQE && s.rqN == 0 {
		q.rnr(b)
		return
	}
	s.taken = s.inSend || needWQE
	// Length for the packet's place (rxe check_length, IBA C9-92).
	pmtu, size := q.cfg.PMTU, len(b.Payload)
	switch op {
	case roce.RCSendFirst, roce.RCSendMiddle, roce.RCWriteFirst, roce.RCWriteMiddle:
		ok = size == pmtu
	case roce.RCSendLast, roce.RCSendLastImm, roce.RCWriteLast, roce.RCWriteLastImm:
		ok = size > 0 && size <= pmtu
	default:
		ok = size <= pmtu
	}
	if !ok {
		q.classError(b, roce.NAKInvalidRequest, StatusRemoteInvalidReq, now)
		return
	}
	switch {
	case op == roce.RCReadRequest:
		q.readRequest(b, now)
	case isWrite:
		q.writePacket(b, now)
	default:
		q.sendPacket(b, now)
	}
}

// classError answers a class A or C error with a NAK for the packet and
// moves the QP to the error state (rxe do_class_ac_error).
func (q *qp) classError(b *roce.BTH, code roce.NAKCode, st Status, now uint64) {
	s := &q.resp
	if code == roce.NAKRemoteAccessError {
		q.counters[RespAccessError]++
	} else {
		q.counters[RespInvalidRequest]++
	}
	if s.taken && s.rqN > 0 { // the receive WQE in use completes with the error (byte_len 0, as rxe)
		rr := s.rq[s.rqHead]
		s.rqHead = (s.rqHead + 1) % len(s.rq)
		s.rqN--
		q.n.complete(Completion{Cycle: now, QPN: q.cfg.QPN, Recv: true, ID: rr.ID, Status: st})
	}
	q.toError(now)
	s.ack(b.PSN, roce.NAKSyndrome(code))
}

// accept advances the expected PSN past an executed packet, counts the
// message, and acknowledges when asked.
func (q *qp) accept(b *roce.BTH, psns int, endOfMessage bool) {
	s := &q.resp
	s.nakSent = false // the gap is closed: a new one gets its NAK
	s.epsn = s.epsn.Add(psns)
	if endOfMessage {
		s.msn = (s.msn + 1) & 0xFFFFFF
	}
	if b.AckReq && b.OpCode != roce.RCReadRequest {
		s.ack(b.PSN, roce.ACKSyndrome(0x1F))
	}
}

func (q *qp) sendPacket(b *roce.BTH, now uint64) {
	s := &q.resp
	op := b.OpCode
	first := op == roce.RCSendFirst || op == roce.RCSendOnly || op == roce.RCSendOnlyImm
	last := op != roce.RCSendFirst && op != roce.RCSendMiddle
	if first {
		s.off = 0
	}
	rr := &s.rq[s.rqHead]
	if uint64(s.off)+uint64(len(b.Payload)) > uint64(rr.Length) {
		// Longer than the posted buffer: the receive WQE completes with a
		// length error and the requester gets NAK 0x61 (rxe RESPST_ERR_LENGTH).
		q.classError(b, roce.NAKInvalidRequest, StatusLocalLength, now)
		return
	}
	q.n.mem.Write(rr.Addr+uint64(s.off), b.Payload)
	s.off += uint32(len(b.Payload))
	s.inSend = !last
	if last {
		c := Completion{Cycle: now, QPN: q.cfg.QPN, Recv: true, ID: rr.ID, Op: OpSend, Bytes: s.off}
		if op == roce.RCSendLastImm || op == roce.RCSendOnlyImm {
			c.Op, c.HasImm, c.Imm = OpSendImm, true, b.ImmDt.Imm
		}
		s.rqHead = (s.rqHead + 1) % len(s.rq)
		s.rqN--
		q.n.complete(c)
	}
	q.accept(b, 1, last)
}

func (q *qp) writePacket(b *roce.BTH, now uint64) {
	s := &q.resp
	op := b.OpCode
	first := op == roce.RCWriteFirst || op == roce.RCWriteOnly || op == roce.RCWriteOnlyImm
	last := op != roce.RCWriteFirst && op != roce.RCWriteMiddle
	imm := op == roce.RCWriteLastImm || op == roce.RCWriteOnlyImm // consumes a receive WQE
	if first {
		if !q.rkeyOK(b.RETH.VA, b.RETH.RKey, b.RETH.DMALen, AccessRemoteWrite) {
			q.classError(b, roce.NAKRemoteAccessError, StatusRemoteAccessReq, now)
			return
		}
		s.wva, s.wleft, s.wlen = b.RETH.VA, b.RETH.DMALen, b.RETH.DMALen
	}
	size := uint32(len(b.Payload))
	// Every packet fits what the RETH announced; the last one ends it.
	if size > s.wleft || (last && size != s.wleft) {
		q.classError(b, roce.NAKInvalidRequest, StatusRemoteInvalidReq, now)
		return
	}
	if size > 0 {
		q.n.mem.Write(s.wva, b.Payload)
	}
	s.wva += uint64(size)
	s.wleft -= size
	s.inWrite = !last
	if imm {
		rr := s.rq[s.rqHead]
		s.rqHead = (s.rqHead + 1) % len(s.rq)
		s.rqN--
		q.n.complete(Completion{Cycle: now, QPN: q.cfg.QPN, Recv: true, ID: rr.ID, Op: OpWriteImm,
			Bytes: s.wlen, HasImm: true, Imm: b.ImmDt.Imm})
	}
	q.accept(b, 1, last)
}

func (q *qp) readRequest(b *roce.BTH, now uint64) {
	s := &q.resp
	va, rkey, length := b.RETH.VA, b.RETH.RKey, b.RETH.DMALen
	if length > MaxMessage*4 || !q.rkeyOK(va, rkey, length, AccessRemoteRead) {
		q.classError(b, roce.NAKRemoteAccessError, StatusRemoteAccessReq, now)
		return
	}
	n := npkts(length, q.cfg.PMTU)
	i := s.resNext
	if k := s.readJob(i); k >= 0 {
		// The requester completed the READ this resource held before it
		// could send one more (at most MaxReads outstanding, completed in
		// order), so its job is of no use: rxe recycles the resource too.
		s.remove(k)
	}
	s.res[i] = readResource{first: b.PSN, last: b.PSN.Add(int(n) - 1), va: va, length: length, rkey: rkey, valid: true}
	s.resNext = (i + 1) % len(s.res)
	q.accept(b, int(n), true) // MSN counts the READ before its responses carry it
	s.push(respJob{kind: jobRead, res: uint8(i), psn: b.PSN, msn: s.msn, va: va, left: length, n: n})
}

// rkeyOK checks an R_Key, its rights and the range (rxe check_rkey). A
// zero-length operation needs no valid key (IBA C9-88, rxe).
func (q *qp) rkeyOK(va uint64, rkey, length uint32, need Access) bool {
	if length == 0 {
		return true
	}
	mr, ok := q.n.mrs[rkey]
	return ok && mr.Access&need != 0 && mr.contains(va, length)
}

// rnr answers a request that needs a receive WQE when none is posted: an
// RNR NAK for its PSN, the PSN not advanced. The packets after it find a
// gap; the RNR NAK stands for that gap's NAK, so they are dropped silently
// (rxe would add a NAK 0x60; one NAK per gap keeps the requester's
// recovery to one wait).
func (q *qp) rnr(b *roce.BTH) {
	s := &q.resp
	s.nakSent = true
	if s.nakWaiting() { // one NAK waiting per QP: its go-back-N resends this packet
		q.counters[RespGapSilent]++
		return
	}
	q.counters[RespRNR]++
	s.ack(b.PSN, roce.RNRNAKSyndrome(q.cfg.MinRNRTimer))
}

// duplicate handles a request older than the expected PSN (rxe
// duplicate_request): a SEND or WRITE is acknowledged again (dupAckPSN), a
// READ inside a remembered READ is replayed from its PSN with its own
// RETH, if that asks for a part of the original.
//
// A READ resource has one job at most: a replay restarts the job still
// waiting or under way (rxe resets the resource the same way) rather than
// queue a second stream. Of the two streams that would be, it keeps the
// one the requester can use, which takes the responses in PSN order: the
// job in its place, unless the job of an earlier READ waits behind it (a
// go-back-N replay of that READ), then at the tail.
func (q *qp) duplicate(b *roce.BTH) {
	s := &q.resp
	if b.OpCode != roce.RCReadRequest {
		q.counters[RespDuplicate]++
		s.ack(s.dupAckPSN(b.PSN), roce.ACKSyndrome(0x1F))
		return
	}
	for i := range s.res {
		r := &s.res[i]
		if !r.valid || b.PSN.Diff(r.first) < 0 || b.PSN.Diff(r.last) > 0 {
			continue
		}
		va, length := b.RETH.VA, b.RETH.DMALen
		if b.RETH.RKey != r.rkey || va < r.va || va+uint64(length) > r.va+uint64(r.length) {
			break
		}
		q.counters[RespDuplicateRead]++
		j := respJob{kind: jobRead, res: uint8(i), psn: b.PSN, msn: s.msn, va: va, left: length,
			n: uint32(r.last.Diff(b.PSN)) + 1}
		k := s.readJob(i)
		if k >= 0 && !s.earlierReadAfter(k, r.first) {
			*s.job(k) = j
			return
		}
		if k >= 0 {
			s.remove(k)
		}
		s.push(j)
		return
	}
	q.counters[RespDuplicateDrop]++
}

// dupAckPSN is the PSN of the ACK for a duplicate SEND or WRITE at psn:
// the last accepted PSN, but never past a remembered READ that starts
// after psn, where it stops just before the oldest one. The requester's
// go-back-N sends that READ again right behind the duplicate, so its
// replayed responses leave after this ACK; an ACK past the READ would
// reach the requester first and read as an implied NAK for it (rxe
// check_psn), a re-request that makes new duplicates, and so on. ACKs are
// cumulative: acknowledging less is allowed and keeps the responses in PSN
// order. rxe's ack_psn (never a READ's PSN, rxe_resp.c duplicate_request)
// is the case of a READ last.
func (s *responder) dupAckPSN(psn roce.PSN) roce.PSN {
	ack := s.epsn.Add(-1)
	for i := range s.res {
		if r := &s.res[i]; r.valid && r.first.Diff(psn) > 0 && r.first.Diff(ack) <= 0 {
			ack = r.first.Add(-1)
		}
	}
	return ack
}
