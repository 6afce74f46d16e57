package dcqcn_test

import (
	"fmt"
	"testing"

	"github.com/rocesim/cosim/golden/dcqcn"
)

// testConfig has round numbers so the expected values below can be worked
// out by hand: a line rate of 64 B/cycle (4194304), R_AI 1 B/cycle, R_HAI
// 4 B/cycle, both timers every 100 cycles, B = 1000 bytes, F = 5.
func testConfig() dcqcn.Config {
	return dcqcn.Config{
		LineRate:          64 * dcqcn.RateOne,
		MinRate:           dcqcn.RateOne,
		GShift:            8,
		AlphaPeriod:       100,
		IncreasePeriod:    100,
		ByteCounter:       1000,
		FastRecoverySteps: 5,
		AdditiveStep:      dcqcn.RateOne,
		HyperStep:         4 * dcqcn.RateOne,
	}
}

// snap is the observable state of a ReactionPoint after a step.
type snap struct {
	rate, target dcqcn.Rate
	alpha        uint32
	t, bc        uint32
	active       bool
	next         uint64 // 0 with nextOK false: no timer armed
	nextOK       bool
}

func snapOf(rp *dcqcn.ReactionPoint) snap {
	t, bc := rp.IncreaseCounts()
	next, ok := rp.NextEvent()
	return snap{rp.Rate(), rp.Target(), rp.Alpha(), t, bc, rp.Active(), next, ok}
}

func (s snap) String() string {
	next := "none"
	if s.nextOK {
		next = fmt.Sprint(s.next)
	}
	return fmt.Sprintf("Rc=%d Rt=%d alpha=%d T=%d BC=%d active=%v next=%s",
		s.rate, s.target, s.alpha, s.t, s.bc, s.active, next)
}

type op int

const (
	opCNP op = iota
	opSent
	opAdvance
)

func (o op) String() string { return [...]string{"OnCNP", "OnSent", "Advance"}[o] }

type step struct {
	op    op
	at    uint64
	bytes int   // opSent only
	want  *snap // nil: not checked
}

func cnp(at uint64, want *snap) step         { return step{opCNP, at, 0, want} }
func sent(n int, at uint64, want *snap) step { return step{opSent, at, n, want} }
func advance(at uint64, want *snap) step     { return step{opAdvance, at, 0, want} }
func armed(next uint64) (uint64, bool)       { return next, true }
func s(rc, rt dcqcn.Rate, alpha, t, bc uint32) snap {
	return snap{rate: rc, target: rt, alpha: alpha, t: t, bc: bc, active: true}
}

// at returns a copy of sn with the next timer deadline set.
func (sn snap) at(next uint64) *snap { sn.next, sn.nextOK = next, true; return &sn }

// idle returns a copy of sn with no timer armed and active as given.
func (sn snap) idle(active bool) *snap { sn.active, sn.next, sn.nextOK = active, 0, false; return &sn }

func apply(rp *dcqcn.ReactionPoint, st step) {
	switch st.op {
	case opCNP:
		rp.OnCNP(st.at)
	case opSent:
		rp.OnSent(st.bytes, st.at)
	case opAdvance:
		rp.Advance(st.at)
	}
}

