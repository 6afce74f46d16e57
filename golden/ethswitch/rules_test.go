package ethswitch

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"

	"github.com/rocesim/cosim/golden/pfc"
	"github.com/rocesim/cosim/golden/wirecheck"
)

// Hosts of the directed cases: A sits on port 0, B on port 1, C on port 2,
// D on port 3 (once learned).
var (
	macA  = hostMAC(0xA)
	macB  = hostMAC(0xB)
	macC  = hostMAC(0xC)
	macD  = hostMAC(0xD)
	mcast = MAC{0x01, 0x00, 0x5E, 0x00, 0x00, 0x01}
)

// plain is an untagged, non-IP frame of n bytes (priority DEFAULT_PRIO).
func plain(dst, src MAC, n int) []byte { return buildEth(dst, src, 0x88B5, n) }

// tagged is a VLAN-tagged non-IP frame of n bytes with priority pcp.
func tagged(dst, src MAC, pcp, n int) []byte {
	f := buildEth(dst, src, EtherTypeVLAN, n)
	binary.BigEndian.PutUint16(f[14:], uint16(pcp)<<13|7)
	binary.BigEndian.PutUint16(f[16:], 0x88B5)
	return f
}

// pfcIn is a PFC frame a host sends: enable vector and pause times.
func pfcIn(src MAC, enable uint8, quanta [8]uint16) []byte {
	f, err := pfc.New(src[:], enable, quanta)
	if err != nil {
		panic(err)
	}
	return f
}

// in is an input frame of a directed case.
func in(port int, frame []byte, last uint64) scenInput {
	return scenInput{port: port, frame: frame, last: last}
}

// inBad is an input frame with tuser[0] set on its last beat.
func inBad(port int, frame []byte, last uint64) scenInput {
	return scenInput{port: port, frame: frame, bad: true, last: last}
}

// w is a CSR write of a directed case.
func w(addr, data uint32, cycle uint64) csrWrite {
	return csrWrite{addr: addr, data: data, cycle: cycle}
}

// wantOut is an expected output: port, origin (ingress -1 for a PFC frame
// the switch sends), queue, and the cycles of the pick, first and last beat.
type wantOut struct {
	port, ingress, seq, queue int
	picked, first, last       uint64
}

func o(port, ingress, seq, queue int, picked, first, last uint64) wantOut {
	return wantOut{port, ingress, seq, queue, picked, first, last}
}

// pfcOut is an expected PFC frame sent by the switch.
func pfcOut(port int, picked, first, last uint64) wantOut {
	return wantOut{port, -1, -1, -1, picked, first, last}
}

// flood is the copies of one frame flooded to every port but ingress with
// the same cycles (4 ports).
func flood(ingress, seq, queue int, picked, first, last uint64) []wantOut {
	var out []wantOut
	for p := range 4 {
		if p != ingress {
			out = append(out, o(p, ingress, seq, queue, picked, first, last))
		}
	}
	return out
}

func (x wantOut) String() string {
	return fmt.Sprintf("port %d in %d#%d q%d picked %d first %d last %d", x.port, x.ingress, x.seq, x.queue, x.picked, x.first, x.last)
}

func gotOut(x Out) wantOut {
	return wantOut{x.Port, x.Ingress, x.Seq, x.Queue, x.Picked, x.First, x.Last}
}

// ruleCase is one directed case: a configuration, CSR writes, inputs,
// expected outputs (all of them, in Outputs order), expected counters (the
// ones listed; every other counter must be 0) and extra checks.
type ruleCase struct {
	name   string
	cfg    func(*Config)
	csr    []csrWrite
	inputs []scenInput
	until  uint64
	want   [][]wantOut
	count  map[string]uint64 // by CounterName; unlisted counters must be 0
	check  func(t *testing.T, m *Model, outs []Out, in []scenInput)
}

// setup is the CSR writes most cases start with, at cycle 0 (in force from
// cycle 1).
func setup(ws ...csrWrite) []csrWrite { return ws }

// ready returns a Ready function from per-port predicates (nil: ready).
func ready(f map[int]func(c uint64) bool) func(int, uint64) bool {
	return func(port int, c uint64) bool {
		if g := f[port]; g != nil {
			return g(c)
		}
		return true
	}
}

