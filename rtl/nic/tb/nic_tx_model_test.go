//go:build unix

package tb_test

// Tests of the NIC's transmit frame builder (rtl/nic/nic_tx_build.sv)
// through the real model program of its test top sim/tops/nic_tx_top.sv:
// descriptor records in on port 0, frames out on port 0, payload read over
// the DMA port from the model's host memory. Every frame must be byte for
// byte what golden/rc's BuildFrame (the node's own builder) makes of the
// same packet from the same memory, and leave at exactly its decision cycle
// plus TX_LATENCY.
//
// The models are built by make build (nic_tx_64, nic_tx_512); a missing one
// skips the tests, or fails them under COSIM_REQUIRE_MODELS=1.

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/cosim/modeltest"
	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/roce"
)

var ntxSeed = flag.Uint64("ntx.seed", 1, "seed of the nic_tx model tests' packets and memory contents")

// Timing constants of rtl/nic/nic_tx_build.sv and sim/tops/nic_tx_top.sv.
const (
	ntxDMALatency = 64                // DMA_LATENCY of the models = the DMA port's default L
	ntxTxLatency  = ntxDMALatency + 4 // TX_LATENCY: decision to first beat on m_axis
	ntxMaxReads   = 16                // kDmaMaxReads: caller rule 2
	ntxRecLen     = 80                // bytes of a nic_tx_top record
	ntxRecDepth   = 128               // REC_DEPTH: records the top holds
	ntxMaxPayload = 4096
)

// Counters of nic_tx_top on the CSR bus.
const (
	ntxCSRFrames     = 0x00
	ntxCSRLate       = 0x04
	ntxCSRGaps       = 0x08
	ntxCSRMacStall   = 0x0C
	ntxCSRNotRoCE    = 0x10
	ntxCSRIssued     = 0x14
	ntxCSRIssuedLate = 0x18
)

var ntxWidths = []int{64, 512}

// ntxModel returns the path of the nic_tx model of width bits, skipping
// (or failing under COSIM_REQUIRE_MODELS=1) when it is not built.
func ntxModel(t *testing.T, width int) string {
	t.Helper()
	path := filepath.Join(modeltest.Dir(modeltest.DirEnv), fmt.Sprintf("nic_tx_%d", width), "Vnic_tx_top")
	modeltest.NeedBinary(t, path)
	return path
}

// ntxRecord is the nic_tx_top record of p, to be decided in cycle at (0:
// as soon as it is in).
func ntxRecord(p *rc.Packet, at uint64) []byte {
	b := make([]byte, ntxRecLen)
	le := binary.LittleEndian
	le.PutUint64(b[0:], at)
	le.PutUint64(b[8:], p.Addr)
	le.PutUint64(b[16:], p.VA)
	le.PutUint32(b[24:], p.RKey)
	le.PutUint32(b[28:], p.DMALen)
	le.PutUint32(b[32:], p.Imm)
	le.PutUint32(b[36:], uint32(p.DestQP))
	le.PutUint32(b[40:], uint32(p.PSN))
	le.PutUint32(b[44:], p.MSN)
	copy(b[48:], p.DstMAC[:])
	copy(b[54:], p.SrcMAC[:])
	copy(b[60:], p.SrcIP[:])
	copy(b[64:], p.DstIP[:])
	le.PutUint16(b[68:], p.UDPSrcPort)
	le.PutUint16(b[70:], uint16(p.PayloadLen))
	b[72] = byte(p.OpCode)
	b[73] = p.TOS
	b[74] = byte(p.Syndrome)
	if p.AckReq {
		b[75] |= 1
	}
	if p.BECN {
		b[75] |= 2
	}
	return b
}

// ntxSched applies nic_tx_build's caller rules: the earliest cycle a
// packet may be decided so that every frame meets TX_LATENCY.
type ntxSched struct {
	width   int
	latency uint64   // the DMA read latency L
	next    uint64   // rule 1: the previous frame's decision plus its beats
	reads   []uint64 // rule 2: the last cycle each earlier read is outstanding
	held    int      // decisions rule 2 put off
}

