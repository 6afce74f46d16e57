package rc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/rocesim/cosim/golden/checksum"
	"github.com/rocesim/cosim/golden/roce"
)

// Node is a set of RC QPs behind one MAC and IPv4 address, with its memory
// regions and host memory. It is driven only by stamped inputs (PostSend,
// PostRecv, Receive, each with the current cycle) and by Poll, which hands
// out the next frame to send; it owns no clock, no goroutine and no
// randomness. Calls must come in non-decreasing cycle order.
type Node struct {
	cfg  NodeConfig
	ip   [4]byte
	mem  Memory
	qps  []*qp
	byQP map[roce.QPN]*qp
	mrs  map[uint32]MemoryRegion

	rr int // QP served first by the next Poll (round robin)
	// pend marks the QPs that may have a packet to send: set by anything
	// that can give a QP work (a post, a frame, a timer), cleared when
	// its poll finds nothing. Poll and NextEvent look only at these.
	pend []bool
	cnps []*qp        // CNPs waiting to be sent, oldest first; a QP at most once
	comp []Completion // completions since the last TakeCompletions

	cnpHigh int // the most CNPs ever waiting at once (tests check the bound)

	// wake is a lower bound of the QPs' timer deadlines: advance scans
	// the QPs only from then on.
	wake uint64

	counters Counters // drops before a QP is known
	pause    pauser   // received PFC and PAUSE frames
	cov      coverage
	rx       roce.Frame

	// OnEvent, when set, is called for every recovery action (counter
	// ReqRetryNAK, ReqRetryTimeout, ReqRetryReadGap, ReqRNRWait) with the
	// PSN the requester goes back to. Tests use it to explain every
	// retransmission.
	OnEvent func(Event)
}

// Event is a recovery action of a requester.
type Event struct {
	Cycle uint64
	QPN   roce.QPN
	Kind  Counter
	PSN   roce.PSN
}

// Errors of the posting calls.
var (
	ErrUnknownQP  = errors.New("rc: unknown QP")
	ErrQueueFull  = errors.New("rc: work queue full")
	ErrBadRequest = errors.New("rc: bad work request")
)

// NewNode returns a node with no QPs. mem is its host memory.
func NewNode(cfg NodeConfig, mem Memory) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Node{cfg: cfg, ip: cfg.IP.As4(), mem: mem, byQP: map[roce.QPN]*qp{}, mrs: map[uint32]MemoryRegion{},
		wake: math.MaxUint64}, nil
}

// Config returns the node's configuration.
func (n *Node) Config() NodeConfig { return n.cfg }

// AddQP creates a QP in the ready-to-send state.
func (n *Node) AddQP(c QPConfig) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if _, dup := n.byQP[c.QPN]; dup {
		return fmt.Errorf("rc: QP %v exists", c.QPN)
	}
	q := newQP(n, c.withDefaults())
	q.idx = len(n.qps)
	n.qps = append(n.qps, q)
	n.cnps = append(make([]*qp, 0, len(n.qps)), n.cnps...) // room for every QP once
	n.pend = append(n.pend, false)
	n.byQP[c.QPN] = q
	return nil
}

// RegisterMR adds a memory region; its R_Key must be new.
func (n *Node) RegisterMR(mr MemoryRegion) error {
	if _, dup := n.mrs[mr.RKey]; dup {
		return fmt.Errorf("rc: R_Key 0x%08x registered twice", mr.RKey)
	}
	if mr.Base+mr.Length < mr.Base {
		return fmt.Errorf("rc: region 0x%x+0x%x wraps", mr.Base, mr.Length)
	}
	n.mrs[mr.RKey] = mr
	return nil
}

// PostSend queues a send work request on a QP. A QP in the error state
// completes it at once with StatusFlushed.
func (n *Node) PostSend(qpn roce.QPN, wr WorkRequest, now uint64) error {
	q := n.byQP[qpn]
	if q == nil {
		return fmt.Errorf("%w %v", ErrUnknownQP, qpn)
	}
	if wr.Op >= opCount || wr.Length > MaxMessage {
		return fmt.Errorf("%w: op %v length %d (at most %d)", ErrBadRequest, wr.Op, wr.Length, MaxMessage)
	}
	n.advance(now)
	n.pend[q.idx] = true
	if err := q.postSend(wr, now); err != nil {
		return err
	}
	n.cov.posted(q.cfg.PMTU, wr.Length)
	return nil
}

