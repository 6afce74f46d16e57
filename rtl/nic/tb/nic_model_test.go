//go:build unix

package tb_test

// Tests of the whole NIC (rtl/nic/roce_nic.sv through sim/tops/nic_top.sv)
// against the golden RC transport, cycle for cycle.
//
// The real Verilated model (the DUT) faces a golden peer: an rc.Node inside
// its own nic.Timed, linked to the DUT's port 0 both ways with a fixed
// latency and a seeded loss. The DUT's golden twin is a second nic.Timed
// fed with exactly what the DUT accepted (in0 frames, in1 command records,
// in2 host frames, each with the cycle of its last beat, as the model's
// ACCEPT messages give them). Checked: every out0 frame byte for byte and at
// exactly the twin's cycle; the completion records per QP in order; the
// host frames on out2; every node and QP counter and every QP's state over
// the CSR bus; the host memory of every registered region (MEM_READ).
// TestNICRTLToRTL links two models instead, each with its own twin.
//
// The models are built by make -f sim/build.mk (nic_64, nic_512); a missing
// one skips the tests, or fails them under COSIM_REQUIRE_MODELS=1.

import (
	"cmp"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/cosim/modeltest"
	"github.com/rocesim/cosim/golden/dcqcn"
	"github.com/rocesim/cosim/golden/nic"
	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/golden/wirecheck"
	"github.com/rocesim/cosim/harness/device/nicdev"
	tb "github.com/rocesim/cosim/harness/testbench"
)

var nicSeed = flag.Uint64("nic.seed", 1, "seed of the NIC model tests' workload and loss")

// Parameters of the nic models (sim/build.mk) and of the test's network.
const (
	nicDMALatency = 64  // DMA_LATENCY = the DMA port's default read latency
	nicQPS        = 16  // QPS
	nicSQDepth    = 32  // SQ_DEPTH
	nicRQDepth    = 32  // RQ_DEPTH
	nicMaxReads   = 4   // MAX_READS
	nicLink       = 100 // link latency, cycles, both ways
	nicWindow     = 128 // cycles per step (at most 2*nicLink + L + 4: see run)
	nicClockHz    = 100_000_000
)

// Addresses of host memory, the same on both sides (the DUT's is the
// model's, its twin's and the peer's are rc.SparseMemory).
const (
	nicRecvBase  = 0x0010_0000 // receive buffers: + q*0x10_0000 + slot*nicSlot
	nicSlot      = 0x4000
	nicSlots     = 8
	nicWriteBase = 0x1000_0000 // WRITE targets: + q*0x10_0000, nicWriteSpan bytes
	nicWriteSpan = 0x10000
	nicReadBase  = 0x2000_0000 // READ sources and SEND/WRITE sources, random bytes, never written
	nicReadSpan  = 0x20000
	nicReadDst   = 0x4000_0000 // READ destinations: + q*0x10_0000, nicReadSpan bytes
	nicWriteKey  = 0x1111
	nicReadKey   = 0x2222
	nicBadKey    = 0xDEAD
)

// nicModel returns the path of the nic model of width bits, skipping (or
// failing under COSIM_REQUIRE_MODELS=1) when it is not built. The
// mutation campaign (mutants_test.go) points COSIM_MODELS_DIR at a
// mutant's.
func nicModel(t *testing.T, width int) string {
	t.Helper()
	path := filepath.Join(modeltest.Dir(modeltest.DirEnv), fmt.Sprintf("nic_%d", width), "Vnic_top")
	modeltest.NeedBinary(t, path)
	return path
}

var (
	nicDUTMAC  = [6]byte{0x02, 0, 0, 0, 0, 0x01}
	nicPeerMAC = [6]byte{0x02, 0, 0, 0, 0, 0x02}
	nicDUTIP   = netip.AddrFrom4([4]byte{10, 0, 0, 1})
	nicPeerIP  = netip.AddrFrom4([4]byte{10, 0, 0, 2})
)

// nicOp is one work request the requester side posts, with the receive WQE
// the responder side posts for it (recvAt 0: none). A DUT command arrives
// on in1 at its cycle; a peer command's last beat is at its cycle.
type nicOp struct {
	at     uint64 // the work request's post
	q      int
	wr     rc.WorkRequest
	recvAt uint64 // the receive's post
	rr     rc.RecvRequest
}

// nicCmd is a command record for the peer, last beat at at.
type nicCmd struct {
	at  uint64
	rec []byte
}

// nicRun is one DUT, its golden twin and the golden peer.
type nicRun struct {
	t     *testing.T
	m     *cosim.Model
	width int
	rng   *rand.Rand

	twin, peer       *nic.Timed
	twinMem, peerMem *rc.SparseMemory
	nq               int
	dutQP, peerQP    []rc.QPConfig

	lossToDUT, lossToPeer float64
	// cutToPeer, if not nil, drops the DUT frames it picks on the way to
	// the peer (a link that goes dark for one QP)
	cutToPeer func(f cosim.Frame) bool

	// inputs waiting for their window, per DUT port, in arrival order
	in [3][]cosim.Frame
	// what the DUT was given, by port and sequence number
	given [3]map[uint32][]byte
	// the peer's commands, in order of their last-beat cycle
	peerCmds []nicCmd
	// CE marks on frames to the DUT (the notification point's input)
	ceToDUT float64
	// CE marks on frames to the peer whose last beat leaves the DUT in
	// [ceToPeerFrom, ceToPeerUntil) (the peer notifies, the DUT's reaction
	// point reacts)
	ceToPeer                    float64
	ceToPeerFrom, ceToPeerUntil uint64
	// onStep, if not nil, runs after every step
	onStep func()
	// onAccept, if not nil, hears every input the DUT accepted on in0,
	// with the cycle of its last beat
	onAccept func(data []byte, last uint64)

	// outputs
	dutNet    []cosim.Frame
	dutComp   map[roce.QPN][]rc.Completion
	dutHost   [][]byte
	twinNet   []nic.Out
	twinComp  map[roce.QPN][]rc.Completion
	twinHost  [][]byte
	lost      [2]int // frames dropped to the DUT, to the peer
	peerComps int
}

func nicNodeConfig(mac [6]byte, ip netip.Addr) rc.NodeConfig {
	return rc.NodeConfig{MAC: mac, IP: ip, ClockHz: nicClockHz, DSCP: 26, CNPDSCP: 48, CNPInterval: 2000}
}

// startNIC starts the DUT of width bits with nq QPs configured over the CSR
// bus, the twin with the same, and the peer with the mirror QPs; tweak, if
// not nil, may change QP q's configurations (DUT side d, peer side p)
// before they are loaded.
func startNIC(t *testing.T, width int, seed uint64, nq int, tweak func(q int, d, p *rc.QPConfig)) *nicRun {
	t.Helper()
	return startNICNodes(t, width, seed, nq, tweak, nil)
}

// nicSources draws the READ sources (random bytes at nicReadBase) of the
// DUT's memory and of the peer's.
func nicSources(rng *rand.Rand) (dut, peer []byte) {
	dut, peer = make([]byte, nicReadSpan), make([]byte, nicReadSpan)
	for _, b := range [][]byte{dut, peer} {
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
	}
	return dut, peer
}

