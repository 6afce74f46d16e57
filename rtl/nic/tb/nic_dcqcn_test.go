//go:build unix

package tb_test

// The NIC's DCQCN reaction point (rtl/nic/nic_dcqcn_rp.sv) through its test
// top sim/tops/nic_dcqcn_top.sv, against golden/dcqcn's ReactionPoint
// driven as golden/rc's qp drives it (qp.advance, Node.Receive's OnCNP,
// qp.sentPaced, and the paced/held rule of qp.poll), cycle by cycle.
//
// Each sequence loads a configuration and resets the QP (reset_rp), then
// sends random events: CNPs, sent packets of random sizes, both in one
// cycle, plain looks, an occasional reset, at random gaps, back to back, or
// exactly at the next timer deadline. The top reports every cycle with an
// event or a timer tick; the golden side makes the same reports (a tick is
// a cycle in which Advance counted an alpha decay or a timer increase
// event), and the two lists must match field by field: paced, hold, the
// ticks, active, rate, target, alpha, T, BC, Rate().Cycles(bytes) and
// NextEvent. So every timer fires in the golden cycle, no report is missing
// and none is extra. The top also runs a SENT_LATE = 1 instance, its sent
// one cycle late, and stops with an $error (a failed Step here) in any
// cycle where it disagrees with the reported instance.
//
// Seed: NIC_DCQCN_SEED (default 1), printed. NIC_DCQCN_MODEL runs another
// build of the top instead of build/models/nic_dcqcn_64. -short runs about
// a tenth of the sequences.

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/cosim/modeltest"
	"github.com/rocesim/cosim/golden/dcqcn"
	"github.com/rocesim/cosim/golden/rc"
)

const (
	// ndBCEvents is nic_dcqcn_64's BC_EVENTS: one sent makes at most this
	// many byte-counter events, so sent bytes <= ndBCEvents * ByteCounter.
	ndBCEvents = 4
	// ndMaxBytes is the largest sent_bytes (BYTES_WIDTH 16).
	ndMaxBytes = 65535
	// ndCfgBeats is the beats of a configuration frame: nine fields and
	// the event.
	ndCfgBeats = 10
)

// Report flag bits (nic_dcqcn_top's out0 bits 48 and up).
const (
	ndFPaced = 1 << iota
	ndFHold
	ndFAlphaTick
	ndFIncTick
	ndFActive
	ndFTimerValid
	ndFReset
	ndFCNP
	ndFSent
	ndFEvent
)

var ndFlagNames = []string{"paced", "hold", "alpha_tick", "inc_tick", "active", "timer_valid",
	"reset", "cnp", "sent", "event"}

// ndEvent is one event record: it acts in cycle `cycle`; cfg, when set, is
// loaded in the same cycle (the configuration frame).
type ndEvent struct {
	cycle            uint64
	reset, cnp, sent bool
	bytes            uint16
	cfg              *dcqcn.Config
}

func (e ndEvent) String() string {
	var s []string
	if e.cfg != nil {
		s = append(s, "config")
	}
	if e.reset {
		s = append(s, "reset")
	}
	if e.cnp {
		s = append(s, "cnp")
	}
	if e.sent {
		s = append(s, "sent")
	}
	return fmt.Sprintf("%d: %s bytes=%d", e.cycle, strings.Join(s, "+"), e.bytes)
}

// ndReport is one report of the top (or of the golden side).
type ndReport struct {
	cycle           uint64
	flags           uint16
	rate, target    uint32
	t, bc, alpha    uint32
	cycles, timerIn uint32
	bytes           uint16
}

func (r ndReport) String() string {
	var f []string
	for i, n := range ndFlagNames {
		if r.flags&(1<<i) != 0 {
			f = append(f, n)
		}
	}
	return fmt.Sprintf("cycle %d [%s] rate=%d target=%d alpha=%d T=%d BC=%d cycles(%d)=%d timer_in=%d",
		r.cycle, strings.Join(f, " "), r.rate, r.target, r.alpha, r.t, r.bc, r.bytes, r.cycles, r.timerIn)
}

