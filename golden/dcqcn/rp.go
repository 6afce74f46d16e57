package dcqcn

import "math"

// AlphaOne is alpha = 1.0 in the unsigned Q16 format of ReactionPoint.Alpha.
const AlphaOne uint32 = 1 << 16

// RPCounters counts what a ReactionPoint did since Reset. They are
// statistics for the scoreboard; the model never reads them.
type RPCounters struct {
	CNPs          uint64 // OnCNP calls
	Cuts          uint64 // CNPs that lowered the current rate
	MinRateClamps uint64 // CNPs whose cut the MinRate floor limited
	AlphaDecays   uint64 // alpha timer expiries
	TimerEvents   uint64 // increase events from the increase timer
	ByteEvents    uint64 // increase events from the byte counter
	FastRecovery  uint64 // increase events that did fast recovery
	Additive      uint64 // increase events that did additive increase
	Hyper         uint64 // increase events that did hyper increase
	Recoveries    uint64 // times the rate got back to LineRate after a CNP
}

// Add adds o's counts to c's (a node's reaction points summed).
func (c *RPCounters) Add(o RPCounters) {
	c.CNPs += o.CNPs
	c.Cuts += o.Cuts
	c.MinRateClamps += o.MinRateClamps
	c.AlphaDecays += o.AlphaDecays
	c.TimerEvents += o.TimerEvents
	c.ByteEvents += o.ByteEvents
	c.FastRecovery += o.FastRecovery
	c.Additive += o.Additive
	c.Hyper += o.Hyper
	c.Recoveries += o.Recoveries
}

// ReactionPoint is the DCQCN state of one QP at the sender: the current rate
// Rc, the target rate Rt, alpha, the increase-event counts T and BC, the
// byte counter, and the deadlines of the alpha and increase timers. It is a
// plain value (copying it copies the whole state, the Config included) and
// no method allocates. The zero value is idle at rate 0; call Reset first.
//
// Time is the caller's cycle count. Every method that takes now first fires
// the timers due at or before now (as Advance), so timers expiring in the
// cycle of a CNP or a send act before it. now must not decrease.
type ReactionPoint struct {
	cfg Config

	rc, rt Rate
	alpha  uint32 // Q16, 0..AlphaOne

	t, bc   uint32 // increase events of each kind since the last CNP
	bcBytes uint64 // bytes counted towards the next byte-counter event

	alphaAt, incAt uint64 // absolute deadlines, valid when armed
	alphaArmed     bool
	incArmed       bool
	recovering     bool // Rc < LineRate: increase timer and byte counter run

	n RPCounters
}

// Reset puts the QP in its initial state for cfg (copied): Rc = Rt =
// LineRate, alpha = 1.0 (AlphaOne), T = BC = 0, no timer armed, counters
// zero. cfg should pass Validate; Reset does not check it. With an invalid
// Config no method panics, but the rate bounds no longer hold, and with
// AdditiveStep 0 the rate may never recover (so timers never stop).
func (rp *ReactionPoint) Reset(cfg *Config) {
	*rp = ReactionPoint{cfg: *cfg, rc: cfg.LineRate, rt: cfg.LineRate, alpha: AlphaOne}
}

// Rate returns the current rate Rc, the rate to pace the QP at.
func (rp *ReactionPoint) Rate() Rate { return rp.rc }

// Target returns the target rate Rt.
func (rp *ReactionPoint) Target() Rate { return rp.rt }

// Alpha returns alpha in unsigned Q16 (AlphaOne is 1.0).
func (rp *ReactionPoint) Alpha() uint32 { return rp.alpha }

// IncreaseCounts returns T and BC: the timer and byte-counter increase
// events since the last CNP (saturating at math.MaxUint32).
func (rp *ReactionPoint) IncreaseCounts() (t, bc uint32) { return rp.t, rp.bc }

// Active reports whether the QP still reacts to past congestion: the rate
// is recovering (Rc < LineRate; the increase timer runs and OnSent counts
// bytes) or alpha is still decaying. A QP that is not active has no timer
// armed, ignores OnSent and Advance, and runs at LineRate; only OnCNP
// wakes it. A QP that never saw a CNP is never active.
func (rp *ReactionPoint) Active() bool { return rp.recovering || rp.alphaArmed }

// Counters returns the statistics counters.
func (rp *ReactionPoint) Counters() RPCounters { return rp.n }

// NextEvent returns the cycle of the earliest armed timer, or ok false if
// none is armed. Advance(cycle) fires it; nothing changes before it unless
// the caller calls OnCNP or OnSent.
func (rp *ReactionPoint) NextEvent() (cycle uint64, ok bool) {
	switch {
	case rp.alphaArmed && rp.incArmed:
		return min(rp.alphaAt, rp.incAt), true
	case rp.alphaArmed:
		return rp.alphaAt, true
	case rp.incArmed:
		return rp.incAt, true
	}
	return 0, false
}

// Advance fires, in cycle order, every timer deadline at or before now. When
// both timers expire in the same cycle the alpha timer fires first, then the
// increase timer (the two touch disjoint state, so the order only shows in
// the order of events, not in the result). Each timer is periodic from the
// cycle it was armed: a late Advance catches up exactly as if called every
// cycle, at a cost of one step per expiry.
func (rp *ReactionPoint) Advance(now uint64) {
	for {
		switch {
		case rp.alphaArmed && rp.alphaAt <= now && (!rp.incArmed || rp.alphaAt <= rp.incAt):
			rp.decayAlpha()
		case rp.incArmed && rp.incAt <= now:
			rp.incAt, rp.incArmed = addCycles(rp.incAt, rp.cfg.IncreasePeriod)
			rp.n.TimerEvents++
			rp.increase(&rp.t)
		default:
			return
		}
	}
}