// nicMRs are the regions both sides register, in MR slot order: the WRITE
// targets and the READ sources.
func nicMRs() []rc.MemoryRegion {
	return []rc.MemoryRegion{
		{Base: nicWriteBase, Length: 0x10_0000 * uint64(nicQPS), RKey: nicWriteKey, Access: rc.AccessRemoteWrite},
		{Base: nicReadBase, Length: nicReadSpan, RKey: nicReadKey, Access: rc.AccessRemoteRead},
	}
}

// nicQPPairs draws nq QP pairs, the DUT's side d and the peer's p (each
// the other's remote): path MTUs, PSNs (the DUT's receive PSN about to
// wrap), small windows on every fourth; tweak, if not nil, may change
// pair q.
func nicQPPairs(rng *rand.Rand, nq int, tweak func(q int, d, p *rc.QPConfig)) (d, p []rc.QPConfig) {
	pmtus := []int{256, 512, 1024, 2048, 4096}
	for q := range nq {
		pmtu := pmtus[rng.IntN(len(pmtus))]
		dq := rc.QPConfig{QPN: roce.QPN(0x100 + q), RemoteQPN: roce.QPN(0x200 + q), RemoteMAC: nicPeerMAC,
			RemoteIP: nicPeerIP, SendPSN: roce.PSN(rng.IntN(1 << 24)), RecvPSN: roce.PSN(0xFFFFF0).Add(rng.IntN(32)),
			PMTU: pmtu, Timeout: 4, RetryCnt: 7, RNRRetry: 7, MinRNRTimer: 1, UDPSrcPort: uint16(0xC000 + q),
			Access: rc.AccessRemoteWrite | rc.AccessRemoteRead, MaxReads: nicMaxReads, SQDepth: nicSQDepth,
			RQDepth: nicRQDepth}
		pq := rc.QPConfig{QPN: dq.RemoteQPN, RemoteQPN: dq.QPN, RemoteMAC: nicDUTMAC, RemoteIP: nicDUTIP,
			SendPSN: dq.RecvPSN, RecvPSN: dq.SendPSN, PMTU: pmtu, Timeout: 4, RetryCnt: 7, RNRRetry: 7,
			MinRNRTimer: 1, UDPSrcPort: uint16(0xD000 + q), Access: rc.AccessRemoteWrite | rc.AccessRemoteRead,
			MaxReads: nicMaxReads, SQDepth: nicSQDepth, RQDepth: nicRQDepth}
		if q%4 == 3 {
			dq.Window, pq.Window = 8, 8 // small windows: AckReq inside messages
		}
		if tweak != nil {
			tweak(q, &dq, &pq)
		}
		d, p = append(d, dq), append(p, pq)
	}
	return d, p
}

// startNICModel starts the NIC model of width bits, closed at the test's
// end, and checks that its parameters are the ones the tests assume.
func startNICModel(t *testing.T, width int) *cosim.Model {
	t.Helper()
	m, err := cosim.Start(context.Background(), cosim.Config{
		Name:     fmt.Sprintf("nic%d", width),
		Path:     nicModel(t, width),
		Timeouts: cosim.Timeouts{Start: 10 * time.Second, Step: 120 * time.Second, Close: 10 * time.Second},
	})
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	h, err := m.Handshake(context.Background(), cosim.HelloAck{Seed: 1})
	require.NoError(t, err)
	for k, v := range map[string]int{"DMA_LATENCY": nicDMALatency, "QPS": nicQPS, "SQ_DEPTH": nicSQDepth,
		"RQ_DEPTH": nicRQDepth, "MAX_READS": nicMaxReads, "DATA_WIDTH": width} {
		got, _ := h.Value("param." + k)
		require.Equal(t, strconv.Itoa(v), got, "the model's %s", k)
	}
	l, _ := h.Value("dma_read_latency")
	require.Equal(t, strconv.Itoa(nicDMALatency), l, "the DMA port's read latency")
	return m
}

// startNICNodes is startNIC; nodeTweak, if not nil, may change the node
// configurations (DUT side d, peer side p) before anything starts.
func startNICNodes(t *testing.T, width int, seed uint64, nq int, tweak func(q int, d, p *rc.QPConfig),
	nodeTweak func(d, p *rc.NodeConfig)) *nicRun {
	t.Helper()
	m := startNICModel(t, width)

	r := &nicRun{t: t, m: m, width: width, rng: rand.New(rand.NewPCG(seed, uint64(width))), nq: nq,
		twinMem: rc.NewSparseMemory(), peerMem: rc.NewSparseMemory(),
		dutComp: map[roce.QPN][]rc.Completion{}, twinComp: map[roce.QPN][]rc.Completion{}}
	for p := range r.given {
		r.given[p] = map[uint32][]byte{}
	}
	tc := nic.TimedConfig{DataWidth: width, DMALatency: nicDMALatency}
	dutCfg, peerCfg := nicNodeConfig(nicDUTMAC, nicDUTIP), nicNodeConfig(nicPeerMAC, nicPeerIP)
	dutCfg.DataWidth, peerCfg.DataWidth = width, width // pause quanta in the model's cycles
	if nodeTweak != nil {
		nodeTweak(&dutCfg, &peerCfg)
	}
	twinNode, err := rc.NewNode(dutCfg, r.twinMem)
	require.NoError(t, err)
	peerNode, err := rc.NewNode(peerCfg, r.peerMem)
	require.NoError(t, err)
	r.twin, err = nic.NewTimed(twinNode, tc)
	require.NoError(t, err)
	r.peer, err = nic.NewTimed(peerNode, tc)
	require.NoError(t, err)

	// memory: READ sources and the peer's sources random, the rest zero
	var mem []cosim.Mem
	src, psrc := nicSources(r.rng)
	for off := 0; off < len(src); off += 0x8000 {
		mem = append(mem, cosim.Mem{Addr: nicReadBase + uint64(off), Data: src[off : off+0x8000]})
	}
	r.twinMem.Write(nicReadBase, src)
	r.peerMem.Write(nicReadBase, psrc)

	// CSRs: node, MRs, QPs (slots in order: golden adds them in that order)
	writes, err := nic.NodeConfigWrites(dutCfg)
	require.NoError(t, err)
	for i, mr := range nicMRs() {
		writes = append(writes, nic.MRWrites(i, mr)...)
		require.NoError(t, twinNode.RegisterMR(mr))
		require.NoError(t, peerNode.RegisterMR(mr))
	}
	dqs, pqs := nicQPPairs(r.rng, nq, tweak)
	for q, d := range dqs {
		p := pqs[q]
		w, err := nic.QPConfigWrites(q, d, nicClockHz)
		require.NoError(t, err)
		writes = append(writes, w...)
		require.NoError(t, twinNode.AddQP(d))
		require.NoError(t, peerNode.AddQP(p))
		r.dutQP, r.peerQP = append(r.dutQP, d), append(r.peerQP, p)
	}
	cw := make([]cosim.CSR, len(writes))
	for i, w := range writes {
		cw[i] = cosim.CSR{Addr: w.Addr, Data: w.Data}
	}
	// the writes take a cycle each; run well past them before any traffic
	start := m.Cycle() + uint64(len(cw)) + 16
	_, err = m.Step(context.Background(), cosim.Window{Target: start, CSRWrites: cw, MemWrites: mem})
	require.NoError(t, err)
	r.twin.Run(start)
	r.peer.Run(start)
	return r
}

