package ethswitch

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/rocesim/cosim/golden/checksum"
)

// splitmix is a stateless hash for backpressure patterns: Ready must be a
// pure function of (port, cycle).
func splitmix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

// scenario is one random run: a configuration, inputs, CSR writes and the
// cycles at which it is cut into Run windows.
type scenario struct {
	cfg     Config
	inputs  []scenInput // by last beat, ties in any order
	writes  []csrWrite  // by cycle
	windows []uint64    // increasing Run limits; the last drains everything
	end     uint64      // traffic ends before this cycle; Ready is high from here
}

type scenInput struct {
	port  int
	frame []byte
	bad   bool
	last  uint64
}

// hostMAC is the unicast address of test host k.
func hostMAC(k int) MAC { return MAC{0x02, 0, 0, 0, byte(k >> 8), byte(k)} }

// buildIPv4 returns an Ethernet frame of n bytes (n >= 38) carrying IPv4
// with the given TOS, optionally VLAN tagged with pcp, with a valid header
// checksum.
func buildIPv4(dst, src MAC, n int, tos byte, vlan bool, pcp int) []byte {
	f := make([]byte, n)
	copy(f[0:6], dst[:])
	copy(f[6:12], src[:])
	off := 14
	if vlan {
		binary.BigEndian.PutUint16(f[12:], EtherTypeVLAN)
		binary.BigEndian.PutUint16(f[14:], uint16(pcp)<<13|42)
		off = 18
	}
	binary.BigEndian.PutUint16(f[off-2:], EtherTypeIPv4)
	h := f[off : off+20]
	h[0], h[1] = 0x45, tos
	binary.BigEndian.PutUint16(h[2:], uint16(n-off))
	h[8], h[9] = 64, 17
	copy(h[12:16], []byte{10, 0, 0, src[5]})
	copy(h[16:20], []byte{10, 0, 0, dst[5]})
	binary.BigEndian.PutUint16(h[10:], checksum.Checksum(h))
	for k := off + 20; k < n; k++ {
		f[k] = byte(k)
	}
	return f
}

// buildEth returns an n-byte frame with the given EtherType and a
// recognisable payload.
func buildEth(dst, src MAC, etherType uint16, n int) []byte {
	f := make([]byte, max(n, 14))
	copy(f[0:6], dst[:])
	copy(f[6:12], src[:])
	binary.BigEndian.PutUint16(f[12:], etherType)
	for k := 14; k < len(f); k++ {
		f[k] = byte(k * 7)
	}
	return f[:n]
}

