package dcqcn

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// MaxGShift is the largest valid Config.GShift: with alpha in Q16, 1.0>>GShift
// (the gain g as an alpha increment) is zero beyond it.
const MaxGShift = 16

// Config holds the DCQCN reaction-point parameters shared by every QP of a
// NIC. Times are in clock cycles and rates in Rate units, so the RTL can take
// the same numbers as register values. Use DefaultConfig for the paper's
// values and Validate before handing a Config to ReactionPoint.Reset.
type Config struct {
	// LineRate is the port rate: the rate of a QP that has seen no CNP, and
	// the cap of every increase.
	LineRate Rate
	// MinRate is the floor of a rate cut.
	MinRate Rate
	// GShift sets the alpha gain g = 2^-GShift (paper: g = 1/256, GShift 8).
	GShift uint8
	// AlphaPeriod is the alpha timer period K in cycles: alpha decays once
	// per AlphaPeriod cycles without a CNP (paper: 55 us).
	AlphaPeriod uint64
	// IncreasePeriod is the rate-increase timer period T in cycles (paper:
	// 55 us).
	IncreasePeriod uint64
	// ByteCounter is B, the bytes sent per byte-counter increase event
	// (paper: 10 MB). 0 turns the byte counter off.
	ByteCounter uint64
	// FastRecoverySteps is F, the number of fast-recovery increase events of
	// each kind before additive increase (paper: 5).
	FastRecoverySteps uint32
	// AdditiveStep is R_AI, the target-rate step of additive increase.
	AdditiveStep Rate
	// HyperStep is R_HAI, the target-rate step unit of hyper increase.
	HyperStep Rate
}

// Parameter sources for DefaultConfig (values only; nothing else is taken
// from them):
//
//   - DCQCN paper: Zhu et al., "Congestion Control for Large-Scale RDMA
//     Deployments", SIGCOMM 2015: g = 1/256, alpha timer K = 55 us, rate
//     increase timer T = 55 us, byte counter B = 10 MB, F = 5, R_AI = 40 Mb/s.
//   - The paper authors' ns-3 simulator (github.com/bobzhuyb/ns3-rdma,
//     mix/config.txt): DCTCP_GAIN 1/256, ALPHA_RESUME_INTERVAL 55 (us),
//     FAST_RECOVERY_TIMES 5, RATE_AI 40Mb/s, RATE_HAI 200Mb/s and
//     CNP_INTERVAL 50 (us). Its sample config tunes the increase timer
//     (RP_TIMER 60) and byte counter (BYTE_COUNTER 300000) differently from
//     the paper; DefaultConfig keeps the paper's.
//   - The HPCC ns-3 simulator (github.com/alibaba-edu/High-Precision-
//     Congestion-Control, simulation/src/point-to-point/model/rdma-hw.cc):
//     MinRate 100Mb/s, the minimum rate of a throttled flow.
const (
	defaultGShift            = 8           // g = 1/256
	defaultAlphaPeriodNs     = 55_000      // K = 55 us
	defaultIncreasePeriodNs  = 55_000      // T = 55 us
	defaultByteCounter       = 10_000_000  // B = 10 MB (decimal megabytes)
	defaultFastRecoverySteps = 5           // F
	defaultAdditiveBps       = 40_000_000  // R_AI = 40 Mb/s
	defaultHyperBps          = 200_000_000 // R_HAI = 200 Mb/s
	defaultMinRateBps        = 100_000_000 // 100 Mb/s
	defaultCNPIntervalNs     = 50_000      // N = 50 us
)

