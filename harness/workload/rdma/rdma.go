// Package rdma is the [[rdma]] workload (harness/scenario/rdma.go): RC
// traffic between NIC models, joined as the workload's pattern says, and,
// behind each, the host that drives it. It registers with the engine as a
// workload: it configures the NICs (the DUT through CSR writes, the golden
// model, harness/device/nicdev, with the same values), fills their host
// memory, posts work requests through the command port and reacts to
// completions, and at the end checks host memory against golden's and
// against what the messages meant.
package rdma

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"sort"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/golden/dcqcn"
	"github.com/rocesim/cosim/golden/nic"
	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/harness/device/nicdev"
	"github.com/rocesim/cosim/harness/scenario"
)

// rdma runs one [[rdma]] workload: NICs joined by QP pairs, and behind
// each the host that posts work requests through the command port (in1)
// and reacts to the completion records it reads from out1, a host latency
// after each. It sets its part of the NICs up (the same configuration
// reaches the DUT as CSR writes and the golden model as calls), fills its
// region of their host memory, and at the end checks every message against
// what the workload meant: completed with success, the right bytes and
// immediate, and the memory as the messages leave it. The golden model
// checks the NICs; this checks the workload, so a bug both share still
// shows.
type rdma struct {
	i           int
	name        string
	w           scenario.RDMA
	sides       []*rdmaSide // one per NIC, as w.NICs lists them
	hostLatency uint64
	fails       []string
	byModel     map[string]int // NIC model -> its side
	latencies   []uint64       // post to completion of each send work request, cycles
}

// rdmaSide is one NIC and its host, as far as this workload goes: its QPs
// and its memory region on the NIC.
type rdmaSide struct {
	k      int
	model  string
	part   nicdev.Setup // this workload's memory region, QPs and first memory contents (no Node)
	golden *nicdev.Golden
	rkey   uint32
	base   uint64 // of the registered region
	size   uint64 // of the registered region
	stride uint64 // one buffer
	slots  int    // buffers per QP and area (outstanding)
	qps    []*rdmaQP
	posts  []post // scheduled command records, by cycle
	intent *rc.SparseMemory
}

// Buffer areas of a side, each QPs x outstanding buffers of stride bytes.
const (
	areaSrc  = iota // SEND and WRITE sources (never written)
	areaWDst        // the peer's WRITEs land here
	areaRDst        // this side's READs land here
	areaRSrc        // the peer READs from here (never written)
	areaRecv        // receive buffers
	numAreas
)

type post struct {
	cycle uint64
	rec   []byte
}

// rdmaQP is one QP of a side: the messages its host sends, and the
// receives it posts for the peer's.
type rdmaQP struct {
	q      int // its index in its side's qps
	qpn    roce.QPN
	side   *rdmaSide
	peerQP *rdmaQP    // the other end of the QP pair
	msgs   []*rdmaMsg // to send, in order
	next   int        // msgs[next] is the next to post
	free   []int      // send buffer slots not in use
	byID   map[uint64]*rdmaMsg
	seq    uint64
	sendOK int
	// What the completed sends carried, and when (engine.Flow).
	bytesOK             uint64
	firstPost, lastDone uint64

	consumers []*rdmaMsg // the peer's messages that take a receive WQE here, in order
	recvNext  int        // consumers[recvNext] takes the next receive completion
	recvPost  int        // receives posted so far
	recvFree  []int
	recvSlot  map[uint64]int // receive WR ID -> buffer slot
	recvOK    int
}

type rdmaMsg struct {
	op   rc.Op
	size uint32
	imm  uint32
	slot int
	id   uint64
	from *rdmaSide
	q    int    // the sending QP's index in from.qps
	post uint64 // the cycle its host posted it
}

// nicAddr is the MAC and IPv4 address of NIC k of workload i, the first
// that names it.
func nicAddr(i, k int) ([6]byte, netip.Addr) {
	return [6]byte{0x02, 0x4E, 0x43, 0x00, byte(i), byte(k + 1)}, netip.AddrFrom4([4]byte{10, 0, byte(i), byte(k + 1)})
}

