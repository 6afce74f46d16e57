package tb

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	tb "github.com/rocesim/cosim/harness/testbench"

	"example.com/vlantagger/tagger"
)

// An untagged frame on port 0 leaves with the reset tag (VID 1), its first
// beat one cycle after it was taken (the module's LATENCY).
func TestUntaggedFrameGetsTheResetTag(t *testing.T) {
	b := newTagger(t)
	assert.Equal(t, uint32(tagger.ID), b.ReadCSR("tag.ID"))
	s := b.Send("tag.in0", udp(b, nil, false, "reset tag"))
	b.RunUntil(s.Taken, 100)
	got := b.Expect("tag.out0", tb.Exact(udp(b, &tag{vid: 1}, false, "reset tag")), tb.LeavesAt(s.First()+1))
	assert.Len(t, got.Data, 86)
}

// TAG sets PCP, DEI and VID, and reads back as written.
func TestTagComesFromTheTAGRegister(t *testing.T) {
	b := newTagger(t)
	assert.Equal(t, tag{pcp: 5, vid: 100}.tci(), tagFromRegister(b))
}

// tagFromRegister writes TAG, sends an untagged frame and expects it with
// that tag; it returns what TAG reads back. The planted bug's test runs it
// too.
func tagFromRegister(b *tb.Bench) uint32 {
	want := tag{pcp: 5, vid: 100}
	b.WriteCSR("tag.TAG", want.tci())
	b.Send("tag.in0", udp(b, nil, false, "pcp 5"))
	b.Expect("tag.out0", tb.Exact(udp(b, &want, false, "pcp 5")), tb.Within(100))
	return b.ReadCSR("tag.TAG")
}

// A frame that carries a tag already passes as it came.
func TestTaggedFramePassesUnchanged(t *testing.T) {
	b := newTagger(t)
	f := udp(b, &tag{pcp: 2, vid: 7}, false, "tagged")
	b.Send("tag.in0", f)
	b.Expect("tag.out0", tb.Exact(f), tb.Within(100))
	assert.Equal(t, uint32(1), b.ReadCSR("tag.passed"))
	assert.Equal(t, uint32(0), b.ReadCSR("tag.tagged"))
}

// Frames too short for an EtherType (one beat, and 13 bytes) pass; 14
// bytes are enough to be tagged.
func TestShortFramesPass(t *testing.T) {
	b := newTagger(t)
	for _, n := range []int{8, 13} {
		b.Send("tag.in0", raw(n, 0))
		b.Expect("tag.out0", tb.Exact(raw(n, 0)), tb.Within(100))
	}
	b.Send("tag.in0", raw(14, 0x88b5))
	b.Expect("tag.out0", tb.Exact(append(append(raw(14, 0x88b5)[:12:12], 0x81, 0x00, 0x00, 0x01), 0x88, 0xb5)), tb.Within(100))
	assert.Equal(t, uint32(2), b.ReadCSR("tag.passed"))
}

// CTRL.ENABLE off: every frame passes.
func TestDisabledTaggerPassesEveryFrame(t *testing.T) {
	b := newTagger(t)
	b.WriteCSR("tag.CTRL", 0)
	f := udp(b, nil, false, "disabled")
	b.Send("tag.in0", f)
	b.Expect("tag.out0", tb.Exact(f), tb.Within(100))
	b.WriteCSR("tag.CTRL", tagger.CtrlEnable)
	b.Send("tag.in0", f)
	b.Expect("tag.out0", tb.Exact(udp(b, &tag{vid: 1}, false, "disabled")), tb.Within(100))
}

// Port 1 passes untagged frames unchanged, and nothing of it leaks to
// port 0.
func TestPort1PassesAndPort0StaysQuiet(t *testing.T) {
	b := newTagger(t)
	f := udp(b, nil, false, "port 1")
	s := b.Send("tag.in1", f)
	b.RunUntil(s.Taken, 100)
	b.Expect("tag.out1", tb.Exact(f), tb.LeavesAt(s.First()+1))
	b.ExpectNone("tag.out0", tb.Any(), 500)
	assert.Equal(t, uint32(1), b.ReadCSR("tag.port1_frames"))
}