// ndDecode makes a report from the five one-beat frames of one cycle.
func ndDecode(w [5][]byte) ndReport {
	u := func(k int) uint64 { return binary.LittleEndian.Uint64(w[k]) }
	w0, w1, w2, w3, w4 := u(0), u(1), u(2), u(3), u(4)
	return ndReport{
		cycle: w0 & (1<<48 - 1), flags: uint16(w0 >> 48),
		rate: uint32(w1), target: uint32(w1 >> 32),
		t: uint32(w2), bc: uint32(w2 >> 32),
		alpha: uint32(w3), cycles: uint32(w3 >> 32),
		timerIn: uint32(w4), bytes: uint16(w4 >> 32),
	}
}

// ndGolden is the reaction point of one QP as golden/rc drives it.
type ndGolden struct {
	cfg      dcqcn.Config
	rp       dcqcn.ReactionPoint
	nextSend uint64
	out      []ndReport
	// byteEvents[n] counts the sends that made n byte-counter events.
	byteEvents [ndBCEvents + 1]int
}

// ticksBefore makes the reports of every timer tick before cycle end.
func (g *ndGolden) ticksBefore(end uint64) {
	for {
		c, ok := g.rp.NextEvent()
		if !ok || c >= end {
			return
		}
		g.step(c, nil)
	}
}

// step is cycle c: reset, timers, CNP, the paced/held decision, sent
// (rtl/nic/nic_dcqcn_rp.sv's order, golden/rc's calls).
func (g *ndGolden) step(c uint64, ev *ndEvent) {
	r := ndReport{cycle: c}
	if ev != nil {
		r.flags |= ndFEvent
		if ev.cfg != nil {
			g.cfg = *ev.cfg
		}
		if ev.reset {
			r.flags |= ndFReset
			g.rp.Reset(&g.cfg)
			g.nextSend = 0
		}
	}
	before := g.rp.Counters()
	g.rp.Advance(c)
	after := g.rp.Counters()
	da, di := after.AlphaDecays-before.AlphaDecays, after.TimerEvents-before.TimerEvents
	if da > 1 || di > 1 {
		panic(fmt.Sprintf("cycle %d: %d alpha decays, %d timer events", c, da, di))
	}
	if da == 1 {
		r.flags |= ndFAlphaTick
	}
	if di == 1 {
		r.flags |= ndFIncTick
	}
	line := g.cfg.LineRate
	if ev != nil && ev.cnp {
		r.flags |= ndFCNP
		if line != 0 {
			g.rp.OnCNP(c)
		}
	}
	paced := line != 0 && g.rp.Rate() < line
	if paced {
		r.flags |= ndFPaced
		if c < g.nextSend {
			r.flags |= ndFHold
		}
	}
	if ev != nil {
		r.bytes = ev.bytes
		if ev.sent {
			r.flags |= ndFSent
			be := g.rp.Counters().ByteEvents
			g.rp.OnSent(int(ev.bytes), c)
			if n := g.rp.Counters().ByteEvents - be; n > ndBCEvents {
				panic(fmt.Sprintf("cycle %d: %d byte-counter events in one sent", c, n))
			} else {
				g.byteEvents[n]++
			}
			if paced {
				g.nextSend = c + g.rp.Rate().Cycles(int(ev.bytes))
			} else {
				g.nextSend = c
			}
		}
	}
	cyc := g.rp.Rate().Cycles(int(r.bytes))
	if cyc > math.MaxUint32 {
		panic(fmt.Sprintf("cycle %d: Cycles(%d) = %d at rate %d", c, r.bytes, cyc, g.rp.Rate()))
	}
	r.cycles = uint32(cyc)
	r.rate, r.target, r.alpha = uint32(g.rp.Rate()), uint32(g.rp.Target()), g.rp.Alpha()
	r.t, r.bc = g.rp.IncreaseCounts()
	if g.rp.Active() {
		r.flags |= ndFActive
	}
	if next, ok := g.rp.NextEvent(); ok {
		r.flags |= ndFTimerValid
		r.timerIn = uint32(next - c)
	}
	g.out = append(g.out, r)
}

