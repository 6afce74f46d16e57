package scoreboard_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/harness/framegen"
	"github.com/rocesim/cosim/harness/pcapio"
	"github.com/rocesim/cosim/harness/scoreboard"
)

// roceFrames returns n distinct valid RoCEv2 frames (RC SEND_ONLY, every
// encapsulation in turn), the same ones for the same seed.
func roceFrames(t *testing.T, seed uint64, n int) [][]byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x5c0e))
	out := make([][]byte, n)
	for i := range out {
		f, err := framegen.Build(rng, framegen.Spec{
			OpCode:     roce.RCSendOnly,
			Encap:      framegen.Encaps[i%len(framegen.Encaps)],
			PayloadLen: 16 + 4*i,
		})
		require.NoError(t, err)
		out[i] = f
	}
	return out
}

// bthOffset is where the BTH of a framegen frame starts.
func bthOffset(t *testing.T, frame []byte) int {
	t.Helper()
	var f roce.Frame
	require.NoError(t, f.Decode(frame))
	ip := 20
	if f.IPv6 {
		ip = 40
	}
	return f.IPStart + ip + 8
}

// withPSN returns a copy of frame with another PSN and, if fix, the ICRC
// recomputed to match.
func withPSN(t *testing.T, frame []byte, psn uint32, fix bool) []byte {
	t.Helper()
	g := bytes.Clone(frame)
	off := bthOffset(t, g) + 9
	g[off], g[off+1], g[off+2] = byte(psn>>16), byte(psn>>8), byte(psn)
	if fix {
		require.NoError(t, roce.FixICRC(g))
	}
	return g
}

func psnOf(t *testing.T, frame []byte) uint32 {
	t.Helper()
	off := bthOffset(t, frame) + 9
	return uint32(frame[off])<<16 | uint32(frame[off+1])<<8 | uint32(frame[off+2])
}

func icrcOf(frame []byte) uint32 { return binary.LittleEndian.Uint32(frame[len(frame)-4:]) }

var nic0 = scoreboard.Stream{Model: "icrc", Port: 0}

func TestStreamString(t *testing.T) {
	assert.Equal(t, "icrc.out0", nic0.String())
	assert.Equal(t, "sw-1.out12", scoreboard.Stream{Model: "sw-1", Port: 12}.String())
}

func TestInOrderSeveralStreams(t *testing.T) {
	fs := roceFrames(t, 1, 12)
	streams := []scoreboard.Stream{{Model: "a", Port: 0}, {Model: "a", Port: 1}, {Model: "b", Port: 0}}
	var rep bytes.Buffer
	sb := scoreboard.New(scoreboard.Config{Run: "multi", Seed: 3, Report: &rep})

	// All expectations first on stream 0, then interleaved: the scoreboard
	// must keep each stream's order apart from the others.
	for i := 0; i < 4; i++ {
		sb.Expect(streams[0], scoreboard.Expected{Data: fs[i]})
	}
	k := 0
	for i := 4; i < 12; i++ {
		st := streams[1+i%2]
		sb.Expect(st, scoreboard.Expected{Data: fs[i], Cause: fmt.Sprintf("in #%d", i)})
		if i%3 == 0 {
			sb.Observe(streams[0], scoreboard.Frame{Cycle: uint64(i), Data: fs[k]})
			k++
		}
	}
	// Remaining stream 0 frames, then the other streams, alternating.
	for ; k < 4; k++ {
		sb.Observe(streams[0], scoreboard.Frame{Cycle: uint64(20 + k), Data: fs[k]})
	}
	for i := 4; i < 12; i += 2 {
		sb.Observe(streams[2], scoreboard.Frame{Cycle: uint64(100 + i), Data: fs[i+1]})
		sb.Observe(streams[1], scoreboard.Frame{Cycle: uint64(100 + i), Data: fs[i]})
	}
	sb.Drain(1000)

	c := sb.Counts()
	assert.Equal(t, scoreboard.Counts{Expected: 12, Observed: 12, Matched: 12}, c)
	assert.True(t, c.Pass())
	assert.Empty(t, rep.String(), "nothing to report")
	assert.Empty(t, sb.Errors())
}