// dcqcnConfig is a NIC's CNP interval and reaction point: the workload's
// values, and the DCQCN paper's where it leaves one out.
func dcqcnConfig(d scenario.DCQCN, dataWidth int, clockHz uint64) (uint64, dcqcn.Config) {
	c := dcqcn.DefaultConfig(uint64(dataWidth)*clockHz, clockHz)
	rate := func(mbps float64) dcqcn.Rate {
		return max(dcqcn.RateFromBitsPerSecond(uint64(mbps*1e6), clockHz), 1)
	}
	set := func(dst *uint64, v uint64) {
		if v != 0 {
			*dst = v
		}
	}
	set(&c.AlphaPeriod, d.AlphaPeriod)
	set(&c.IncreasePeriod, d.IncreasePeriod)
	set(&c.ByteCounter, d.ByteCounter)
	if d.GShift != 0 {
		c.GShift = uint8(d.GShift)
	}
	if d.FastRecovery != 0 {
		c.FastRecoverySteps = uint32(d.FastRecovery)
	}
	if d.AdditiveMbps != 0 {
		c.AdditiveStep = rate(d.AdditiveMbps)
	}
	if d.HyperMbps != 0 {
		c.HyperStep = rate(d.HyperMbps)
	}
	if d.MinMbps != 0 {
		c.MinRate = min(rate(d.MinMbps), c.LineRate)
	}
	interval := dcqcn.DefaultCNPInterval(clockHz)
	set(&interval, d.CNPInterval)
	return interval, c
}

// dataWidth is the data_width of the scenario's model name.
func dataWidth(sc *scenario.Scenario, name string) int {
	for _, m := range sc.Models {
		if m.Name == name {
			return m.DataWidth
		}
	}
	return 0
}

// rdmaBase is where the registered region of every NIC starts.
const rdmaBase = 0x1000_0000

// maxRDMAMemory bounds one NIC's buffers, over all its workloads: they are
// all written at the start.
const maxRDMAMemory = 64 << 20

// regionAlign aligns the regions of a NIC's workloads.
const regionAlign = 1 << 16

// rdmaStride is the room of one message buffer: maxSize bytes rounded up
// to a cache line.
func rdmaStride(maxSize int) uint64 { return (uint64(max(maxSize, 1)) + 63) &^ 63 }

// BuffersFit tells whether the buffers of a workload's NIC with qps QPs
// fit its memory.
func BuffersFit(qps, outstanding, maxSize int) bool {
	return rdmaBuffers(qps, outstanding, maxSize) <= maxRDMAMemory
}

// rdmaBuffers is what a workload's buffers take of the memory of a NIC
// where it has qps QPs.
func rdmaBuffers(qps, outstanding, maxSize int) uint64 {
	return numAreas * uint64(qps) * uint64(outstanding) * rdmaStride(maxSize)
}