// dutFrame queues data for DUT port p, arriving at cycle at.
func (r *nicRun) dutFrame(p int, at uint64, data []byte) {
	r.in[p] = append(r.in[p], cosim.Frame{Port: uint16(p), Cycle: at, Data: data})
}

// sortInputs restores arrival order on each port (inputs are queued from
// several sources).
func (r *nicRun) sortInputs() {
	for p := range r.in {
		slices.SortStableFunc(r.in[p], func(a, b cosim.Frame) int { return cmp.Compare(a.Cycle, b.Cycle) })
	}
}

// step runs the DUT, twin and peer through [c, c+nicWindow), c the DUT's
// cycle.
//
// Order: the peer first runs to c+nicLink (every DUT frame that reaches it
// before then left the DUT before c, so it has it); its frames then reach
// the DUT nicLink after their first beat. The DUT runs the window with
// the inputs that arrive in it; what it accepted goes to the twin, which
// runs to the window's end; what it sent goes to the peer.
func (r *nicRun) step() {
	t := r.t
	c := r.m.Cycle()
	end := c + nicWindow
	p := c + nicLink
	for len(r.peerCmds) > 0 && r.peerCmds[0].at < p {
		require.NoError(t, r.peer.Command(r.peerCmds[0].rec, r.peerCmds[0].at))
		r.peerCmds = r.peerCmds[1:]
	}
	r.peer.Run(p)
	for _, o := range r.peer.Outputs() {
		switch o.Port {
		case nic.PortNet:
			if r.rng.Float64() < r.lossToDUT {
				r.lost[0]++
				continue
			}
			f := o.Data
			if r.rng.Float64() < r.ceToDUT {
				f = nicMarkCE(f)
			}
			r.dutFrame(0, o.Cycle+nicLink, f)
		case nic.PortCompletion:
			r.peerComps++
		}
	}
	for _, f := range r.dutWindow(end) {
		if r.cutToPeer != nil && r.cutToPeer(f) {
			r.lost[1]++
			continue
		}
		if r.rng.Float64() < r.lossToPeer {
			r.lost[1]++
			continue
		}
		data := f.Data
		if r.ceToPeer > 0 && f.LastCycle >= r.ceToPeerFrom && f.LastCycle < r.ceToPeerUntil &&
			r.rng.Float64() < r.ceToPeer {
			data = nicMarkCE(data)
		}
		require.NoError(t, r.peer.Receive(data, f.LastCycle+nicLink))
	}
	if r.onStep != nil {
		r.onStep()
	}
}

// dutWindow runs the DUT to end with the inputs that arrive before it,
// gives the twin what the DUT accepted and runs it to end, collects the
// outputs of both and checks the out0 frames the twin has made, and
// returns the DUT's out0 frames of the window.
func (r *nicRun) dutWindow(end uint64) []cosim.Frame {
	t := r.t
	c := r.m.Cycle()
	r.sortInputs()
	var w cosim.Window
	w.Target = end
	for port := range r.in {
		k := 0
		for k < len(r.in[port]) && r.in[port][k].Cycle < end {
			require.GreaterOrEqual(t, r.in[port][k].Cycle, c, "port %d input scheduled in the past", port)
			k++
		}
		w.Frames = append(w.Frames, r.in[port][:k]...)
		r.in[port] = r.in[port][k:]
	}
	rep, err := r.m.Step(context.Background(), w)
	require.NoError(t, err)
	for _, f := range w.Frames {
		r.given[f.Port][f.Seq] = f.Data
	}
	for _, a := range rep.Accepts {
		data := r.given[a.Port][a.Seq]
		delete(r.given[a.Port], a.Seq)
		switch a.Port {
		case 0:
			require.NoError(t, r.twin.Receive(data, a.LastCycle))
			if r.onAccept != nil {
				r.onAccept(data, a.LastCycle)
			}
		case 1:
			require.NoError(t, r.twin.Command(data, a.LastCycle))
		case 2:
			require.NoError(t, r.twin.HostFrame(data, a.LastCycle))
		}
	}
	r.twin.Run(end)
	for _, o := range r.twin.Outputs() {
		switch o.Port {
		case nic.PortNet:
			r.twinNet = append(r.twinNet, o)
		case nic.PortCompletion:
			r.twinComp[o.Completion.QPN] = append(r.twinComp[o.Completion.QPN], nicCompKey(o.Completion))
		case nic.PortHost:
			r.twinHost = append(r.twinHost, o.Data)
		}
	}
	var net []cosim.Frame
	for _, f := range rep.Frames {
		switch f.Port {
		case 0:
			r.dutNet = append(r.dutNet, f)
			k := len(r.dutNet) - 1
			if k < len(r.twinNet) {
				r.checkFrame(k)
			}
			net = append(net, f)
		case 1:
			comp, err := nic.DecodeCompletion(f.Data)
			require.NoError(t, err, "completion record % x", f.Data)
			r.dutComp[comp.QPN] = append(r.dutComp[comp.QPN], nicCompKey(comp))
		case 2:
			r.dutHost = append(r.dutHost, f.Data)
		}
	}
	return net
}

// nicMarkCE returns a copy of a RoCEv2 frame with ECN CE in its IPv4
// header (the ICRC does not cover TOS; the header checksum does).
func nicMarkCE(f []byte) []byte {
	g := slices.Clone(f)
	ip := 14
	if len(g) >= 18 && binary.BigEndian.Uint16(g[12:]) == 0x8100 {
		ip = 18 // after one 802.1Q tag
	}
	if len(g) < ip+20 || binary.BigEndian.Uint16(g[ip-2:]) != 0x0800 {
		return g
	}
	g[ip+1] |= 3
	g[ip+10], g[ip+11] = 0, 0
	binary.BigEndian.PutUint16(g[ip+10:], wirecheck.IPv4Checksum(g[ip:ip+20]))
	return g
}

// nicCompKey is what a completion record carries (no cycle).
func nicCompKey(c rc.Completion) rc.Completion {
	c.Cycle = 0
	return c
}