// TestRules is the behaviour table: each case is a script of inputs with the
// state expected after them, worked out by hand from the rules in doc.go.
func TestRules(t *testing.T) {
	const line = 4194304 // 64 B/cycle
	tests := []struct {
		name  string
		cfg   func(*dcqcn.Config)
		steps []step
		want  *dcqcn.RPCounters // checked after the last step when not nil
	}{
		{
			name: "no-congestion",
			// A QP without CNPs runs at line rate with no timer at all.
			steps: []step{
				advance(0, s(line, line, 65536, 0, 0).idle(false)),
				sent(1<<20, 10, s(line, line, 65536, 0, 0).idle(false)),
				advance(1<<40, s(line, line, 65536, 0, 0).idle(false)),
			},
			want: &dcqcn.RPCounters{},
		},
		{
			name: "cnp-cut",
			// alpha = 65536 - 65536>>8 + 65536>>8 = 65536 (stays 1.0);
			// Rt = Rc = 4194304; Rc -= 4194304*65536>>17 = 2097152.
			steps: []step{
				cnp(0, s(2097152, line, 65536, 0, 0).at(100)),
			},
			want: &dcqcn.RPCounters{CNPs: 1, Cuts: 1},
		},
		{
			name: "repeated-cnps",
			cfg:  func(c *dcqcn.Config) { c.IncreasePeriod = 1_000_000 },
			steps: []step{
				cnp(0, s(2097152, line, 65536, 0, 0).at(100)),
				// decay at 100: 65536 - 256 = 65280.
				advance(100, s(2097152, line, 65280, 0, 0).at(200)),
				// alpha = 65280 - 255 + 256 = 65281; Rt = 2097152;
				// cut 2097152*65281>>17 = 65281*16 = 1044496.
				cnp(150, s(1052656, 2097152, 65281, 0, 0).at(250)),
				// Same cycle again: alpha = 65281 - 255 + 256 = 65282;
				// cut 1052656*65282>>17 = 524288.
				cnp(150, s(528368, 1052656, 65282, 0, 0).at(250)),
			},
			want: &dcqcn.RPCounters{CNPs: 3, Cuts: 3, AlphaDecays: 1},
		},
		{
			name: "min-rate-floor",
			cfg:  func(c *dcqcn.Config) { c.MinRate = 1_500_000 },
			steps: []step{
				cnp(0, s(2097152, line, 65536, 0, 0).at(100)),
				// 2097152 - 1048576 = 1048576 < MinRate: floor.
				cnp(0, s(1_500_000, 2097152, 65536, 0, 0).at(100)),
				// Already at the floor: clamped again, not a cut.
				cnp(0, s(1_500_000, 1_500_000, 65536, 0, 0).at(100)),
			},
			want: &dcqcn.RPCounters{CNPs: 3, Cuts: 2, MinRateClamps: 2},
		},
		{
			name: "alpha-decay",
			cfg:  func(c *dcqcn.Config) { c.IncreasePeriod = 1_000_000 },
			steps: []step{
				cnp(0, s(2097152, line, 65536, 0, 0).at(100)),
				advance(99, s(2097152, line, 65536, 0, 0).at(100)),
				advance(100, s(2097152, line, 65280, 0, 0).at(200)), // -256
				advance(250, s(2097152, line, 65025, 0, 0).at(300)), // -255
				advance(300, s(2097152, line, 64771, 0, 0).at(400)), // -254
				// A CNP restarts the alpha timer from its own cycle:
				// alpha = 64771 - 253 + 256 = 64774, next decay 350+100.
				// Cut: 2097152*64774>>17 = 64774*16 = 1036384.
				cnp(350, s(1060768, 2097152, 64774, 0, 0).at(450)),
				advance(449, s(1060768, 2097152, 64774, 0, 0).at(450)),
				advance(450, s(1060768, 2097152, 64521, 0, 0).at(550)), // -253
			},
			want: &dcqcn.RPCounters{CNPs: 2, Cuts: 2, AlphaDecays: 4},
		},
		{
			name: "alpha-floor",
			// g = 1/2: alpha halves every 100 cycles, 65536 -> 1 after 16
			// decays (cycle 1600); 1>>1 = 0, so the alpha timer stops and
			// only the increase timer (1e6) is left.
			cfg: func(c *dcqcn.Config) { c.GShift = 1; c.IncreasePeriod = 1_000_000 },
			steps: []step{
				cnp(0, s(2097152, line, 65536, 0, 0).at(100)),
				advance(1500, s(2097152, line, 2, 0, 0).at(1600)),
				advance(1600, s(2097152, line, 1, 0, 0).at(1_000_000)),
			},
			want: &dcqcn.RPCounters{CNPs: 1, Cuts: 1, AlphaDecays: 16},
		},
		{
			name: "fast-recovery-then-additive",
			// Timer only. Two CNPs: Rc = 1048576, Rt = 2097152. Events at
			// 100..500 see T = 0..4 < F: Rc = ceil((Rc+Rt)/2). At 600 T = 5:
			// additive, Rt += 65536. At 700 T = 6 but BC = 0: additive
			// again (hyper needs both counts above F).
			cfg: func(c *dcqcn.Config) { c.ByteCounter = 0 },
			steps: []step{
				cnp(0, nil),
				cnp(0, s(1048576, 2097152, 65536, 0, 0).at(100)),
				advance(100, s(1572864, 2097152, 65280, 1, 0).at(200)),
				advance(200, s(1835008, 2097152, 65025, 2, 0).at(300)),
				advance(300, s(1966080, 2097152, 64771, 3, 0).at(400)),
				advance(400, s(2031616, 2097152, 64518, 4, 0).at(500)),
				advance(500, s(2064384, 2097152, 64266, 5, 0).at(600)),
				// (2064384 + 2162688 + 1) >> 1 = 2113536
				advance(600, s(2113536, 2162688, 64015, 6, 0).at(700)),
				// (2113536 + 2228224 + 1) >> 1 = 2170880
				advance(700, s(2170880, 2228224, 63765, 7, 0).at(800)),
			},
			want: &dcqcn.RPCounters{CNPs: 2, Cuts: 2, AlphaDecays: 7, TimerEvents: 7, FastRecovery: 5, Additive: 2},
		},
		{
			name: "hyper-increase",
			steps: []step{
				cnp(0, nil),
				cnp(0, s(1048576, 2097152, 65536, 0, 0).at(100)),
				// Six byte events: BC = 0..4 fast recovery, BC = 5 additive
				// (Rt 2162688, Rc (2064384+2162688+1)>>1 = 2113536).
				sent(6000, 0, s(2113536, 2162688, 65536, 0, 6).at(100)),
				// Timer events at 100..600 see T = 0..5, BC = 6: additive
				// six times, Rt 2555904, Rc 2490624.
				advance(600, s(2490624, 2555904, 64015, 6, 6).at(700)),
				// T = 6, BC = 6: hyper, i = 6-5 = 1: Rt += 262144.
				// Rc = (2490624 + 2818048 + 1) >> 1 = 2654336.
				advance(700, s(2654336, 2818048, 63765, 7, 6).at(800)),
				// Byte event, T = 7, BC = 6: i = 1; Rt 3080192, Rc 2867264.
				sent(1000, 700, s(2867264, 3080192, 63765, 7, 7).at(800)),
				// T = 7, BC = 7: i = 2; Rt 3604480, Rc 3235872.
				advance(800, s(3235872, 3604480, 63516, 8, 7).at(900)),
			},
			want: &dcqcn.RPCounters{CNPs: 2, Cuts: 2, AlphaDecays: 8, TimerEvents: 8, ByteEvents: 7,
				FastRecovery: 5, Additive: 7, Hyper: 3},
		},
		{
			name: "byte-counter",
			cfg:  func(c *dcqcn.Config) { c.IncreasePeriod = 1_000_000; c.AlphaPeriod = 1_000_000 },
			steps: []step{
				cnp(0, s(2097152, line, 65536, 0, 0).at(1_000_000)),
				sent(999, 10, s(2097152, line, 65536, 0, 0).at(1_000_000)),
				sent(1, 20, s(3145728, line, 65536, 0, 1).at(1_000_000)),
				// 2500 bytes: two events, 500 carried.
				sent(2500, 30, s(3932160, line, 65536, 0, 3).at(1_000_000)),
				sent(499, 40, s(3932160, line, 65536, 0, 3).at(1_000_000)),
				sent(1, 50, s(4063232, line, 65536, 0, 4).at(1_000_000)),
				// A CNP clears the byte counter: 999 more bytes make no event.
				cnp(60, nil),
				sent(999, 70, &snap{rate: 2031616, target: 4063232, alpha: 65536, active: true, next: 1_000_060, nextOK: true}),
			},
			want: &dcqcn.RPCounters{CNPs: 2, Cuts: 2, ByteEvents: 4, FastRecovery: 4},
		},
		{
			name: "cap-and-idle",
			// g = 1/2 so alpha reaches its floor (1) at 1600. From Rc = Rt/2
			// = 2097152 five fast-recovery steps leave a gap of 65536 to the
			// line rate; each additive step (Rt capped at the line rate)
			// halves it, so Rc = 4194303 after 16 of them (2100) and the
			// line rate after 17 (2200). Then nothing is armed and the QP
			// ignores sends and time until the next CNP.
			cfg: func(c *dcqcn.Config) { c.GShift = 1; c.ByteCounter = 0 },
			steps: []step{
				cnp(0, s(2097152, line, 65536, 0, 0).at(100)),
				advance(500, s(4128768, line, 2048, 5, 0).at(600)),
				advance(2100, s(4194303, line, 1, 21, 0).at(2200)),
				advance(2200, s(line, line, 1, 22, 0).idle(false)),
				sent(5000, 2300, s(line, line, 1, 22, 0).idle(false)),
				advance(1<<40, s(line, line, 1, 22, 0).idle(false)),
				// Woken by a CNP: alpha = 1 - 0 + 32768 = 32769; cut
				// 4194304*32769>>17 = 32*32769 = 1048608.
				cnp(1<<40+7, s(3145696, line, 32769, 0, 0).at(1<<40+107)),
			},
			want: &dcqcn.RPCounters{CNPs: 2, Cuts: 2, AlphaDecays: 16, TimerEvents: 22,
				FastRecovery: 5, Additive: 17, Recoveries: 1},
		},
		{
			name: "recovered-by-bytes",
			// The byte counter can finish the recovery too; the rest of the
			// bytes of that call are dropped, not carried.
			cfg: func(c *dcqcn.Config) {
				c.IncreasePeriod = 1_000_000
				c.AlphaPeriod = 1_000_000
				c.FastRecoverySteps = 0
			},
			steps: []step{
				cnp(0, s(2097152, line, 65536, 0, 0).at(1_000_000)),
				// F = 0: every event is additive (BC > 0 but T = 0).
				// Gap 2097152 = 2^21 closes after 22 halvings.
				sent(21_000, 1, s(4194303, line, 65536, 0, 21).at(1_000_000)),
				sent(1_000_000, 2, s(line, line, 65536, 0, 22).at(1_000_000)),
				advance(1_000_000, s(line, line, 65280, 0, 22).at(2_000_000)),
			},
			want: &dcqcn.RPCounters{CNPs: 1, Cuts: 1, AlphaDecays: 1, ByteEvents: 22, Additive: 22, Recoveries: 1},
		},
		{
			name: "timer-tie",
			// Both timers expire at 100: alpha decays and fast recovery
			// runs in the same Advance.
			steps: []step{
				cnp(0, nil),
				advance(100, s(3145728, line, 65280, 1, 0).at(200)),
			},
			want: &dcqcn.RPCounters{CNPs: 1, Cuts: 1, AlphaDecays: 1, TimerEvents: 1, FastRecovery: 1},
		},
		{
			name: "cnp-at-deadline",
			// Timers due in the CNP's cycle fire before it: decay to 65280
			// and Rc = 3145728 first, then alpha = 65280 - 255 + 256 =
			// 65281, Rt = 3145728, cut 3145728*65281>>17 = 1566744.
			steps: []step{
				cnp(0, nil),
				cnp(100, s(1578984, 3145728, 65281, 0, 0).at(200)),
			},
			want: &dcqcn.RPCounters{CNPs: 2, Cuts: 2, AlphaDecays: 1, TimerEvents: 1, FastRecovery: 1},
		},
		{
			name: "sent-at-deadline",
			// Likewise a send in the timer's cycle: the timer event (T=0,
			// fast recovery to 3145728) comes first, then the byte event
			// (BC=0, T=1, fast recovery to 3670016).
			cfg: func(c *dcqcn.Config) { c.AlphaPeriod = 1_000_000 },
			steps: []step{
				cnp(0, nil),
				sent(1000, 100, s(3670016, line, 65536, 1, 1).at(200)),
			},
			want: &dcqcn.RPCounters{CNPs: 1, Cuts: 1, TimerEvents: 1, ByteEvents: 1, FastRecovery: 2},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			var rp dcqcn.ReactionPoint
			rp.Reset(&cfg)
			for i, st := range tc.steps {
				apply(&rp, st)
				if st.want == nil {
					continue
				}
				if got := snapOf(&rp); got != *st.want {
					t.Fatalf("step %d %v(at %d, bytes %d):\n got %v\nwant %v", i, st.op, st.at, st.bytes, got, *st.want)
				}
			}
			if tc.want != nil {
				if got := rp.Counters(); got != *tc.want {
					t.Errorf("counters:\n got %+v\nwant %+v", got, *tc.want)
				}
			}
		})
	}
}