// newRDMA makes workload i: its sides (each NIC's host, registered in
// hosts, which gives the NIC its address and its region), its QPs as the
// pattern joins them, and its messages.
func newRDMA(i int, w scenario.RDMA, sc *scenario.Scenario, seed uint64, clockHz uint64, hs *hosts) (*rdma, error) {
	rng := rand.New(rand.NewPCG(seed, 0x5d3a0000+uint64(i)))
	x := &rdma{i: i, name: fmt.Sprintf("rdma%d", i), w: w, hostLatency: w.HostLatency}
	stride := rdmaStride(w.MaxSize)
	for k, name := range w.NICs {
		h := hs.host(name, i, k, w, sc, clockHz)
		size := rdmaBuffers(w.QPsOn(name), w.Outstanding, w.MaxSize)
		if h.next-rdmaBase+size > maxRDMAMemory {
			return nil, fmt.Errorf("rdma[%d]: the buffers need %d MiB on NIC %s (5 x its qps x outstanding x max_size, with its other workloads'), at most %d: lower one of them",
				i, (h.next-rdmaBase+size)>>20, name, maxRDMAMemory>>20)
		}
		s := &rdmaSide{k: k, model: name, base: h.next, size: size, stride: stride, slots: w.Outstanding, intent: rc.NewSparseMemory(),
			rkey: 0x5000_0000 | uint32(i)<<8 | uint32(k+1)}
		h.next = (h.next + size + regionAlign - 1) &^ (regionAlign - 1)
		s.part.MRs = []rc.MemoryRegion{{Base: s.base, Length: size, RKey: s.rkey, Access: rc.AccessRemoteRead | rc.AccessRemoteWrite}}
		// Every buffer starts random, so a stray or missing write shows.
		data := make([]byte, size)
		fillRandom(rng, data)
		for off := uint64(0); off < size; off += cosim.MaxMemLen {
			blk := data[off:min(size, off+cosim.MaxMemLen)]
			s.part.Init = append(s.part.Init, nicdev.MemBlock{Addr: s.base + off, Data: blk})
			s.intent.Write(s.base+off, blk)
		}
		x.sides = append(x.sides, s)
	}
	var perm []int
	if w.Pattern == scenario.PatternPermutation {
		perm = cyclicPermutation(rng, len(w.NICs))
	}
	type pairs struct {
		both bool
		qps  [][2]*rdmaQP // QP pair q: the sender's (A) and the receiver's (B)
	}
	var conns []pairs
	for _, c := range w.Connections(perm) {
		ends := [2]*rdmaSide{x.sides[c.A], x.sides[c.B]}
		p := pairs{both: c.Both}
		for q := range w.QPs {
			var qpn [2]roce.QPN
			var psn [2]roce.PSN
			for e, s := range ends {
				qpn[e] = roce.QPN(uint32(i+1)<<16 | uint32(s.k+1)<<8 | uint32(len(s.qps)))
				psn[e] = roce.PSN(rng.Uint32() & roce.PSNMask)
				if q == 0 {
					psn[e] = roce.PSNMask - 8 // the first QP wraps its PSNs early
				}
			}
			udp := uint16(0xC000 | rng.IntN(0x4000))
			var pair [2]*rdmaQP
			for e, s := range ends {
				peer := hs.byName[ends[1-e].model].node
				s.part.QPs = append(s.part.QPs, rc.QPConfig{
					QPN: qpn[e], RemoteQPN: qpn[1-e], RemoteMAC: peer.MAC, RemoteIP: peer.IP,
					SendPSN: psn[e], RecvPSN: psn[1-e], PMTU: w.PMTU,
					Timeout: uint8(*w.Timeout), RetryCnt: uint8(*w.Retry), RNRRetry: uint8(*w.RNRRetry),
					MinRNRTimer: uint8(w.MinRNRTimer), UDPSrcPort: udp, Access: rc.AccessRemoteRead | rc.AccessRemoteWrite,
					MaxReads: nicdev.Params["MAX_READS"], SQDepth: nicdev.Params["SQ_DEPTH"], RQDepth: nicdev.Params["RQ_DEPTH"],
					Priority: uint8(pick(w.Priorities, q)), DSCP: uint8(pick(w.DSCPs, q)),
					VLAN: w.VLAN != nil, VID: uint16(derefOr(w.VLAN, 0)),
				})
				rq := &rdmaQP{q: len(s.qps), qpn: qpn[e], side: s, byID: map[uint64]*rdmaMsg{}, recvSlot: map[uint64]int{}}
				for slot := range w.Outstanding {
					rq.free = append(rq.free, slot)
					rq.recvFree = append(rq.recvFree, slot)
				}
				s.qps = append(s.qps, rq)
				pair[e] = rq
			}
			pair[0].peerQP, pair[1].peerQP = pair[1], pair[0]
			p.qps = append(p.qps, pair)
		}
		conns = append(conns, p)
	}
	// The messages, each on a random connection, QP and allowed direction.
	// A draw with one outcome is not made, so that two NICs draw as they
	// always did.
	for range w.Messages {
		c := conns[0]
		if len(conns) > 1 {
			c = conns[rng.IntN(len(conns))]
		}
		from := 0
		if c.both {
			from = rng.IntN(2)
		}
		sq := c.qps[rng.IntN(w.QPs)][from]
		m := &rdmaMsg{from: sq.side, q: sq.q, size: uint32(w.MinSize + rng.IntN(w.MaxSize-w.MinSize+1))}
		// Drawn only when asked for, so that scenarios without zero_pct
		// keep their messages.
		if w.ZeroPct > 0 && rng.Float64()*100 < w.ZeroPct {
			m.size = 0
		}
		switch v := rng.Float64() * 100; {
		case v < w.SendPct:
			m.op = rc.OpSend
		case v < w.SendPct+w.WritePct:
			m.op = rc.OpWrite
		default:
			m.op = rc.OpRead
		}
		if m.op != rc.OpRead && rng.Float64()*100 < *w.ImmPct {
			m.op++ // OpSendImm, OpWriteImm
			m.imm = rng.Uint32()
		}
		sq.msgs = append(sq.msgs, m)
		if takesRecv(m.op) {
			sq.peerQP.consumers = append(sq.peerQP.consumers, m)
		}
	}
	return x, nil
}

