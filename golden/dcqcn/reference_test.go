package dcqcn_test

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/rocesim/cosim/golden/dcqcn"
)

// refRP is the slow reference model of a reaction point, written apart from
// the fast one: it steps time one cycle at a time with count-down timers
// (the way a naive RTL would), counts sent bytes one by one, and does the
// arithmetic on exact rationals, rounding each result up onto the 1/65536
// grid as doc.go specifies:
//
//	CNP:      alpha = ceil(alpha(1-g)) + g;  Rt = Rc;  Rc = max(ceil(Rc(1-alpha/2)), MinRate)
//	decay:    alpha = ceil(alpha(1-g))
//	increase: Rt per kind, capped at LineRate;  Rc = ceil((Rc+Rt)/2)
//
// Rates are in bytes per cycle and alpha in [0, 1].
type refRP struct {
	cfg  dcqcn.Config
	now  uint64
	line *big.Rat
	rc   *big.Rat
	rt   *big.Rat
	a    *big.Rat // alpha
	g    *big.Rat // 2^-GShift
	keep *big.Rat // 1-g
	next *big.Rat // ceil(alpha(1-g)), what the next decay gives

	t, bc     uint64
	byteCount uint64 // bytes toward the next byte-counter event

	// Cycles until the timer expires; 0 when not armed.
	alphaLeft, incLeft uint64
	recovering         bool

	n dcqcn.RPCounters
}

var gridUnit = big.NewInt(65536)

// ceilGrid rounds x up to a multiple of 1/65536.
func ceilGrid(x *big.Rat) *big.Rat {
	num := new(big.Int).Mul(x.Num(), gridUnit)
	q, m := new(big.Int).DivMod(num, x.Denom(), new(big.Int)) // floor for a positive denominator
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return new(big.Rat).SetFrac(q, gridUnit)
}

func ratOf(r dcqcn.Rate) *big.Rat { return new(big.Rat).SetFrac64(int64(r), 65536) }

// q16 converts a rational on the grid back to its Q16 integer.
func q16(x *big.Rat) uint64 {
	v := new(big.Rat).Mul(x, new(big.Rat).SetInt(gridUnit))
	if !v.IsInt() {
		panic(fmt.Sprintf("%v is off the Q16 grid", x))
	}
	return v.Num().Uint64()
}

func newRef(cfg dcqcn.Config) *refRP {
	r := &refRP{cfg: cfg}
	r.line = ratOf(cfg.LineRate)
	r.rc = ratOf(cfg.LineRate)
	r.rt = ratOf(cfg.LineRate)
	r.a = big.NewRat(1, 1)
	r.g = new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(cfg.GShift)))
	r.keep = new(big.Rat).Sub(big.NewRat(1, 1), r.g)
	r.next = r.decayed()
	return r
}

// decayed is ceil(alpha(1-g)).
func (r *refRP) decayed() *big.Rat { return ceilGrid(new(big.Rat).Mul(r.a, r.keep)) }

func (r *refRP) runTo(now uint64) {
	for r.now < now {
		r.now++
		if r.alphaLeft > 0 {
			r.alphaLeft--
			if r.alphaLeft == 0 {
				r.a = r.next
				r.next = r.decayed()
				r.n.AlphaDecays++
				if r.next.Cmp(r.a) != 0 {
					r.alphaLeft = r.cfg.AlphaPeriod
				}
			}
		}
		if r.incLeft > 0 {
			r.incLeft--
			if r.incLeft == 0 {
				r.n.TimerEvents++
				r.event(&r.t)
				if r.recovering {
					r.incLeft = r.cfg.IncreasePeriod
				}
			}
		}
	}
}

func (r *refRP) event(count *uint64) {
	f := uint64(r.cfg.FastRecoverySteps)
	switch {
	case r.t < f && r.bc < f:
		r.n.FastRecovery++
	case r.t > f && r.bc > f:
		i := min(r.t, r.bc) - f
		step := new(big.Rat).Mul(big.NewRat(int64(i), 1), ratOf(r.cfg.HyperStep))
		r.rt = new(big.Rat).Add(r.rt, step)
		r.n.Hyper++
	default:
		r.rt = new(big.Rat).Add(r.rt, ratOf(r.cfg.AdditiveStep))
		r.n.Additive++
	}
	if r.rt.Cmp(r.line) > 0 {
		r.rt = r.line
	}
	sum := new(big.Rat).Add(r.rc, r.rt)
	r.rc = ceilGrid(sum.Mul(sum, big.NewRat(1, 2)))
	*count++
	if r.rc.Cmp(r.line) == 0 {
		r.recovering = false
		r.incLeft = 0
		r.byteCount = 0
		r.n.Recoveries++
	}
}