// TestManyStreamsInterleaved goes round more streams than the scoreboard
// finds without its map, naming each by a Stream built afresh every time
// (model names equal in value, not the same string), so every look-up
// after the first rounds goes through both the cache and the map.
func TestManyStreamsInterleaved(t *testing.T) {
	const streams, rounds = 13, 6
	fs := roceFrames(t, 4, streams*rounds)
	st := func(i int) scoreboard.Stream {
		return scoreboard.Stream{Model: fmt.Sprintf("m%d", i%3), Port: i / 3, Sub: strings.Repeat("q", i%2)}
	}
	var rep bytes.Buffer
	sb := scoreboard.New(scoreboard.Config{Run: "many", Report: &rep})
	for r := 0; r < rounds; r++ {
		for i := 0; i < streams; i++ {
			sb.Expect(st(i), scoreboard.Expected{Data: fs[r*streams+i]})
		}
		for i := streams - 1; i >= 0; i-- { // the other way round
			sb.Observe(st(i), scoreboard.Frame{Cycle: uint64(r), Data: fs[r*streams+i]})
		}
		// The same stream twice in a row, then the first again.
		sb.Expect(st(0), scoreboard.Expected{Data: fs[0]})
		sb.Expect(st(0), scoreboard.Expected{Data: fs[1]})
		sb.Observe(st(0), scoreboard.Frame{Cycle: uint64(r), Data: fs[0]})
		sb.Observe(st(0), scoreboard.Frame{Cycle: uint64(r), Data: fs[1]})
	}
	sb.Drain(100)
	n := streams*rounds + 2*rounds
	assert.Equal(t, scoreboard.Counts{Expected: n, Observed: n, Matched: n}, sb.Counts())
	assert.Empty(t, rep.String())
}

func TestSameFrameOnTwoStreams(t *testing.T) {
	fs := roceFrames(t, 2, 1)
	a, b := scoreboard.Stream{Model: "m", Port: 0}, scoreboard.Stream{Model: "m", Port: 1}
	var rep bytes.Buffer
	sb := scoreboard.New(scoreboard.Config{Run: "x", Report: &rep})
	sb.Expect(a, scoreboard.Expected{Data: fs[0]})
	sb.Observe(b, scoreboard.Frame{Cycle: 5, Data: fs[0]}) // right bytes, wrong port
	sb.Drain(9)
	assert.Equal(t, scoreboard.Counts{Expected: 1, Observed: 1, Unexpected: 1, Missing: 1}, sb.Counts())
	out := rep.String()
	assert.Contains(t, out, "UNEXPECTED run=x seed=0 link=m.out1 cycle=5 dut_frame=#1\n")
	assert.Contains(t, out, "MISSING run=x seed=0 link=m.out0 cycle=9 packet=#1\n")
}

func TestMismatchReport(t *testing.T) {
	fs := roceFrames(t, 3, 3)
	want := fs[1]
	psn := psnOf(t, want)
	got := withPSN(t, want, (psn+1)&roce.PSNMask, true)

	var rep bytes.Buffer
	sb := scoreboard.New(scoreboard.Config{Run: "psn-run", Seed: 42, Report: &rep})
	for i, f := range fs {
		sb.Expect(nic0, scoreboard.Expected{Data: f, Cause: fmt.Sprintf("icrc.in0 #%d", i+1)})
	}
	sb.Observe(nic0, scoreboard.Frame{Cycle: 1000, Data: fs[0]})
	sb.Observe(nic0, scoreboard.Frame{Cycle: 1234, Data: got})
	sb.Observe(nic0, scoreboard.Frame{Cycle: 1500, Data: fs[2]})
	sb.Drain(2000)

	assert.Equal(t, scoreboard.Counts{Expected: 3, Observed: 3, Matched: 2, Mismatched: 1}, sb.Counts())
	assert.False(t, sb.Counts().Pass())

	out := rep.String()
	lines := strings.Split(out, "\n")
	require.GreaterOrEqual(t, len(lines), 4, out)
	assert.Equal(t, "MISMATCH run=psn-run seed=42 link=icrc.out0 cycle=1234 packet=#2 dut_frame=#2 cause=icrc.in0 #2", lines[0])
	assert.Equal(t, fmt.Sprintf("  BTH.PSN want 0x%06x got 0x%06x", psn, (psn+1)&roce.PSNMask), lines[1])
	assert.Equal(t, fmt.Sprintf("  ICRC.Value want %#x got %#x", icrcOf(want), icrcOf(got)), lines[2])
	assert.Equal(t, fmt.Sprintf("  want (%d bytes, bad=false):", len(want)), lines[3])
	assert.Contains(t, out, fmt.Sprintf("\n  got  (%d bytes, bad=false):\n", len(got)))
	assert.Equal(t, 1, strings.Count(out, "MISMATCH"), out)
	assert.NotContains(t, out, "MISSING")
	assert.NotContains(t, out, "UNEXPECTED")

	// The hex dumps start at the 16-byte line holding the first difference
	// and number bytes by their offset in the frame.
	first := bthOffset(t, want) + 11 // the last PSN byte
	line := fmt.Sprintf("    %08x  ", first&^15)
	assert.Equal(t, 2, strings.Count(out, line), "both dumps start at the differing line:\n%s", out)
}