// checkFrame compares DUT frame k with the twin's.
func (r *nicRun) checkFrame(k int) {
	t := r.t
	t.Helper()
	got, want := r.dutNet[k], r.twinNet[k]
	if !slices.Equal(got.Data, want.Data) || got.Cycle != want.Cycle {
		for i := max(0, k-6); i <= k+2; i++ {
			if i < len(r.twinNet) {
				t.Logf("twin %d: cycle %d %s", i, r.twinNet[i].Cycle, nicDesc(r.twinNet[i].Data))
			}
			if i < len(r.dutNet) {
				t.Logf("dut  %d: cycle %d %s", i, r.dutNet[i].Cycle, nicDesc(r.dutNet[i].Data))
			}
		}
		var addrs []uint32
		for n := range nic.NumNodeCounters {
			addrs = append(addrs, nic.NodeCounterAddr(nic.NodeCounter(n)))
		}
		if rep, err := r.m.Step(context.Background(), cosim.Window{Target: r.m.Cycle() + uint64(2*len(addrs)+4),
			CSRReads: addrs}); err == nil {
			t.Logf("DUT node counters now: %v", rep.CSRData)
		}
	}
	var fr roce.Frame
	desc := "not RoCE"
	if fr.Decode(want.Data) == nil {
		desc = fmt.Sprintf("%v QP %v PSN %v", fr.BTH.OpCode, fr.BTH.DestQP, fr.BTH.PSN)
	}
	modeltest.SameBytes(t, want.Data, got.Data, "out0 frame %d (%s, twin cycle %d, DUT cycle %d)", k, desc, want.Cycle, got.Cycle)
	require.Equal(t, want.Cycle, got.Cycle, "out0 frame %d (%s): first beat cycle", k, desc)
	require.Equal(t, got.Cycle+modeltest.Beats(len(got.Data), r.width)-1, got.LastCycle, "out0 frame %d (%s): beats back to back",
		k, desc)
	require.False(t, got.Bad, "out0 frame %d: tuser", k)
}

// nicDesc names a frame for a failure report.
func nicDesc(f []byte) string {
	var fr roce.Frame
	if fr.Decode(f) != nil {
		return fmt.Sprintf("not RoCE, %d bytes", len(f))
	}
	return fmt.Sprintf("%v QP %v PSN %v, %d payload bytes, %d bytes", fr.BTH.OpCode, fr.BTH.DestQP, fr.BTH.PSN,
		len(fr.BTH.Payload), len(f))
}

// quiet reports whether nothing is in flight or waiting anywhere.
func (r *nicRun) quiet() bool {
	for p := range r.in {
		if len(r.in[p]) > 0 {
			return false
		}
	}
	if len(r.peerCmds) > 0 {
		return false
	}
	if _, ok := r.twin.Node().NextEvent(); ok {
		return false
	}
	if _, ok := r.peer.Node().NextEvent(); ok {
		return false
	}
	return true
}

// finish drains, then checks frames, completions, host frames, counters,
// QP states and memory. It returns the sums of the QP counters.
func (r *nicRun) finish(memRegions []cosim.Mem) map[string]uint64 {
	quietFor := 0
	for i := 0; quietFor < nicQuietWindows; i++ {
		require.Less(r.t, i, 200000, "the run drains")
		r.step()
		if r.quiet() {
			quietFor++
		} else {
			quietFor = 0
		}
	}
	return r.check(memRegions)
}

// nicQuietWindows is how many windows a run must stay quiet to be over:
// longer than a frame takes from a decision to the other side's decision.
const nicQuietWindows = 3*(nicDMALatency+nicLink)/nicWindow + 8

// check compares everything the DUT did with its twin (see finish).
func (r *nicRun) check(memRegions []cosim.Mem) map[string]uint64 {
	t := r.t
	require.Equal(t, len(r.twinNet), len(r.dutNet), "out0 frames")
	for k := range r.dutNet {
		r.checkFrame(k)
	}
	require.Equal(t, len(r.twinComp), len(r.dutComp), "QPs with completions")
	ncomp := 0
	for qpn, want := range r.twinComp {
		require.Equal(t, want, r.dutComp[qpn], "completions of QP %v", qpn)
		ncomp += len(want)
	}
	require.Equal(t, r.twinHost, r.dutHost, "out2 host frames")

	// counters and states over the CSR bus
	var addrs []uint32
	for n := range nic.NumNodeCounters {
		addrs = append(addrs, nic.NodeCounterAddr(nic.NodeCounter(n)))
	}
	for q := range r.nq {
		for c := int(nic.FirstQPCounter); c < rc.NumCounters; c++ {
			addrs = append(addrs, nic.QPCounterAddr(q, rc.Counter(c)))
		}
		addrs = append(addrs, nic.QPAddr(q, nic.QPStateReg))
	}
	rep, err := r.m.Step(context.Background(), cosim.Window{Target: r.m.Cycle() + uint64(2*len(addrs)+4),
		CSRReads: addrs})
	require.NoError(t, err)
	require.Len(t, rep.CSRData, len(addrs))
	got := map[uint32]uint32{}
	for _, d := range rep.CSRData {
		got[d.Addr] = d.Data
	}
	node := r.twin.Node()
	all := node.Counters()
	nodeNZ := map[string]uint64{}
	for n := range nic.NumNodeCounters {
		var want uint64
		switch {
		case n < int(nic.FirstQPCounter):
			want = all[n]
		case nic.NodeCounter(n) == nic.CntCmdBad:
			want = uint64(r.twin.Bad())
		case nic.NodeCounter(n) == nic.CntCmdRejected:
			want = uint64(r.twin.Rejected())
		default:
			want, _ = nic.PauseCounter(nic.NodeCounter(n), node.PauseCounters())
		}
		require.Equal(t, uint32(want), got[nic.NodeCounterAddr(nic.NodeCounter(n))], "node counter %v",
			nic.NodeCounter(n))
		if want != 0 {
			nodeNZ[nic.NodeCounter(n).String()] = want
		}
	}
	t.Logf("node counters %v", nodeNZ)
	nonzero := map[string]uint64{}
	for q := range r.nq {
		qc, ok := node.QPCounters(r.dutQP[q].QPN)
		require.True(t, ok)
		for c := int(nic.FirstQPCounter); c < rc.NumCounters; c++ {
			require.Equal(t, uint32(qc[c]), got[nic.QPCounterAddr(q, rc.Counter(c))], "QP %d counter %v", q,
				rc.Counter(c))
			nonzero[rc.Counter(c).String()] += qc[c]
		}
		want := nic.QPStateRTS
		if node.QPInError(r.dutQP[q].QPN) {
			want = nic.QPStateError
		}
		require.Equal(t, uint32(want), got[nic.QPAddr(q, nic.QPStateReg)], "QP %d state", q)
	}

	// memory
	rep, err = r.m.Step(context.Background(), cosim.Window{Target: r.m.Cycle(), MemReads: memRegions})
	require.NoError(t, err)
	require.Len(t, rep.MemData, len(memRegions))
	for i, md := range rep.MemData {
		want := make([]byte, memRegions[i].Length)
		r.twinMem.Read(memRegions[i].Addr, want)
		modeltest.SameBytes(t, want, md.Data, "host memory at %#x", memRegions[i].Addr)
	}
	var errQPs []int
	status := map[string]int{}
	for q := range r.nq {
		if node.QPInError(r.dutQP[q].QPN) {
			errQPs = append(errQPs, q)
		}
		for _, c := range r.twinComp[r.dutQP[q].QPN] {
			status[c.Status.String()]++
		}
	}
	t.Logf("QPs in error %v; DUT completions by status %v", errQPs, status)
	for k, v := range nonzero {
		if v == 0 {
			delete(nonzero, k)
		}
	}
	t.Logf("%d cycles: %d out0 frames (%d lost to the DUT, %d to the peer), %d DUT completions, %d peer completions, "+
		"%d host frames; QP counters %v", r.m.Cycle(), len(r.dutNet), r.lost[0], r.lost[1], ncomp, r.peerComps,
		len(r.dutHost), nonzero)
	return nonzero
}