// PostRecv queues a receive buffer on a QP.
func (n *Node) PostRecv(qpn roce.QPN, rr RecvRequest, now uint64) error {
	q := n.byQP[qpn]
	if q == nil {
		return fmt.Errorf("%w %v", ErrUnknownQP, qpn)
	}
	n.advance(now)
	return q.postRecv(rr, now)
}

// TakeCompletions returns the completions produced since the last call,
// in the order they happened. The slice is reused by the next call.
func (n *Node) TakeCompletions() []Completion {
	c := n.comp
	n.comp = n.comp[:0]
	return c
}

// Counters returns the node's counters: its own plus every QP's.
func (n *Node) Counters() Counters {
	c := n.counters
	for _, q := range n.qps {
		c.add(&q.counters)
	}
	return c
}

// QPCounters returns one QP's counters.
func (n *Node) QPCounters(qpn roce.QPN) (Counters, bool) {
	q := n.byQP[qpn]
	if q == nil {
		return Counters{}, false
	}
	return q.counters, true
}

// QPState reports whether a QP is in the error state.
func (n *Node) QPInError(qpn roce.QPN) bool {
	q := n.byQP[qpn]
	return q != nil && q.err
}

// QPNs returns the node's QP numbers, in the order they were added.
func (n *Node) QPNs() []roce.QPN {
	out := make([]roce.QPN, len(n.qps))
	for i, q := range n.qps {
		out[i] = q.cfg.QPN
	}
	return out
}

// Rate returns a QP's current DCQCN sending rate (0 when rate control is off).
func (n *Node) Rate(qpn roce.QPN) uint32 {
	q := n.byQP[qpn]
	if q == nil || n.cfg.DCQCN.LineRate == 0 {
		return 0
	}
	return uint32(q.rp.Rate())
}

// Receive hands the node a frame that arrived at cycle now. Frames that
// are not for a QP of this node are dropped and counted.
func (n *Node) Receive(frame []byte, now uint64) {
	n.advance(now)
	if isMACControl(frame) {
		n.macControl(frame, now) // consumed: never the host's
		return
	}
	f := &n.rx
	if err := f.Decode(frame); err != nil {
		if errors.Is(err, roce.ErrNotRoCE) {
			n.counters[RxNotRoCE]++
		} else {
			n.counters[RxMalformed]++
		}
		return
	}
	if f.IPv6 {
		n.counters[RxBadHeader]++
		return
	}
	ipPkt := f.IPPacket(frame)
	if ok, _, _, err := roce.VerifyICRC(ipPkt); err != nil || !ok {
		n.counters[RxBadICRC]++
		return
	}
	ip := frame[f.IPStart:]
	if ip[0] != 0x45 || checksum.Checksum(ip[:ipv4Len]) != 0 {
		// The ICRC does not cover TOS, TTL and the checksum: the IPv4
		// checksum guards them (and we take no options).
		n.counters[RxMalformed]++
		return
	}
	if [6]byte(frame[0:6]) != n.cfg.MAC || [4]byte(ip[16:20]) != n.ip {
		n.counters[RxWrongAddress]++
		return
	}
	b := &f.BTH
	if len(b.Pad) != int(b.PadCnt) {
		n.counters[RxMalformed]++
		return
	}
	if b.TVer != 0 || b.PKey != roce.DefaultPKey {
		n.counters[RxBadHeader]++
		return
	}
	q := n.byQP[b.DestQP]
	if q == nil {
		n.counters[RxUnknownQP]++
		return
	}
	if b.OpCode == roce.CNPOpCode {
		q.counters[RxCNP]++
		if n.cfg.DCQCN.LineRate != 0 {
			q.rp.OnCNP(now)
			n.pend[q.idx] = true
			n.noteTimers(q)
		}
		return
	}
	if b.OpCode.Transport() != roce.TransportRC {
		n.counters[RxBadHeader]++
		return
	}
	if q.err {
		q.counters[RxQPError]++
		return
	}
	q.counters[RxPackets]++
	if ip[1]&3 == ecnCE {
		q.counters[RxCE]++
		// One CNP per QP waiting (rtl/nic README "Bounded queues"): the
		// one waiting carries the news, and the interval is not touched.
		if !q.cnpWaiting && q.np.Allow(now, n.cfg.CNPInterval) {
			q.cnpWaiting = true
			n.cnps = append(n.cnps, q)
			n.cnpHigh = max(n.cnpHigh, len(n.cnps))
		} else {
			q.counters[CNPSuppressed]++
		}
	}
	if b.OpCode <= roce.RCReadRequest || b.OpCode == roce.RCCompareSwap || b.OpCode == roce.RCFetchAdd ||
		b.OpCode == roce.RCSendLastInv || b.OpCode == roce.RCSendOnlyInv {
		q.request(b, now)
	} else {
		q.response(b, now)
	}
	n.pend[q.idx] = true
	n.noteTimers(q)
}