// earliest is the first cycle from at on that a packet with payload bytes
// may be decided.
func (s *ntxSched) earliest(at uint64, payload int) uint64 {
	t := max(at, s.next)
	if payload == 0 {
		return t
	}
	var live []uint64
	for _, e := range s.reads {
		if e >= t+1 {
			live = append(live, e)
		}
	}
	if len(live) >= ntxMaxReads {
		// wait until only 15 reads count at t+1
		slices.Sort(live)
		t = live[len(live)-ntxMaxReads]
		s.held++
	}
	return t
}

// decide records a frame of frameLen bytes (payload bytes of it read by
// DMA) decided at t.
func (s *ntxSched) decide(t uint64, frameLen, payload int) {
	s.next = t + modeltest.Beats(frameLen, s.width)
	if payload > 0 {
		s.reads = append(s.reads, t+s.latency+modeltest.Beats(payload, s.width))
	}
	s.reads = slices.DeleteFunc(s.reads, func(e uint64) bool { return e <= t })
}

// ntxGen makes random packets of every opcode a golden node sends, over a
// host memory filled with random bytes.
type ntxGen struct {
	rng     *rand.Rand
	width   int
	regions []cosim.Mem // written, as MEM_WRITE and into mem
	mem     *rc.SparseMemory
}

// ntxSent are the opcodes golden/rc sends (ACK also carries the NAKs).
var ntxSent = []roce.OpCode{
	roce.RCSendFirst, roce.RCSendMiddle, roce.RCSendLast, roce.RCSendLastImm, roce.RCSendOnly, roce.RCSendOnlyImm,
	roce.RCWriteFirst, roce.RCWriteMiddle, roce.RCWriteLast, roce.RCWriteLastImm, roce.RCWriteOnly,
	roce.RCWriteOnlyImm, roce.RCReadRequest, roce.RCReadResponseFirst, roce.RCReadResponseMiddle,
	roce.RCReadResponseLast, roce.RCReadResponseOnly, roce.RCAcknowledge, roce.CNPOpCode,
}

func newNTXGen(seed uint64, width int) *ntxGen {
	g := &ntxGen{rng: rand.New(rand.NewPCG(seed, uint64(width))), width: width, mem: rc.NewSparseMemory()}
	// A region across the 4 GiB line, one low and one high; the bytes
	// around them are never written and read as zero on both sides.
	for _, base := range []uint64{0x1_0000_0000 - 0x8000, 0x3000, 0x7FFF_FFFF_0000_0000} {
		data := make([]byte, 0x10000)
		for i := range data {
			data[i] = byte(g.rng.Uint32())
		}
		g.regions = append(g.regions, cosim.Mem{Addr: base, Data: data})
		g.mem.Write(base, data)
	}
	return g
}

// payloadLen picks a length for the payload rule of op: edge lengths often,
// PMTU one of the five.
func (g *ntxGen) payloadLen(op roce.OpCode) int {
	pmtu := 256 << g.rng.IntN(5)
	lane := g.width / 8
	edges := []int{0, 1, 2, 3, 4, 5, lane - 1, lane, lane + 1, 2*lane - 3, pmtu - 1, pmtu}
	n := g.rng.IntN(pmtu + 1)
	if g.rng.IntN(4) == 0 {
		n = edges[g.rng.IntN(len(edges))]
	}
	switch op.Payload() {
	case roce.PayloadNone:
		return 0
	case roce.PayloadFull:
		return pmtu
	case roce.PayloadLast:
		return max(n, 1)
	case roce.PayloadOnly:
		return n
	}
	return g.rng.IntN(ntxMaxPayload + 1)
}