// TestProblemsAndStreams: the problems reported in full are kept as
// records (kind, link, cycle, packet, cause, fields, file) and every
// stream has its own tally, for summaries and reports.
func TestProblemsAndStreams(t *testing.T) {
	fs := roceFrames(t, 3, 3)
	psn := psnOf(t, fs[1])
	dir := t.TempDir()
	sb := scoreboard.New(scoreboard.Config{Run: "r", Seed: 1, Dir: dir})
	nic1 := scoreboard.Stream{Model: "nic1", Port: 0}
	for i, f := range fs {
		sb.Expect(nic0, scoreboard.Expected{Data: f, Cause: "in", CauseSeq: uint32(i + 1), HasCauseSeq: true})
	}
	sb.Expect(nic1, scoreboard.Expected{Data: fs[0]})
	sb.Observe(nic0, scoreboard.Frame{Cycle: 10, Data: fs[0]})
	sb.Observe(nic0, scoreboard.Frame{Cycle: 20, Data: withPSN(t, fs[1], (psn+1)&roce.PSNMask, true)})
	sb.Observe(nic0, scoreboard.Frame{Cycle: 30, Data: fs[2]})
	sb.Drain(40)

	assert.Equal(t, []scoreboard.StreamCounts{
		{Stream: "icrc.out0", Counts: scoreboard.Counts{Expected: 3, Observed: 3, Matched: 2, Mismatched: 1}},
		{Stream: "nic1.out0", Counts: scoreboard.Counts{Expected: 1, Missing: 1}},
	}, sb.Streams())
	ps := sb.Problems()
	require.Len(t, ps, 2)
	assert.Equal(t, scoreboard.Problem{Kind: "MISMATCH", Stream: "icrc.out0", Cycle: 20, Packet: 2, DUTFrame: 2, Cause: "in #2",
		Diffs: ps[0].Diffs, File: "mismatch-001.pcapng"}, ps[0])
	require.NotEmpty(t, ps[0].Diffs)
	assert.Equal(t, "BTH.PSN", ps[0].Diffs[0].Field)
	assert.Equal(t, scoreboard.Problem{Kind: "MISSING", Stream: "nic1.out0", Cycle: 40, Packet: 1, File: "mismatch-002.pcapng"}, ps[1])
	assert.FileExists(t, filepath.Join(dir, ps[1].File))
}

func TestLostFrameResyncs(t *testing.T) {
	fs := roceFrames(t, 4, 8)
	var rep bytes.Buffer
	sb := scoreboard.New(scoreboard.Config{Run: "loss", Seed: 9, Report: &rep})
	for i, f := range fs {
		sb.Expect(nic0, scoreboard.Expected{Data: f, Cause: fmt.Sprintf("icrc.in0 #%d", i+1)})
	}
	for i, f := range fs {
		if i == 3 {
			continue // the DUT lost the fourth frame
		}
		sb.Observe(nic0, scoreboard.Frame{Cycle: uint64(100 * (i + 1)), Data: f})
	}
	sb.Drain(5000)

	assert.Equal(t, scoreboard.Counts{Expected: 8, Observed: 7, Matched: 7, Missing: 1}, sb.Counts())
	out := rep.String()
	assert.Equal(t, 1, strings.Count(out, "MISSING"), out)
	assert.NotContains(t, out, "MISMATCH")
	// Reported when the fifth frame came instead, numbered as the fourth
	// expectation, with only the wanted frame dumped.
	assert.True(t, strings.HasPrefix(out, "MISSING run=loss seed=9 link=icrc.out0 cycle=500 packet=#4 cause=icrc.in0 #4\n"), out)
	assert.Contains(t, out, fmt.Sprintf("  want (%d bytes, bad=false):\n", len(fs[3])))
	assert.NotContains(t, out, "  got  (")
}

func TestTwoLostFramesResync(t *testing.T) {
	fs := roceFrames(t, 5, 8)
	var rep bytes.Buffer
	sb := scoreboard.New(scoreboard.Config{Run: "loss2", Report: &rep})
	for _, f := range fs {
		sb.Expect(nic0, scoreboard.Expected{Data: f})
	}
	for i, f := range fs {
		if i == 2 || i == 3 {
			continue
		}
		sb.Observe(nic0, scoreboard.Frame{Cycle: uint64(i), Data: f})
	}
	sb.Drain(99)
	assert.Equal(t, scoreboard.Counts{Expected: 8, Observed: 6, Matched: 6, Missing: 2}, sb.Counts())
	out := rep.String()
	assert.Contains(t, out, "MISSING run=loss2 seed=0 link=icrc.out0 cycle=4 packet=#3\n")
	assert.Contains(t, out, "MISSING run=loss2 seed=0 link=icrc.out0 cycle=4 packet=#4\n")
	assert.Less(t, strings.Index(out, "packet=#3"), strings.Index(out, "packet=#4"), "in order")
}