// TestAdvanceCatchUp checks that one late Advance fires exactly what an
// Advance every cycle would, and that Advance calls are idempotent.
func TestAdvanceCatchUp(t *testing.T) {
	cfg := testConfig()
	cfg.AlphaPeriod = 7
	cfg.IncreasePeriod = 11
	var a, b dcqcn.ReactionPoint
	a.Reset(&cfg)
	a.OnCNP(3)
	a.OnCNP(5)
	b = a
	for now := uint64(5); now <= 5000; now++ {
		a.Advance(now)
		a.Advance(now)
	}
	b.Advance(5000)
	if snapOf(&a) != snapOf(&b) || a.Counters() != b.Counters() {
		t.Fatalf("per-cycle %v %+v\nlate      %v %+v", snapOf(&a), a.Counters(), snapOf(&b), b.Counters())
	}
	if a.Counters().TimerEvents == 0 || a.Counters().AlphaDecays == 0 {
		t.Fatalf("no timer fired: %+v", a.Counters())
	}
}

// TestZeroValue checks that an unreset ReactionPoint is inert and safe.
func TestZeroValue(t *testing.T) {
	var rp dcqcn.ReactionPoint
	rp.OnCNP(10)
	rp.OnSent(100, 20)
	rp.Advance(1 << 50)
	if rp.Rate() != 0 || rp.Active() {
		t.Fatalf("zero value: %v", snapOf(&rp))
	}
	if _, ok := rp.NextEvent(); ok {
		t.Fatal("zero value has a timer armed")
	}
}

// TestDeadlineOverflow checks that a timer whose next deadline would pass
// 2^64-1 disarms instead of wrapping or firing forever.
func TestDeadlineOverflow(t *testing.T) {
	cfg := testConfig()
	var rp dcqcn.ReactionPoint
	rp.Reset(&cfg)
	const end = ^uint64(0)
	rp.OnCNP(end - 150) // timers at end-50, then past the end
	rp.Advance(end)
	if _, ok := rp.NextEvent(); ok {
		t.Fatalf("timer armed past the end: %v", snapOf(&rp))
	}
	if got := rp.Counters(); got.AlphaDecays != 1 || got.TimerEvents != 1 {
		t.Fatalf("counters %+v, want one expiry of each timer", got)
	}
}