// cyclicPermutation draws a permutation of 0..n-1 that is one cycle
// (Sattolo's algorithm: Fisher-Yates drawing j < i, never j = i), so no
// NIC sends to itself and every NIC both sends and receives.
func cyclicPermutation(rng *rand.Rand, n int) []int {
	p := make([]int, n)
	for k := range p {
		p[k] = k
	}
	for k := n - 1; k > 0; k-- {
		j := rng.IntN(k)
		p[k], p[j] = p[j], p[k]
	}
	return p
}

func takesRecv(op rc.Op) bool { return op == rc.OpSend || op == rc.OpSendImm || op == rc.OpWriteImm }

func fillRandom(rng *rand.Rand, b []byte) {
	for i := 0; i < len(b); i += 8 {
		v := rng.Uint64()
		for j := i; j < min(i+8, len(b)); j++ {
			b[j] = byte(v)
			v >>= 8
		}
	}
}

// addr is the address of buffer slot of QP q in area a.
func (s *rdmaSide) addr(a, q, slot int) uint64 {
	return s.base + ((uint64(a)*uint64(len(s.qps))+uint64(q))*uint64(s.slots)+uint64(slot))*s.stride
}

// begin schedules the first posts at cycle start: receives for the
// peer's first messages, then up to outstanding sends per QP.
func (x *rdma) begin(start uint64) {
	for _, s := range x.sides {
		for _, q := range s.qps {
			for len(q.recvFree) > 0 && q.recvPost < len(q.consumers) {
				s.postRecv(q, start)
			}
		}
	}
	for _, s := range x.sides {
		for _, q := range s.qps {
			for len(q.free) > 0 && q.next < len(q.msgs) {
				x.postSend(s, q, start)
			}
		}
	}
}

func (s *rdmaSide) postRecv(q *rdmaQP, cycle uint64) {
	slot := q.recvFree[0]
	q.recvFree = q.recvFree[1:]
	id := 1<<63 | uint64(s.k)<<56 | uint64(q.q)<<48 | uint64(q.recvPost)
	q.recvPost++
	q.recvSlot[id] = slot
	rr := rc.RecvRequest{ID: id, Addr: s.addr(areaRecv, q.q, slot), Length: uint32(s.stride)}
	s.posts = append(s.posts, post{cycle, nic.AppendRecvCommand(nil, q.qpn, rr)})
}