func TestResyncWindow(t *testing.T) {
	fs := roceFrames(t, 6, 5)
	sb := scoreboard.New(scoreboard.Config{Run: "w", Resync: 1})
	for _, f := range fs {
		sb.Expect(nic0, scoreboard.Expected{Data: f})
	}
	// Two lost frames are beyond a window of one: the third got frame is
	// held, and once the next frame does not match the first expectation
	// either, it is a mismatch against (and consumes) that expectation.
	sb.Observe(nic0, scoreboard.Frame{Cycle: 1, Data: fs[2]})
	assert.Zero(t, sb.Counts().Mismatched, "judged on the next frame")
	// One lost frame is within it.
	sb.Observe(nic0, scoreboard.Frame{Cycle: 2, Data: fs[2]})
	c := sb.Counts()
	assert.Equal(t, 1, c.Mismatched)
	assert.Equal(t, 1, c.Missing, "fs[1] skipped")
	assert.Equal(t, 1, c.Matched)
}

func TestUnexpected(t *testing.T) {
	fs := roceFrames(t, 7, 3)
	var rep bytes.Buffer
	sb := scoreboard.New(scoreboard.Config{Run: "extra", Seed: 11, Report: &rep})
	sb.Expect(nic0, scoreboard.Expected{Data: fs[0]})
	sb.Observe(nic0, scoreboard.Frame{Cycle: 10, Data: fs[0]})
	sb.Observe(nic0, scoreboard.Frame{Cycle: 20, Data: fs[1], Bad: true})
	sb.Drain(30)

	assert.Equal(t, scoreboard.Counts{Expected: 1, Observed: 2, Matched: 1, Unexpected: 1}, sb.Counts())
	assert.False(t, sb.Counts().Pass())
	out := rep.String()
	assert.True(t, strings.HasPrefix(out, "UNEXPECTED run=extra seed=11 link=icrc.out0 cycle=20 dut_frame=#2\n"), out)
	assert.Contains(t, out, fmt.Sprintf("  got  (%d bytes, bad=true):\n", len(fs[1])))
	assert.NotContains(t, out, "  want (")
	assert.Equal(t, 1, strings.Count(out, "UNEXPECTED"))
}

func TestDrain(t *testing.T) {
	fs := roceFrames(t, 8, 6)
	var rep bytes.Buffer
	sb := scoreboard.New(scoreboard.Config{Run: "drain", Seed: 1, Report: &rep})
	// Streams created in an order unlike the sorted one; ports compare as
	// numbers (2 before 10).
	b0 := scoreboard.Stream{Model: "b", Port: 0}
	a10 := scoreboard.Stream{Model: "a", Port: 10}
	a2 := scoreboard.Stream{Model: "a", Port: 2}
	sb.Expect(b0, scoreboard.Expected{Data: fs[0], Cause: "b-cause"})
	sb.Expect(a10, scoreboard.Expected{Data: fs[1]})
	sb.Expect(a2, scoreboard.Expected{Data: fs[2]})
	sb.Expect(a2, scoreboard.Expected{Data: fs[3]})
	sb.Expect(a2, scoreboard.Expected{Data: fs[4]})
	sb.Observe(a2, scoreboard.Frame{Cycle: 7, Data: fs[2]})

	sb.Drain(777)
	assert.Equal(t, scoreboard.Counts{Expected: 5, Observed: 1, Matched: 1, Missing: 4}, sb.Counts())
	var heads []string
	for _, l := range strings.Split(rep.String(), "\n") {
		if strings.HasPrefix(l, "MISSING") {
			heads = append(heads, l)
		}
	}
	assert.Equal(t, []string{
		"MISSING run=drain seed=1 link=a.out2 cycle=777 packet=#2",
		"MISSING run=drain seed=1 link=a.out2 cycle=777 packet=#3",
		"MISSING run=drain seed=1 link=a.out10 cycle=777 packet=#1",
		"MISSING run=drain seed=1 link=b.out0 cycle=777 packet=#1 cause=b-cause",
	}, heads)

	// Drained expectations are gone: a second Drain adds nothing, and a
	// late frame is unexpected.
	n := rep.Len()
	sb.Drain(800)
	assert.Equal(t, n, rep.Len())
	sb.Observe(b0, scoreboard.Frame{Cycle: 900, Data: fs[0]})
	assert.Equal(t, 1, sb.Counts().Unexpected)
	assert.Equal(t, 4, sb.Counts().Missing)
}