// randomScenario draws a scenario that exercises every rule: learning with
// a small table (collisions), aging, flooding, filtering, runts, oversize
// and bad frames, received PFC and other MAC Control, priorities by PCP,
// DSCP and default, ECN, PFC generation, both schedulers, tail drops, an
// exhausted pool and sink backpressure.
func randomScenario(seed uint64) scenario {
	rng := rand.New(rand.NewPCG(seed, 0xE7))
	pick := func(v ...int) int { return v[rng.IntN(len(v))] }
	cfg := Config{
		Ports:      pick(2, 3, 4, 4, 5, 8),
		DataWidth:  pick(8, 64, 64, 128, 512, 512),
		Queues:     NumQueues,
		MTUMax:     pick(128, 300, 1518, 2048, DefaultMTUMax),
		Slots:      1 + rng.IntN(12),
		BufBytes:   pick(0, 100, 400, 1000, 3000, 16384, 32768),
		MACEntries: pick(2, 4, 64),
	}
	sc := scenario{cfg: cfg}
	stall := pick(0, 0, 10, 40, 80)
	burst := rng.IntN(2) == 0
	traffic := uint64(200 + rng.IntN(3000))
	var end uint64 // set once the inputs are drawn
	if stall > 0 {
		cfg.Ready = func(port int, c uint64) bool {
			if c >= end {
				return true
			}
			x := c
			if burst {
				x = c / 16
			}
			return splitmix(seed^uint64(port)<<56^x)%100 >= uint64(stall)
		}
	}
	sc.cfg = cfg

	hosts := 2 + rng.IntN(6)
	for port := range cfg.Ports {
		t := uint64(rng.IntN(20))
		load := pick(2, 10, 50, 200)
		for t < traffic {
			n := pick(rng.IntN(80), 60, 64, 64+rng.IntN(200), rng.IntN(cfg.MTUMax+40), cfg.MTUMax, cfg.MTUMax+1)
			n = max(n, 15)
			srcHost := rng.IntN(hosts)
			src := hostMAC(srcHost)
			if rng.IntN(20) == 0 {
				src[0] |= 1 // group source: not learned
			}
			var dst MAC
			switch rng.IntN(10) {
			case 0:
				dst = Broadcast
			case 1:
				dst = MAC{0x01, 0x00, 0x5E, 0, 0, byte(rng.IntN(3))}
			default:
				dst = hostMAC(rng.IntN(hosts))
			}
			var f []byte
			switch rng.IntN(12) {
			case 0, 1, 2:
				f = buildIPv4(dst, src, max(n, 38), byte(rng.IntN(256)), false, 0)
			case 3, 4:
				f = buildIPv4(dst, src, max(n, 42), byte(rng.IntN(256)), true, rng.IntN(8))
			case 5:
				f = buildEth(dst, src, EtherTypeVLAN, n)
			case 6:
				f = PFCFrame(src, rng.IntN(8), uint16(rng.IntN(40)))
				f[17] = byte(rng.IntN(256)) // any enable vector
				if rng.IntN(4) == 0 {
					f = append(f, make([]byte, rng.IntN(10))...)
				}
			case 7:
				f = buildEth(PFCDstMAC, src, EtherTypeMACControl, max(n, 60))
				binary.BigEndian.PutUint16(f[14:], uint16(pick(1, 0x0101, 2)))
				clear(f[16:34]) // no long pause: the run must drain
				if rng.IntN(2) == 0 {
					f[0] = 0x03 // PFC opcode to another destination
				}
			default:
				f = buildEth(dst, src, uint16(0x88B5+rng.IntN(3)), n)
			}
			bad := rng.IntN(25) == 0
			beats := uint64((len(f) + cfg.DataWidth/8 - 1) / (cfg.DataWidth / 8))
			t += beats - 1
			sc.inputs = append(sc.inputs, scenInput{port, f, bad, t})
			t += 1 + uint64(rng.IntN(load))
		}
	}
	// Order by last beat so that a window's inputs can be given in order.
	sortInputs(sc.inputs)
	end = traffic + 200
	if n := len(sc.inputs); n > 0 {
		end = max(end, sc.inputs[n-1].last+200)
	}
	sc.end = end

	for c := uint64(rng.IntN(30)); c < traffic; c += uint64(1 + rng.IntN(150)) {
		var addr, data uint32
		switch rng.IntN(15) {
		case 0, 1, 14:
			addr, data = AddrCtrl, uint32(rng.IntN(16))
		case 2:
			addr, data = AddrMTU, uint32(pick(60, 100, 1500, cfg.MTUMax, cfg.MTUMax, 5000, 9000))
		case 3:
			addr, data = AddrAgeCycles, uint32(pick(0, 0, 1, 50, 400))
		case 4:
			addr, data = AddrDefaultPrio, rng.Uint32()
		case 5:
			addr, data = AddrDSCPMap+4*uint32(rng.IntN(8)), rng.Uint32()
		case 6:
			addr, data = AddrECNK+4*uint32(rng.IntN(8)), uint32(pick(0, 0, 64, 300, 1000))
		case 7:
			addr, data = AddrQuantum+4*uint32(rng.IntN(8)), uint32(pick(1, 50, 100, 600, 3000))
		case 8:
			addr, data = AddrPFCXoff, uint32(pick(0, 100, 500, 2000, 5000))
		case 9:
			addr, data = AddrPFCXon, uint32(pick(0, 0, 50, 300))
		case 10:
			addr, data = AddrPFCRefresh, uint32(pick(0, 1, 7, 40, 300))
		case 11:
			addr, data = AddrPFCQuanta, rng.Uint32()
		case 12:
			addr, data = AddrSwitchMACLo+4*uint32(rng.IntN(2)), rng.Uint32()
		case 13:
			addr = CounterAddr(rng.IntN(cfg.Ports), Counter(rng.IntN(32)))
			data = uint32(rng.IntN(3))
		}
		sc.writes = append(sc.writes, csrWrite{addr: addr, data: data, cycle: c})
	}
	for w := uint64(0); w < sc.end; {
		w += uint64(1 + rng.IntN(300))
		sc.windows = append(sc.windows, w)
	}
	sc.windows = append(sc.windows, sc.end)
	return sc
}