// packet returns a random packet: mostly opcodes a node sends with the
// fields it gives them, sometimes any opcode byte with any length (the
// builder follows build for every opcode). Fields an opcode does not carry
// hold junk, which both sides must ignore.
func (g *ntxGen) packet() rc.Packet {
	r := g.rng
	op := ntxSent[r.IntN(len(ntxSent))]
	if r.IntN(20) == 0 {
		op = roce.OpCode(r.IntN(256))
	}
	p := rc.Packet{UDPSrcPort: uint16(0xC000 | r.IntN(0x4000)), TOS: uint8(r.IntN(64))<<2 | 2,
		DestQP: roce.QPN(r.IntN(1 << 24)), OpCode: op, AckReq: r.IntN(2) == 0, BECN: r.IntN(10) == 0,
		VA: r.Uint64(), RKey: r.Uint32(), DMALen: r.Uint32(), Syndrome: roce.AETHSyndrome(0x1F),
		MSN: uint32(r.IntN(1 << 24)), Imm: r.Uint32()}
	// PSNs near the 24-bit wrap half of the time
	p.PSN = roce.PSN(r.IntN(1 << 24))
	if r.IntN(2) == 0 {
		p.PSN = roce.PSN(0xFFFFE0).Add(r.IntN(64))
	}
	for i := range 6 {
		p.DstMAC[i], p.SrcMAC[i] = byte(r.IntN(256)), byte(r.IntN(256))
	}
	for i := range 4 {
		p.SrcIP[i], p.DstIP[i] = byte(r.IntN(256)), byte(r.IntN(256))
	}
	switch op {
	case roce.RCAcknowledge:
		// ACK, NAK (PSN error, invalid request, access, operational) or RNR NAK
		syns := []roce.AETHSyndrome{0x1F, 0x1F, 0x60, 0x61, 0x62, 0x63, roce.AETHSyndrome(0x20 | r.IntN(32))}
		p.Syndrome = syns[r.IntN(len(syns))]
	case roce.CNPOpCode:
		p.BECN, p.PSN, p.AckReq, p.TOS = true, 0, false, uint8(r.IntN(64))<<2
	}
	p.PayloadLen = g.payloadLen(op)
	// anywhere in a region, running up to 256 bytes off either end of it
	reg := g.regions[r.IntN(len(g.regions))]
	p.Addr = reg.Addr - 256 + uint64(r.IntN(len(reg.Data)+512-p.PayloadLen))
	return p
}

// ntxShort are opcodes that may carry short payloads, or none.
var ntxShort = []roce.OpCode{
	roce.RCAcknowledge, roce.CNPOpCode, roce.RCSendOnly, roce.RCSendOnlyImm, roce.RCSendLast, roce.RCWriteOnly,
	roce.RCWriteLastImm, roce.RCReadResponseOnly, roce.RCReadResponseLast,
}

// shortPacket is a random packet of at most 64 payload bytes, mostly with
// some: at 512 bits a run of them needs more than 16 reads in flight, so
// rule 2 binds.
func (g *ntxGen) shortPacket() rc.Packet {
	p := g.packet()
	p.OpCode = ntxShort[g.rng.IntN(len(ntxShort))]
	p.PayloadLen = 0
	switch p.OpCode.Payload() {
	case roce.PayloadLast:
		p.PayloadLen = 1 + g.rng.IntN(64)
	case roce.PayloadOnly:
		// a quarter with none: a 0-byte SEND ONLY is 58 bytes and leaves
		// padded to the Ethernet minimum
		if g.rng.IntN(4) != 0 {
			p.PayloadLen = g.rng.IntN(65)
		}
	}
	return p
}

// ntxRun is one nic_tx model and everything it has answered.
type ntxRun struct {
	t       *testing.T
	m       *cosim.Model
	width   int
	pkts    []rc.Packet
	want    [][]byte
	at      []uint64 // decision cycles, where the test fixes them
	accepts []cosim.Accept
	frames  []cosim.Frame
}

// startNTX starts the nic_tx model of width bits with extra args, checks
// that it was built with DMA_LATENCY 64 and, without args, runs its DMA
// port with that latency, and writes the generator's memory.
func startNTX(t *testing.T, width int, g *ntxGen, args ...string) *ntxRun {
	t.Helper()
	m, err := cosim.Start(context.Background(), cosim.Config{
		Name:     fmt.Sprintf("nic_tx%d", width),
		Path:     ntxModel(t, width),
		Args:     args,
		Timeouts: cosim.Timeouts{Start: 10 * time.Second, Step: 60 * time.Second, Close: 5 * time.Second},
	})
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	h, err := m.Handshake(context.Background(), cosim.HelloAck{Seed: 1})
	require.NoError(t, err)
	dl, _ := h.Value("param.DMA_LATENCY")
	require.Equal(t, strconv.Itoa(ntxDMALatency), dl, "the model's DMA_LATENCY")
	if len(args) == 0 {
		l, _ := h.Value("dma_read_latency")
		require.Equal(t, strconv.Itoa(ntxDMALatency), l, "the DMA port's read latency")
	}
	r := &ntxRun{t: t, m: m, width: width}
	r.step(cosim.Window{Target: m.Cycle(), MemWrites: g.regions})
	return r
}