func TestBadFlagMismatch(t *testing.T) {
	fs := roceFrames(t, 9, 2)
	var rep bytes.Buffer
	sb := scoreboard.New(scoreboard.Config{Run: "bad", Seed: 5, Report: &rep})
	sb.Expect(nic0, scoreboard.Expected{Data: fs[0]})
	sb.Expect(nic0, scoreboard.Expected{Data: fs[1], Bad: true})
	sb.Observe(nic0, scoreboard.Frame{Cycle: 1, Data: fs[0], Bad: true}) // flagged a good frame
	sb.Observe(nic0, scoreboard.Frame{Cycle: 2, Data: fs[1]})            // missed a bad one
	sb.Drain(2)
	assert.Equal(t, scoreboard.Counts{Expected: 2, Observed: 2, Mismatched: 2}, sb.Counts())

	blocks := strings.Split(rep.String(), "MISMATCH ")
	require.Len(t, blocks, 3, rep.String())
	lines := strings.Split(blocks[1], "\n")
	assert.Equal(t, "run=bad seed=5 link=icrc.out0 cycle=1 packet=#1 dut_frame=#1", lines[0])
	assert.Equal(t, "  tuser.bad want false got true", lines[1], "the only difference")
	assert.Equal(t, fmt.Sprintf("  want (%d bytes, bad=false):", len(fs[0])), lines[2])
	assert.Contains(t, blocks[1], fmt.Sprintf("  got  (%d bytes, bad=true):", len(fs[0])))

	lines = strings.Split(blocks[2], "\n")
	assert.Equal(t, "  tuser.bad want true got false", lines[1])

	// A frame flagged bad as predicted matches.
	sb.Expect(nic0, scoreboard.Expected{Data: fs[1], Bad: true})
	sb.Observe(nic0, scoreboard.Frame{Cycle: 3, Data: fs[1], Bad: true})
	assert.Equal(t, 1, sb.Counts().Matched)
}

func TestBadFlagAndBytes(t *testing.T) {
	fs := roceFrames(t, 10, 1)
	got := withPSN(t, fs[0], psnOf(t, fs[0])^1, true)
	var rep bytes.Buffer
	sb := scoreboard.New(scoreboard.Config{Run: "both", Report: &rep})
	sb.Expect(nic0, scoreboard.Expected{Data: fs[0]})
	sb.Observe(nic0, scoreboard.Frame{Cycle: 1, Data: got, Bad: true})
	sb.Drain(1)
	lines := strings.Split(rep.String(), "\n")
	require.Greater(t, len(lines), 3)
	assert.True(t, strings.HasPrefix(lines[1], "  BTH.PSN want "), lines[1])
	assert.True(t, strings.HasPrefix(lines[2], "  ICRC.Value want "), lines[2])
	assert.Equal(t, "  tuser.bad want false got true", lines[3])
}

func TestDetailsCap(t *testing.T) {
	fs := roceFrames(t, 11, 10)
	dir := t.TempDir()
	var rep bytes.Buffer
	sb := scoreboard.New(scoreboard.Config{Run: "cap", Report: &rep, Details: 3, Dir: dir})
	for i, f := range fs {
		sb.Observe(nic0, scoreboard.Frame{Cycle: uint64(i), Data: f})
	}
	sb.Expect(nic0, scoreboard.Expected{Data: fs[0]})
	sb.Expect(nic0, scoreboard.Expected{Data: fs[1]})
	sb.Drain(100)

	assert.Equal(t, scoreboard.Counts{Expected: 2, Observed: 10, Unexpected: 10, Missing: 2}, sb.Counts(), "all counted")
	out := rep.String()
	assert.Equal(t, 3, strings.Count(out, "UNEXPECTED run="), out)
	assert.NotContains(t, out, "MISSING run=")
	assert.Equal(t, 1, strings.Count(out, "further problems are counted but not detailed (3 shown)\n"), out)
	assert.True(t, strings.HasSuffix(out, "further problems are counted but not detailed (3 shown)\n"))

	files, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	for i := range files {
		files[i] = filepath.Base(files[i])
	}
	assert.Equal(t, []string{"mismatch-001.pcapng", "mismatch-002.pcapng", "mismatch-003.pcapng"}, files)
}

func TestDetailsDefault(t *testing.T) {
	fs := roceFrames(t, 12, 1)
	var rep bytes.Buffer
	sb := scoreboard.New(scoreboard.Config{Run: "d", Report: &rep})
	for i := 0; i < 25; i++ {
		sb.Observe(nic0, scoreboard.Frame{Cycle: uint64(i), Data: fs[0]})
	}
	assert.Equal(t, 25, sb.Counts().Unexpected)
	assert.Equal(t, 20, strings.Count(rep.String(), "UNEXPECTED run="))
	assert.Contains(t, rep.String(), "(20 shown)")
}

func TestNilReportDiscards(t *testing.T) {
	fs := roceFrames(t, 13, 1)
	sb := scoreboard.New(scoreboard.Config{})
	sb.Observe(nic0, scoreboard.Frame{Data: fs[0]})
	sb.Expect(nic0, scoreboard.Expected{Data: fs[0]})
	sb.Drain(0)
	assert.Equal(t, scoreboard.Counts{Expected: 1, Observed: 1, Unexpected: 1, Missing: 1}, sb.Counts())
}

// readPcap reads a neighbourhood file back.
func readPcap(t *testing.T, path string) []pcapio.Packet {
	t.Helper()
	pkts, err := pcapio.ReadAll(path)
	require.NoError(t, err)
	for _, p := range pkts {
		assert.Equal(t, "icrc.out0", p.InterfaceName)
		assert.True(t, p.HasCycle)
	}
	return pkts
}