// DefaultConfig returns the paper's parameters (see the sources above) for
// a port of lineBitsPerSecond at a clock of clockHz:
//
//	LineRate          RateFromBitsPerSecond(lineBitsPerSecond, clockHz)
//	MinRate           100 Mb/s, at most LineRate
//	GShift            8 (g = 1/256)
//	AlphaPeriod       55 us in cycles
//	IncreasePeriod    55 us in cycles
//	ByteCounter       10,000,000 bytes
//	FastRecoverySteps 5
//	AdditiveStep      40 Mb/s
//	HyperStep         200 Mb/s
//
// Rates round down (RateFromBitsPerSecond); periods round up to whole
// cycles, at least 1. MinRate and AdditiveStep are at least 1 so that a
// slow clock or a tiny line rate still gives a Config that validates when
// LineRate is not zero. At 100 Gb/s and 250 MHz: LineRate 3276800 (50
// B/cycle), MinRate 3276, AdditiveStep 1310, HyperStep 6553, both periods
// 13750 cycles.
func DefaultConfig(lineBitsPerSecond, clockHz uint64) Config {
	line := RateFromBitsPerSecond(lineBitsPerSecond, clockHz)
	return Config{
		LineRate:          line,
		MinRate:           min(max(RateFromBitsPerSecond(defaultMinRateBps, clockHz), 1), max(line, 1)),
		GShift:            defaultGShift,
		AlphaPeriod:       cyclesFromNanoseconds(defaultAlphaPeriodNs, clockHz),
		IncreasePeriod:    cyclesFromNanoseconds(defaultIncreasePeriodNs, clockHz),
		ByteCounter:       defaultByteCounter,
		FastRecoverySteps: defaultFastRecoverySteps,
		AdditiveStep:      max(RateFromBitsPerSecond(defaultAdditiveBps, clockHz), 1),
		HyperStep:         RateFromBitsPerSecond(defaultHyperBps, clockHz),
	}
}

// DefaultCNPInterval returns the notification point's CNP interval of the
// paper authors' simulator, 50 us, in cycles at clockHz (rounded up, at
// least 1): the interval argument of NotificationPoint.Allow.
func DefaultCNPInterval(clockHz uint64) uint64 {
	return cyclesFromNanoseconds(defaultCNPIntervalNs, clockHz)
}

// cyclesFromNanoseconds is ceil(ns * clockHz / 1e9), at least 1, saturating.
func cyclesFromNanoseconds(ns, clockHz uint64) uint64 {
	const nsPerSecond = 1_000_000_000
	hi, lo := bits.Mul64(ns, clockHz)
	if hi >= nsPerSecond {
		return math.MaxUint64
	}
	q, rem := bits.Div64(hi, lo, nsPerSecond)
	if rem != 0 && q < math.MaxUint64 {
		q++
	}
	return max(q, 1)
}

// Validate reports every parameter that breaks the model's guarantees, or
// nil. It requires LineRate > 0, 0 < MinRate <= LineRate (so the rate stays
// in [MinRate, LineRate] and Rate.Cycles stays finite), GShift <= MaxGShift,
// AlphaPeriod > 0 and IncreasePeriod > 0 (a zero period would fire forever
// in one cycle) and AdditiveStep > 0 (so recovery always reaches LineRate
// and the QP goes idle). ByteCounter 0 (byte counter off), FastRecoverySteps
// 0 and HyperStep 0 are allowed.
func (c *Config) Validate() error {
	var errs []error
	if c.LineRate == 0 {
		errs = append(errs, errors.New("dcqcn: LineRate must be > 0"))
	}
	if c.MinRate == 0 {
		errs = append(errs, errors.New("dcqcn: MinRate must be > 0"))
	}
	if c.MinRate > c.LineRate {
		errs = append(errs, fmt.Errorf("dcqcn: MinRate %d exceeds LineRate %d", c.MinRate, c.LineRate))
	}
	if c.GShift > MaxGShift {
		errs = append(errs, fmt.Errorf("dcqcn: GShift %d exceeds %d", c.GShift, MaxGShift))
	}
	if c.AlphaPeriod == 0 {
		errs = append(errs, errors.New("dcqcn: AlphaPeriod must be > 0"))
	}
	if c.IncreasePeriod == 0 {
		errs = append(errs, errors.New("dcqcn: IncreasePeriod must be > 0"))
	}
	if c.AdditiveStep == 0 {
		errs = append(errs, errors.New("dcqcn: AdditiveStep must be > 0"))
	}
	return errors.Join(errs...)
}
