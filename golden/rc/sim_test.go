package rc

import (
	"container/heap"
	"encoding/binary"
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"

	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/golden/wirecheck"
	"github.com/stretchr/testify/require"
)

// pairSim joins two nodes by a full-duplex link: serialisation at
// bytesPerCycle, then latency cycles of flight, with seeded faults. It is
// an event-driven loop: time jumps to the next arrival, timer or free wire.
type pairSim struct {
	t       testing.TB
	nodes   [2]*Node
	mems    [2]*SparseMemory
	rng     *rand.Rand
	faults  faults
	latency uint64
	bpc     uint64 // bytes per cycle
	now     uint64

	wireFree [2]uint64
	flight   arrivals
	seq      uint64
	buf      []byte
	pool     [][]byte

	// drop, when set, may drop a frame on its way (targeted losses).
	drop func(from int, f []byte) bool
	// onRecv sees every frame as delivered, after faults.
	onRecv func(to int, f []byte, now uint64)
	// onSend sees every frame as sent, before faults.
	onSend func(from int, f []byte, now uint64)
	// impaired lists, per connection (QPN & 0xFF), the cycle of every
	// loss and corruption, and twice that of every reorder: a frame that
	// arrives after its successor makes the responder drop the successor
	// (it came early), so one reorder can need two go-back-Ns.
	impaired   map[int][]uint64
	faultCount map[string]int
}

type faults struct {
	lossPPM, corruptPPM, dupPPM, reorderPPM int
	cePPM                                   int    // ECT frames marked CE (a congested switch)
	reorderMax                              uint64 // extra cycles a reordered frame waits
}

type arrival struct {
	at, seq uint64
	to      int
	f       []byte
}

type arrivals []arrival

func (a arrivals) Len() int { return len(a) }
func (a arrivals) Less(i, j int) bool {
	return a[i].at < a[j].at || a[i].at == a[j].at && a[i].seq < a[j].seq
}
func (a arrivals) Swap(i, j int) { a[i], a[j] = a[j], a[i] }
func (a *arrivals) Push(x any)   { *a = append(*a, x.(arrival)) }
func (a *arrivals) Pop() any {
	old := *a
	x := old[len(old)-1]
	*a = old[:len(old)-1]
	return x
}

const (
	testClock = 156_250_000 // 64 bits per cycle = 10 Gb/s
	mrBase    = 0x1_0000_0000
	mrKeyA    = 0x0A0A0001
	mrKeyB    = 0x0B0B0002
)

var (
	macA = [6]byte{0x02, 0, 0, 0, 0, 0x0A}
	macB = [6]byte{0x02, 0, 0, 0, 0, 0x0B}
	ipA  = netip.MustParseAddr("10.0.0.1")
	ipB  = netip.MustParseAddr("10.0.0.2")
)

func qpnOf(side, conn int) roce.QPN { return roce.QPN(0x100*(side+1) + conn) }

// newPair builds two nodes with conns QPs each, QP conn of one joined to
// QP conn of the other, one big region per node (R_Key mrKeyA/mrKeyB).
func newPair(t testing.TB, conns int, seed uint64, edit func(side int, c *QPConfig), nodeEdit func(c *NodeConfig)) *pairSim {
	s := &pairSim{t: t, rng: rand.New(rand.NewPCG(seed, 0x5eed)), latency: 100, bpc: 8,
		buf: make([]byte, MaxFrameLen), impaired: map[int][]uint64{}, faultCount: map[string]int{}}
	macs, ips, keys := [2][6]byte{macA, macB}, [2]netip.Addr{ipA, ipB}, [2]uint32{mrKeyA, mrKeyB}
	for side := range 2 {
		nc := NodeConfig{MAC: macs[side], IP: ips[side], ClockHz: testClock, DSCP: 26, CNPDSCP: 48}
		if nodeEdit != nil {
			nodeEdit(&nc)
		}
		s.mems[side] = NewSparseMemory()
		n, err := NewNode(nc, s.mems[side])
		require.NoError(t, err)
		require.NoError(t, n.RegisterMR(MemoryRegion{Base: mrBase, Length: 1 << 40, RKey: keys[side],
			Access: AccessRemoteRead | AccessRemoteWrite}))
		for c := range conns {
			qc := QPConfig{QPN: qpnOf(side, c), RemoteQPN: qpnOf(1-side, c), RemoteMAC: macs[1-side],
				RemoteIP: ips[1-side], SendPSN: roce.PSN(1000 * c), RecvPSN: roce.PSN(1000 * c), PMTU: 1024,
				Timeout: 12, RetryCnt: 7, RNRRetry: 7, MinRNRTimer: 1, UDPSrcPort: uint16(0xC000 + c),
				Access: AccessRemoteRead | AccessRemoteWrite}
			if edit != nil {
				edit(side, &qc)
			}
			require.NoError(t, n.AddQP(qc))
		}
		s.nodes[side] = n
	}
	return s
}

func (s *pairSim) frameBuf(n int) []byte {
	if k := len(s.pool); k > 0 {
		b := s.pool[k-1]
		s.pool = s.pool[:k-1]
		return b[:n]
	}
	return make([]byte, n, MaxFrameLen)
}