func (x *rdma) postSend(s *rdmaSide, q *rdmaQP, cycle uint64) {
	m := q.msgs[q.next]
	q.next++
	m.slot = q.free[0]
	q.free = q.free[1:]
	m.id = uint64(s.k)<<56 | uint64(q.q)<<48 | q.seq
	m.post = cycle
	if q.seq == 0 {
		q.firstPost = cycle
	}
	q.seq++
	q.byID[m.id] = m
	p, pq := q.peerQP.side, q.peerQP.q
	wr := rc.WorkRequest{ID: m.id, Op: m.op, Length: m.size, Imm: m.imm}
	switch m.op {
	case rc.OpSend, rc.OpSendImm:
		wr.LocalAddr = s.addr(areaSrc, q.q, m.slot)
	case rc.OpWrite, rc.OpWriteImm:
		wr.LocalAddr = s.addr(areaSrc, q.q, m.slot)
		wr.RemoteAddr, wr.RKey = p.addr(areaWDst, pq, m.slot), p.rkey
		copyMem(p.intent, wr.RemoteAddr, s.intent, wr.LocalAddr, m.size)
	case rc.OpRead:
		wr.LocalAddr = s.addr(areaRDst, q.q, m.slot)
		wr.RemoteAddr, wr.RKey = p.addr(areaRSrc, pq, m.slot), p.rkey
		copyMem(s.intent, wr.LocalAddr, p.intent, wr.RemoteAddr, m.size)
	}
	s.posts = append(s.posts, post{cycle, nic.AppendSendCommand(nil, q.qpn, wr)})
}

// copyMem copies n bytes of the intended memory (sources never change).
func copyMem(dst *rc.SparseMemory, to uint64, src *rc.SparseMemory, from uint64, n uint32) {
	b := make([]byte, n)
	src.Read(from, b)
	dst.Write(to, b)
}

// completion takes a completion record the DUT emitted on side k's out1,
// its last beat at cycle last: the host checks it and posts what it frees.
func (x *rdma) completion(k int, rec []byte, last uint64) {
	s := x.sides[k]
	c, err := nic.DecodeCompletion(rec)
	if err != nil {
		x.fail("%s: completion record at cycle %d: %v", s.model, last, err)
		return
	}
	var q *rdmaQP
	for _, qq := range s.qps {
		if qq.qpn == c.QPN {
			q = qq
		}
	}
	if q == nil {
		// Another workload's QP on this NIC hears it (QPN bits 23:16 name
		// the workload).
		if uint32(c.QPN)>>16 == uint32(x.i+1) {
			x.fail("%s: completion for QP %v, which the workload did not set up: %v", s.model, c.QPN, c)
		}
		return
	}
	at := last + x.hostLatency
	if c.Recv {
		slot, ok := q.recvSlot[c.ID]
		if !ok || q.recvNext >= len(q.consumers) {
			x.fail("%s: receive completion for no posted receive: %v", s.model, c)
			return
		}
		delete(q.recvSlot, c.ID)
		m := q.consumers[q.recvNext]
		q.recvNext++
		want := rc.Completion{QPN: c.QPN, Recv: true, ID: c.ID, Op: m.op, Bytes: m.size, HasImm: m.op != rc.OpSend, Imm: m.imm}
		if c.Status != rc.StatusSuccess || !sameCompletion(c, want) {
			x.fail("%s: receive completion %v, want %v (message %d of QP %v)", s.model, c, want, m.id, m.from.qps[m.q].qpn)
		} else {
			q.recvOK++
			if m.op != rc.OpWriteImm {
				copyMem(s.intent, s.addr(areaRecv, q.q, slot), m.from.intent, m.from.addr(areaSrc, m.q, m.slot), m.size)
			}
		}
		q.recvFree = append(q.recvFree, slot)
		if q.recvPost < len(q.consumers) {
			s.postRecv(q, at)
		}
		return
	}
	m, ok := q.byID[c.ID]
	if !ok {
		x.fail("%s: send completion for no posted work request: %v", s.model, c)
		return
	}
	delete(q.byID, c.ID)
	want := rc.Completion{QPN: c.QPN, ID: m.id, Op: m.op, Bytes: m.size}
	if c.Status != rc.StatusSuccess || !sameCompletion(c, want) {
		x.fail("%s: send completion %v, want %v", s.model, c, want)
	} else {
		q.sendOK++
		q.bytesOK += uint64(m.size)
		q.lastDone = last
		x.latencies = append(x.latencies, last-m.post)
	}
	q.free = append(q.free, m.slot)
	if q.next < len(q.msgs) {
		x.postSend(s, q, at)
	}
}