func ndCfgString(c *dcqcn.Config) string {
	return fmt.Sprintf("LINE_RATE %d MIN_RATE %d G_SHIFT %d ALPHA_PERIOD %d INCREASE_PERIOD %d BYTE_COUNTER %d F %d R_AI %d R_HAI %d",
		c.LineRate, c.MinRate, c.GShift, c.AlphaPeriod, c.IncreasePeriod, c.ByteCounter, c.FastRecoverySteps,
		c.AdditiveStep, c.HyperStep)
}

// ndMaxSent is the most bytes one sent may carry under cfg (module header
// "Limits").
func ndMaxSent(cfg *dcqcn.Config) int {
	if cfg.ByteCounter == 0 {
		return ndMaxBytes
	}
	return int(min(ndMaxBytes, ndBCEvents*cfg.ByteCounter))
}

// ndCheckConfig panics unless cfg is valid and fits the RTL's limits.
func ndCheckConfig(name string, cfg *dcqcn.Config) {
	if err := cfg.Validate(); err != nil {
		panic(fmt.Sprintf("config %s: %v", name, err))
	}
	if cfg.AlphaPeriod > math.MaxUint32 || cfg.IncreasePeriod > math.MaxUint32 || cfg.ByteCounter > math.MaxUint32 {
		panic(fmt.Sprintf("config %s: a period or the byte counter above 32 bits", name))
	}
	if cfg.ByteCounter != 0 && ndBCEvents*cfg.ByteCounter < rc.MaxFrameLen {
		panic(fmt.Sprintf("config %s: ByteCounter %d below the limit for rc.MaxFrameLen", name, cfg.ByteCounter))
	}
}

// ndLog returns a random value in [lo, hi], about uniform in its number of
// bits.
func ndLog(rng *rand.Rand, lo, hi uint64) uint64 {
	b := 1 + rng.IntN(bits.Len64(hi))
	v := rng.Uint64() & (1<<b - 1)
	if b == 64 {
		v = rng.Uint64()
	}
	return min(max(v, lo), hi)
}

// ndMinBC is the smallest ByteCounter the RTL takes for rc's frames.
const ndMinBC = (rc.MaxFrameLen + ndBCEvents - 1) / ndBCEvents

type ndConfig struct {
	name string
	cfg  dcqcn.Config
	seqs int // sequences to run
}