// OnCNP applies a CNP received in cycle now (after Advance(now)):
//
//	alpha = alpha - alpha>>GShift + AlphaOne>>GShift   // (1-g)alpha + g
//	Rt    = Rc
//	Rc    = max(Rc - (Rc*alpha)>>17, MinRate)          // Rc(1 - alpha/2)
//
// The cut uses the updated alpha and is rounded down (Rc rounded up). T,
// BC and the byte counter restart from 0; the alpha timer restarts at
// now+AlphaPeriod if a decay would change alpha (alpha >= 2^GShift), and the
// increase timer at now+IncreasePeriod if Rc < LineRate.
func (rp *ReactionPoint) OnCNP(now uint64) {
	rp.Advance(now)
	rp.n.CNPs++
	g := uint(rp.cfg.GShift)
	rp.alpha = rp.alpha - rp.alpha>>g + AlphaOne>>g

	old := rp.rc
	rp.rt = old
	next := uint64(old) - uint64(old)*uint64(rp.alpha)>>17
	if next < uint64(rp.cfg.MinRate) {
		next = uint64(rp.cfg.MinRate)
		rp.n.MinRateClamps++
	}
	rp.rc = Rate(next)
	if rp.rc < old {
		rp.n.Cuts++
	}

	rp.t, rp.bc, rp.bcBytes = 0, 0, 0
	rp.alphaArmed = false
	if rp.alpha>>g != 0 && rp.cfg.AlphaPeriod != 0 {
		rp.alphaAt, rp.alphaArmed = addCycles(now, rp.cfg.AlphaPeriod)
	}
	rp.recovering = rp.rc < rp.cfg.LineRate
	rp.incArmed = false
	if rp.recovering && rp.cfg.IncreasePeriod != 0 {
		rp.incAt, rp.incArmed = addCycles(now, rp.cfg.IncreasePeriod)
	}
}

// OnSent counts bytes sent by the QP in cycle now (after Advance(now)).
// While the rate is recovering, every ByteCounter bytes is one byte-counter
// increase event, fired here in this cycle; bytes left over carry to the
// next call. When the QP is not recovering, ByteCounter is 0 or bytes <= 0,
// the bytes are ignored.
func (rp *ReactionPoint) OnSent(bytes int, now uint64) {
	rp.Advance(now)
	b := rp.cfg.ByteCounter
	if !rp.recovering || b == 0 || bytes <= 0 {
		return
	}
	if rp.bcBytes > math.MaxUint64-uint64(bytes) {
		rp.bcBytes = math.MaxUint64
	} else {
		rp.bcBytes += uint64(bytes)
	}
	for rp.recovering && rp.bcBytes >= b {
		rp.bcBytes -= b
		rp.n.ByteEvents++
		rp.increase(&rp.bc)
	}
}

// increase is one rate-increase event from the counter *count (rp.t for the
// timer, rp.bc for the byte counter). It chooses the kind from T and BC as
// they were before this event, so the first F events after a CNP are fast
// recovery, then counts the event.
func (rp *ReactionPoint) increase(count *uint32) {
	f := rp.cfg.FastRecoverySteps
	t, bc := rp.t, rp.bc
	rt := uint64(rp.rt)
	switch {
	case max(t, bc) < f:
		rp.n.FastRecovery++
	case t > f && bc > f:
		rt += uint64(min(t, bc)-f) * uint64(rp.cfg.HyperStep)
		rp.n.Hyper++
	default:
		rt += uint64(rp.cfg.AdditiveStep)
		rp.n.Additive++
	}
	rp.rt = Rate(min(rt, uint64(rp.cfg.LineRate)))
	// Rounding the average up lets Rc reach Rt exactly; rounded down it
	// would stall one unit below and the QP would never go idle.
	rp.rc = Rate((uint64(rp.rc) + uint64(rp.rt) + 1) >> 1)
	if *count < math.MaxUint32 {
		*count++
	}
	if rp.rc >= rp.cfg.LineRate {
		rp.recovering, rp.incArmed, rp.bcBytes = false, false, 0
		rp.n.Recoveries++
	}
}

// decayAlpha is one alpha timer expiry: alpha = (1-g)alpha, rounded up. The
// timer stops once a further decay would not change alpha (alpha < 2^GShift).
func (rp *ReactionPoint) decayAlpha() {
	g := uint(rp.cfg.GShift)
	rp.alpha -= rp.alpha >> g
	rp.n.AlphaDecays++
	rp.alphaAt, rp.alphaArmed = addCycles(rp.alphaAt, rp.cfg.AlphaPeriod)
	if rp.alpha>>g == 0 {
		rp.alphaArmed = false
	}
}

// addCycles returns at+period and whether the timer stays armed: a deadline
// past the end of the 64-bit cycle count can never fire, so it disarms.
func addCycles(at, period uint64) (uint64, bool) {
	if at > math.MaxUint64-period {
		return 0, false
	}
	return at + period, true
}