// sameCompletion compares what a completion record carries.
func sameCompletion(got, want rc.Completion) bool {
	got.Cycle, want.Cycle = 0, 0
	return got == want
}

func (x *rdma) fail(format string, args ...any) {
	if len(x.fails) < 100 {
		x.fails = append(x.fails, fmt.Sprintf(x.name+": "+format, args...))
	} else if len(x.fails) == 100 {
		x.fails = append(x.fails, x.name+": further workload failures not listed")
	}
}

// due moves side k's posts before end into frames for its in1.
func (x *rdma) due(k int, end uint64, frames []cosim.Frame) []cosim.Frame {
	s := x.sides[k]
	sort.SliceStable(s.posts, func(i, j int) bool { return s.posts[i].cycle < s.posts[j].cycle })
	n := 0
	for n < len(s.posts) && s.posts[n].cycle < end {
		frames = append(frames, cosim.Frame{Port: 1, Cycle: s.posts[n].cycle, Data: s.posts[n].rec})
		n++
	}
	s.posts = s.posts[:copy(s.posts, s.posts[n:])]
	return frames
}

// nextPost is the cycle of the earliest scheduled post.
func (x *rdma) nextPost() (uint64, bool) {
	var c uint64
	ok := false
	for _, s := range x.sides {
		for _, p := range s.posts {
			if !ok || p.cycle < c {
				c, ok = p.cycle, true
			}
		}
	}
	return c, ok
}

// outstanding counts work requests posted or still to post that have not
// completed: the workload is not done while any is.
func (x *rdma) outstanding() int {
	n := 0
	for _, s := range x.sides {
		for _, q := range s.qps {
			n += len(q.msgs) - q.next + len(q.byID) + len(q.consumers) - q.recvNext
		}
	}
	return n
}

// finish checks the workload's end state: every message completed with
// success, and each NIC's memory (read from the DUT) as the messages leave
// it. The golden model's memory is compared with the DUT's separately.
func (x *rdma) finish(k int, dut []byte) {
	s := x.sides[k]
	for _, q := range s.qps {
		if left := len(q.msgs) - q.sendOK; left > 0 {
			x.fail("%s: QP %v: %d of %d messages did not complete with success", s.model, q.qpn, left, len(q.msgs))
		}
		if left := len(q.consumers) - q.recvOK; left > 0 {
			x.fail("%s: QP %v: %d of %d receives did not complete with success", s.model, q.qpn, left, len(q.consumers))
		}
	}
	want := make([]byte, len(dut))
	s.intent.Read(s.base, want)
	if off, ok := firstDifference(want, dut); ok {
		a, q, slot := s.where(uint64(off))
		x.fail("%s: memory at 0x%x (%s buffer of QP slot %d, buffer %d) is 0x%02x, the workload left 0x%02x there",
			s.model, s.base+uint64(off), areaNames[a], q, slot, dut[off], want[off])
	}
}

var areaNames = [numAreas]string{"send source", "WRITE target", "READ target", "READ source", "receive"}

// where names the buffer at offset off.
func (s *rdmaSide) where(off uint64) (area, q, slot int) {
	b := off / s.stride
	per := uint64(s.slots)
	return int(b / per / uint64(len(s.qps))), int(b / per % uint64(len(s.qps))), int(b % per)
}

func firstDifference(a, b []byte) (int, bool) {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i, true
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b)), true
	}
	return 0, false
}

// memSize is the length of the side's registered region.
func (s *rdmaSide) memSize() uint64 { return s.size }

// pick is the value of QP q in a per-QP list (its entries in turn), 0 when
// the list is empty.
func pick(list []int, q int) int {
	if len(list) == 0 {
		return 0
	}
	return list[q%len(list)]
}

func derefOr(p *int, v int) int {
	if p == nil {
		return v
	}
	return *p
}