// Poll returns the next frame the node sends at cycle now, built in buf
// (which should have room for MaxFrameLen bytes), or false when nothing
// may be sent at now. CNPs go first, then the QPs in round-robin order;
// within a QP, responder packets (ACK, NAK, READ responses, in the order
// the requests arrived) before requester packets. A paused priority's CNPs
// and QPs are skipped: they keep their place, and the round robin moves
// on only past the QP that sends.
func (n *Node) Poll(now uint64, buf []byte) ([]byte, bool) {
	n.advance(now)
	if len(n.cnps) > 0 && !n.pause.paused(n.cfg.CNPPriority, now) {
		q := n.cnps[0]
		n.cnps = n.cnps[:copy(n.cnps, n.cnps[1:])]
		q.cnpWaiting = false
		q.counters[TxCNP]++
		p := txPacket{op: roce.CNPOpCode, becn: true}
		return build(buf, &q.cnpHdr, n.cfg.CNPDSCP<<2, q.cfg.RemoteQPN, &p, n.mem), true
	}
	for i := range n.qps {
		k := (n.rr + i) % len(n.qps)
		if !n.pend[k] {
			continue
		}
		q := n.qps[k]
		if n.pause.paused(q.cfg.Priority, now) {
			continue // still pending: it wakes when the pause ends (NextEvent)
		}
		if f, ok := q.poll(now, buf); ok {
			n.noteTimers(q)
			n.rr = (k + 1) % len(n.qps)
			return f, true
		}
		// Nothing now; a QP held back by its rate limiter stays pending.
		n.pend[k] = q.paced() && now < q.nextSend
	}
	return nil, false
}

// NextEvent returns the earliest cycle at which Poll may return a frame or
// a timer fires: at or before now when something is ready already. ok is
// false when nothing will happen without new input.
func (n *Node) NextEvent() (cycle uint64, ok bool) {
	if len(n.cnps) > 0 {
		cycle, ok = n.pause.resume(n.cfg.CNPPriority), true
	}
	for k, q := range n.qps {
		var c uint64
		var qok bool
		if n.pend[k] {
			c, qok = q.nextEvent(n.pause.resume(q.cfg.Priority)) // work and timers
		} else {
			c, qok = q.tAt, q.tOK // no work: only its timers can wake it (as noteTimers left them)
		}
		if qok && (!ok || c < cycle) {
			cycle, ok = c, true
		}
	}
	return cycle, ok
}

// advance fires every timer due at or before now.
func (n *Node) advance(now uint64) {
	if now < n.wake {
		return
	}
	n.wake = math.MaxUint64
	for k, q := range n.qps {
		if c, ok := q.timerAt(); ok && c <= now {
			n.pend[k] = true // a timer fires: the QP may have something to send
		}
		q.advance(now)
		n.noteTimers(q)
	}
}

// noteTimers lowers wake to q's earliest timer; called after anything
// that may have armed one.
func (n *Node) noteTimers(q *qp) {
	q.tAt, q.tOK = q.timerAt()
	if q.tOK && q.tAt < n.wake {
		n.wake = q.tAt
	}
}

func (n *Node) complete(c Completion) {
	if c.Status == StatusSuccess {
		n.byQP[c.QPN].counters[CompletionsSuccess]++
	} else {
		n.byQP[c.QPN].counters[CompletionsError]++
	}
	n.cov.completed(c)
	n.comp = append(n.comp, c)
}

func (n *Node) event(now uint64, q *qp, kind Counter, psn roce.PSN) {
	if n.OnEvent != nil {
		n.OnEvent(Event{Cycle: now, QPN: q.cfg.QPN, Kind: kind, PSN: psn})
	}
}

// be32 reads a big-endian 32-bit word.
func be32(b []byte) uint32 { return binary.BigEndian.Uint32(b) }