func TestNeighbourhoodFiles(t *testing.T) {
	fs := roceFrames(t, 14, 7)
	dir := t.TempDir()
	var rep bytes.Buffer
	sb := scoreboard.New(scoreboard.Config{Run: "nb", Seed: 8, Report: &rep, Dir: dir})
	for i := 0; i < 5; i++ {
		sb.Expect(nic0, scoreboard.Expected{Data: fs[i], Cause: fmt.Sprintf("icrc.in0 #%d", i+1)})
	}
	bad2 := withPSN(t, fs[2], psnOf(t, fs[2])^0x10, true)
	sb.Observe(nic0, scoreboard.Frame{Cycle: 100, Data: fs[0]})
	sb.Observe(nic0, scoreboard.Frame{Cycle: 200, Data: fs[1]})
	sb.Observe(nic0, scoreboard.Frame{Cycle: 300, Data: bad2})             // 001 mismatch
	sb.Observe(nic0, scoreboard.Frame{Cycle: 500, Data: fs[4]})            // 002 fs[3] missing
	sb.Observe(nic0, scoreboard.Frame{Cycle: 600, Data: fs[6], Bad: true}) // 003 unexpected
	sb.Expect(nic0, scoreboard.Expected{Data: fs[5], Cause: "icrc.in0 #6"})
	sb.Drain(900) // 004 fs[5] missing
	require.Empty(t, sb.Errors())
	assert.Equal(t, scoreboard.Counts{Expected: 6, Observed: 5, Matched: 3, Mismatched: 1, Missing: 2, Unexpected: 1}, sb.Counts())

	out := rep.String()
	for i := 1; i <= 4; i++ {
		assert.Contains(t, out, fmt.Sprintf("  neighbourhood: %s\n", filepath.Join(dir, fmt.Sprintf("mismatch-%03d.pcapng", i))))
	}
	names, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	assert.Len(t, names, 4)

	type pkt struct {
		data    []byte
		cycle   uint64
		comment string
	}
	check := func(name string, want []pkt) {
		t.Helper()
		pkts := readPcap(t, filepath.Join(dir, name))
		require.Len(t, pkts, len(want), name)
		for i, w := range want {
			assert.Equal(t, w.data, pkts[i].Data, "%s packet %d", name, i+1)
			assert.Equal(t, w.cycle, pkts[i].Cycle, "%s packet %d", name, i+1)
			assert.Equal(t, fmt.Sprintf("cycle=%d\n%s", w.cycle, w.comment), pkts[i].Comment, "%s packet %d", name, i+1)
		}
	}
	const earlier = "earlier frame on this link (matched or reported before)"
	check("mismatch-001.pcapng", []pkt{
		{fs[0], 100, earlier},
		{fs[1], 200, earlier},
		{bad2, 300, "GOT (mismatch) bad=false"},
		{fs[2], 300, "WANT bad=false icrc.in0 #3"},
	})
	check("mismatch-002.pcapng", []pkt{
		{fs[0], 100, earlier},
		{fs[1], 200, earlier},
		{bad2, 300, earlier},
		{fs[3], 500, "WANT bad=false icrc.in0 #4"},
	})
	check("mismatch-003.pcapng", []pkt{
		{fs[0], 100, earlier},
		{fs[1], 200, earlier},
		{bad2, 300, earlier},
		{fs[4], 500, earlier},
		{fs[6], 600, "GOT (unexpected) bad=true"},
	})
	check("mismatch-004.pcapng", []pkt{ // the last four frames only
		{fs[1], 200, earlier},
		{bad2, 300, earlier},
		{fs[4], 500, earlier},
		{fs[6], 600, earlier},
		{fs[5], 900, "WANT bad=false icrc.in0 #6"},
	})
}

func TestNoDirWritesNoFiles(t *testing.T) {
	fs := roceFrames(t, 15, 1)
	var rep bytes.Buffer
	sb := scoreboard.New(scoreboard.Config{Report: &rep})
	sb.Observe(nic0, scoreboard.Frame{Data: fs[0]})
	assert.NotContains(t, rep.String(), "neighbourhood")
	assert.Empty(t, sb.Errors())
}

func TestNeighbourhoodWriteError(t *testing.T) {
	fs := roceFrames(t, 16, 1)
	dir := filepath.Join(t.TempDir(), "does-not-exist")
	var rep bytes.Buffer
	sb := scoreboard.New(scoreboard.Config{Run: "e", Report: &rep, Dir: dir})
	sb.Observe(nic0, scoreboard.Frame{Cycle: 1, Data: fs[0]})
	sb.Observe(nic0, scoreboard.Frame{Cycle: 2, Data: fs[0]})
	require.Len(t, sb.Errors(), 2)
	assert.Contains(t, sb.Errors()[0].Error(), "mismatch-001.pcapng")
	assert.Equal(t, 2, strings.Count(rep.String(), "UNEXPECTED run="), "the report is still written")
	assert.NotContains(t, rep.String(), "neighbourhood")
	assert.Equal(t, 2, sb.Counts().Unexpected)
}