func (r *refRP) cnp(now uint64) {
	r.runTo(now)
	r.n.CNPs++
	r.a = new(big.Rat).Add(r.next, r.g)
	r.next = r.decayed()
	r.rt = r.rc
	factor := new(big.Rat).Sub(big.NewRat(1, 1), new(big.Rat).Mul(r.a, big.NewRat(1, 2)))
	next := ceilGrid(new(big.Rat).Mul(r.rc, factor))
	if floor := ratOf(r.cfg.MinRate); next.Cmp(floor) < 0 {
		next = floor
		r.n.MinRateClamps++
	}
	if next.Cmp(r.rc) < 0 {
		r.n.Cuts++
	}
	r.rc = next
	r.t, r.bc, r.byteCount = 0, 0, 0
	r.alphaLeft = 0
	if r.next.Cmp(r.a) != 0 {
		r.alphaLeft = r.cfg.AlphaPeriod
	}
	r.recovering = r.rc.Cmp(r.line) < 0
	r.incLeft = 0
	if r.recovering {
		r.incLeft = r.cfg.IncreasePeriod
	}
}

func (r *refRP) sent(bytes int, now uint64) {
	r.runTo(now)
	if r.cfg.ByteCounter == 0 {
		return
	}
	for i := 0; i < bytes && r.recovering; i++ {
		r.byteCount++
		if r.byteCount == r.cfg.ByteCounter {
			r.byteCount = 0
			r.n.ByteEvents++
			r.event(&r.bc)
		}
	}
}

func (r *refRP) snap() snap {
	s := snap{
		rate:   dcqcn.Rate(q16(r.rc)),
		target: dcqcn.Rate(q16(r.rt)),
		alpha:  uint32(q16(r.a)),
		t:      uint32(r.t),
		bc:     uint32(r.bc),
		active: r.recovering || r.alphaLeft > 0,
	}
	next := uint64(math.MaxUint64)
	if r.alphaLeft > 0 {
		next = min(next, r.now+r.alphaLeft)
	}
	if r.incLeft > 0 {
		next = min(next, r.now+r.incLeft)
	}
	if next != math.MaxUint64 {
		s.next, s.nextOK = next, true
	}
	return s
}

// randomConfig returns a valid Config with small periods, so that a few
// hundred cycles cover many timer events, and rates from tiny to the top of
// the 32-bit range.
func randomConfig(rng *rand.Rand) dcqcn.Config {
	var line uint32
	switch rng.IntN(4) {
	case 0:
		line = 1 + rng.Uint32N(300)
	case 1:
		line = 1 + rng.Uint32N(1<<22)
	case 2:
		line = math.MaxUint32 - rng.Uint32N(1000)
	default:
		line = 1 + rng.Uint32N(math.MaxUint32)
	}
	minRate := 1 + rng.Uint32N(line)
	if rng.IntN(4) == 0 {
		minRate = 1 + rng.Uint32N(1+line/64)
	}
	var bc uint64
	if rng.IntN(5) > 0 {
		bc = 1 + rng.Uint64N(3000)
	}
	return dcqcn.Config{
		LineRate:          dcqcn.Rate(line),
		MinRate:           dcqcn.Rate(minRate),
		GShift:            uint8(rng.IntN(dcqcn.MaxGShift + 1)),
		AlphaPeriod:       1 + rng.Uint64N(40),
		IncreasePeriod:    1 + rng.Uint64N(40),
		ByteCounter:       bc,
		FastRecoverySteps: rng.Uint32N(7),
		AdditiveStep:      dcqcn.Rate(1 + rng.Uint32N(line/8+1)),
		HyperStep:         dcqcn.Rate(rng.Uint32N(line/4 + 1)),
	}
}

// TestAgainstReference drives the fast model and the reference with the same
// random, seeded inputs and compares their whole observable state after
// every input.
func TestAgainstReference(t *testing.T) {
	sequences, length := 2000, 48
	if testing.Short() {
		sequences = 200
	}
	for seed := range uint64(sequences) {
		rng := rand.New(rand.NewPCG(seed, 0xdc9c))
		cfg := randomConfig(rng)
		if err := cfg.Validate(); err != nil {
			t.Fatalf("seed %d: random config invalid: %v", seed, err)
		}
		var rp dcqcn.ReactionPoint
		rp.Reset(&cfg)
		ref := newRef(cfg)
		now := uint64(0)
		for i := range length {
			switch k := rng.IntN(20); {
			case k == 0:
				now += 300 + rng.Uint64N(1500) // quiet: let things settle
			case k < 6:
				// same cycle
			default:
				now += rng.Uint64N(60)
			}
			var what string
			switch k := rng.IntN(20); {
			case k < 5:
				what = "OnCNP"
				rp.OnCNP(now)
				ref.cnp(now)
			case k < 14:
				n := rng.IntN(2500)
				if k == 13 {
					n = -n
				}
				what = fmt.Sprintf("OnSent(%d)", n)
				rp.OnSent(n, now)
				ref.sent(n, now)
			default:
				what = "Advance"
				rp.Advance(now)
				ref.runTo(now)
			}
			got, want := snapOf(&rp), ref.snap()
			if got != want || rp.Counters() != ref.n {
				t.Fatalf("seed %d, input %d: %s at %d\nconfig %+v\nfast      %v\n          %+v\nreference %v\n          %+v",
					seed, i, what, now, cfg, got, rp.Counters(), want, ref.n)
			}
		}
	}
}