func (s *pairSim) impair(f []byte, kind string) {
	s.faultCount[kind]++
	if len(f) >= bthOff+8 {
		conn := int(binary.BigEndian.Uint32(f[bthOff+4:]) & 0xFF)
		s.impaired[conn] = append(s.impaired[conn], s.now)
	}
}

// send puts a frame on the wire from side `from` at s.now.
func (s *pairSim) send(from int, f []byte) {
	ser := (uint64(len(f)) + s.bpc - 1) / s.bpc
	s.wireFree[from] = s.now + ser
	if s.onSend != nil {
		s.onSend(from, f, s.now)
	}
	if s.drop != nil && s.drop(from, f) {
		s.impair(f, "targeted")
		return
	}
	at := s.now + ser + s.latency
	r := func(ppm int) bool { return ppm > 0 && s.rng.IntN(1_000_000) < ppm }
	if r(s.faults.lossPPM) {
		s.impair(f, "loss")
		return
	}
	c := s.frameBuf(len(f))
	copy(c, f)
	corrupt := r(s.faults.corruptPPM)
	if corrupt {
		s.impair(f, "corrupt")
		s.faultCount["corrupt_copies"]++
		i := bthOff + 8 + s.rng.IntN(len(c)-bthOff-8)
		c[i] ^= 1 << s.rng.IntN(8)
	}
	if c[ipOff+1]&3 == ecnECT0 && r(s.faults.cePPM) {
		s.faultCount["ce"]++
		c[ipOff+1] |= ecnCE
		c[ipOff+10], c[ipOff+11] = 0, 0
		binary.BigEndian.PutUint16(c[ipOff+10:], wirecheck.IPv4Checksum(c[ipOff:ipOff+ipv4Len]))
	}
	if r(s.faults.reorderPPM) {
		s.impair(f, "reorder")
		s.impair(f, "reorder_second_effect")
		at += 1 + s.rng.Uint64N(s.faults.reorderMax)
	}
	if r(s.faults.dupPPM) {
		s.faultCount["dup"]++
		if corrupt {
			s.faultCount["corrupt_copies"]++
		}
		d := s.frameBuf(len(c))
		copy(d, c)
		s.seq++
		heap.Push(&s.flight, arrival{at: at + 1, seq: s.seq, to: 1 - from, f: d})
	}
	s.seq++
	heap.Push(&s.flight, arrival{at: at, seq: s.seq, to: 1 - from, f: c})
}

// step handles everything due at s.now, then moves s.now to the next
// event. It returns false when nothing is left to happen.
func (s *pairSim) step() bool {
	for len(s.flight) > 0 && s.flight[0].at <= s.now {
		a := heap.Pop(&s.flight).(arrival)
		if s.onRecv != nil {
			s.onRecv(a.to, a.f, s.now)
		}
		s.nodes[a.to].Receive(a.f, s.now)
		s.pool = append(s.pool, a.f)
	}
	for _, n := range s.nodes {
		if len(n.cnps) > 1 {
			s.checkCNPs(n)
		}
	}
	for side, n := range s.nodes {
		if s.wireFree[side] <= s.now {
			if f, ok := n.Poll(s.now, s.buf); ok {
				s.send(side, f)
			}
		}
	}
	next, ok := uint64(0), false
	take := func(c uint64) {
		if c <= s.now {
			c = s.now + 1
		}
		if !ok || c < next {
			next, ok = c, true
		}
	}
	if len(s.flight) > 0 {
		take(s.flight[0].at)
	}
	for side, n := range s.nodes {
		if c, nok := n.NextEvent(); nok {
			take(max(c, s.wireFree[side]))
		}
	}
	if !ok {
		return false
	}
	s.now = next
	return true
}

// run steps until nothing is left or limit cycles passed.
func (s *pairSim) run(limit uint64) {
	for s.now < limit && s.step() {
	}
}

// checkCNPs fails the test when a node's CNP queue holds a QP twice (rtl/nic
// README "Bounded queues": QPS entries suffice).
func (s *pairSim) checkCNPs(n *Node) {
	for i, q := range n.cnps {
		if slices.Contains(n.cnps[i+1:], q) {
			s.t.Fatalf("cycle %d: the CNP queue holds QP %v twice", s.now, q.cfg.QPN)
		}
	}
}

// checkBounds fails the test when a queue of either node went past its
// bound at any time of the run (the high-water marks the model keeps),
// and returns the fullest responder queue relative to its bound.
func (s *pairSim) checkBounds() (high, bound int) {
	for _, n := range s.nodes {
		require.LessOrEqual(s.t, n.cnpHigh, len(n.qps), "CNP queue high-water")
		for _, q := range n.qps {
			d := RespDepth(q.cfg.MaxReads)
			require.LessOrEqual(s.t, q.resp.jobHigh, d, "responder queue of %v", q.cfg.QPN)
			if bound == 0 || q.resp.jobHigh*bound > high*d {
				high, bound = q.resp.jobHigh, d
			}
		}
	}
	return high, bound
}