// step runs one window, collecting accepts and frames.
func (r *ntxRun) step(w cosim.Window) cosim.Reply {
	r.t.Helper()
	rep, err := r.m.Step(context.Background(), w)
	require.NoError(r.t, err)
	r.accepts = append(r.accepts, rep.Accepts...)
	r.frames = append(r.frames, rep.Frames...)
	return rep
}

// add queues packet p for the record to be sent: its golden frame is made
// now, from the memory as the model has it.
func (r *ntxRun) add(p rc.Packet, mem rc.Memory, at uint64) cosim.Frame {
	r.pkts = append(r.pkts, p)
	r.want = append(r.want, rc.BuildFrame(nil, &p, mem))
	r.at = append(r.at, at)
	return cosim.Frame{Cycle: r.m.Cycle(), Data: ntxRecord(&p, at)}
}

// drain runs until the model is idle.
func (r *ntxRun) drain() {
	r.t.Helper()
	for i := 0; ; i++ {
		require.Less(r.t, i, 1000, "the model drains")
		if rep := r.step(cosim.Window{Target: r.m.Cycle() + 2000}); !rep.Done.Busy {
			return
		}
	}
}

// counters reads the CSRs at addrs.
func (r *ntxRun) counters(addrs ...uint32) []uint32 {
	r.t.Helper()
	rep := r.step(cosim.Window{Target: r.m.Cycle() + uint64(2*len(addrs)+2), CSRReads: addrs})
	require.Len(r.t, rep.CSRData, len(addrs))
	vals := make([]uint32, len(addrs))
	for i, c := range rep.CSRData {
		vals[i] = c.Data
	}
	return vals
}

// checkFrames checks every frame against golden, in order; with exact, its
// first beat at its decision cycle + TX_LATENCY, and every frame's beats
// back to back. It returns how many frames followed the one before with no
// idle cycle between them.
func (r *ntxRun) checkFrames(exact bool) int {
	r.t.Helper()
	require.Len(r.t, r.accepts, len(r.pkts), "every record taken")
	require.Len(r.t, r.frames, len(r.pkts), "one frame per descriptor")
	adjacent := 0
	for k, f := range r.frames {
		p := &r.pkts[k]
		require.EqualValues(r.t, k, f.Seq)
		modeltest.SameBytes(r.t, r.want[k], f.Data, "frame %d: %v PSN %v, %d payload bytes at %#x", k, p.OpCode, p.PSN,
			p.PayloadLen, p.Addr)
		require.False(r.t, f.Bad, "frame %d", k)
		if k > 0 && f.Cycle == r.frames[k-1].LastCycle+1 {
			adjacent++
		}
		if !exact {
			continue
		}
		if r.at[k] != 0 {
			require.Less(r.t, r.accepts[k].LastCycle, r.at[k], "record %d is in before its decision (test schedule)", k)
		}
		require.Equal(r.t, r.at[k]+ntxTxLatency, f.Cycle, "frame %d (%v, %d bytes): first beat at decision %d + %d",
			k, p.OpCode, len(f.Data), r.at[k], ntxTxLatency)
		require.Equal(r.t, f.Cycle+modeltest.Beats(len(f.Data), r.width)-1, f.LastCycle, "frame %d: beats back to back", k)
	}
	return adjacent
}

