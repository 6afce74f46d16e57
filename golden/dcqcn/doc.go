// Package dcqcn is the golden model of DCQCN congestion control (Zhu et al.,
// "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015) for
// the RoCEv2 NIC: integer-only, driven by clock cycles, deterministic, so
// that the Go RC transport model and the RTL can follow it exactly. It uses
// only the standard library.
//
// # Roles
//
// A ReactionPoint (RP) is the per-QP state at the sender. The requester
// calls
//
//   - OnCNP(now) when a CNP for the QP arrives,
//   - OnSent(bytes, now) for every packet it sends on the QP,
//   - Advance(now) to fire timers (NextEvent tells when the next one is due),
//
// and paces the QP at Rate(): a packet of n bytes is followed by the next
// one Rate().Cycles(n) cycles later. Outputs: Rate (Rc), Target (Rt),
// Alpha, IncreaseCounts (T, BC), Active, NextEvent and Counters.
//
// A NotificationPoint (NP) is the per-QP state at the receiver. The
// responder calls Allow(now, interval) for every CE-marked packet of the QP
// and sends a CNP (IBA annex A17.9) only when it returns true.
//
// Config holds the parameters, shared by all QPs; DefaultConfig gives the
// paper's values (sources in config.go) and Validate checks a Config.
//
// # Fixed point
//
// Rate is bytes per cycle in unsigned Q16.16 (RateOne = 65536 = 1 byte per
// cycle), held in 32 bits; conversions from and to bits per second round
// toward zero, Rate.Cycles rounds up (TestRateConversion). Alpha is unsigned
// Q16 in 0..AlphaOne (65536 = 1.0), held in 17 bits. The gain is g =
// 2^-GShift, so multiplying by g is a right shift. Rc*alpha fits in 48
// bits; (min(T,BC)-F)*R_HAI may need 64, but only its sum with Rt capped at
// LineRate matters, so hardware may saturate it there. T and BC saturate at
// 2^32-1.
//
// # Rules
//
// Each rule names the test that pins it; TestRules is a table of scripts
// whose expected values were worked out by hand.
//
// Reset: Rc = Rt = LineRate, alpha = 1.0, T = BC = 0, nothing armed. A QP
// that never gets a CNP is never active and has no timer event at all
// (TestRules/no-congestion).
//
// CNP, in this order (TestRules/cnp-cut, repeated-cnps):
//
//	alpha = alpha - alpha>>GShift + AlphaOne>>GShift   // (1-g)alpha + g
//	Rt    = Rc
//	Rc    = Rc - (Rc*alpha)>>17                        // Rc(1 - alpha/2)
//	Rc    = max(Rc, MinRate)                           // TestRules/min-rate-floor
//
// The cut uses the alpha just updated (with alpha at 1.0, as on a first CNP,
// either order gives half the rate). The cut amount rounds down, so Rc
// rounds up. Then T, BC and the byte counter restart from 0, the alpha timer
// restarts at now+AlphaPeriod and, if Rc < LineRate, the increase timer at
// now+IncreasePeriod.
//
// Alpha timer: each expiry, AlphaPeriod cycles after the CNP or the previous
// expiry, sets alpha = alpha - alpha>>GShift (TestRules/alpha-decay). Once
// alpha < 2^GShift a decay no longer changes it and the timer stops
// (TestRules/alpha-floor); alpha then keeps that value until the next CNP.
//
// Increase events come from the increase timer (every IncreasePeriod
// cycles, counted in T) and from the byte counter (every ByteCounter bytes
// passed to OnSent, counted in BC; TestRules/byte-counter). Each one looks
// at T and BC as they were before it, so exactly F events of either kind
// after a CNP are fast recovery (TestRules/fast-recovery-then-additive,
// hyper-increase):
//
//	max(T, BC) < F:        fast recovery   Rc = ceil((Rc+Rt)/2)
//	T > F and BC > F:      hyper increase  Rt += (min(T,BC)-F)*R_HAI; Rc = ceil((Rc+Rt)/2)
//	otherwise:             additive        Rt += R_AI;                Rc = ceil((Rc+Rt)/2)
//
// Rt is capped at LineRate before the average, so Rc <= Rt <= LineRate
// always holds. The average rounds up, (Rc+Rt+1)>>1: rounded down it would
// stall one unit below Rt and the QP would never go idle.
//
// Going idle: the event that brings Rc to LineRate stops the increase timer
// and the byte counter (bytes left in that OnSent call are dropped); sends
// are then ignored (TestRules/cap-and-idle, recovered-by-bytes). Active()
// is true while the rate is recovering or alpha is still decaying; when it
// is false nothing is armed, Rate() == LineRate, and only a CNP changes the
// state again. So a NIC without congestion sees no DCQCN timer events, and
// one that recovered sees none after alpha settles.
//
// Time: timers are periodic from the cycle they were armed; Advance(now)
// fires every deadline <= now in cycle order, so one late call equals one
// call per cycle (TestAdvanceCatchUp). When both timers expire in the same
// cycle the alpha timer fires before the increase timer (TestRules/
// timer-tie); they touch disjoint state, so this fixes the order of events
// only. OnCNP and OnSent first Advance to their cycle, so a timer due in the
// cycle of a CNP or send fires before it (TestRules/cnp-at-deadline,
// sent-at-deadline). now must not decrease. A deadline beyond 2^64-1 cycles
// disarms its timer (TestDeadlineOverflow).
//
// Notification point: Allow returns true for the first CE packet of a QP and
// then when now - last >= interval, where last is the cycle of the last
// allowed CNP; suppressed packets do not move last (TestNotificationPoint,
// ExampleNotificationPoint).
//
// # Checks
//
// TestAgainstReference runs thousands of random seeded input sequences
// through this model and a slow reference that steps one cycle at a time
// with count-down timers and exact rational arithmetic, comparing the whole
// state after every input. TestGoldenTrace pins a closed-loop flow with the
// default parameters in testdata/default-100g-250mhz.trace (regenerate with
// -update); TestDeterminism and TestZeroAllocs show reruns are identical and
// OnCNP, OnSent, Advance and Allow allocate nothing. FuzzReactionPoint
// checks that any Config and input sequence neither panics nor hangs, and
// that a valid Config keeps MinRate <= Rate <= Target <= LineRate.
package dcqcn