func TestCountsPass(t *testing.T) {
	for _, tc := range []struct {
		c    scoreboard.Counts
		pass bool
	}{
		{scoreboard.Counts{}, true},
		{scoreboard.Counts{Expected: 5, Observed: 5, Matched: 5}, true},
		{scoreboard.Counts{Expected: 5, Observed: 5, Matched: 4, Mismatched: 1}, false},
		{scoreboard.Counts{Expected: 5, Observed: 4, Matched: 4, Missing: 1}, false},
		{scoreboard.Counts{Expected: 5, Observed: 6, Matched: 5, Unexpected: 1}, false},
	} {
		assert.Equal(t, tc.pass, tc.c.Pass(), "%+v", tc.c)
	}
}

// run is a fixed sequence of calls touching every kind of problem on
// several streams.
func run(t *testing.T, dir string, w io.Writer) scoreboard.Counts {
	t.Helper()
	fs := roceFrames(t, 17, 16)
	sb := scoreboard.New(scoreboard.Config{Run: "det", Seed: 1234, Report: w, Dir: dir, Details: 5})
	streams := []scoreboard.Stream{{Model: "nic", Port: 1}, {Model: "nic", Port: 0}, {Model: "sw", Port: 3}}
	for i, f := range fs {
		sb.Expect(streams[i%3], scoreboard.Expected{Data: f, Bad: i == 7, Cause: fmt.Sprintf("in #%d", i)})
	}
	for i, f := range fs {
		st := streams[i%3]
		switch i {
		case 4:
			continue // lost
		case 5:
			f = withPSN(t, f, psnOf(t, f)+1, true)
		case 9:
			sb.Observe(st, scoreboard.Frame{Cycle: uint64(10*i + 1), Data: fs[0]}) // extra
		case 12, 13, 14, 15:
			continue // left for Drain
		}
		sb.Observe(st, scoreboard.Frame{Cycle: uint64(10 * i), Data: f, Bad: i == 7})
	}
	sb.Drain(10_000)
	require.Empty(t, sb.Errors())
	return sb.Counts()
}

func TestDeterministic(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	var reps [2]bytes.Buffer
	var counts [2]scoreboard.Counts
	for i, d := range dirs {
		counts[i] = run(t, d, &reps[i])
	}
	assert.Equal(t, counts[0], counts[1])
	assert.False(t, counts[0].Pass())

	text := func(i int) string { return strings.ReplaceAll(reps[i].String(), dirs[i], "DIR") }
	require.NotEmpty(t, text(0))
	assert.Equal(t, text(0), text(1), "same calls, same report")
	assert.Contains(t, text(0), "further problems are counted but not detailed (5 shown)")

	names, err := os.ReadDir(dirs[0])
	require.NoError(t, err)
	require.Len(t, names, 5)
	for _, n := range names {
		a, err := os.ReadFile(filepath.Join(dirs[0], n.Name()))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(dirs[1], n.Name()))
		require.NoError(t, err, "%s only in the first run", n.Name())
		assert.True(t, bytes.Equal(a, b), "%s differs between runs", n.Name())
	}
}

// TestRegressions pins down bugs found and fixed.
func TestRegressions(t *testing.T) {
	t.Run("extra frame before pending expectations cascades", func(t *testing.T) {
		fs := roceFrames(t, 18, 6)
		sb := scoreboard.New(scoreboard.Config{})
		for _, f := range fs[:5] {
			sb.Expect(nic0, scoreboard.Expected{Data: f})
		}
		sb.Observe(nic0, scoreboard.Frame{Data: fs[0]})
		sb.Observe(nic0, scoreboard.Frame{Data: fs[5]}) // inserted
		for _, f := range fs[1:5] {
			sb.Observe(nic0, scoreboard.Frame{Data: f})
		}
		sb.Drain(0)
		assert.Equal(t, scoreboard.Counts{Expected: 5, Observed: 6, Matched: 5, Unexpected: 1}, sb.Counts())
	})

	t.Run("got dump empty when got is a 16-byte-aligned prefix", func(t *testing.T) {
		fs := roceFrames(t, 19, 1)
		var rep bytes.Buffer
		sb := scoreboard.New(scoreboard.Config{Report: &rep})
		sb.Expect(nic0, scoreboard.Expected{Data: fs[0]})
		sb.Observe(nic0, scoreboard.Frame{Data: fs[0][:64]})
		sb.Drain(0)
		_, after, ok := strings.Cut(rep.String(), "  got  (64 bytes, bad=false):\n")
		require.True(t, ok, rep.String())
		assert.True(t, strings.HasPrefix(after, "    00000030  "), "got dump:\n%q", after)
	})

	t.Run("mismatch after a loss is numbered by frames seen, missing by frames expected", func(t *testing.T) {
		fs := roceFrames(t, 20, 4)
		var rep bytes.Buffer
		sb := scoreboard.New(scoreboard.Config{Report: &rep})
		for _, f := range fs {
			sb.Expect(nic0, scoreboard.Expected{Data: f})
		}
		sb.Observe(nic0, scoreboard.Frame{Data: fs[0]})
		sb.Observe(nic0, scoreboard.Frame{Data: fs[2]})                                      // fs[1] lost: MISSING packet=#2
		sb.Observe(nic0, scoreboard.Frame{Data: withPSN(t, fs[3], psnOf(t, fs[3])^1, true)}) // the 4th expectation, 3rd frame seen
		sb.Drain(0)
		assert.Contains(t, rep.String(), "MISSING run= seed=0 link=icrc.out0 cycle=0 packet=#2\n")
		assert.Regexp(t, `MISMATCH run= seed=0 link=icrc.out0 cycle=0 packet=#4\b`, rep.String())
	})
}