// covered fails unless the run made every one of the named counters count:
// the workload reached the rules the test is about.
func covered(t *testing.T, counters map[string]uint64, names ...string) {
	t.Helper()
	for _, n := range names {
		require.NotZero(t, counters[n], "the workload never counted %s", n)
	}
}

// recvMem are the DUT's receive buffers and WRITE targets of nq QPs, and
// the READ source, in MEM_READ-sized pieces.
func nicMemRegions(nq int) []cosim.Mem {
	var regs []cosim.Mem
	for q := range nq {
		for off := uint64(0); off < nicSlot*nicSlots; off += 0x8000 {
			regs = append(regs, cosim.Mem{Addr: nicRecvBase + uint64(q)*0x10_0000 + off, Length: 0x8000})
		}
		for off := uint64(0); off < nicWriteSpan; off += 0x8000 {
			regs = append(regs, cosim.Mem{Addr: nicWriteBase + uint64(q)*0x10_0000 + off, Length: 0x8000})
		}
	}
	for off := uint64(0); off < nicReadSpan; off += 0x8000 {
		regs = append(regs, cosim.Mem{Addr: nicReadBase + off, Length: 0x8000})
		for q := range nq {
			regs = append(regs, cosim.Mem{Addr: nicReadDst + uint64(q)*0x10_0000 + off, Length: 0x8000})
		}
	}
	return regs
}

// workload makes the work requests of the requester side and the receive
// WQEs of the responder side for them (schedule says which side is the
// DUT): SEND (with and without immediate)
// into posted receives, WRITE (with and without immediate), READ, lengths
// 0 to several PMTU; receives sometimes late (RNR NAKs) and a few rule
// breakers on chosen QPs: a bad R_Key, a SEND longer than its buffer, a
// READ out of its region.
func (r *nicRun) workload(start uint64, perQP int) []nicOp {
	var ops []nicOp
	spacing := 300 * r.nq * 64 / r.width
	for q := range r.nq {
		pmtu := r.dutQP[q].PMTU
		at := start + uint64(r.rng.IntN(200))
		slot := 0
		var lastRecv uint64
		for k := range perQP {
			// about the link's rate over all QPs, in bursts
			at += uint64(r.rng.IntN(spacing))
			if r.rng.IntN(4) == 0 {
				at += uint64(r.rng.IntN(4 * spacing))
			}
			var n uint32
			switch x := r.rng.IntN(10); {
			case x < 2:
				n = uint32([]int{0, 1, 3, 4, 7, 8}[r.rng.IntN(6)])
			case x < 4:
				n = uint32(pmtu - 1 + r.rng.IntN(3))
			case x < 6:
				n = uint32(r.rng.IntN(pmtu))
			default:
				n = uint32(r.rng.IntN(3*pmtu + 1))
			}
			op := rc.Op(r.rng.IntN(5))
			breaker := k == perQP*3/4
			if breaker && q == 6 {
				op, n = rc.OpSend, max(n, 2) // into a buffer one byte short
			}
			wr := rc.WorkRequest{ID: uint64(q)<<32 | uint64(k), Op: op, Length: n, Imm: r.rng.Uint32()}
			o := nicOp{at: at, q: q}
			switch op {
			case rc.OpSend, rc.OpSendImm, rc.OpWrite, rc.OpWriteImm:
				wr.LocalAddr = nicReadBase + uint64(r.rng.IntN(nicReadSpan-int(n)))
			case rc.OpRead:
				wr.LocalAddr = nicReadDst + uint64(q)*0x10_0000 + uint64(r.rng.IntN(nicReadSpan-int(n)))
			}
			switch op {
			case rc.OpWrite, rc.OpWriteImm:
				wr.RKey = nicWriteKey
				wr.RemoteAddr = nicWriteBase + uint64(q)*0x10_0000 + uint64(r.rng.IntN(nicWriteSpan-int(n)))
			case rc.OpRead:
				wr.RKey = nicReadKey
				wr.RemoteAddr = nicReadBase + uint64(r.rng.IntN(nicReadSpan-int(n)))
			}
			if op != rc.OpRead && op != rc.OpWrite {
				buf := nicRecvBase + uint64(q)*0x10_0000 + uint64(slot%nicSlots)*nicSlot
				slot++
				o.rr = rc.RecvRequest{ID: uint64(q)<<32 | 0x8000_0000 | uint64(k), Addr: buf, Length: nicSlot}
				// mostly before the message, sometimes well after (RNR
				// NAK); in message order, so that each message finds its own
				o.recvAt = at - min(at-start, uint64(r.rng.IntN(1500)))
				if r.rng.IntN(8) == 0 {
					o.recvAt = at + uint64(200+r.rng.IntN(3000))
				}
				o.recvAt = max(o.recvAt, lastRecv)
				lastRecv = o.recvAt
			}
			// rule breakers, late in the run of chosen QPs
			if breaker {
				switch q {
				case 5:
					wr.Op, wr.RKey, wr.RemoteAddr = rc.OpWrite, nicBadKey, nicWriteBase
					wr.Length = max(wr.Length, 1)
					o.recvAt = 0
				case 6:
					o.rr.Length = wr.Length - 1
				case 7:
					wr.Op, wr.RKey, wr.RemoteAddr = rc.OpRead, nicReadKey, nicReadBase+nicReadSpan-4
					wr.Length = 64
					wr.LocalAddr = nicReadDst + uint64(q)*0x10_0000
					o.recvAt = 0
				}
			}
			o.wr = wr
			ops = append(ops, o)
		}
	}
	slices.SortStableFunc(ops, func(a, b nicOp) int { return cmp.Compare(a.at, b.at) })
	return ops
}

// bothWays schedules perQP work requests per QP from each side against
// the other from start (the DUT's drawn first), the peer's IDs with bit
// 62 set so that the two sides' never coincide.
func (r *nicRun) bothWays(start uint64, perQP int) {
	dutOps := r.workload(start, perQP)
	peerOps := r.workload(start, perQP)
	for i := range peerOps {
		peerOps[i].wr.ID |= 1 << 62
		peerOps[i].rr.ID |= 1 << 62
	}
	r.schedule(dutOps, true)
	r.schedule(peerOps, false)
}

// schedule queues ops. dutRequests: the DUT posts the work requests (on
// in1 at their cycle) and the peer the receives; else the other way round.
func (r *nicRun) schedule(ops []nicOp, dutRequests bool) {
	var recvs []nicOp
	for _, o := range ops {
		if dutRequests {
			r.dutFrame(1, o.at, nic.AppendSendCommand(nil, r.dutQP[o.q].QPN, o.wr))
		} else {
			r.peerCmds = append(r.peerCmds, nicCmd{at: o.at, rec: nic.AppendSendCommand(nil, r.peerQP[o.q].QPN, o.wr)})
		}
		if o.recvAt != 0 {
			recvs = append(recvs, o)
		}
	}
	slices.SortStableFunc(recvs, func(a, b nicOp) int { return cmp.Compare(a.recvAt, b.recvAt) })
	for _, o := range recvs {
		if dutRequests {
			r.peerCmds = append(r.peerCmds, nicCmd{at: o.recvAt, rec: nic.AppendRecvCommand(nil, r.peerQP[o.q].QPN, o.rr)})
		} else {
			r.dutFrame(1, o.recvAt, nic.AppendRecvCommand(nil, r.dutQP[o.q].QPN, o.rr))
		}
	}
	slices.SortStableFunc(r.peerCmds, func(a, b nicCmd) int { return cmp.Compare(a.at, b.at) })
}