// Thousands of random packets of every opcode a node sends (and now and
// then any opcode byte), payloads 0..4096 at random addresses, PSNs across
// the wrap, decided in batches at the fastest rate the caller rules allow
// (a quarter of the batches short packets, for which rule 2 binds at 512
// bits), with now and then a pause: every frame is golden's, first beat exactly
// TX_LATENCY after its decision, beats back to back; the counters show no
// late frame, gap or stall, and the DMA port served one read per packet
// with payload.
func TestNICTxRandom(t *testing.T) {
	packets := map[int]int{64: 4000, 512: 6000}
	for _, width := range ntxWidths {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			seed := *ntxSeed
			t.Logf("seed %d (rerun with -args -ntx.seed=%d)", seed, seed)
			g := newNTXGen(seed, width)
			r := startNTX(t, width, g)
			s := &ntxSched{width: width, latency: ntxDMALatency}
			recBeats := modeltest.Beats(ntxRecLen, width)
			var reads, readBytes uint64
			for len(r.pkts) < packets[width] {
				// A batch of records arrives from the window's first cycle,
				// one every recBeats cycles; its decisions start once all
				// are in, then go as fast as the rules allow.
				start := r.m.Cycle()
				n := min(1+g.rng.IntN(ntxRecDepth/2), packets[width]-len(r.pkts))
				short := g.rng.IntN(4) == 0
				w := cosim.Window{}
				t0 := start + uint64(n)*recBeats
				for range n {
					p := g.packet()
					if short {
						p = g.shortPacket()
					}
					at := s.earliest(t0, p.PayloadLen)
					switch x := g.rng.IntN(100); {
					case x < 10:
						at = s.earliest(at+1+g.rng.Uint64N(40), p.PayloadLen)
					case x < 12:
						at = s.earliest(at+ntxDMALatency+g.rng.Uint64N(300), p.PayloadLen)
					}
					w.Frames = append(w.Frames, r.add(p, g.mem, at))
					s.decide(at, len(r.want[len(r.want)-1]), p.PayloadLen)
					t0 = at
					if p.PayloadLen > 0 {
						reads++
						readBytes += uint64(p.PayloadLen)
					}
				}
				w.Target = t0 + 1
				r.step(w)
			}
			r.drain()
			adjacent := r.checkFrames(true)
			got := r.counters(ntxCSRFrames, ntxCSRLate, ntxCSRGaps, ntxCSRMacStall, ntxCSRNotRoCE, ntxCSRIssued,
				ntxCSRIssuedLate)
			total := uint32(len(r.pkts))
			assert.Equal(t, []uint32{total, 0, 0, 0, 0, total, 0}, got,
				"frames, late, gaps, mac_stall, not_roce, issued, issued_late")
			ops := map[roce.OpCode]int{}
			for _, p := range r.pkts {
				ops[p.OpCode]++
			}
			for _, op := range ntxSent {
				assert.NotZero(t, ops[op], "no %v sent", op)
			}
			padded := 0
			for _, f := range r.want {
				if len(f) == rc.MinFrameLen && binary.BigEndian.Uint16(f[16:]) == rc.MinFrameLen-14-2 {
					padded++ // 58 bytes of IP end, 2 of Ethernet padding
				}
			}
			assert.NotZero(t, padded, "no frame padded to the Ethernet minimum")
			t.Logf("%d frames by cycle %d; %d right after the one before; rule 2 put off %d decisions; %d padded",
				total, r.m.Cycle(), adjacent, s.held, padded)
			assert.Greater(t, adjacent, len(r.pkts)/4, "frames back to back")
			require.NoError(t, r.m.Close())
			assert.Equal(t, [4]uint64{reads, readBytes, 0, 0}, modeltest.DMACounters(t, r.m.LastOutput()),
				"reads, bytes read, writes, bytes written")
		})
	}
}

// The latency pinned on an idle top, without the test's scheduler: a record
// with issue cycle 0 is decided in the cycle after its last beat is taken,
// and its frame leaves TX_LATENCY later, header-only or with payload of
// any length and alignment.
func TestNICTxLatency(t *testing.T) {
	for _, width := range ntxWidths {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			g := newNTXGen(*ntxSeed, width)
			r := startNTX(t, width, g)
			lane := width / 8
			base := g.regions[0].Addr
			for i, c := range []struct {
				op roce.OpCode
				n  int
			}{
				{roce.RCAcknowledge, 0}, {roce.CNPOpCode, 0}, {roce.RCReadRequest, 0}, {roce.RCSendOnly, 0},
				{roce.RCSendOnly, 1}, {roce.RCWriteOnlyImm, lane - 1}, {roce.RCReadResponseOnly, lane},
				{roce.RCSendLastImm, lane + 1}, {roce.RCWriteFirst, ntxMaxPayload}, {roce.RCSendMiddle, ntxMaxPayload},
			} {
				p := g.packet()
				p.OpCode, p.PayloadLen, p.Addr = c.op, c.n, base+uint64(i*97)
				arrival := r.m.Cycle() + 3
				f := r.add(p, g.mem, 0)
				f.Cycle = arrival
				r.step(cosim.Window{Target: arrival + 1, Frames: []cosim.Frame{f}})
				r.drain()
				a := r.accepts[i]
				assert.Equal(t, arrival, a.Cycle, "an idle top takes a record at once")
				r.at[i] = a.LastCycle + 1
			}
			r.checkFrames(true)
		})
	}
}