// Named don't-care fields: a test that cares for the PCP only leaves the
// VID and DEI out; a mask leaves out bits by offset.
func TestNamedFieldsLeftOut(t *testing.T) {
	b := newTagger(t)
	b.WriteCSR("tag.TAG", tag{pcp: 6, dei: true, vid: 0xabc}.tci())
	for i := range 2 {
		b.Send("tag.in0", udp(b, nil, false, "masked"))
		want := udp(b, &tag{pcp: 6}, false, "masked")
		if i == 0 {
			b.Expect("tag.out0", tb.Ignoring(want, Dot1QVID, Dot1QDEI), tb.Within(100))
		} else {
			// the same by bit offset: the TCI's low 13 bits (DEI, VID) of frame bytes 14..15
			b.Expect("tag.out0", tb.NewMask(want).IgnoreBits(8*14+3, 13), tb.Within(100))
		}
	}
}

// A TAG write racing a frame: the test accepts either tag (PTF's
// verify_any_packet), as the cycle the frame's first beat is taken decides.
func TestAWriteRacingAFrameGivesEitherTag(t *testing.T) {
	b := newTagger(t)
	b.Send("tag.in0", udp(b, nil, false, "race"), tb.At(b.Now()+5))
	b.RunTo(b.Now() + 5)
	b.WriteCSR("tag.TAG", tag{vid: 2}.tci())
	got := b.Expect("tag.out0", tb.OneOf(tb.Exact(udp(b, &tag{vid: 1}, false, "race")), tb.Exact(udp(b, &tag{vid: 2}, false, "race"))), tb.Within(200))
	assert.Contains(t, []uint16{1, 2}, binary.BigEndian.Uint16(got.Data[14:16])&0xfff)
}

// Counting: a mix of tagged and untagged frames on port 0; Count reads
// the port in any order and claims what it counts, and the counters agree.
func TestCountsAndCounters(t *testing.T) {
	b := newTagger(t)
	for i := range 10 {
		var v *tag
		if i%3 == 0 {
			v = &tag{pcp: 1, vid: 300}
		}
		b.Send("tag.in0", udp(b, v, i%2 == 0, "count"))
	}
	isVID := func(vid uint16) func([]byte) bool {
		return func(f []byte) bool {
			return binary.BigEndian.Uint16(f[12:]) == tagger.TPID && binary.BigEndian.Uint16(f[14:])&0xfff == vid
		}
	}
	assert.Equal(t, 6, b.Count("tag.out0", tb.Where("VID 1", isVID(1)), 2000))
	assert.Equal(t, 4, b.Count("tag.out0", tb.Where("VID 300", isVID(300)), 0))
	assert.Equal(t, 0, b.Count("tag.out0", tb.Any(), 0), "Count claims what it counts: none is left")
	assert.Equal(t, uint32(6), b.ReadCSR("tag.tagged"))
	assert.Equal(t, uint32(4), b.ReadCSR("tag.passed"))
}

// A frame marked bad (tuser) leaves tagged and still marked bad, on both
// ports.
func TestBadFrameLeavesMarkedBad(t *testing.T) {
	b := newTagger(t)
	b.Send("tag.in0", udp(b, nil, false, "bad"), tb.Bad())
	b.Expect("tag.out0", tb.Exact(udp(b, &tag{vid: 1}, false, "bad")), tb.MarkedBad(), tb.Within(100))
	b.Send("tag.in1", raw(64, 0x0800), tb.Bad())
	b.Expect("tag.out1", tb.Exact(raw(64, 0x0800)), tb.MarkedBad(), tb.Within(100))
}