// nicHostFrames queues a few frames that are not RoCEv2: ARP broadcasts
// from the link (they go to out2) and from the host (in2, sent on out0).
func (r *nicRun) nicHostFrames(start, span uint64, n int) {
	for i := range n {
		f := make([]byte, 60)
		copy(f[0:6], []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF})
		copy(f[6:12], nicPeerMAC[:])
		binary.BigEndian.PutUint16(f[12:], 0x0806)
		for k := 14; k < len(f); k++ {
			f[k] = byte(r.rng.Uint32())
		}
		r.dutFrame(0, start+uint64(r.rng.Int64N(int64(span))), f)
		g := slices.Clone(f)
		copy(g[6:12], nicDUTMAC[:])
		g = append(g, byte(i))
		r.dutFrame(2, start+uint64(r.rng.Int64N(int64(span))), g)
	}
}

// nicForeign queues n frames of each kind the DUT must drop and count
// before a QP is known: RoCEv2 to an unknown QP (rx_unknown_qp), to
// another IP address (rx_wrong_address), with a broken ICRC (rx_bad_icrc),
// a truncated one (rx_malformed), a CNP for a known QP (rx_cnp) and,
// on in1, command records that do not decode (cmd_bad) or name no QP
// (cmd_rejected).
func (r *nicRun) nicForeign(start, span uint64, n int) {
	at := func() uint64 { return start + uint64(r.rng.Int64N(int64(span))) }
	pkt := func(qpn roce.QPN, op roce.OpCode, pay int) []byte {
		p := rc.Packet{DstMAC: nicDUTMAC, SrcMAC: nicPeerMAC, SrcIP: nicPeerIP.As4(), DstIP: nicDUTIP.As4(),
			UDPSrcPort: 0xE000, TOS: 26<<2 | 2, DestQP: qpn, OpCode: op, PSN: roce.PSN(r.rng.IntN(1 << 24)),
			Syndrome: 0x1F, Addr: nicReadBase, PayloadLen: pay}
		return rc.BuildFrame(nil, &p, r.peerMem)
	}
	for range n {
		r.dutFrame(0, at(), pkt(0x777, roce.RCSendOnly, 20))
		other := rc.Packet{DstMAC: nicDUTMAC, SrcMAC: nicPeerMAC, SrcIP: nicPeerIP.As4(), DstIP: [4]byte{10, 0, 0, 9},
			UDPSrcPort: 0xE001, TOS: 26<<2 | 2, DestQP: r.dutQP[0].QPN, OpCode: roce.RCAcknowledge, Syndrome: 0x1F}
		r.dutFrame(0, at(), rc.BuildFrame(nil, &other, r.peerMem))
		f := pkt(r.dutQP[1].QPN, roce.RCWriteOnly, 40)
		f[len(f)-10] ^= 0x5A // payload: the ICRC no longer matches
		r.dutFrame(0, at(), f)
		r.dutFrame(0, at(), pkt(r.dutQP[2].QPN, roce.RCSendOnly, 8)[:40])
		r.dutFrame(0, at(), pkt(r.dutQP[3].QPN, roce.CNPOpCode, 0))
		bad := nic.AppendRecvCommand(nil, r.dutQP[0].QPN, rc.RecvRequest{ID: 1, Addr: nicRecvBase, Length: 64})
		bad[50] = 1 // a reserved byte
		r.dutFrame(1, at(), bad)
		r.dutFrame(1, at(), bad[:63])
		r.dutFrame(1, at(), nic.AppendRecvCommand(nil, 0x999, rc.RecvRequest{ID: 2, Addr: nicRecvBase, Length: 64}))
	}
}

// The DUT's responder against a golden requester: SEND (with and without
// immediate) into posted receives, WRITE (with and without immediate) and
// READ on 12 QPs of every PMTU, lengths 0 to three PMTU, receives posted
// late (RNR NAKs and waits), frames lost both ways (PSN gaps and NAKs,
// duplicates, timeouts and go-back-N), a bad R_Key, a SEND longer than its
// buffer and a READ outside its region (NAKs, error state, flushes), CE
// marks (CNPs, suppressed ones), host frames both ways, foreign and broken
// frames and bad command records. Every out0 frame and its cycle, every completion, host
// frame, counter, QP state and the memory are the golden twin's.
func TestNICResponder(t *testing.T) {
	for _, width := range []int{64, 512} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			seed := *nicSeed
			t.Logf("seed %d (rerun with -args -nic.seed=%d)", seed, seed)
			r := startNIC(t, width, seed, 12, nil)
			r.lossToDUT, r.lossToPeer, r.ceToDUT = 0.03, 0.03, 0.05
			start := r.m.Cycle() + 16
			ops := r.workload(start, 60)
			r.schedule(ops, false)
			r.nicHostFrames(start, ops[len(ops)-1].at-start, 6)
			r.nicForeign(start, ops[len(ops)-1].at-start, 3)
			c := r.finish(nicMemRegions(r.nq))
			covered(t, c, "resp_read_responses", "resp_ack", "resp_rnr_nak", "resp_nak_seq", "resp_gap_silent",
				"resp_duplicate", "resp_duplicate_read", "resp_access_error", "resp_invalid_request", "rx_ce", "tx_cnp", "rx_cnp", "completions_error")
		})
	}
}