// ndConfigs: the defaults at three line rates, the hand-worked test
// config, extremes, then random ones.
func ndConfigs(rng *rand.Rand, random int) []ndConfig {
	round := dcqcn.Config{LineRate: 64 * dcqcn.RateOne, MinRate: dcqcn.RateOne, GShift: 8, AlphaPeriod: 100,
		IncreasePeriod: 100, ByteCounter: 1100, FastRecoverySteps: 5, AdditiveStep: dcqcn.RateOne,
		HyperStep: 4 * dcqcn.RateOne}
	cs := []ndConfig{
		{"default-100g-250mhz", dcqcn.DefaultConfig(100_000_000_000, 250_000_000), 60},
		{"default-25g-156mhz", dcqcn.DefaultConfig(25_000_000_000, 156_250_000), 30},
		{"default-400g-1ghz", dcqcn.DefaultConfig(400_000_000_000, 1_000_000_000), 30},
		{"round-64B", round, 200},
		{"fast-timers", dcqcn.Config{LineRate: 50 * dcqcn.RateOne, MinRate: 1, GShift: 4, AlphaPeriod: 1,
			IncreasePeriod: 2, ByteCounter: ndMinBC, FastRecoverySteps: 0, AdditiveStep: dcqcn.RateOne / 3,
			HyperStep: dcqcn.RateOne}, 150},
		{"max-line", dcqcn.Config{LineRate: dcqcn.MaxRate, MinRate: 1, GShift: 0, AlphaPeriod: 3,
			IncreasePeriod: 5, ByteCounter: ndMinBC, FastRecoverySteps: 0, AdditiveStep: 1,
			HyperStep: math.MaxUint32}, 100},
		{"max-line-g1", dcqcn.Config{LineRate: dcqcn.MaxRate, MinRate: dcqcn.MaxRate / 3, GShift: 1, AlphaPeriod: 7,
			IncreasePeriod: 3, ByteCounter: math.MaxUint32, FastRecoverySteps: 2, AdditiveStep: math.MaxUint32,
			HyperStep: 0}, 100},
		{"g16-f-huge", dcqcn.Config{LineRate: 1000 * dcqcn.RateOne, MinRate: 500 * dcqcn.RateOne, GShift: 16,
			AlphaPeriod: 50, IncreasePeriod: 40, ByteCounter: 0, FastRecoverySteps: math.MaxUint32,
			AdditiveStep: 1000 * dcqcn.RateOne, HyperStep: 1}, 100},
		{"line-2", dcqcn.Config{LineRate: 2, MinRate: 1, GShift: 8, AlphaPeriod: 10, IncreasePeriod: 10,
			ByteCounter: ndMinBC, FastRecoverySteps: 5, AdditiveStep: 1, HyperStep: 1}, 60},
		{"line-1", dcqcn.Config{LineRate: 1, MinRate: 1, GShift: 3, AlphaPeriod: 2, IncreasePeriod: 1,
			ByteCounter: 0, FastRecoverySteps: 1, AdditiveStep: 1, HyperStep: 1}, 40},
		{"min-rate-floor", dcqcn.Config{LineRate: 100 * dcqcn.RateOne, MinRate: 90 * dcqcn.RateOne, GShift: 2,
			AlphaPeriod: 20, IncreasePeriod: 1000, ByteCounter: 5000, FastRecoverySteps: 3,
			AdditiveStep: dcqcn.RateOne, HyperStep: dcqcn.RateOne}, 60},
		{"hyper-bytes", dcqcn.Config{LineRate: 200 * dcqcn.RateOne, MinRate: 1, GShift: 6, AlphaPeriod: 300,
			IncreasePeriod: 40, ByteCounter: ndMinBC, FastRecoverySteps: 1, AdditiveStep: 7,
			HyperStep: 3 * dcqcn.RateOne}, 150},
		{"long-periods", dcqcn.Config{LineRate: 50 * dcqcn.RateOne, MinRate: 1, GShift: 8,
			AlphaPeriod: math.MaxUint32, IncreasePeriod: math.MaxUint32 - 1, ByteCounter: ndMinBC,
			FastRecoverySteps: 5, AdditiveStep: dcqcn.RateOne, HyperStep: dcqcn.RateOne}, 60},
	}
	for i := range random {
		var c dcqcn.Config
		c.LineRate = dcqcn.Rate(ndLog(rng, 1, math.MaxUint32))
		switch rng.IntN(4) {
		case 0:
			c.MinRate = 1
		case 1:
			c.MinRate = c.LineRate
		default:
			c.MinRate = dcqcn.Rate(ndLog(rng, 1, uint64(c.LineRate)))
		}
		c.GShift = uint8(rng.IntN(dcqcn.MaxGShift + 1))
		c.AlphaPeriod = ndLog(rng, 1, 3000)
		c.IncreasePeriod = ndLog(rng, 1, 3000)
		if rng.IntN(8) == 0 {
			c.AlphaPeriod = ndLog(rng, 1, math.MaxUint32)
		}
		if rng.IntN(8) == 0 {
			c.IncreasePeriod = ndLog(rng, 1, math.MaxUint32)
		}
		if rng.IntN(5) > 0 {
			c.ByteCounter = ndLog(rng, ndMinBC, max(ndMinBC, min(math.MaxUint32, uint64(1)<<rng.IntN(33))))
		}
		c.FastRecoverySteps = uint32(rng.IntN(8))
		if rng.IntN(8) == 0 {
			c.FastRecoverySteps = uint32(ndLog(rng, 0, math.MaxUint32))
		}
		c.AdditiveStep = dcqcn.Rate(ndLog(rng, 1, math.MaxUint32))
		c.HyperStep = dcqcn.Rate(ndLog(rng, 0, math.MaxUint32))
		cs = append(cs, ndConfig{fmt.Sprintf("random-%d", i), c, 40})
	}
	for i := range cs {
		ndCheckConfig(cs[i].name, &cs[i].cfg)
	}
	return cs
}