// A cause given as an input and a frame number reads as one written out,
// in the report and in the neighbourhood file.
func TestCauseSeq(t *testing.T) {
	fs := roceFrames(t, 2, 3)
	dir := t.TempDir()
	var rep bytes.Buffer
	sb := scoreboard.New(scoreboard.Config{Run: "seq", Seed: 1, Dir: dir, Report: &rep})
	sb.Expect(nic0, scoreboard.Expected{Data: fs[0], Cause: "icrc.in0", CauseSeq: 0, HasCauseSeq: true})
	sb.Expect(nic0, scoreboard.Expected{Data: fs[1], Cause: "icrc.in0", CauseSeq: 17, HasCauseSeq: true})
	sb.Observe(nic0, scoreboard.Frame{Cycle: 10, Data: fs[0]})
	sb.Drain(99)
	assert.Equal(t, "MISSING run=seq seed=1 link=icrc.out0 cycle=99 packet=#2 cause=icrc.in0 #17", strings.SplitN(rep.String(), "\n", 2)[0])
	ps, err := pcapio.ReadAll(filepath.Join(dir, "mismatch-001.pcapng"))
	require.NoError(t, err)
	require.NotEmpty(t, ps)
	assert.Contains(t, ps[len(ps)-1].Comment, "WANT bad=false icrc.in0 #17")
}

func TestSubStreamsKeepTheirOwnOrder(t *testing.T) {
	fs := roceFrames(t, 7, 4)
	a := scoreboard.Stream{Model: "nic0", Port: 1, Sub: "qp 0x000101"}
	b := scoreboard.Stream{Model: "nic0", Port: 1, Sub: "qp 0x000102"}
	assert.Equal(t, "nic0.out1[qp 0x000101]", a.String())
	var rep bytes.Buffer
	sb := scoreboard.New(scoreboard.Config{Run: "sub", Report: &rep})
	sb.Expect(a, scoreboard.Expected{Data: fs[0]})
	sb.Expect(a, scoreboard.Expected{Data: fs[1]})
	sb.Expect(b, scoreboard.Expected{Data: fs[2]})
	sb.Expect(b, scoreboard.Expected{Data: fs[3]})
	// Interleaved across the two, in order within each: all match.
	for i, k := range []int{2, 0, 3, 1} {
		st := a
		if k >= 2 {
			st = b
		}
		sb.Observe(st, scoreboard.Frame{Cycle: uint64(i), Data: fs[k]})
	}
	sb.Drain(10)
	assert.Equal(t, scoreboard.Counts{Expected: 4, Observed: 4, Matched: 4}, sb.Counts())
	assert.Empty(t, rep.String())
}

func TestExpectedCycle(t *testing.T) {
	fs := roceFrames(t, 8, 2)
	var rep bytes.Buffer
	sb := scoreboard.New(scoreboard.Config{Run: "timed", Report: &rep})
	sb.Expect(nic0, scoreboard.Expected{Data: fs[0], Cycle: 100, HasCycle: true})
	sb.Expect(nic0, scoreboard.Expected{Data: fs[1], Cycle: 200, HasCycle: true})
	sb.Observe(nic0, scoreboard.Frame{Cycle: 100, Data: fs[0]})
	sb.Observe(nic0, scoreboard.Frame{Cycle: 201, Data: fs[1]}) // right bytes, one cycle late
	sb.Drain(300)
	assert.Equal(t, scoreboard.Counts{Expected: 2, Observed: 2, Matched: 1, Mismatched: 1}, sb.Counts())
	assert.Contains(t, rep.String(), "MISMATCH run=timed seed=0 link=icrc.out0 cycle=201 packet=#2 dut_frame=#2")
	assert.Contains(t, rep.String(), "  cycle want 200 got 201\n")
}