// The extra beat: a 64-byte frame leaves as 68 bytes in 9 beats, and port
// 0 takes nothing for one cycle after its last beat; a 68-byte frame
// needs no extra beat (its last beat has 4 bytes).
func TestTimingOfTheExtraBeat(t *testing.T) {
	b := newTagger(t)
	s1 := b.Send("tag.in0", raw(64, 0x0800))
	s2 := b.Send("tag.in0", raw(64, 0x0800))
	s3 := b.Send("tag.in0", raw(68, 0x0800))
	s4 := b.Send("tag.in0", raw(68, 0x0800))
	b.RunUntil(s4.Taken, 200)
	assert.Equal(t, s1.First()+7, s1.Last(), "8 beats in a cycle each")
	assert.Equal(t, s1.Last()+2, s2.First(), "one cycle without tready for the extra beat")
	assert.Equal(t, s2.Last()+2, s3.First())
	assert.Equal(t, s3.Last()+1, s4.First(), "no extra beat, no stall")
	for _, s := range []*tb.Sent{s1, s2, s3, s4} {
		want := slices.Concat(s.Data[:12], []byte{0x81, 0x00, 0x00, 0x01}, s.Data[12:]) // TPID, TCI of VID 1
		got := b.Expect("tag.out0", tb.Exact(want), tb.LeavesAt(s.First()+1))
		assert.Equal(t, s.First()+1+8, got.LastCycle, "9 beats out, one a cycle")
	}
}

// Random gaps between input beats and stalls on the outputs: every frame
// still comes, in order, checked by the golden model.
func TestBackpressure(t *testing.T) {
	b := newTagger(t, tb.Backpressure(25, 30), tb.Seed(7))
	for i := range 40 {
		f := raw(20+i*13%120, 0x0800)
		if i%4 == 2 {
			f[12], f[13] = 0x81, 0x00 // tagged already
		}
		b.Send(fmt.Sprintf("tag.in%d", i%2), f)
	}
	assert.Equal(t, 20, b.Count("tag.out0", tb.Any(), 5000))
	assert.Equal(t, 20, b.Count("tag.out1", tb.Any(), 0))
	s := b.Finish()
	assert.Equal(t, 40, int(s.Matched), "the golden model matched every frame")
}

// Bad use is an error that names the call: an unknown port, a frame on an
// output, a register the tagger does not have, a deadline in the past.
func TestBadUseIsAnErrorNamingTheCall(t *testing.T) {
	need(t)
	for _, c := range []struct {
		name string
		use  func(b *tb.Bench)
		want string
	}{
		{"unknown port", func(b *tb.Bench) { b.Send("tag.in2", raw(64, 0)) }, `testbench: Send("tag.in2"): tag.in2: top vlan_tagger has 2 input ports`},
		{"frame on an output", func(b *tb.Bench) { b.Send("tag.out0", raw(64, 0)) }, `testbench: Send("tag.out0"): tag.out0 is an output port`},
		{"no such register", func(b *tb.Bench) { b.WriteCSR("tag.VLAN", 1) }, `testbench: WriteCSR("tag.VLAN"): top vlan_tagger has no register or counter "VLAN"`},
		{"read-only register", func(b *tb.Bench) { b.WriteCSR("tag.ID", 1) }, `testbench: WriteCSR("tag.ID"): tag.ID is read-only`},
		{"deadline in the past", func(b *tb.Bench) {
			b.Run(100)
			b.Expect("tag.out0", tb.Any(), tb.By(50))
		}, "By(50): the deadline is in the past (the bench is at cycle 100)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			passed := tb.Standalone(t.Name(), &out, func(st tb.T) {
				c.use(tb.Model(st, "vlan_tagger_64", tb.Name("tag"), modelDirs(models)))
			})
			assert.False(t, passed)
			assert.Contains(t, out.String(), c.want)
			assert.Equal(t, 1, strings.Count(out.String(), "FAIL: testbench:"), "one error: %s", out.String())
		})
	}
}