// ndSeq makes the events of one sequence, loading cfg at cycle start, and
// steps the golden side through them (ticks included). It returns the
// events; the cycle of the last one is the sequence's end.
func ndSeq(rng *rand.Rand, g *ndGolden, cfg *dcqcn.Config, start uint64) []ndEvent {
	scale := max(1, min(cfg.AlphaPeriod, cfg.IncreasePeriod, 20_000))
	if rng.IntN(4) == 0 {
		scale = max(1, min(max(cfg.AlphaPeriod, cfg.IncreasePeriod), 20_000))
	}
	pCNP := []int{2, 10, 30, 60}[rng.IntN(4)]
	pSent := []int{20, 50, 90}[rng.IntN(3)]
	maxSent := ndMaxSent(cfg)
	bytes := func() uint16 {
		switch r := rng.IntN(20); {
		case r < 2:
			return uint16(min(rng.IntN(64), maxSent))
		case r < 15:
			return uint16(min(64+rng.IntN(rc.MaxFrameLen-63), maxSent))
		case r < 17:
			return uint16(min(rc.MaxFrameLen, maxSent))
		case r < 19:
			return uint16(1 + rng.IntN(maxSent))
		default:
			return uint16(maxSent)
		}
	}
	event := func(c uint64) ndEvent {
		ev := ndEvent{cycle: c, cnp: rng.IntN(100) < pCNP, sent: rng.IntN(100) < pSent, bytes: bytes()}
		ev.reset = rng.IntN(200) == 0
		return ev
	}

	g.ticksBefore(start)
	first := event(start)
	first.reset, first.cfg = true, cfg
	evs := []ndEvent{first}
	g.step(start, &evs[0])
	c := start
	n := 5 + rng.IntN(60)
	for range n {
		var gap uint64
		switch r := rng.IntN(20); {
		case r < 5:
			gap = 1
		case r < 10:
			gap = 1 + rng.Uint64N(8)
		case r < 15:
			gap = 1 + rng.Uint64N(scale)
		case r < 17:
			gap = 1 + rng.Uint64N(4*scale)
		default:
			// at (or next to) the next timer deadline
			if next, ok := g.rp.NextEvent(); ok && next-c <= 8*scale {
				gap = next - c
				if d := rng.IntN(3); d == 0 && gap > 1 {
					gap--
				} else if d == 1 {
					gap++
				}
			} else {
				gap = 1 + rng.Uint64N(scale)
			}
		}
		c += gap
		g.ticksBefore(c)
		evs = append(evs, event(c))
		g.step(c, &evs[len(evs)-1])
	}
	return evs
}

// ndFrame encodes ev as its in0 frame (config records first).
func ndFrame(ev *ndEvent) []byte {
	var b []byte
	if ev.cfg != nil {
		c := ev.cfg
		for k, v := range []uint64{uint64(c.LineRate), uint64(c.MinRate), uint64(c.GShift), c.AlphaPeriod,
			c.IncreasePeriod, c.ByteCounter, uint64(c.FastRecoverySteps), uint64(c.AdditiveStep), uint64(c.HyperStep)} {
			b = append(b, 2, byte(k), 0, 0)
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		}
	}
	var fl byte
	if ev.reset {
		fl |= 1
	}
	if ev.cnp {
		fl |= 2
	}
	if ev.sent {
		fl |= 4
	}
	b = append(b, 1, fl)
	b = binary.LittleEndian.AppendUint16(b, ev.bytes)
	return binary.LittleEndian.AppendUint32(b, 0)
}

// ndRig runs the model and compares its reports with the golden ones as
// they come.
type ndRig struct {
	t        *testing.T
	m        *cosim.Model
	rep      cosim.Reply
	want     []ndReport // golden reports not yet matched
	outs     [5][][]byte
	lasts    []uint64 // expected last-beat cycle of each frame sent, not yet accepted
	reports  int
	recent   []ndEvent // the events of the current sequence, for messages
	where    string
	frames   int
	eventCnt map[string]int
}