func sortInputs(in []scenInput) {
	// insertion sort by last (stable, inputs are nearly sorted per port)
	for k := 1; k < len(in); k++ {
		for j := k; j > 0 && in[j].last < in[j-1].last; j-- {
			in[j], in[j-1] = in[j-1], in[j]
		}
	}
}

// outString is one output for failure messages.
func outString(o Out) string {
	return fmt.Sprintf("port %d in %d#%d q%d marked=%v len %d picked %d first %d last %d",
		o.Port, o.Ingress, o.Seq, o.Queue, o.Marked, len(o.Frame), o.Picked, o.First, o.Last)
}

func sameOut(a, b Out) bool {
	return a.Port == b.Port && a.Picked == b.Picked && a.First == b.First && a.Last == b.Last &&
		a.Ingress == b.Ingress && a.Seq == b.Seq && a.Queue == b.Queue && a.Marked == b.Marked &&
		bytes.Equal(a.Frame, b.Frame)
}

// runScenario runs sc through Model and the reference window by window and
// fails at the first difference; it returns the model's decisions and all
// its outputs.
func runScenario(t *testing.T, seed uint64, sc scenario) ([]Decision, []Out, *Model) {
	t.Helper()
	var decs []Decision
	cfg := sc.cfg
	cfg.OnDecide = func(d Decision) { decs = append(decs, d) }
	m, err := New(cfg)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	ref := newRef(sc.cfg)
	var all []Out
	in, wr := 0, 0
	windows := sc.windows
	for k := 0; k < len(windows); k++ {
		w := windows[k]
		for ; in < len(sc.inputs) && sc.inputs[in].last < w; in++ {
			x := sc.inputs[in]
			if err := m.Input(x.port, x.frame, x.bad, x.last); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			ref.input(x.port, x.frame, x.bad, x.last)
		}
		for ; wr < len(sc.writes) && sc.writes[wr].cycle < w; wr++ {
			x := sc.writes[wr]
			if err := m.CSRWrite(x.addr, x.data, x.cycle); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			ref.write(x.addr, x.data, x.cycle)
		}
		m.Run(w)
		ref.run(w)
		got, want := m.Outputs(), ref.takeOutputs()
		for k := 0; k < max(len(got), len(want)); k++ {
			switch {
			case k >= len(got):
				t.Fatalf("seed %d window <%d: missing output %s", seed, w, outString(want[k]))
			case k >= len(want):
				t.Fatalf("seed %d window <%d: extra output %s", seed, w, outString(got[k]))
			case !sameOut(got[k], want[k]):
				t.Fatalf("seed %d window <%d: output %d\n got %s\nwant %s\n got % x\nwant % x", seed, w, k,
					outString(got[k]), outString(want[k]), got[k].Frame, want[k].Frame)
			}
		}
		all = append(all, got...)
		for i := range cfg.Ports {
			for c := Counter(0); c < NumCounterSlots; c++ {
				if g, r := m.Counter(i, c), ref.cnt[i][c]; g != r {
					t.Fatalf("seed %d window <%d: port %d %v = %d, reference %d", seed, w, i, c, g, r)
				}
				if g, r := m.CSRRead(CounterAddr(i, c)), uint32(ref.cnt[i][c]); c.Valid() && g != r {
					t.Fatalf("seed %d window <%d: CSR port %d %v = %d, reference %d", seed, w, i, c, g, r)
				}
			}
			if m.Occupancy(i) != uint64(ref.occ[i]) {
				t.Fatalf("seed %d window <%d: occ(%d) = %d, reference %d", seed, w, i, m.Occupancy(i), ref.occ[i])
			}
			for p := range NumQueues {
				if m.IngressBytes(i, p) != uint64(ref.ic[i][p]) {
					t.Fatalf("seed %d window <%d: ic(%d,%d) = %d, reference %d", seed, w, i, p, m.IngressBytes(i, p), ref.ic[i][p])
				}
			}
		}
		if m.FreeSlots() != ref.freeSlots || m.Idle() != ref.idle() {
			t.Fatalf("seed %d window <%d: free slots %d idle %v, reference %d %v",
				seed, w, m.FreeSlots(), m.Idle(), ref.freeSlots, ref.idle())
		}
		// Drain: windows of 2000 cycles until idle (a PFC storm with
		// PFC_XON >= PFC_XOFF may never end; give up after 100000).
		if k == len(windows)-1 && !m.Idle() && w < sc.end+100_000 {
			windows = append(windows, w+2000)
		}
	}
	return decs, all, m
}

