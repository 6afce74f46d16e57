package rc

import "github.com/rocesim/cosim/golden/roce"

// Responder jobs, sent in the order they were queued: a READ response
// stream must not be overtaken by the ACK of a later request, which would
// acknowledge the READ before its data arrived.
const (
	jobAck  = iota // ACK, RNR NAK or NAK: one packet
	jobRead        // READ responses from psn on
)

type respJob struct {
	kind uint8
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
}

// responder is the receiving half of a QP (rxe_resp.c).
type responder struct {
	epsn    roce.PSN // expected PSN
	msn     uint32
	nakSent bool // the NAK for the current gap went out: stay silent

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

	jobs    []respJob // ring; grows (doubling) only past its high-water mark
	jobHead int
	jobN    int
}

func (s *responder) init(c QPConfig) {
	s.epsn = c.RecvPSN
	s.rq = make([]RecvRequest, c.RQDepth)
	s.res = make([]readResource, c.MaxReads)
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

func (s *responder) push(j respJob) {
	if s.jobN == len(s.jobs) {
		grown := make([]respJob, max(16, 2*len(s.jobs)))
		for i := range s.jobN {
			grown[i] = s.jobs[(s.jobHead+i)%len(s.jobs)]
		}
		s.jobs, s.jobHead = grown, 0
	}
	s.jobs[(s.jobHead+s.jobN)%len(s.jobs)] = j
	s.jobN++
}

// pop retires the head job.
func (s *responder) pop() {
	s.jobHead = (s.jobHead + 1) % len(s.jobs)
	s.jobN--
}

func (s *responder) ack(psn roce.PSN, syn roce.AETHSyndrome) {
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
// acknowledge; PROTOCOL-NOTES 5).
func (q *qp) request(b *roce.BTH, now uint64) {
	s := &q.resp
	psn, op := b.PSN, b.OpCode
	switch d := psn.Diff(s.epsn); {
	case d > 0:
		q.counters[RespOutOfSequence]++
		if s.nakSent {
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
	s.res[s.resNext] = readResource{first: b.PSN, last: b.PSN.Add(int(n) - 1), va: va, length: length, rkey: rkey, valid: true}
	s.resNext = (s.resNext + 1) % len(s.res)
	q.accept(b, int(n), true) // MSN counts the READ before its responses carry it
	s.push(respJob{kind: jobRead, psn: b.PSN, msn: s.msn, va: va, left: length, n: n})
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
	q.counters[RespRNR]++
	s.ack(b.PSN, roce.RNRNAKSyndrome(q.cfg.MinRNRTimer))
	s.nakSent = true
}

// duplicate handles a request older than the expected PSN (rxe
// duplicate_request): a SEND or WRITE is acknowledged again with the last
// accepted PSN, a READ inside a remembered READ is replayed from its PSN
// with its own RETH, if that asks for a part of the original.
func (q *qp) duplicate(b *roce.BTH) {
	s := &q.resp
	if b.OpCode != roce.RCReadRequest {
		q.counters[RespDuplicate]++
		s.ack(s.epsn.Add(-1), roce.ACKSyndrome(0x1F))
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
		s.push(respJob{kind: jobRead, psn: b.PSN, msn: s.msn, va: va, left: length,
			n: uint32(r.last.Diff(b.PSN)) + 1})
		return
	}
	q.counters[RespDuplicateDrop]++
}