// run sends evs (in0 frames, each acting at its cycle) and runs the model
// to target, then compares the reports.
func (r *ndRig) run(ctx context.Context, evs []ndEvent, target uint64) {
	r.t.Helper()
	frames := make([]cosim.Frame, len(evs))
	for i := range evs {
		ev := &evs[i]
		beats := uint64(1)
		if ev.cfg != nil {
			beats = ndCfgBeats
		}
		frames[i] = cosim.Frame{Port: 0, Cycle: ev.cycle - beats, Data: ndFrame(ev)}
		r.lasts = append(r.lasts, ev.cycle-1)
	}
	r.frames += len(frames)
	require.NoError(r.t, r.m.StepInto(ctx, cosim.Window{Target: target, Frames: frames}, &r.rep))
	for _, a := range r.rep.Accepts {
		require.NotEmpty(r.t, r.lasts, "an accept for a frame not sent")
		require.Equal(r.t, r.lasts[0], a.LastCycle, "%s: frame %d's last beat (in0 must never wait)", r.where, a.Seq)
		r.lasts = r.lasts[1:]
	}
	for _, f := range r.rep.Frames {
		r.outs[f.Port] = append(r.outs[f.Port], f.Data)
	}
	n := len(r.outs[0])
	for k := 1; k < 5; k++ {
		n = min(n, len(r.outs[k]))
	}
	for i := range n {
		got := ndDecode([5][]byte{r.outs[0][i], r.outs[1][i], r.outs[2][i], r.outs[3][i], r.outs[4][i]})
		if len(r.want) == 0 {
			r.t.Fatalf("%s: report with no golden one: %v", r.where, got)
		}
		want := r.want[0]
		if got != want {
			var ctxEv []string
			for _, ev := range r.recent[max(0, len(r.recent)-12):] {
				ctxEv = append(ctxEv, "  "+ev.String())
			}
			r.t.Fatalf("%s: report %d:\n got %v\nwant %v\nevents of the sequence (last 12):\n%s",
				r.where, r.reports, got, want, strings.Join(ctxEv, "\n"))
		}
		r.want = r.want[1:]
		r.reports++
		for i, name := range ndFlagNames {
			if want.flags&(1<<i) != 0 {
				r.eventCnt[name]++
			}
		}
	}
	for k := range 5 {
		r.outs[k] = r.outs[k][n:]
	}
}

func ndSeed(t *testing.T) uint64 {
	seed := uint64(1)
	if s := os.Getenv("NIC_DCQCN_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 0, 64)
		require.NoError(t, err, "NIC_DCQCN_SEED")
		seed = v
	}
	t.Logf("seed %d (set NIC_DCQCN_SEED to change it)", seed)
	return seed
}

func ndStart(t *testing.T, seed uint64) *cosim.Model {
	const name = "nic_dcqcn_64"
	path := filepath.Join(modeltest.Dir(modeltest.DirEnv), name, "Vnic_dcqcn_top")
	if p := os.Getenv("NIC_DCQCN_MODEL"); p != "" { // another build of the top (a mutant)
		path = p
	}
	modeltest.NeedBinary(t, path)
	ctx := context.Background()
	m, err := cosim.Start(ctx, cosim.Config{Name: name, Path: path,
		Timeouts: cosim.Timeouts{Start: 10 * time.Second, Step: 120 * time.Second, Close: 5 * time.Second}})
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	_, err = m.Handshake(ctx, cosim.HelloAck{Seed: seed})
	require.NoError(t, err)
	return m
}