// TestAgainstReference compares Model with the per-cycle reference on many
// random scenarios, window by window: every output (bytes, port, picked,
// first and last cycles, origin), every counter (direct and by CSR),
// occupancy, ic, free slots and idle.
func TestAgainstReference(t *testing.T) {
	seeds := 400
	if testing.Short() {
		seeds = 60
	}
	for seed := range uint64(seeds) {
		runScenario(t, seed, randomScenario(seed))
	}
}

// TestConservation checks on random scenarios, from the decisions and
// outputs alone, that every input frame is decided once at last+1 and
// accounted for: its fate matches the counters, every queued copy leaves
// exactly once on a port other than its ingress, no earlier than Latency
// cycles after its last beat, and each queue sends in the order it was
// filled; at the end the switch is idle with nothing held.
func TestConservation(t *testing.T) {
	seeds := 300
	if testing.Short() {
		seeds = 40
	}
	for seed := range uint64(seeds) {
		sc := randomScenario(seed)
		// The counters are compared with sums over the run: no counter
		// writes. Everything must drain: no PFC storms (PFC_XON >=
		// PFC_XOFF, or a short PFC_REFRESH, can starve an egress).
		w := sc.writes[:0]
		for _, x := range sc.writes {
			switch x.addr {
			case AddrPFCXoff, AddrPFCXon, AddrPFCRefresh:
				continue
			}
			if x.addr < AddrCounters {
				w = append(w, x)
			}
		}
		sc.writes = w
		decs, outs, m := runScenario(t, seed, sc)
		checkConservation(t, seed, sc, decs, outs, m)
	}
}