// The DUT's requester against a golden responder: the DUT posts SEND (with
// and without immediate), WRITE (with and without immediate) and READ on
// its in1 command port, all 16 QPs, of every PMTU, lengths 0 to three PMTU;
// frames lost both ways, so that go-back-N on NAKs, local ACK timeouts,
// READ-gap re-requests and RNR waits happen (and QP 4, rnr_retry 0, fails
// on its first RNR NAK; the peer's NAKs on odd QPs carry another RNR
// timer than the DUT's own); a bad R_Key, a SEND longer than the peer's buffer and a READ outside
// the peer's region fail their QPs (remote error completions, flushes);
// and QP 8's link to the peer goes dark three quarters of the way through
// its requests, so that it times out retry_cnt (2) times and fails (retry
// exceeded, flushes).
// Every out0 frame and its cycle, every completion, counter, QP state and
// the memory (READ data landed by DMA) are the golden twin's.
func TestNICRequester(t *testing.T) {
	const dark = 8 // the QP whose link goes dark
	for _, width := range []int{64, 512} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			seed := *nicSeed
			t.Logf("seed %d (rerun with -args -nic.seed=%d)", seed, seed)
			r := startNIC(t, width, seed, nicQPS, func(q int, d, p *rc.QPConfig) {
				switch q {
				case 4:
					d.RNRRetry = 0 // the first RNR NAK fails the QP
				case dark:
					d.RetryCnt, d.Timeout = 2, 1 // three timeouts of 8.2 us
				}
				if q%2 == 1 {
					// The wait after an RNR NAK is the timer code in
					// its AETH (bits 4:0; IBA table 45), here 0.03 ms,
					// not the requester's own setting (0.01 ms).
					p.MinRNRTimer = 3
				}
			})
			r.lossToDUT, r.lossToPeer, r.ceToDUT = 0.05, 0.04, 0.02
			start := r.m.Cycle() + 16
			ops := r.workload(start, 60)
			r.schedule(ops, true)
			r.nicHostFrames(start, ops[len(ops)-1].at-start, 4)
			var darkOps []nicOp
			for _, o := range ops {
				if o.q == dark {
					darkOps = append(darkOps, o)
				}
			}
			from, to := darkOps[len(darkOps)*3/4].at, r.peerQP[dark].QPN
			r.cutToPeer = func(f cosim.Frame) bool {
				var fr roce.Frame
				return f.LastCycle >= from && fr.Decode(f.Data) == nil && fr.BTH.DestQP == to
			}
			c := r.finish(nicMemRegions(r.nq))
			covered(t, c, "tx_packets", "tx_retransmits", "req_retry_nak", "req_retry_timeout", "req_retry_read_gap",
				"req_retry_ignored", "req_rnr_wait", "req_rnr_exceeded", "req_retry_exceeded", "req_remote_error",
				"completions_error")
		})
	}
}

// Both halves of every QP at once: the DUT and the peer each post work
// requests against the other (the workloads of TestNICRequester and
// TestNICResponder together), so that responder and requester packets of
// one QP take turns (golden qp.poll's lastResp) and ACKs, NAKs and READ
// responses share the wire with requests, under loss both ways.
func TestNICBidirectional(t *testing.T) {
	for _, width := range []int{64, 512} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			seed := *nicSeed
			t.Logf("seed %d (rerun with -args -nic.seed=%d)", seed, seed)
			r := startNIC(t, width, seed, 8, nil)
			r.lossToDUT, r.lossToPeer, r.ceToDUT = 0.03, 0.03, 0.02
			start := r.m.Cycle() + 16
			r.bothWays(start, 40)
			c := r.finish(nicMemRegions(r.nq))
			covered(t, c, "tx_packets", "resp_read_responses", "resp_ack", "tx_retransmits", "resp_nak_seq")
		})
	}
}

// rtlToRTLTOML is two NICs of width bits joined by links of nicLink cycles
// that lose 3 % of the frames.
func rtlToRTLTOML(width int) string {
	s := "name = \"nic-rtl-to-rtl\"\ncycles = 50_000_000\n"
	for _, m := range []string{"nic0", "nic1"} {
		s += fmt.Sprintf("[[model]]\nname = %q\ntop = \"nic\"\ndata_width = %d\n", m, width)
	}
	for _, l := range [][2]string{{"nic0", "nic1"}, {"nic1", "nic0"}} {
		s += fmt.Sprintf("[[link]]\nfrom = \"%s.out0\"\nto = \"%s.in0\"\nlatency = %d\nloss_pct = 3\n", l[0], l[1], nicLink)
	}
	return s
}

// Two DUTs, each the other's peer (RTL to RTL) on a bench, each checked
// by its golden model frame by frame and cycle by cycle: both post work
// requests against the other (the workloads of TestNICBidirectional) and
// the receives for the other's, frames are lost both ways (the links').
// Every frame, completion and counter is golden's, and so are the QPs'
// states and both hosts' memory; the workloads made the NICs send, answer
// READs, ACK and retransmit.
func TestNICRTLToRTL(t *testing.T) {
	for _, width := range []int{64, 512} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			seed := *nicSeed
			t.Logf("seed %d (rerun with -args -nic.seed=%d)", seed, seed)
			const nq = 8
			rng := rand.New(rand.NewPCG(seed, uint64(width)))
			src, _ := nicSources(rng)
			aQPs, bQPs := nicQPPairs(rng, nq, nil)
			setup := func(node rc.NodeConfig, qps []rc.QPConfig) nicdev.Setup {
				s := nicdev.Setup{Node: node, MRs: nicMRs(), QPs: qps}
				for off := 0; off < len(src); off += 0x8000 {
					s.Init = append(s.Init, nicdev.MemBlock{Addr: nicReadBase + uint64(off), Data: src[off : off+0x8000]})
				}
				return s
			}
			b := tb.FromTOML(t, rtlToRTLTOML(width), tb.Seed(seed))
			nic0 := b.SetUpNIC("nic0", setup(nicNodeConfig(nicDUTMAC, nicDUTIP), aQPs))
			nic1 := b.SetUpNIC("nic1", setup(nicNodeConfig(nicPeerMAC, nicPeerIP), bQPs))
			start := max(nic0.Ready(), nic1.Ready()) + 16

			// the workloads' draws, after the setup's as in startNIC
			w := &nicRun{rng: rng, nq: nq, width: width, dutQP: aQPs}
			aOps := w.workload(start, 40)
			bOps := w.workload(start, 40)
			for i := range bOps {
				bOps[i].wr.ID |= 1 << 62
				bOps[i].rr.ID |= 1 << 62
			}
			// each side's requests, then the other side's receives for
			// them, in the order of their cycles
			post := func(model string, qps []rc.QPConfig, ops []nicOp) {
				for _, o := range ops {
					b.Send(model+".in1", nic.AppendSendCommand(nil, qps[o.q].QPN, o.wr), tb.At(o.at))
				}
			}
			recvs := func(model string, qps []rc.QPConfig, ops []nicOp) {
				ops = slices.Clone(ops)
				slices.SortStableFunc(ops, func(x, y nicOp) int { return cmp.Compare(x.recvAt, y.recvAt) })
				for _, o := range ops {
					if o.recvAt != 0 {
						b.Send(model+".in1", nic.AppendRecvCommand(nil, qps[o.q].QPN, o.rr), tb.At(o.recvAt))
					}
				}
			}
			post("nic0", aQPs, aOps)
			post("nic1", bQPs, bOps)
			recvs("nic1", bQPs, aOps)
			recvs("nic0", aQPs, bOps)

			b.RunUntilIdle(5_000_000)
			for _, n := range []*tb.NIC{nic0, nic1} {
				n.CheckQPStates()
				for _, m := range nicMemRegions(nq) {
					n.CheckMemory(m.Addr, int(m.Length))
				}
			}
			s := b.Finish()
			require.Positive(t, s.Matched)
			require.Equal(t, s.FramesOut, s.Matched, "every frame out matched")
			require.Positive(t, s.Drops["link_loss"], "frames lost")
			for _, m := range []string{"nic0", "nic1"} {
				for _, name := range []string{"tx_packets", "resp_read_responses", "resp_ack", "tx_retransmits"} {
					var n uint64
					for q := range nq {
						n += b.Counter(fmt.Sprintf("%s.qp%d.%s", m, q, name))
					}
					require.NotZero(t, n, "%s: the workload never counted %s", m, name)
				}
			}
			t.Logf("%d cycles, %d frames out, all matched; %d lost", s.Cycles, s.FramesOut, s.Drops["link_loss"])
		})
	}
}