// Breaking the caller rules never corrupts a frame; it makes frames late,
// and the counters say so.
//   - too fast: a decision every cycle whatever the frames' lengths;
//   - slow DMA: the port answers 100 cycles after the request, not 64;
//   - read slots: short payloads at rule 1's spacing alone. At 64 bits
//     rule 1 implies rule 2 and every frame is on time; at 512 bits more
//     than 16 reads would be outstanding and frames are late.
func TestNICTxRulesBroken(t *testing.T) {
	for _, width := range ntxWidths {
		t.Run(fmt.Sprintf("%d/too_fast", width), func(t *testing.T) {
			g := newNTXGen(*ntxSeed+1, width)
			r := startNTX(t, width, g)
			w := cosim.Window{}
			t0 := r.m.Cycle() + ntxRecDepth*modeltest.Beats(ntxRecLen, width)
			for k := range ntxRecDepth {
				w.Frames = append(w.Frames, r.add(g.packet(), g.mem, t0+uint64(k)))
			}
			w.Target = t0 + ntxRecDepth
			r.step(w)
			r.drain()
			r.checkFrames(false)
			got := r.counters(ntxCSRLate, ntxCSRNotRoCE)
			assert.NotZero(t, got[0], "late frames counted")
			assert.Zero(t, got[1], "not_roce")
		})
		t.Run(fmt.Sprintf("%d/slow_dma", width), func(t *testing.T) {
			g := newNTXGen(*ntxSeed+2, width)
			r := startNTX(t, width, g, "--dma-read-latency", "100")
			s := &ntxSched{width: width, latency: 100}
			w := cosim.Window{}
			t0 := r.m.Cycle() + 64*modeltest.Beats(ntxRecLen, width)
			for range 64 {
				p := g.packet()
				p.PayloadLen = max(p.PayloadLen, 1)
				at := s.earliest(t0, p.PayloadLen)
				w.Frames = append(w.Frames, r.add(p, g.mem, at))
				s.decide(at, len(r.want[len(r.want)-1]), p.PayloadLen)
				t0 = at
			}
			w.Target = t0 + 1
			r.step(w)
			r.drain()
			r.checkFrames(false)
			got := r.counters(ntxCSRLate, ntxCSRGaps, ntxCSRNotRoCE)
			assert.NotZero(t, got[0]+got[1], "late frames or gaps counted")
			assert.Zero(t, got[2], "not_roce")
		})
		t.Run(fmt.Sprintf("%d/read_slots", width), func(t *testing.T) {
			g := newNTXGen(*ntxSeed+3, width)
			r := startNTX(t, width, g)
			s := &ntxSched{width: width, latency: ntxDMALatency}
			w := cosim.Window{}
			t0 := r.m.Cycle() + ntxRecDepth/2*modeltest.Beats(ntxRecLen, width)
			for range ntxRecDepth / 2 {
				p := g.packet()
				p.OpCode, p.PayloadLen = roce.RCSendOnly, 1+g.rng.IntN(60)
				// rule 1 only; earliest counts in held when rule 2 would put
				// the decision off
				at := max(t0, s.next)
				s.earliest(at, p.PayloadLen)
				w.Frames = append(w.Frames, r.add(p, g.mem, at))
				s.decide(at, len(r.want[len(r.want)-1]), p.PayloadLen)
				t0 = at
			}
			w.Target = t0 + 1
			r.step(w)
			r.drain()
			late := r.counters(ntxCSRLate)[0]
			t.Logf("rule 2 broken %d times, %d frames late", s.held, late)
			if width == 64 {
				require.Zero(t, s.held, "rule 1 implies rule 2 at 64 bits")
				r.checkFrames(true)
				assert.Zero(t, late)
			} else {
				require.NotZero(t, s.held, "rule 1 alone breaks rule 2 at 512 bits")
				r.checkFrames(false)
				assert.NotZero(t, late, "frames late for want of a read slot")
			}
		})
	}
}