// TestNICDCQCNRandom: random event sequences over the default, extreme and
// random configurations, every report against golden/dcqcn.
func TestNICDCQCNRandom(t *testing.T) {
	seed := ndSeed(t)
	m := ndStart(t, seed)
	rng := rand.New(rand.NewPCG(seed, 0xDC))
	random := 25
	if testing.Short() {
		random = 5
	}
	cfgs := ndConfigs(rng, random)
	r := &ndRig{t: t, m: m, eventCnt: map[string]int{}}
	g := &ndGolden{}
	ctx := context.Background()
	c := uint64(20)
	seqs, events := 0, 0
	begin := time.Now()
	for _, nc := range cfgs {
		n := nc.seqs
		if testing.Short() {
			n = max(2, n/10)
		}
		for s := range n {
			cfg := nc.cfg
			// Sometimes let the timers run a while before the next load.
			if rng.IntN(5) == 0 {
				if _, ok := g.rp.NextEvent(); ok {
					c += 1 + rng.Uint64N(300_000)
					g.ticksBefore(c)
				}
			}
			start := c + ndCfgBeats + 1 + rng.Uint64N(5)
			evs := ndSeq(rng, g, &cfg, start)
			end := evs[len(evs)-1].cycle
			r.want = append(r.want, g.out...)
			g.out = g.out[:0]
			r.recent = evs
			r.where = fmt.Sprintf("config %s (%s) sequence %d", nc.name, ndCfgString(&cfg), s)
			r.run(ctx, evs, end+1)
			c = end
			seqs++
			events += len(evs)
		}
	}
	// the last reports
	g.ticksBefore(c + 1)
	r.want = append(r.want, g.out...)
	r.run(ctx, nil, c+2)
	require.Empty(t, r.want, "golden reports the model did not make")
	require.Empty(t, r.lasts, "frames not accepted")
	t.Logf("%d configs, %d sequences, %d events, %d reports, %d cycles in %v; reports with: %v; "+
		"sends by byte-counter events made (0..%d): %v",
		len(cfgs), seqs, events, r.reports, m.Cycle(), time.Since(begin).Round(time.Millisecond), r.eventCnt,
		ndBCEvents, g.byteEvents)
}

// TestNICDCQCNPacing walks hold and pace_cycles cycle by cycle around
// every nextSend of packets of several sizes at two paced rates: a send at
// line rate (nextSend = now), a CNP, then each size sent and looked at in
// every cycle until one past its nextSend, a send while held, a second CNP
// and the sizes again.
func TestNICDCQCNPacing(t *testing.T) {
	m := ndStart(t, 1)
	r := &ndRig{t: t, m: m, eventCnt: map[string]int{}, where: "pacing"}
	g := &ndGolden{}
	cfg := dcqcn.Config{LineRate: 64 * dcqcn.RateOne, MinRate: dcqcn.RateOne, GShift: 8, AlphaPeriod: 1_000_000,
		IncreasePeriod: 1_000_000, FastRecoverySteps: 5, AdditiveStep: dcqcn.RateOne, HyperStep: dcqcn.RateOne}
	ndCheckConfig("pacing", &cfg)
	var evs []ndEvent
	add := func(ev ndEvent) {
		g.ticksBefore(ev.cycle)
		evs = append(evs, ev)
		g.step(ev.cycle, &evs[len(evs)-1])
	}
	c := uint64(20)
	add(ndEvent{cycle: c, reset: true, cfg: &cfg, sent: true, bytes: 1000})
	add(ndEvent{cycle: c + 1})
	add(ndEvent{cycle: c + 2, cnp: true})
	c += 3
	sizes := []uint16{1, 59, 60, 64, 65, 100, 1000, 1500, rc.MaxFrameLen, 0, ndMaxBytes}
	for round := range 2 {
		for _, n := range sizes {
			add(ndEvent{cycle: c, sent: true, bytes: n})
			next := c + g.rp.Rate().Cycles(int(n))
			for c++; c <= next+1; c++ {
				add(ndEvent{cycle: c, bytes: n})
			}
		}
		// a send while held (golden/rc sends responder packets then)
		add(ndEvent{cycle: c, sent: true, bytes: 2000})
		add(ndEvent{cycle: c + 1, sent: true, bytes: 64})
		add(ndEvent{cycle: c + 2, bytes: 64})
		add(ndEvent{cycle: c + 3, cnp: round == 0, bytes: 64})
		c += 4
	}
	r.want = append(r.want, g.out...)
	r.recent = evs
	r.run(context.Background(), evs, c+2)
	require.Empty(t, r.want, "golden reports the model did not make")
	require.Positive(t, r.eventCnt["hold"], "some looks are held")
	t.Logf("%d events, %d reports; reports with: %v", len(evs), r.reports, r.eventCnt)
}