// nicDCQCN is the DUT's DCQCN configuration of TestNICCongestion at width
// bits: golden/dcqcn's rules with the paper's constants scaled so that a
// run of about 100k cycles sees the rate fall and come back: the line
// rate is the wire's (DW/8 bytes per cycle), an alpha period of 1000
// cycles, an increase period of 3000 (longer than the peer's CNP interval,
// so that CNPs in a row cut the rate further), a byte counter of 32 KiB
// (the NIC takes at least nic.MinByteCounter), g = 1/16, F = 3,
// R_AI = line/8, R_HAI = line/4, MinRate line/32.
func nicDCQCN(width int) dcqcn.Config {
	line := dcqcn.Rate(width / 8 * int(dcqcn.RateOne))
	return dcqcn.Config{LineRate: line, MinRate: line / 32, GShift: 4, AlphaPeriod: 1000, IncreasePeriod: 3000,
		ByteCounter: 32768, FastRecoverySteps: 3, AdditiveStep: line / 8, HyperStep: line / 4}
}

// The DUT's DCQCN reaction point, cycle for cycle: the DUT (CTRL bit 1
// set, nicDCQCN) streams WRITEs on two QPs at about 80% of the wire to a
// golden responder, which READs from it at about 10% (READ responses are
// paced, ACKs are not), lossless. For a while the frames reaching the peer are
// CE-marked, so the peer (the notification point, CNP interval 2000
// cycles) sends CNPs; the DUT's rate falls (OnCNP), its QPs are paced (a
// paced QP waits Rate.Cycles(frame bytes) between packets), and once the
// marks stop it climbs back (alpha and increase timers, byte counter,
// fast recovery, additive and hyper increase) to the line rate. Every out0
// frame leaves at exactly its twin's cycle, so every pacing decision is
// golden's; counters (rx_cnp), completions, rejected posts (the send queue
// fills while paced) and memory are the twin's. Not vacuous: the twin's
// rate falls to a quarter of the line or less and is back at the line by
// the end, the DUT's data rate while congested is under half of the one
// before, and after recovery over 80% of it.
func TestNICCongestion(t *testing.T) {
	for _, width := range []int{64, 512} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			seed := *nicSeed
			t.Logf("seed %d (rerun with -args -nic.seed=%d)", seed, seed)
			cfg := nicDCQCN(width)
			const nq = 2
			r := startNICNodes(t, width, seed, nq, func(q int, d, p *rc.QPConfig) {
				d.Timeout, p.Timeout = 12, 12 // 16.8 ms: no ACK timeout while paced
			}, func(d, p *rc.NodeConfig) {
				d.DCQCN = cfg
			})
			start := r.m.Cycle() + 16
			const (
				preFrom, ceFrom, congFrom, ceUntil, recFrom, opsUntil = 5_000, 20_000, 30_000, 45_000, 90_000, 110_000
			)
			r.ceToPeer, r.ceToPeerFrom, r.ceToPeerUntil = 1, start+ceFrom, start+ceUntil

			// WRITEs of 2..8 KiB on each QP, together about 80% of the wire
			bpc := float64(width / 8) // wire bytes per cycle
			var ops []nicOp
			for q := range nq {
				at := start + uint64(r.rng.IntN(500))
				for k := 0; at < start+opsUntil; k++ {
					n := uint32(2048 + r.rng.IntN(6145))
					wr := rc.WorkRequest{ID: uint64(q)<<32 | uint64(k), Op: rc.OpWrite, Length: n,
						LocalAddr: nicReadBase + uint64(r.rng.IntN(nicReadSpan-int(n))), RKey: nicWriteKey,
						RemoteAddr: nicWriteBase + uint64(q)*0x10_0000 + uint64(r.rng.IntN(nicWriteSpan-int(n)))}
					ops = append(ops, nicOp{at: at, q: q, wr: wr})
					at += uint64(float64(n) * nq / (0.8 * bpc))
				}
			}
			slices.SortStableFunc(ops, func(a, b nicOp) int { return cmp.Compare(a.at, b.at) })
			r.schedule(ops, true)
			// and READs of 1..4 KiB from the peer on QP 1 (about 10% of the
			// wire): the DUT's READ responses are paced too, its ACKs never
			var reads []nicOp
			for at, k := start+uint64(r.rng.IntN(2000)), 0; at < start+opsUntil; k++ {
				n := uint32(1 + r.rng.IntN(4096))
				wr := rc.WorkRequest{ID: 1<<62 | uint64(k), Op: rc.OpRead, Length: n,
					LocalAddr: nicReadDst + 0x10_0000 + uint64(r.rng.IntN(nicReadSpan-int(n))), RKey: nicReadKey,
					RemoteAddr: nicReadBase + uint64(r.rng.IntN(nicReadSpan-int(n)))}
				reads = append(reads, nicOp{at: at, q: 1, wr: wr})
				at += uint64(float64(n) / (0.1 * bpc))
			}
			r.schedule(reads, false)

			// the twin's rates, sampled after every step
			minRate, lastRate := cfg.LineRate, [nq]uint32{}
			var lowAt, backAt uint64
			r.onStep = func() {
				for q := range nq {
					rt := dcqcn.Rate(r.twin.Node().Rate(r.dutQP[q].QPN))
					lastRate[q] = uint32(rt)
					if rt < minRate {
						minRate, lowAt = rt, r.m.Cycle()
					}
				}
				if backAt == 0 && lowAt != 0 && lastRate[0] == uint32(cfg.LineRate) &&
					lastRate[1] == uint32(cfg.LineRate) {
					backAt = r.m.Cycle()
				}
			}
			c := r.finish(nicMemRegions(r.nq))
			covered(t, c, "tx_packets", "rx_cnp", "resp_read_responses")

			// the DUT's data rate (bytes of frames starting in a span)
			rate := func(from, to uint64) float64 {
				n := 0
				for _, f := range r.dutNet {
					if f.Cycle >= start+from && f.Cycle < start+to {
						n += len(f.Data)
					}
				}
				return float64(n) / float64(to-from)
			}
			pre, cong, rec := rate(preFrom, ceFrom), rate(congFrom, ceUntil), rate(recFrom, opsUntil)
			t.Logf("line %v; twin rate down to %v (cycle %d), back at the line rate by cycle %d; "+
				"DUT bytes/cycle: %.2f before, %.2f congested, %.2f recovered; %d posts rejected",
				cfg.LineRate, minRate, lowAt-start, backAt-start, pre, cong, rec, r.twin.Rejected())
			require.LessOrEqual(t, minRate, cfg.LineRate/4, "the rate fell")
			require.NotZero(t, backAt, "the rate came back to the line rate")
			require.Equal(t, [nq]uint32{uint32(cfg.LineRate), uint32(cfg.LineRate)}, lastRate, "rates at the end")
			require.Less(t, cong, 0.5*pre, "paced while congested")
			require.Greater(t, rec, 0.8*pre, "recovered")
		})
	}
}