func checkConservation(t *testing.T, seed uint64, sc scenario, decs []Decision, outs []Out, m *Model) {
	t.Helper()
	cfg := sc.cfg
	type key struct{ port, seq int }
	last := map[key]uint64{}
	seqs := make([]int, cfg.Ports)
	for _, x := range sc.inputs {
		last[key{x.port, seqs[x.port]}] = x.last
		seqs[x.port]++
	}
	dec := map[key]Decision{}
	fates := make([][9]uint64, cfg.Ports)
	tail := make([][NumQueues]uint64, cfg.Ports)
	marked := make([][NumQueues]uint64, cfg.Ports)
	for _, d := range decs {
		k := key{d.Port, d.Seq}
		if _, dup := dec[k]; dup {
			t.Fatalf("seed %d: frame %v decided twice", seed, k)
		}
		if d.Cycle != last[k]+DecideDelay {
			t.Fatalf("seed %d: frame %v decided at %d, last beat at %d", seed, k, d.Cycle, last[k])
		}
		if d.Queued&^d.Targets != 0 || d.Marked&^d.Queued != 0 || d.Targets&(1<<d.Port) != 0 {
			t.Fatalf("seed %d: frame %v inconsistent masks %+v", seed, k, d)
		}
		if (d.Fate == FateQueued) != (d.Queued != 0) || d.Fate == FateTail && d.Targets == 0 {
			t.Fatalf("seed %d: frame %v fate %v with masks %+v", seed, k, d.Fate, d)
		}
		dec[k] = d
		fates[d.Port][d.Fate]++
		for e := range cfg.Ports {
			if (d.Fate == FateQueued || d.Fate == FateTail) && d.Targets&^d.Queued&(1<<e) != 0 {
				tail[e][d.Prio]++
			}
			if d.Marked&(1<<e) != 0 {
				marked[e][d.Prio]++
			}
		}
	}
	if len(dec) != len(sc.inputs) {
		t.Fatalf("seed %d: %d decisions for %d inputs", seed, len(dec), len(sc.inputs))
	}
	for i := range cfg.Ports {
		c := m.Counters(i)
		var sum uint64
		for _, v := range fates[i] {
			sum += v
		}
		got := [...]uint64{c.RxFrames, c.DropRunt, c.DropOversize, c.DropBad, c.RxPFC, c.RxMACControl, c.DropFiltered, c.DropNoSlot}
		want := [...]uint64{sum, fates[i][FateRunt], fates[i][FateOversize], fates[i][FateBad], fates[i][FatePFC],
			fates[i][FateMACControl], fates[i][FateFiltered], fates[i][FateNoSlot]}
		if got != want {
			t.Fatalf("seed %d port %d: counters %v, decisions say %v", seed, i, got, want)
		}
		if c.DropTail != tail[i] || c.ECNMarked != marked[i] {
			t.Fatalf("seed %d port %d: tail %v marked %v, decisions say %v %v", seed, i, c.DropTail, c.ECNMarked, tail[i], marked[i])
		}
	}

	sent := map[key]uint64{} // egress mask per frame
	txFrames := make([]uint64, cfg.Ports)
	lastOut := make([]uint64, cfg.Ports)
	type qkey struct{ e, q int }
	fifo := map[qkey]key{}
	for _, o := range outs {
		txFrames[o.Port]++
		if o.First <= o.Picked || o.Last < o.First || o.Last < lastOut[o.Port] {
			t.Fatalf("seed %d: bad timing %s", seed, outString(o))
		}
		lastOut[o.Port] = o.Last
		if o.PFC() {
			continue
		}
		k := key{o.Ingress, o.Seq}
		d := dec[k]
		if d.Queued&(1<<o.Port) == 0 || sent[k]&(1<<o.Port) != 0 || o.Port == o.Ingress || o.Queue != d.Prio {
			t.Fatalf("seed %d: output %s not a queued copy of %+v", seed, outString(o), d)
		}
		sent[k] |= 1 << o.Port
		if o.First < last[k]+Latency || o.Picked < d.Cycle+QueueVisibleDelay {
			t.Fatalf("seed %d: output %s before its time (last beat in at %d)", seed, outString(o), last[k])
		}
		if o.Marked != (d.Marked&(1<<o.Port) != 0) {
			t.Fatalf("seed %d: output %s marked differs from decision", seed, outString(o))
		}
		if prev, ok := fifo[qkey{o.Port, o.Queue}]; ok {
			pd := dec[prev]
			if pd.Cycle > d.Cycle || pd.Cycle == d.Cycle && pd.Port > d.Port {
				t.Fatalf("seed %d: queue %d of port %d sent %v after %v", seed, o.Queue, o.Port, k, prev)
			}
		}
		fifo[qkey{o.Port, o.Queue}] = k
	}
	for k, d := range dec {
		if sent[k] != d.Queued {
			t.Fatalf("seed %d: frame %v queued on %b, sent on %b", seed, k, d.Queued, sent[k])
		}
	}
	var copies int
	for _, d := range dec {
		copies += bits.OnesCount64(d.Queued)
	}
	for i := range cfg.Ports {
		if m.Counter(i, TxFrames) != txFrames[i] {
			t.Fatalf("seed %d port %d: tx_frames %d, %d outputs", seed, i, m.Counter(i, TxFrames), txFrames[i])
		}
		if m.Occupancy(i) != 0 {
			t.Fatalf("seed %d: occupancy of port %d is %d at the end", seed, i, m.Occupancy(i))
		}
		for p := range NumQueues {
			if m.IngressBytes(i, p) != 0 {
				t.Fatalf("seed %d: ic(%d,%d) = %d at the end", seed, i, p, m.IngressBytes(i, p))
			}
		}
	}
	if !m.Idle() || m.FreeSlots() != cfg.Slots {
		t.Fatalf("seed %d: not idle at the end (free slots %d of %d)", seed, m.FreeSlots(), cfg.Slots)
	}
	_ = copies
}