func concat(parts ...[]wantOut) []wantOut {
	var out []wantOut
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// one returns a single-element list.
func one(x ...wantOut) []wantOut { return x }

// learnB makes the switch learn B on port 1 with a 64-byte broadcast
// whose last beat is at cycle 2 (its copies leave ports 0, 2, 3 at 5..12).
var learnB = in(1, plain(Broadcast, macB, 64), 2)

// learnBOut is what learnB sends.
var learnBOut = flood(1, 0, 0, 4, 5, 12)

func rulesCases() []ruleCase {
	return []ruleCase{
		// ---- Timing of a frame through an idle switch.
		{
			name:   "latency_idle",
			inputs: []scenInput{in(0, plain(Broadcast, macA, 64), 10)},
			until:  100,
			// L=10, D=11, pick 12, first beat 13 = L+Latency, 8 beats.
			want: [][]wantOut{flood(0, 0, 0, 12, 13, 20)},
			count: map[string]uint64{"port0.rx_frames": 1, "port0.rx_bytes": 64,
				"port1.tx_frames": 1, "port1.tx_bytes": 64, "port2.tx_frames": 1, "port2.tx_bytes": 64,
				"port3.tx_frames": 1, "port3.tx_bytes": 64},
		},
		{
			name:   "latency_idle_512",
			cfg:    func(c *Config) { c.DataWidth = 512 },
			inputs: []scenInput{in(0, plain(Broadcast, macA, 65), 10)},
			until:  100,
			want:   [][]wantOut{flood(0, 0, 0, 12, 13, 14)}, // 65 bytes: 2 beats of 64
			count: map[string]uint64{"port0.rx_frames": 1, "port0.rx_bytes": 65,
				"port1.tx_frames": 1, "port1.tx_bytes": 65, "port2.tx_frames": 1, "port2.tx_bytes": 65,
				"port3.tx_frames": 1, "port3.tx_bytes": 65},
		},
		{
			// Two copies on one queue: the second is picked at the cycle
			// the first's last beat is taken and starts right after.
			name: "back_to_back",
			inputs: []scenInput{
				in(0, plain(Broadcast, macA, 64), 10),
				in(1, plain(Broadcast, macB, 64), 10),
			},
			until: 100,
			want: [][]wantOut{{
				o(0, 1, 0, 0, 12, 13, 20), o(1, 0, 0, 0, 12, 13, 20),
				o(2, 0, 0, 0, 12, 13, 20), o(3, 0, 0, 0, 12, 13, 20),
				o(2, 1, 0, 0, 20, 21, 28), o(3, 1, 0, 0, 20, 21, 28),
			}},
			count: map[string]uint64{"port0.rx_frames": 1, "port0.rx_bytes": 64, "port1.rx_frames": 1, "port1.rx_bytes": 64,
				"port0.tx_frames": 1, "port0.tx_bytes": 64, "port1.tx_frames": 1, "port1.tx_bytes": 64,
				"port2.tx_frames": 2, "port2.tx_bytes": 128, "port3.tx_frames": 2, "port3.tx_bytes": 128},
		},
		{
			// Beats hold while tready is low; the next pick is at the
			// handshake of the last beat (a low tready on the last beat
			// delays it too).
			name: "backpressure",
			cfg: func(c *Config) {
				c.Ready = ready(map[int]func(uint64) bool{
					1: func(c uint64) bool { return c < 14 || c > 16 },
					2: func(c uint64) bool { return c != 20 },
				})
			},
			inputs: []scenInput{
				in(0, plain(Broadcast, macA, 64), 10),
				in(0, plain(Broadcast, macA, 64), 18),
			},
			until: 100,
			want: [][]wantOut{{
				o(3, 0, 0, 0, 12, 13, 20),
				o(2, 0, 0, 0, 12, 13, 21),
				o(1, 0, 0, 0, 12, 13, 23),
				o(3, 0, 1, 0, 20, 21, 28),
				o(2, 0, 1, 0, 21, 22, 29),
				o(1, 0, 1, 0, 23, 24, 31),
			}},
			count: map[string]uint64{"port0.rx_frames": 2, "port0.rx_bytes": 128,
				"port1.tx_frames": 2, "port1.tx_bytes": 128, "port2.tx_frames": 2, "port2.tx_bytes": 128,
				"port3.tx_frames": 2, "port3.tx_bytes": 128},
		},

		// ---- Learning and forwarding.
		{
			name: "learn_then_unicast",
			inputs: []scenInput{
				in(0, plain(macB, macA, 64), 10), // miss: floods; learns A on 0
				in(2, plain(macA, macB, 64), 30), // A live on 0; learns B on 2
				in(0, plain(macB, macA, 64), 50), // B live on 2
			},
			until: 100,
			want:  [][]wantOut{flood(0, 0, 0, 12, 13, 20), one(o(0, 2, 0, 0, 32, 33, 40)), one(o(2, 0, 1, 0, 52, 53, 60))},
			count: map[string]uint64{"port0.rx_frames": 2, "port0.rx_bytes": 128, "port2.rx_frames": 1, "port2.rx_bytes": 64,
				"port0.tx_frames": 1, "port0.tx_bytes": 64, "port1.tx_frames": 1, "port1.tx_bytes": 64,
				"port2.tx_frames": 2, "port2.tx_bytes": 128, "port3.tx_frames": 1, "port3.tx_bytes": 64},
			check: func(t *testing.T, m *Model, _ []Out, _ []scenInput) {
				e, ok := m.Entry(MACIndex(macA, 64))
				if !ok || e != (MACEntry{MAC: macA, Port: 0, Stamp: 51}) {
					t.Errorf("entry of A = %+v %v, want port 0 stamp 51", e, ok)
				}
			},
		},
		{
			// Lookups of cycle D see the table before the learns of D.
			name: "same_cycle_lookup_before_learn",
			inputs: []scenInput{
				in(0, plain(macB, macA, 64), 10),
				in(1, plain(macA, macB, 64), 10),
				in(3, plain(macA, macD, 64), 40),
				in(3, plain(macB, macD, 64), 50),
			},
			until: 100,
			want: [][]wantOut{
				{o(0, 1, 0, 0, 12, 13, 20), o(1, 0, 0, 0, 12, 13, 20), o(2, 0, 0, 0, 12, 13, 20), o(3, 0, 0, 0, 12, 13, 20)},
				{o(2, 1, 0, 0, 20, 21, 28), o(3, 1, 0, 0, 20, 21, 28)},
				one(o(0, 3, 0, 0, 42, 43, 50)),
				one(o(1, 3, 1, 0, 52, 53, 60)),
			},
			count: map[string]uint64{"port0.rx_frames": 1, "port0.rx_bytes": 64, "port1.rx_frames": 1, "port1.rx_bytes": 64,
				"port3.rx_frames": 2, "port3.rx_bytes": 128,
				"port0.tx_frames": 2, "port0.tx_bytes": 128, "port1.tx_frames": 2, "port1.tx_bytes": 128,
				"port2.tx_frames": 2, "port2.tx_bytes": 128, "port3.tx_frames": 2, "port3.tx_bytes": 128},
		},
		{
			// Two learns of one MAC in one cycle: the higher port wins.
			name: "same_cycle_learn_precedence",
			inputs: []scenInput{
				in(0, plain(Broadcast, macC, 64), 10),
				in(2, plain(Broadcast, macC, 64), 10),
				in(1, plain(macC, macB, 64), 40),
			},
			until: 100,
			want: [][]wantOut{
				{o(0, 2, 0, 0, 12, 13, 20), o(1, 0, 0, 0, 12, 13, 20), o(2, 0, 0, 0, 12, 13, 20), o(3, 0, 0, 0, 12, 13, 20)},
				{o(1, 2, 0, 0, 20, 21, 28), o(3, 2, 0, 0, 20, 21, 28)},
				one(o(2, 1, 0, 0, 42, 43, 50)),
			},
			count: map[string]uint64{"port0.rx_frames": 1, "port0.rx_bytes": 64, "port1.rx_frames": 1, "port1.rx_bytes": 64,
				"port2.rx_frames": 1, "port2.rx_bytes": 64,
				"port0.tx_frames": 1, "port0.tx_bytes": 64, "port1.tx_frames": 2, "port1.tx_bytes": 128,
				"port2.tx_frames": 2, "port2.tx_bytes": 128, "port3.tx_frames": 2, "port3.tx_bytes": 128},
		},
		{
			// Group destinations flood even when learned-looking; a group
			// source is not learned (G has the same index as A and would
			// otherwise evict it).
			name: "flood_group_and_group_source",
			inputs: []scenInput{
				in(0, plain(Broadcast, macA, 64), 10),
				in(1, plain(mcast, groupTwin(macA), 64), 30),
				in(2, plain(macA, macC, 64), 50),
			},
			until: 100,
			want: [][]wantOut{
				flood(0, 0, 0, 12, 13, 20),
				flood(1, 0, 0, 32, 33, 40),
				one(o(0, 2, 0, 0, 52, 53, 60)),
			},
			count: map[string]uint64{"port0.rx_frames": 1, "port0.rx_bytes": 64, "port1.rx_frames": 1, "port1.rx_bytes": 64,
				"port2.rx_frames": 1, "port2.rx_bytes": 64,
				"port0.tx_frames": 2, "port0.tx_bytes": 128, "port1.tx_frames": 1, "port1.tx_bytes": 64,
				"port2.tx_frames": 2, "port2.tx_bytes": 128, "port3.tx_frames": 2, "port3.tx_bytes": 128},
		},
		{
			// Direct mapped, newest wins: A2 has A's index and evicts it.
			name: "collision_newest_wins",
			inputs: []scenInput{
				in(0, plain(Broadcast, macA, 64), 10),
				in(1, plain(Broadcast, indexTwin(macA), 64), 30),
				in(2, plain(macA, macC, 64), 50),
			},
			until: 100,
			want: [][]wantOut{
				flood(0, 0, 0, 12, 13, 20),
				flood(1, 0, 0, 32, 33, 40),
				flood(2, 0, 0, 52, 53, 60),
			},
			count: map[string]uint64{"port0.rx_frames": 1, "port0.rx_bytes": 64, "port1.rx_frames": 1, "port1.rx_bytes": 64,
				"port2.rx_frames": 1, "port2.rx_bytes": 64,
				"port0.tx_frames": 2, "port0.tx_bytes": 128, "port1.tx_frames": 2, "port1.tx_bytes": 128,
				"port2.tx_frames": 2, "port2.tx_bytes": 128, "port3.tx_frames": 3, "port3.tx_bytes": 192},
		},
		{
			name: "filter",
			inputs: []scenInput{
				in(0, plain(Broadcast, macA, 64), 10),
				in(0, plain(macA, macC, 64), 30), // A lives on port 0 itself
			},
			until: 100,
			want:  [][]wantOut{flood(0, 0, 0, 12, 13, 20)},
			count: map[string]uint64{"port0.rx_frames": 2, "port0.rx_bytes": 128, "port0.drop_filtered": 1,
				"port1.tx_frames": 1, "port1.tx_bytes": 64, "port2.tx_frames": 1, "port2.tx_bytes": 64,
				"port3.tx_frames": 1, "port3.tx_bytes": 64},
		},
		{
			// AGE_CYCLES = 100, A learned at 11: live at 110 (110-11 < 100),
			// dead at 111 (exactly AGE_CYCLES old): a miss floods.
			name: "aging_boundary",
			csr:  setup(w(AddrAgeCycles, 100, 0)),
			inputs: []scenInput{
				in(0, plain(Broadcast, macA, 64), 10),
				in(1, plain(macA, macB, 64), 109),
				in(2, plain(macA, macC, 64), 110),
			},
			until: 200,
			want: [][]wantOut{
				flood(0, 0, 0, 12, 13, 20),
				one(o(0, 1, 0, 0, 111, 112, 119)),
				{o(1, 2, 0, 0, 112, 113, 120), o(3, 2, 0, 0, 112, 113, 120)},
				one(o(0, 2, 0, 0, 119, 120, 127)),
			},
			count: map[string]uint64{"port0.rx_frames": 1, "port0.rx_bytes": 64, "port1.rx_frames": 1, "port1.rx_bytes": 64,
				"port2.rx_frames": 1, "port2.rx_bytes": 64,
				"port0.tx_frames": 2, "port0.tx_bytes": 128, "port1.tx_frames": 2, "port1.tx_bytes": 128,
				"port2.tx_frames": 1, "port2.tx_bytes": 64, "port3.tx_frames": 2, "port3.tx_bytes": 128},
		},

		// ---- Priority.
		{
			// PCP for tagged frames (even tagged IPv4), DSCP_MAP for untagged
			// IPv4 (version 4, IHL >= 5), DEFAULT_PRIO otherwise.
			name: "priority",
			csr: setup(
				w(AddrDefaultPrio, 3, 0),
				w(AddrDSCPMap+4*5, 6<<24, 0), // DSCP 46 = 8*5+6 -> bits 26..24
			),
			inputs: []scenInput{
				in(0, tagged(Broadcast, macA, 5, 64), 10),
				in(0, buildIPv4(Broadcast, macA, 64, 46<<2, false, 0), 30),
				in(0, withByte(buildIPv4(Broadcast, macA, 64, 46<<2, false, 0), 14, 0x44), 50), // IHL 4
				in(0, withByte(buildIPv4(Broadcast, macA, 64, 46<<2, false, 0), 14, 0x65), 70), // version 6
				in(0, buildIPv4(Broadcast, macA, 64, 46<<2, true, 1), 90),                      // tagged: PCP
				in(0, plain(Broadcast, macA, 64), 110),
			},
			until: 200,
			want: [][]wantOut{
				flood(0, 0, 5, 12, 13, 20), flood(0, 1, 6, 32, 33, 40), flood(0, 2, 3, 52, 53, 60),
				flood(0, 3, 3, 72, 73, 80), flood(0, 4, 1, 92, 93, 100), flood(0, 5, 3, 112, 113, 120),
			},
			count: map[string]uint64{"port0.rx_frames": 6, "port0.rx_bytes": 384,
				"port1.tx_frames": 6, "port1.tx_bytes": 384, "port2.tx_frames": 6, "port2.tx_bytes": 384,
				"port3.tx_frames": 6, "port3.tx_bytes": 384},
		},

		// ---- Validity.
		{
			// runt < 60, oversize > MTU, bad; first matching reason wins.
			name: "validity_order",
			csr:  setup(w(AddrMTU, 100, 0)),
			inputs: []scenInput{
				in(0, plain(Broadcast, macA, 59), 10),
				in(0, plain(Broadcast, macA, 60), 20),
				in(0, plain(Broadcast, macA, 101), 40),
				in(0, plain(Broadcast, macA, 100), 60),
				inBad(0, plain(Broadcast, macA, 64), 80),
				inBad(1, plain(Broadcast, macB, 59), 80),
				inBad(2, plain(Broadcast, macC, 101), 80),
			},
			until: 200,
			want:  [][]wantOut{flood(0, 1, 0, 22, 23, 30), flood(0, 3, 0, 62, 63, 75)},
			count: map[string]uint64{"port0.rx_frames": 5, "port0.rx_bytes": 59 + 60 + 101 + 100 + 64,
				"port0.drop_runt": 1, "port0.drop_oversize": 1, "port0.drop_bad": 1,
				"port1.rx_frames": 1, "port1.rx_bytes": 59, "port1.drop_runt": 1,
				"port2.rx_frames": 1, "port2.rx_bytes": 101, "port2.drop_oversize": 1,
				"port1.tx_frames": 2, "port1.tx_bytes": 160, "port2.tx_frames": 2, "port2.tx_bytes": 160,
				"port3.tx_frames": 2, "port3.tx_bytes": 160},
		},
		{
			// An MTU register above MTU_MAX acts as MTU_MAX (and reads back
			// as written).
			name: "mtu_above_max",
			csr:  setup(w(AddrMTU, 5000, 0)),
			inputs: []scenInput{
				in(0, plain(Broadcast, macA, DefaultMTUMax+1), 600),
				in(0, plain(Broadcast, macA, DefaultMTUMax), 1200),
			},
			until: 2000,
			// 4224 bytes are 528 beats: 1203 .. 1730
			want: [][]wantOut{flood(0, 1, 0, 1202, 1203, 1730)},
			count: map[string]uint64{"port0.rx_frames": 2, "port0.rx_bytes": 2*DefaultMTUMax + 1, "port0.drop_oversize": 1,
				"port1.tx_frames": 1, "port1.tx_bytes": DefaultMTUMax, "port2.tx_frames": 1, "port2.tx_bytes": DefaultMTUMax,
				"port3.tx_frames": 1, "port3.tx_bytes": DefaultMTUMax},
			check: func(t *testing.T, m *Model, _ []Out, _ []scenInput) {
				if v := m.CSRRead(AddrMTU); v != 5000 {
					t.Errorf("MTU reads %d, want 5000", v)
				}
			},
		},

		// ---- Slots and admission.
		{
			// One slot: held until the last copy's last beat (20), free
			// from 21; a frame decided at 20 finds none.
			name: "no_slot_until_z_plus_1",
			cfg:  func(c *Config) { c.Slots = 1 },
			inputs: []scenInput{
				in(0, plain(Broadcast, macA, 64), 10),
				in(1, plain(Broadcast, macB, 64), 19),
				in(2, plain(Broadcast, macC, 64), 20),
			},
			until: 100,
			want:  [][]wantOut{flood(0, 0, 0, 12, 13, 20), flood(2, 0, 0, 22, 23, 30)},
			count: map[string]uint64{"port0.rx_frames": 1, "port0.rx_bytes": 64, "port1.rx_frames": 1, "port1.rx_bytes": 64,
				"port1.drop_no_slot": 1, "port2.rx_frames": 1, "port2.rx_bytes": 64,
				"port0.tx_frames": 1, "port0.tx_bytes": 64, "port1.tx_frames": 2, "port1.tx_bytes": 128,
				"port2.tx_frames": 1, "port2.tx_bytes": 64, "port3.tx_frames": 2, "port3.tx_bytes": 128},
			check: func(t *testing.T, m *Model, _ []Out, _ []scenInput) {
				m2, _ := New(withSlots(1))
				m2.Input(0, plain(Broadcast, macA, 64), false, 10)
				for _, c := range []struct {
					until uint64
					free  int
					idle  bool
				}{{11, 1, false}, {12, 0, false}, {20, 0, false}, {21, 1, true}} {
					m2.Run(c.until)
					if m2.FreeSlots() != c.free || m2.Idle() != c.idle {
						t.Errorf("at %d: free slots %d idle %v, want %d %v", c.until, m2.FreeSlots(), m2.Idle(), c.free, c.idle)
					}
				}
			},
		},
		{
			name:   "no_slot_same_cycle",
			cfg:    func(c *Config) { c.Slots = 1 },
			inputs: []scenInput{in(0, plain(Broadcast, macA, 64), 10), in(1, plain(Broadcast, macB, 64), 10)},
			until:  100,
			want:   [][]wantOut{flood(0, 0, 0, 12, 13, 20)},
			count: map[string]uint64{"port0.rx_frames": 1, "port0.rx_bytes": 64, "port1.rx_frames": 1, "port1.rx_bytes": 64,
				"port1.drop_no_slot": 1,
				"port1.tx_frames":    1, "port1.tx_bytes": 64, "port2.tx_frames": 1, "port2.tx_bytes": 64,
				"port3.tx_frames": 1, "port3.tx_bytes": 64},
		},
		{
			// A frame whose copies are all tail-dropped gives its slot back
			// from D+1: port 1 (same D) finds none, port 2 (D+1) gets it.
			name: "slot_back_after_all_tail",
			cfg:  func(c *Config) { c.Slots, c.BufBytes = 1, 63 },
			inputs: []scenInput{
				in(0, plain(Broadcast, macA, 64), 10),
				in(1, plain(Broadcast, macB, 64), 10),
				in(2, plain(Broadcast, macC, 64), 11),
			},
			until: 100,
			count: map[string]uint64{"port0.rx_frames": 1, "port0.rx_bytes": 64, "port1.rx_frames": 1, "port1.rx_bytes": 64,
				"port2.rx_frames": 1, "port2.rx_bytes": 64, "port1.drop_no_slot": 1,
				"port0.drop_tail[0]": 1, "port1.drop_tail[0]": 2, "port2.drop_tail[0]": 1, "port3.drop_tail[0]": 2},
		},
		{
			// BUF_BYTES 128: three copies for port 1 in one cycle are
			// admitted in ingress order until occ + len > 128.
			name: "tail_same_cycle_order",
			cfg:  func(c *Config) { c.BufBytes = 128 },
			inputs: []scenInput{
				learnB,
				in(0, tagged(macB, macA, 2, 64), 40),
				in(2, tagged(macB, macC, 2, 64), 40),
				in(3, tagged(macB, macD, 2, 64), 40),
			},
			until: 100,
			want:  [][]wantOut{learnBOut, one(o(1, 0, 0, 2, 42, 43, 50)), one(o(1, 2, 0, 2, 50, 51, 58))},
			count: map[string]uint64{"port1.rx_frames": 1, "port1.rx_bytes": 64,
				"port0.rx_frames": 1, "port0.rx_bytes": 64, "port2.rx_frames": 1, "port2.rx_bytes": 64,
				"port3.rx_frames": 1, "port3.rx_bytes": 64, "port1.drop_tail[2]": 1,
				"port0.tx_frames": 1, "port0.tx_bytes": 64, "port1.tx_frames": 2, "port1.tx_bytes": 128,
				"port2.tx_frames": 1, "port2.tx_bytes": 64, "port3.tx_frames": 1, "port3.tx_bytes": 64},
		},
		{
			// BUF_BYTES 64: X leaves port 1 with its last beat at 40; a
			// copy decided at 40 still sees occ 64 (tail), one at 41 fits.
			name: "occupancy_release_z_plus_1",
			cfg:  func(c *Config) { c.BufBytes = 64 },
			inputs: []scenInput{
				learnB,
				in(0, plain(macB, macA, 64), 30),
				in(2, plain(macB, macC, 64), 39),
				in(3, plain(macB, macD, 64), 40),
			},
			until: 100,
			want:  [][]wantOut{learnBOut, one(o(1, 0, 0, 0, 32, 33, 40)), one(o(1, 3, 0, 0, 42, 43, 50))},
			count: map[string]uint64{"port1.rx_frames": 1, "port1.rx_bytes": 64,
				"port0.rx_frames": 1, "port0.rx_bytes": 64, "port2.rx_frames": 1, "port2.rx_bytes": 64,
				"port3.rx_frames": 1, "port3.rx_bytes": 64, "port1.drop_tail[0]": 1,
				"port0.tx_frames": 1, "port0.tx_bytes": 64, "port1.tx_frames": 2, "port1.tx_bytes": 128,
				"port2.tx_frames": 1, "port2.tx_bytes": 64, "port3.tx_frames": 1, "port3.tx_bytes": 64},
			check: func(t *testing.T, m *Model, _ []Out, in []scenInput) {
				m2, _ := New(withBuf(64))
				for _, x := range in[:2] {
					m2.Input(x.port, x.frame, x.bad, x.last)
				}
				for _, c := range []struct {
					until uint64
					occ   uint64
				}{{31, 0}, {32, 64}, {40, 64}, {41, 0}} {
					m2.Run(c.until)
					if m2.Occupancy(1) != c.occ || m2.QueueOccupancy(1, 0) != c.occ {
						t.Errorf("at %d: occ %d qocc %d, want %d", c.until, m2.Occupancy(1), m2.QueueOccupancy(1, 0), c.occ)
					}
				}
			},
		},

		// ---- Scheduling.
		{
			// Strict priority: the highest non-empty queue visible at the
			// pick (q3's copy, visible at 40, is picked at 48 after q5).
			name: "strict_priority",
			inputs: []scenInput{
				learnB,
				in(0, tagged(macB, macA, 0, 64), 30),
				in(2, tagged(macB, macC, 1, 64), 32),
				in(3, tagged(macB, macD, 5, 64), 33),
				in(0, tagged(macB, macA, 3, 64), 38),
			},
			until: 100,
			want: [][]wantOut{learnBOut, {
				o(1, 0, 0, 0, 32, 33, 40), o(1, 3, 0, 5, 40, 41, 48), o(1, 0, 1, 3, 48, 49, 56), o(1, 2, 0, 1, 56, 57, 64),
			}},
			count: map[string]uint64{"port1.rx_frames": 1, "port1.rx_bytes": 64,
				"port0.rx_frames": 2, "port0.rx_bytes": 128, "port2.rx_frames": 1, "port2.rx_bytes": 64,
				"port3.rx_frames": 1, "port3.rx_bytes": 64,
				"port0.tx_frames": 1, "port0.tx_bytes": 64, "port1.tx_frames": 4, "port1.tx_bytes": 256,
				"port2.tx_frames": 1, "port2.tx_bytes": 64, "port3.tx_frames": 1, "port3.tx_bytes": 64},
		},
		{
			// DRR, QUANTUM 100 but 50 on q2; port 1 holds its first beat
			// until 100. Picks:
			// 22 q0 (deficit 100-64=36); 107 nothing (q0 36<64, q2 50<80,
			// q5 100<200: out of steps); 108 q0 (136-64=72); 116 q0 (8);
			// 124 q0 empty -> deficit 0 (not 8), q2 100-80=20; 134 q5
			// 200-200=0; 159 nothing (q5 0<64; q0 0+100 < 108, where a
			// deficit kept from 124 would make 108; q2 empty -> 0); 160 q5
			// (36); 168 q5 empty -> 0, q0 100+100-108 = 92.
			name: "drr_sequence",
			cfg: func(c *Config) {
				c.Ready = ready(map[int]func(uint64) bool{1: func(c uint64) bool { return c >= 100 }})
			},
			csr: setup(
				w(AddrCtrl, CtrlSched, 0),
				w(AddrQuantum+0, 100, 0), w(AddrQuantum+4*2, 50, 0), w(AddrQuantum+4*5, 100, 0),
			),
			inputs: []scenInput{
				learnB,
				in(0, plain(macB, macA, 64), 20),
				in(0, plain(macB, macA, 64), 30),
				in(2, tagged(macB, macC, 2, 80), 30),
				in(3, tagged(macB, macD, 5, 200), 30),
				in(0, plain(macB, macA, 64), 40),
				in(3, tagged(macB, macD, 5, 64), 40),
				in(0, plain(macB, macA, 108), 150),
			},
			until: 300,
			want: [][]wantOut{learnBOut, {
				o(1, 0, 0, 0, 22, 100, 107),
				o(1, 0, 1, 0, 108, 109, 116),
				o(1, 0, 2, 0, 116, 117, 124),
				o(1, 2, 0, 2, 124, 125, 134),
				o(1, 3, 0, 5, 134, 135, 159),
				o(1, 3, 1, 5, 160, 161, 168),
				o(1, 0, 3, 0, 168, 169, 182),
			}},
			count: map[string]uint64{"port1.rx_frames": 1, "port1.rx_bytes": 64,
				"port0.rx_frames": 4, "port0.rx_bytes": 300, "port2.rx_frames": 1, "port2.rx_bytes": 80,
				"port3.rx_frames": 2, "port3.rx_bytes": 264,
				"port0.tx_frames": 1, "port0.tx_bytes": 64, "port1.tx_frames": 7, "port1.tx_bytes": 644,
				"port2.tx_frames": 1, "port2.tx_bytes": 64, "port3.tx_frames": 1, "port3.tx_bytes": 64},
		},
		{
			// DRR: a step that leaves a queue for lack of deficit clears
			// fresh, so the next queue gets its quantum in the same pick.
			// 22 q7 (4224-64); 107 q7 empty, q0 50 < 64, q1 100 -> pick
			// (36); 115 q1 empty, q2..q7 empty, q0 50+50 = 100 -> pick.
			name: "drr_next_queue_fresh",
			cfg: func(c *Config) {
				c.Ready = ready(map[int]func(uint64) bool{1: func(c uint64) bool { return c >= 100 }})
			},
			csr: setup(w(AddrCtrl, CtrlSched, 0), w(AddrQuantum+0, 50, 0), w(AddrQuantum+4*1, 100, 0)),
			inputs: []scenInput{
				learnB,
				in(0, tagged(macB, macA, 7, 64), 20),
				in(0, plain(macB, macA, 64), 30),
				in(2, tagged(macB, macC, 1, 64), 30),
			},
			until: 300,
			// learnB's copies (q0, 64 bytes) wait one cycle on ports 0, 2,
			// 3 too: 50 < 64 at 4, 100 at 5.
			want: [][]wantOut{flood(1, 0, 0, 5, 6, 13), {
				o(1, 0, 0, 7, 22, 100, 107),
				o(1, 2, 0, 1, 107, 108, 115),
				o(1, 0, 1, 0, 115, 116, 123),
			}},
			count: map[string]uint64{"port1.rx_frames": 1, "port1.rx_bytes": 64,
				"port0.rx_frames": 2, "port0.rx_bytes": 128, "port2.rx_frames": 1, "port2.rx_bytes": 64,
				"port0.tx_frames": 1, "port0.tx_bytes": 64, "port1.tx_frames": 3, "port1.tx_bytes": 192,
				"port2.tx_frames": 1, "port2.tx_bytes": 64, "port3.tx_frames": 1, "port3.tx_bytes": 64},
		},
		{
			// DRR with a paused queue: q0 (deficit 36 after the first pick)
			// is paused at the picks of 57..120 by a PFC frame (8 quanta =
			// 64 cycles) decided at 56. It is skipped but keeps its
			// deficit: 107 q3 (100-64=36); 115 nothing; 121 q0 with
			// 36+100=136 >= 130 (a reset deficit, 100, would not do).
			name: "drr_pause_keeps_deficit",
			cfg: func(c *Config) {
				c.Ready = ready(map[int]func(uint64) bool{1: func(c uint64) bool { return c >= 100 }})
			},
			csr: setup(
				w(AddrCtrl, CtrlSched|CtrlPFCRx, 0),
				w(AddrQuantum+0, 100, 0), w(AddrQuantum+4*3, 100, 0),
			),
			inputs: []scenInput{
				learnB,
				in(0, plain(macB, macA, 64), 20),
				in(0, plain(macB, macA, 130), 40),
				in(2, tagged(macB, macC, 3, 64), 40),
				in(1, pfcIn(macB, 1<<0, [8]uint16{8}), 55),
			},
			until: 300,
			want: [][]wantOut{learnBOut, {
				o(1, 0, 0, 0, 22, 100, 107),
				o(1, 2, 0, 3, 107, 108, 115),
				o(1, 0, 1, 0, 121, 122, 138),
			}},
			count: map[string]uint64{"port1.rx_frames": 2, "port1.rx_bytes": 124, "port1.rx_pfc": 1,
				"port0.rx_frames": 2, "port0.rx_bytes": 194, "port2.rx_frames": 1, "port2.rx_bytes": 64,
				"port0.tx_frames": 1, "port0.tx_bytes": 64, "port1.tx_frames": 3, "port1.tx_bytes": 258,
				"port2.tx_frames": 1, "port2.tx_bytes": 64, "port3.tx_frames": 1, "port3.tx_bytes": 64},
			check: func(t *testing.T, m *Model, _ []Out, _ []scenInput) {
				if u := m.PausedUntil(1, 0); u != 121 {
					t.Errorf("PausedUntil(1, 0) = %d, want 121", u)
				}
			},
		},

		// ---- ECN.
		{
			// ECN_K[0] = 64: marked when qocc before the add > 64. ECT(0),
			// ECT(1) and VLAN-tagged IPv4 are marked; Not-ECT and CE are not.
			name: "ecn_threshold",
			cfg: func(c *Config) {
				c.Ready = ready(map[int]func(uint64) bool{1: func(c uint64) bool { return c >= 100 }})
			},
			csr: setup(w(AddrCtrl, CtrlECN, 0), w(AddrECNK, 64, 0)),
			inputs: []scenInput{
				learnB,
				in(0, buildIPv4(macB, macA, 64, 0x02, false, 0), 20), // qocc 0
				in(0, buildIPv4(macB, macA, 64, 0x02, false, 0), 30), // qocc 64: not > 64
				in(0, buildIPv4(macB, macA, 64, 0x02, false, 0), 40), // qocc 128: marked
				in(0, buildIPv4(macB, macA, 64, 0x00, false, 0), 50), // Not-ECT
				in(0, buildIPv4(macB, macA, 64, 0x03, false, 0), 60), // CE already
				in(0, buildIPv4(macB, macA, 64, 0x01, true, 0), 70),  // tagged ECT(1): marked
			},
			until: 300,
			want: [][]wantOut{learnBOut, {
				o(1, 0, 0, 0, 22, 100, 107), o(1, 0, 1, 0, 107, 108, 115), o(1, 0, 2, 0, 115, 116, 123),
				o(1, 0, 3, 0, 123, 124, 131), o(1, 0, 4, 0, 131, 132, 139), o(1, 0, 5, 0, 139, 140, 147),
			}},
			count: map[string]uint64{"port1.rx_frames": 1, "port1.rx_bytes": 64, "port0.rx_frames": 6, "port0.rx_bytes": 384,
				"port1.ecn_marked[0]": 2,
				"port0.tx_frames":     1, "port0.tx_bytes": 64, "port1.tx_frames": 6, "port1.tx_bytes": 384,
				"port2.tx_frames": 1, "port2.tx_bytes": 64, "port3.tx_frames": 1, "port3.tx_bytes": 64},
			check: func(t *testing.T, m *Model, outs []Out, in []scenInput) {
				for _, x := range outs {
					if x.Port != 1 {
						continue
					}
					orig := in[1+x.Seq].frame
					wantMarked := x.Seq == 2 || x.Seq == 5
					if x.Marked != wantMarked {
						t.Errorf("frame %d marked %v, want %v", x.Seq, x.Marked, wantMarked)
					}
					checkMarked(t, orig, x.Frame, wantMarked)
				}
			},
		},
		{
			name: "ecn_disabled",
			cfg: func(c *Config) {
				c.Ready = ready(map[int]func(uint64) bool{1: func(c uint64) bool { return c >= 100 }})
			},
			csr: setup(w(AddrECNK, 0, 0)),
			inputs: []scenInput{
				learnB,
				in(0, buildIPv4(macB, macA, 64, 0x02, false, 0), 20),
				in(0, buildIPv4(macB, macA, 64, 0x02, false, 0), 30),
			},
			until: 300,
			want:  [][]wantOut{learnBOut, {o(1, 0, 0, 0, 22, 100, 107), o(1, 0, 1, 0, 107, 108, 115)}},
			count: map[string]uint64{"port1.rx_frames": 1, "port1.rx_bytes": 64, "port0.rx_frames": 2, "port0.rx_bytes": 128,
				"port0.tx_frames": 1, "port0.tx_bytes": 64, "port1.tx_frames": 2, "port1.tx_bytes": 128,
				"port2.tx_frames": 1, "port2.tx_bytes": 64, "port3.tx_frames": 1, "port3.tx_bytes": 64},
			check: func(t *testing.T, m *Model, outs []Out, in []scenInput) {
				for _, x := range outs {
					if x.Port == 1 && (x.Marked || !bytes.Equal(x.Frame, in[1+x.Seq].frame)) {
						t.Errorf("frame %d changed with ECN off", x.Seq)
					}
				}
			},
		},

		// ---- PFC received.
		{
			// time[3] = 2 quanta at 64 bits: N = 16; decided at 21, queue 3
			// of egress 1 is paused at the picks of 22..37 and goes at 38.
			// Queue 2 and the other egresses are not paused.
			name: "pfc_rx_pause_64",
			csr:  setup(w(AddrCtrl, CtrlPFCRx, 0)),
			inputs: []scenInput{
				in(1, pfcIn(macB, 1<<3, [8]uint16{3: 2}), 20),
				in(0, tagged(Broadcast, macA, 3, 64), 20),
				in(2, tagged(Broadcast, macC, 2, 64), 20),
			},
			until: 200,
			want: [][]wantOut{
				{o(0, 2, 0, 2, 22, 23, 30), o(1, 2, 0, 2, 22, 23, 30), o(2, 0, 0, 3, 22, 23, 30), o(3, 0, 0, 3, 22, 23, 30)},
				one(o(3, 2, 0, 2, 30, 31, 38)),
				one(o(1, 0, 0, 3, 38, 39, 46)),
			},
			count: map[string]uint64{"port1.rx_frames": 1, "port1.rx_bytes": 60, "port1.rx_pfc": 1,
				"port0.rx_frames": 1, "port0.rx_bytes": 64, "port2.rx_frames": 1, "port2.rx_bytes": 64,
				"port0.tx_frames": 1, "port0.tx_bytes": 64, "port1.tx_frames": 2, "port1.tx_bytes": 128,
				"port2.tx_frames": 1, "port2.tx_bytes": 64, "port3.tx_frames": 2, "port3.tx_bytes": 128},
		},
		{
			// 512 bits: N = 2*512/512 = 2, paused at 22..23, picked at 24.
			name: "pfc_rx_pause_512",
			cfg:  func(c *Config) { c.DataWidth = 512 },
			csr:  setup(w(AddrCtrl, CtrlPFCRx, 0)),
			inputs: []scenInput{
				in(1, pfcIn(macB, 1<<3, [8]uint16{3: 2}), 20),
				in(0, tagged(Broadcast, macA, 3, 64), 20),
			},
			until: 100,
			want:  [][]wantOut{{o(2, 0, 0, 3, 22, 23, 23), o(3, 0, 0, 3, 22, 23, 23)}, one(o(1, 0, 0, 3, 24, 25, 25))},
			count: map[string]uint64{"port1.rx_frames": 1, "port1.rx_bytes": 60, "port1.rx_pfc": 1,
				"port0.rx_frames": 1, "port0.rx_bytes": 64,
				"port1.tx_frames": 1, "port1.tx_bytes": 64, "port2.tx_frames": 1, "port2.tx_bytes": 64,
				"port3.tx_frames": 1, "port3.tx_bytes": 64},
		},
		{
			// A pause of 100 quanta (800 cycles) ended by time 0 decided at
			// 31: picks from 32 on.
			name: "pfc_rx_zero_resumes",
			csr:  setup(w(AddrCtrl, CtrlPFCRx, 0)),
			inputs: []scenInput{
				in(1, pfcIn(macB, 1<<3, [8]uint16{3: 100}), 20),
				in(0, tagged(Broadcast, macA, 3, 64), 20),
				in(1, pfcIn(macB, 1<<3, [8]uint16{}), 30),
			},
			until: 1000,
			want:  [][]wantOut{{o(2, 0, 0, 3, 22, 23, 30), o(3, 0, 0, 3, 22, 23, 30)}, one(o(1, 0, 0, 3, 32, 33, 40))},
			count: map[string]uint64{"port1.rx_frames": 2, "port1.rx_bytes": 120, "port1.rx_pfc": 2,
				"port0.rx_frames": 1, "port0.rx_bytes": 64,
				"port1.tx_frames": 1, "port1.tx_bytes": 64, "port2.tx_frames": 1, "port2.tx_bytes": 64,
				"port3.tx_frames": 1, "port3.tx_bytes": 64},
		},
		{
			// CTRL.pfc_rx clear: counted, consumed, no pause.
			name: "pfc_rx_disabled",
			inputs: []scenInput{
				in(1, pfcIn(macB, 1<<3, [8]uint16{3: 100}), 20),
				in(0, tagged(Broadcast, macA, 3, 64), 20),
			},
			until: 100,
			want:  [][]wantOut{flood(0, 0, 3, 22, 23, 30)},
			count: map[string]uint64{"port1.rx_frames": 1, "port1.rx_bytes": 60, "port1.rx_pfc": 1,
				"port0.rx_frames": 1, "port0.rx_bytes": 64,
				"port1.tx_frames": 1, "port1.tx_bytes": 64, "port2.tx_frames": 1, "port2.tx_bytes": 64,
				"port3.tx_frames": 1, "port3.tx_bytes": 64},
		},
		{
			// Other MAC Control frames count rx_mac_control: PAUSE, and the
			// PFC opcode to another destination. None is forwarded or
			// learned (the frame to E/F afterwards floods).
			name: "mac_control_other",
			csr:  setup(w(AddrCtrl, CtrlPFCRx, 0)),
			inputs: []scenInput{
				in(0, mustPause(macE, 100), 10),
				in(2, withByte(pfcIn(macF, 0xFF, [8]uint16{100, 100, 100, 100, 100, 100, 100, 100}), 0, 0x03), 10),
				in(1, plain(macE, macB, 64), 30),
				in(3, plain(macF, macD, 64), 30),
			},
			until: 100,
			want: [][]wantOut{
				{o(0, 1, 0, 0, 32, 33, 40), o(1, 3, 0, 0, 32, 33, 40), o(2, 1, 0, 0, 32, 33, 40), o(3, 1, 0, 0, 32, 33, 40)},
				{o(0, 3, 0, 0, 40, 41, 48), o(2, 3, 0, 0, 40, 41, 48)},
			},
			count: map[string]uint64{"port0.rx_frames": 1, "port0.rx_bytes": 60, "port0.rx_mac_control": 1,
				"port2.rx_frames": 1, "port2.rx_bytes": 60, "port2.rx_mac_control": 1,
				"port1.rx_frames": 1, "port1.rx_bytes": 64, "port3.rx_frames": 1, "port3.rx_bytes": 64,
				"port0.tx_frames": 2, "port0.tx_bytes": 128, "port1.tx_frames": 1, "port1.tx_bytes": 64,
				"port2.tx_frames": 2, "port2.tx_bytes": 128, "port3.tx_frames": 1, "port3.tx_bytes": 64},
		},

		// ---- PFC sent.
		{
			// PFC_XOFF 100, PFC_XON 64, PFC_REFRESH 50. Port 1 is held until
			// 100, so two frames from port 0 stay: ic(0,0) = 128 > 100 at
			// the end of 29 -> XOFF (picked at 30 on port 0); refresh at
			// the end of 79; ic = 64 <= 64 at the end of 107 -> XON.
			name: "pfc_tx_xoff_refresh_xon",
			cfg: func(c *Config) {
				c.Ready = ready(map[int]func(uint64) bool{1: func(c uint64) bool { return c >= 100 }})
			},
			csr: setup(
				w(AddrCtrl, CtrlPFCTx, 0), w(AddrPFCXoff, 100, 0), w(AddrPFCXon, 64, 0),
				w(AddrPFCRefresh, 50, 0), w(AddrPFCQuanta, 0x1234, 0),
				w(AddrSwitchMACHi, 0x02AA, 0), w(AddrSwitchMACLo, 0xBBCCDDEE, 0),
			),
			inputs: []scenInput{
				learnB,
				in(0, plain(macB, macA, 64), 20),
				in(0, plain(macB, macA, 64), 28),
			},
			until: 300,
			want: [][]wantOut{learnBOut, {
				pfcOut(0, 30, 31, 38),
				pfcOut(0, 80, 81, 88),
				o(1, 0, 0, 0, 22, 100, 107),
				o(1, 0, 1, 0, 107, 108, 115),
				pfcOut(0, 108, 109, 116),
			}},
			count: map[string]uint64{"port1.rx_frames": 1, "port1.rx_bytes": 64, "port0.rx_frames": 2, "port0.rx_bytes": 128,
				"port0.tx_frames": 4, "port0.tx_bytes": 64 + 3*60, "port0.tx_pfc": 3,
				"port1.tx_frames": 2, "port1.tx_bytes": 128,
				"port2.tx_frames": 1, "port2.tx_bytes": 64, "port3.tx_frames": 1, "port3.tx_bytes": 64},
			check: func(t *testing.T, m *Model, outs []Out, _ []scenInput) {
				var quanta []uint16
				for _, x := range outs {
					if x.PFC() {
						quanta = append(quanta, checkPFCFrame(t, x.Frame, MAC{0x02, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE}, 0))
					}
				}
				if fmt.Sprint(quanta) != "[4660 4660 0]" {
					t.Errorf("PFC quanta %v, want XOFF 0x1234, XOFF 0x1234, XON 0", quanta)
				}
			},
		},
		{
			// XOFF needs ic > PFC_XOFF: 128 is not above 128.
			name: "pfc_tx_at_threshold",
			cfg: func(c *Config) {
				c.Ready = ready(map[int]func(uint64) bool{1: func(c uint64) bool { return c >= 100 }})
			},
			csr: setup(w(AddrCtrl, CtrlPFCTx, 0), w(AddrPFCXoff, 128, 0), w(AddrPFCXon, 64, 0)),
			inputs: []scenInput{
				learnB,
				in(0, plain(macB, macA, 64), 20),
				in(0, plain(macB, macA, 64), 28),
			},
			until: 300,
			want:  [][]wantOut{learnBOut, {o(1, 0, 0, 0, 22, 100, 107), o(1, 0, 1, 0, 107, 108, 115)}},
			count: map[string]uint64{"port1.rx_frames": 1, "port1.rx_bytes": 64, "port0.rx_frames": 2, "port0.rx_bytes": 128,
				"port0.tx_frames": 1, "port0.tx_bytes": 64, "port1.tx_frames": 2, "port1.tx_bytes": 128,
				"port2.tx_frames": 1, "port2.tx_bytes": 64, "port3.tx_frames": 1, "port3.tx_bytes": 64},
		},
		{
			// A waiting PFC frame goes before queued data: port 0 holds a
			// copy until 60; the XOFF (end of 39) and a data copy (visible
			// at 22) wait; at 67 the XOFF goes first.
			name: "pfc_before_data",
			cfg: func(c *Config) {
				c.Ready = ready(map[int]func(uint64) bool{
					0: func(c uint64) bool { return c >= 60 },
					1: func(c uint64) bool { return c >= 200 },
				})
			},
			csr: setup(w(AddrCtrl, CtrlPFCTx, 0), w(AddrPFCXoff, 150, 0), w(AddrPFCXon, 64, 0), w(AddrPFCRefresh, 1000, 0)),
			inputs: []scenInput{
				in(2, plain(Broadcast, macC, 64), 10),
				in(2, plain(Broadcast, macC, 64), 20),
				in(0, plain(Broadcast, macA, 64), 22),
				in(0, plain(Broadcast, macA, 64), 30),
				in(0, plain(Broadcast, macA, 64), 38),
			},
			until: 400,
			want: [][]wantOut{
				one(o(3, 2, 0, 0, 12, 13, 20)), one(o(3, 2, 1, 0, 22, 23, 30)),
				one(o(2, 0, 0, 0, 24, 25, 32)), one(o(3, 0, 0, 0, 30, 31, 38)),
				one(o(2, 0, 1, 0, 32, 33, 40)), one(o(3, 0, 1, 0, 38, 39, 46)),
				one(o(2, 0, 2, 0, 40, 41, 48)), one(o(3, 0, 2, 0, 46, 47, 54)),
				one(o(0, 2, 0, 0, 12, 60, 67)), one(pfcOut(0, 67, 68, 75)), one(o(0, 2, 1, 0, 75, 76, 83)),
				one(o(1, 2, 0, 0, 12, 200, 207)), one(o(1, 2, 1, 0, 207, 208, 215)),
				one(o(1, 0, 0, 0, 215, 216, 223)), one(o(1, 0, 1, 0, 223, 224, 231)),
				one(o(1, 0, 2, 0, 231, 232, 239)), one(pfcOut(0, 232, 233, 240)),
			},
			count: map[string]uint64{"port0.rx_frames": 3, "port0.rx_bytes": 192, "port2.rx_frames": 2, "port2.rx_bytes": 128,
				"port0.tx_frames": 4, "port0.tx_bytes": 128 + 120, "port0.tx_pfc": 2,
				"port1.tx_frames": 5, "port1.tx_bytes": 320, "port2.tx_frames": 3, "port2.tx_bytes": 192,
				"port3.tx_frames": 5, "port3.tx_bytes": 320},
		},

		// ---- CSRs and counters.
		{
			// A write at cycle c is in force for the decisions of c+1.
			name: "csr_write_timing",
			csr:  setup(w(AddrDefaultPrio, 5, 10)),
			inputs: []scenInput{
				in(0, plain(Broadcast, macA, 64), 9),  // decided at 10: priority 0
				in(1, plain(Broadcast, macB, 64), 10), // decided at 11: priority 5
			},
			until: 100,
			want: [][]wantOut{
				{o(0, 1, 0, 5, 12, 13, 20), o(1, 0, 0, 0, 11, 12, 19), o(2, 0, 0, 0, 11, 12, 19), o(3, 0, 0, 0, 11, 12, 19)},
				{o(2, 1, 0, 5, 19, 20, 27), o(3, 1, 0, 5, 19, 20, 27)},
			},
			count: map[string]uint64{"port0.rx_frames": 1, "port0.rx_bytes": 64, "port1.rx_frames": 1, "port1.rx_bytes": 64,
				"port0.tx_frames": 1, "port0.tx_bytes": 64, "port1.tx_frames": 1, "port1.tx_bytes": 64,
				"port2.tx_frames": 2, "port2.tx_bytes": 128, "port3.tx_frames": 2, "port3.tx_bytes": 128},
		},
		{
			// A counter written in the cycle it counts holds the written
			// value: rx_frames of port 0 is written 7 at 11, the decision
			// cycle of its frame; tx_frames of port 1 written 0 at 30.
			name: "counter_write_wins",
			csr: setup(
				w(CounterAddr(0, RxFrames), 7, 11),
				w(CounterAddr(1, TxFrames), 0, 30),
			),
			inputs: []scenInput{in(0, plain(Broadcast, macA, 64), 10)},
			until:  100,
			want:   [][]wantOut{flood(0, 0, 0, 12, 13, 20)},
			count: map[string]uint64{"port0.rx_frames": 7, "port0.rx_bytes": 64,
				"port1.tx_bytes": 64, "port2.tx_frames": 1, "port2.tx_bytes": 64,
				"port3.tx_frames": 1, "port3.tx_bytes": 64},
		},
	}
}

// macE and macF are hosts that never send anything but MAC Control.
var (
	macE = hostMAC(0xE)
	macF = hostMAC(0xF)
)

func mustPause(src MAC, quanta uint16) []byte {
	f, err := pfc.NewPause(src[:], quanta)
	if err != nil {
		panic(err)
	}
	return f
}

func withByte(f []byte, off int, v byte) []byte {
	f[off] = v
	return f
}

func withSlots(n int) Config { c := DefaultConfig(); c.Slots = n; return c }
func withBuf(n int) Config   { c := DefaultConfig(); c.BufBytes = n; return c }

// groupTwin returns a group address with the MAC table index of a: the
// group bit (bit 0 of byte 0, bit 8 of the first 16-bit word) and bit 0 of
// byte 2 (bit 8 of the second word) cancel in the hash.
func groupTwin(a MAC) MAC {
	a[0] ^= 1
	a[2] ^= 1
	return a
}

// indexTwin returns another unicast address with the index of a.
func indexTwin(a MAC) MAC {
	a[3] ^= 1
	a[5] ^= 1
	return a
}

// checkMarked checks a copy against its original: unmarked copies are
// identical; marked ones differ only in ECN (now 11) and the checksum, which
// is valid (recomputed from scratch with wirecheck) and equals RFC 1624.
func checkMarked(t *testing.T, orig, got []byte, marked bool) {
	t.Helper()
	if !marked {
		if !bytes.Equal(orig, got) {
			t.Errorf("unmarked copy changed:\n% x\n% x", orig, got)
		}
		return
	}
	off := 14
	if binary.BigEndian.Uint16(orig[12:]) == EtherTypeVLAN {
		off = 18
	}
	want := append([]byte(nil), orig...)
	want[off+1] |= 3
	want[off+10], want[off+11] = 0, 0
	binary.BigEndian.PutUint16(want[off+10:], wirecheck.IPv4Checksum(want[off:off+20]))
	if !bytes.Equal(got, want) {
		t.Errorf("marked copy\n got % x\nwant % x", got, want)
	}
}

// checkPFCFrame decodes a PFC frame the switch sent with golden/pfc and
// checks every field but the pause time of prio, which it returns.
func checkPFCFrame(t *testing.T, f []byte, src MAC, prio int) uint16 {
	t.Helper()
	var eth layers.Ethernet
	var p pfc.PFC
	if len(f) != PFCFrameLen {
		t.Fatalf("PFC frame of %d bytes", len(f))
	}
	if err := eth.DecodeFromBytes(f, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.DecodeFromBytes(eth.Payload, nil); err != nil {
		t.Fatal(err)
	}
	if probs := pfc.CheckFrame(&eth, &p); len(probs) != 0 {
		t.Errorf("PFC frame problems: %v", probs)
	}
	if MAC(eth.SrcMAC) != src || p.Opcode != pfc.OpcodePFC || p.EnableVector != pfc.PriorityVector(1<<prio) {
		t.Errorf("PFC frame from %v opcode %v enable %v, want from %v PFC P%d", eth.SrcMAC, p.Opcode, p.EnableVector, src, prio)
	}
	for k, q := range p.Quanta {
		if k != prio && q != 0 {
			t.Errorf("PFC frame time[%d] = %d, want 0", k, q)
		}
	}
	return p.Quanta[prio]
}

// TestRules runs the directed cases: every rule of rtl/switch/README.md
// with its exact cycles, bytes and counters (see the package doc).
func TestRules(t *testing.T) {
	for _, c := range rulesCases() {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			if c.cfg != nil {
				c.cfg(&cfg)
			}
			m, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range c.csr {
				if err := m.CSRWrite(x.addr, x.data, x.cycle); err != nil {
					t.Fatal(err)
				}
			}
			inputs := append([]scenInput(nil), c.inputs...)
			sortInputs(inputs)
			for _, x := range inputs {
				if err := m.Input(x.port, x.frame, x.bad, x.last); err != nil {
					t.Fatal(err)
				}
			}
			m.Run(c.until)
			outs := m.Outputs()
			var want []wantOut
			for _, g := range c.want {
				want = append(want, g...)
			}
			sortWant(want)
			var got, exp strings.Builder
			for _, x := range outs {
				fmt.Fprintln(&got, gotOut(x))
			}
			for _, x := range want {
				fmt.Fprintln(&exp, x)
			}
			if got.String() != exp.String() {
				t.Errorf("outputs\n got:\n%s want:\n%s", got.String(), exp.String())
			}
			for _, x := range outs {
				if !x.PFC() && !x.Marked && !bytes.Equal(x.Frame, c.inputs[inputIndex(c.inputs, x.Ingress, x.Seq)].frame) {
					t.Errorf("output %v: bytes differ from the input", gotOut(x))
				}
			}
			for name, v := range m.CounterMap() {
				if v != c.count[name] {
					t.Errorf("%s = %d, want %d", name, v, c.count[name])
				}
			}
			for name := range c.count {
				if _, ok := m.CounterMap()[name]; !ok {
					t.Errorf("no counter %s", name)
				}
			}
			if c.check != nil {
				c.check(t, m, outs, c.inputs)
			}
			// Whatever the case, the same run against the reference.
			ref := newRef(cfg)
			for _, x := range c.csr {
				ref.write(x.addr, x.data, x.cycle)
			}
			for _, x := range inputs {
				ref.input(x.port, x.frame, x.bad, x.last)
			}
			ref.run(c.until)
			rout := ref.takeOutputs()
			if len(rout) != len(outs) {
				t.Fatalf("reference: %d outputs, model %d", len(rout), len(outs))
			}
			for k := range rout {
				if !sameOut(rout[k], outs[k]) {
					t.Errorf("reference output %d: %s, model %s", k, outString(rout[k]), outString(outs[k]))
				}
			}
		})
	}
}

// inputIndex finds the input that is the seq-th of its port.
func inputIndex(in []scenInput, port, seq int) int {
	n := 0
	sorted := append([]scenInput(nil), in...)
	sortInputs(sorted)
	for _, x := range sorted {
		if x.port == port {
			if n == seq {
				for k := range in {
					if &in[k].frame[0] == &x.frame[0] {
						return k
					}
				}
			}
			n++
		}
	}
	panic("no such input")
}

// sortWant orders expected outputs as Outputs does: by last beat, then port.
func sortWant(w []wantOut) {
	for k := 1; k < len(w); k++ {
		for j := k; j > 0 && (w[j].last < w[j-1].last || w[j].last == w[j-1].last && w[j].port < w[j-1].port); j-- {
			w[j], w[j-1] = w[j-1], w[j]
		}
	}
}
