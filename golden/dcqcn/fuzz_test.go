package dcqcn_test

import (
	"encoding/binary"
	"testing"

	"github.com/rocesim/cosim/golden/dcqcn"
)

// fuzzHeader is the number of leading bytes that make the Config and the NP
// interval; every further 4 bytes are one input.
const fuzzHeader = 26

// fuzzConfig decodes the header (zero-padded if short): LineRate, MinRate
// (uint32 LE), GShift, AlphaPeriod, IncreasePeriod, ByteCounter (uint16 LE),
// FastRecoverySteps, AdditiveStep, HyperStep (uint32 LE), NP interval
// (uint16 LE). Periods up to 65535 cycles keep every input cheap.
func fuzzConfig(data []byte) (dcqcn.Config, uint64, []byte) {
	var h [fuzzHeader]byte
	n := copy(h[:], data)
	le := binary.LittleEndian
	cfg := dcqcn.Config{
		LineRate:          dcqcn.Rate(le.Uint32(h[0:])),
		MinRate:           dcqcn.Rate(le.Uint32(h[4:])),
		GShift:            h[8],
		AlphaPeriod:       uint64(le.Uint16(h[9:])),
		IncreasePeriod:    uint64(le.Uint16(h[11:])),
		ByteCounter:       uint64(le.Uint16(h[13:])),
		FastRecoverySteps: uint32(h[15]),
		AdditiveStep:      dcqcn.Rate(le.Uint32(h[16:])),
		HyperStep:         dcqcn.Rate(le.Uint32(h[20:])),
	}
	return cfg, uint64(le.Uint16(h[24:])), data[n:]
}

// FuzzReactionPoint drives a ReactionPoint and a NotificationPoint with an
// arbitrary Config and input sequence. Any Config must not panic or hang; a
// valid one must keep every invariant the package documents after every
// input.
func FuzzReactionPoint(f *testing.F) {
	def := []byte{
		0x00, 0x00, 0x40, 0x00, // LineRate 64 B/cycle
		0x00, 0x00, 0x01, 0x00, // MinRate 1 B/cycle
		8,      // GShift
		100, 0, // AlphaPeriod
		100, 0, // IncreasePeriod
		0xe8, 0x03, // ByteCounter 1000
		5,                      // F
		0x00, 0x00, 0x01, 0x00, // R_AI 1 B/cycle
		0x00, 0x00, 0x04, 0x00, // R_HAI 4 B/cycle
		50, 0, // NP interval
	}
	f.Add(def)
	f.Add(append(append([]byte{}, def...), 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 200, 2, 100, 0, 0, 3, 10, 0, 0))
	f.Add(append(append([]byte{}, def...), 0, 1, 0, 0, 0x1d, 5, 0, 255, 2, 0xff, 0xff, 0, 0, 0, 0, 0))
	f.Add([]byte{1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0})

	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, interval, ops := fuzzConfig(data)
		valid := cfg.Validate() == nil
		var rp dcqcn.ReactionPoint
		var np dcqcn.NotificationPoint
		rp.Reset(&cfg)
		now, rpNow := uint64(0), uint64(0) // rpNow: cycle of the last ReactionPoint call
		for i := 0; i+4 <= len(ops) && i < 4*256; i += 4 {
			b0, b3 := ops[i], ops[i+3]
			now += uint64(binary.LittleEndian.Uint16(ops[i+1:]))
			switch b0 & 3 {
			case 0:
				rp.OnCNP(now)
				rpNow = now
			case 1:
				n := int(b3) << (b0 >> 2 & 7)
				if b0&0x80 != 0 {
					n = -n
				}
				rp.OnSent(n, now)
				rpNow = now
			case 2:
				rp.Advance(now)
				rpNow = now
			case 3:
				if np.Allow(now, interval) {
					if last, ok := np.Last(); !ok || last != now {
						t.Fatalf("Allow at %d returned true but Last() = %d, %v", now, last, ok)
					}
				}
			}
			if valid {
				checkInvariants(t, &cfg, &rp, rpNow)
			}
			if n := np.Counters(); n.CNPsAllowed+n.CNPsSuppressed != n.CEPackets {
				t.Fatalf("NP counters do not add up: %+v", n)
			}
		}
	})
}

func checkInvariants(t *testing.T, cfg *dcqcn.Config, rp *dcqcn.ReactionPoint, now uint64) {
	t.Helper()
	s := snapOf(rp)
	switch {
	case s.rate < cfg.MinRate || s.rate > s.target || s.target > cfg.LineRate:
		t.Fatalf("at %d want MinRate %d <= Rc <= Rt <= LineRate %d: %v", now, cfg.MinRate, cfg.LineRate, s)
	case s.alpha > dcqcn.AlphaOne:
		t.Fatalf("at %d alpha above 1.0: %v", now, s)
	case s.active != s.nextOK:
		t.Fatalf("at %d Active() disagrees with NextEvent(): %v", now, s)
	case !s.active && s.rate != cfg.LineRate:
		t.Fatalf("at %d idle below line rate: %v", now, s)
	case s.nextOK && s.next <= now:
		t.Fatalf("at %d a timer is due but did not fire: %v", now, s)
	}
	n := rp.Counters()
	if n.FastRecovery+n.Additive+n.Hyper != n.TimerEvents+n.ByteEvents || n.Cuts > n.CNPs || n.MinRateClamps > n.CNPs {
		t.Fatalf("counters do not add up: %+v", n)
	}
}
