package generator

import (
	"fmt"
	"math/rand/v2"

	"github.com/rocesim/cosim/harness/workload/rdma"
)

func init() {
	Register(&Generator{
		Name: "nic-congestion",
		Doc:  "an incast through the RTL switch marking ECN, the RTL NICs' DCQCN cutting and recovering, its settings drawn from the seed",
		Params: []Param{
			{Name: "width", Doc: "data width in bits", Default: 64, OneOf: []any{64, 512}},
			{Name: "messages", Doc: "WRITE (and some SEND) messages nic0 and nic1 send each other", Default: 2000, Min: 1},
		},
		Func: nicCongestion,
	})
}

// congestionShape is what a seed draws of a congestion run: the switch's
// ECN threshold, the incast, the reaction point's settings and the
// workload.
type congestionShape struct {
	ecnK                             int // bytes queued before ECT frames are marked (ECN_K0)
	start, frames, gapBeats          int // the incast on sw.in2: first cycle, frames, beats between 1500-byte frames
	cnpInterval, alphaPeriod, incPer int // cycles
	byteCounter, gShift, fastRec     int
	additive, hyper, floor           float64 // Mbit/s
	qps, outstanding, maxSize        int
	sendPct                          int
}

// newCongestionShape draws from seed settings around the NIC model
// test's fast DCQCN (rtl/nic/tb), so that rates fall and recover within a
// few 10,000 cycles and a run sees every step: cuts, the floor, fast
// recovery, additive and hyper increase, the rate back at line rate.
func newCongestionShape(seed uint64, width int) congestionShape {
	rng := rand.New(rand.NewPCG(seed, 0x636f6e67)) // "cong"
	pick := func(v ...int) int { return v[rng.IntN(len(v))] }
	beats := (1500*8 + width - 1) / width // of one 1500-byte frame
	s := congestionShape{
		ecnK:   pick(2048, 4096, 8192),
		start:  10_000 + 1000*rng.IntN(41),
		frames: pick(50, 100, 200, 400),
		// Offered to nic1's port on top of nic0's stream: the line rate,
		// three quarters or a half of it.
		gapBeats:    beats * pick(0, 1, 2) / 2,
		cnpInterval: pick(1000, 2000, 4000),
		alphaPeriod: pick(1000, 2000, 5000),
		incPer:      pick(1500, 3000, 6000),
		// golden/nic refuses a byte counter below 1045 (four events a
		// packet at most in the RTL).
		byteCounter: pick(16384, 32768, 65536),
		gShift:      pick(4, 5, 6, 8),
		fastRec:     pick(1, 3, 5),
		additive:    float64(pick(500, 1250)),
		hyper:       float64(pick(2500, 5000)),
		floor:       []float64{312.5, 1000, 2500}[rng.IntN(3)],
		qps:         pick(2, 4, 8),
		outstanding: pick(4, 8, 16),
		maxSize:     pick(4096, 8192, 16384),
		sendPct:     pick(0, 0, 30),
	}
	for s.outstanding > 1 && !rdma.BuffersFit(s.qps, s.outstanding, s.maxSize) {
		s.outstanding /= 2
	}
	return s
}

func (s congestionShape) String() string {
	return fmt.Sprintf("ECN_K0 %d; incast of %d 1500-byte frames from cycle %d, %d idle beats between; DCQCN cnp_interval %d, alpha_period %d, increase_period %d, byte_counter %d, g_shift %d, fast_recovery %d, R_AI %g, R_HAI %g, floor %g Mbit/s; %d QPs, %d outstanding, up to %d bytes, SEND %d %%",
		s.ecnK, s.frames, s.start, s.gapBeats, s.cnpInterval, s.alphaPeriod, s.incPer, s.byteCounter, s.gShift, s.fastRec,
		s.additive, s.hyper, s.floor, s.qps, s.outstanding, s.maxSize, s.sendPct)
}

// nicCongestion is nic0 - switch4 - nic1 over clean 1 us links, ECN
// marking on queue 0 (all frames share it at reset), nic0 and nic1
// writing to each other while an l2 source on sw.in2 sends 1500-byte
// frames to nic1 (an incast on sw.out1): the switch marks, nic1 sends
// CNPs, nic0's QPs cut their rates and recover once the incast ends.
func nicCongestion(p Params, seed uint64) (string, string, error) {
	width := p["width"].(int)
	s := newCongestionShape(seed, width)
	csr := fmt.Sprintf("[model.csr]\nCTRL = 2 # ECN marking, strict priority\nECN_K0 = %d\n", s.ecnK)
	text := "name = \"nic-congestion\"\ncycles = " + unbounded + "\n" + NICSwitchNIC(width, csr, "") + fmt.Sprintf(`
[[traffic]]
kind = "l2"
to = "sw.in2"
to_mac = "02:4e:43:00:00:02" # nic1: the second NIC of rdma[0]
start = %d
frames = %d
min_size = 1500
max_size = 1500
hosts = 1
gap_cycles = %d

[[rdma]]
nics = ["nic0", "nic1"]
qps = %d
messages = %d
outstanding = %d
min_size = %d
max_size = %d
send_pct = %d
write_pct = %d
read_pct = 0

[rdma.dcqcn]
cnp_interval = %d
alpha_period = %d
increase_period = %d
byte_counter = %d
g_shift = %d
fast_recovery = %d
additive_mbps = %g
hyper_mbps = %g
min_mbps = %g
`, s.start, s.frames, s.gapBeats, s.qps, p["messages"].(int), s.outstanding, s.maxSize/2, s.maxSize, s.sendPct, 100-s.sendPct,
		s.cnpInterval, s.alphaPeriod, s.incPer, s.byteCounter, s.gShift, s.fastRec, s.additive, s.hyper, s.floor)
	return text, fmt.Sprintf("nic0 - switch - nic1 at %d bits, %d messages, %s", width, p["messages"].(int), s), nil
}
