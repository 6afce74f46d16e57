package engine_test

// These tests run the real Verilated models (build/models, `make build`)
// through the whole harness: scenario, sources, links with faults, golden
// models, scoreboard, counters over CSR, link pcapng files and summary.json.
// No Go stand-in replaces RTL here.

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
	cmodeltest "github.com/rocesim/cosim/cosim/modeltest"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/framegen"
	"github.com/rocesim/cosim/harness/modeltest"
	"github.com/rocesim/cosim/harness/pcapio"
	"github.com/rocesim/cosim/harness/scenario"
)

// readSummary reads summary.json twice: as a map (the field names of the
// contract) and as engine.Summary.
func readSummary(tb testing.TB, dir string) (map[string]any, engine.Summary) {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(tb, err)
	var m map[string]any
	require.NoError(tb, json.Unmarshal(b, &m))
	var s engine.Summary
	require.NoError(tb, json.Unmarshal(b, &s))
	return m, s
}

// designFields are the summary.json fields harness/DESIGN.md promises.
var designFields = []string{"format", "protocol", "seed", "cycles", "wall_seconds", "frames_in", "frames_out", "matched",
	"mismatched", "missing", "unexpected", "drops", "pass"}

// pcapInterfaces lists the names (if_name) of a pcapng file's interfaces,
// in order, by walking its blocks; pcapio only shows the interfaces that
// carry packets.
func pcapInterfaces(tb testing.TB, path string) []string {
	tb.Helper()
	b, err := os.ReadFile(path)
	require.NoError(tb, err)
	var bo binary.ByteOrder = binary.LittleEndian
	var names []string
	for off := 0; off < len(b); {
		require.GreaterOrEqual(tb, len(b)-off, 12, "short block at %d", off)
		typ := bo.Uint32(b[off:])
		if typ == 0x0A0D0D0A { // section header: its magic gives the byte order
			if binary.BigEndian.Uint32(b[off+8:]) == 0x1A2B3C4D {
				bo = binary.BigEndian
			} else {
				bo = binary.LittleEndian
			}
		}
		n := int(bo.Uint32(b[off+4:]))
		require.True(tb, n >= 12 && n%4 == 0 && off+n <= len(b), "bad block length %d at %d", n, off)
		if typ == 1 { // interface description: link type, reserved, snap length, options
			name := ""
			for o := off + 16; o+4 <= off+n-4; {
				code, l := bo.Uint16(b[o:]), int(bo.Uint16(b[o+2:]))
				if code == 0 {
					break
				}
				if code == 2 { // if_name
					name = string(b[o+4 : o+4+l])
				}
				o += 4 + (l+3)&^3
			}
			names = append(names, name)
		}
		off += n
	}
	return names
}

// The built-in default scenario (what `make cosim` runs) passes through
// the real NIC and switch RTL: every frame on every link matched with its
// cycle, every completion, every counter of the three models, and the
// hosts' memory; the links lost, damaged, duplicated and reordered frames
// and the NICs recovered. summary.json has the fields harness/DESIGN.md promises,
// and there is one pcapng per link and sink, every frame with its cycle.
func TestDefaultScenarioPasses(t *testing.T) {
	sc, err := scenario.Default()
	require.NoError(t, err)
	seed := uint64(1)
	if sc.Seed != nil {
		seed = *sc.Seed
	}
	cfg := modeltest.Config(t, sc, seed)
	s, err := modeltest.Run(t, cfg)
	modeltest.RequirePass(t, s, err)

	assert.Positive(t, s.Drops["link_loss"], "the links must lose frames")
	for _, f := range []string{"link_corrupt", "link_duplicate", "link_reorder"} {
		assert.Positive(t, s.Faults[f], f)
	}
	var done, retrans, badICRC uint64
	for _, n := range []string{"nic0", "nic1"} {
		badICRC += modeltest.Counter(t, s, n, "rx_bad_icrc")
		for q := range sc.RDMA[0].QPs {
			done += modeltest.Counter(t, s, n, fmt.Sprintf("qp%d.completions_success", q))
			retrans += modeltest.Counter(t, s, n, fmt.Sprintf("qp%d.tx_retransmits", q))
			assert.Zero(t, modeltest.Counter(t, s, n, fmt.Sprintf("qp%d.completions_error", q)))
		}
	}
	assert.GreaterOrEqual(t, done, uint64(sc.RDMA[0].Messages), "every message completed (and the receives it took)")
	assert.Positive(t, retrans, "the NICs recovered losses by retransmission")
	assert.Positive(t, badICRC, "the NICs dropped damaged frames on their ICRC")

	m, js := readSummary(t, cfg.OutDir)
	for _, f := range designFields {
		assert.Contains(t, m, f, "summary.json field")
	}
	assert.Equal(t, *s, js, "summary.json is the returned Summary")
	assert.Equal(t, true, m["pass"])
	assert.EqualValues(t, seed, m["seed"])

	var ifaces []string
	for _, f := range modeltest.LinkFiles(t, cfg.OutDir) {
		names := pcapInterfaces(t, f)
		require.Len(t, names, 1, "one link per file: %s", f)
		assert.Equal(t, engine.PcapName(names[0]), filepath.Base(f))
		ifaces = append(ifaces, names...)
	}
	want := []string{"nic0.out0->sw.in0", "sw.out0->nic0.in0", "nic1.out0->sw.in1", "sw.out1->nic1.in0",
		"sw.out2->sink", "sw.out3->sink"}
	for _, n := range []string{"nic0", "nic1"} {
		want = append(want, n+".out1->sink", n+".out2->sink")
	}
	assert.ElementsMatch(t, want, ifaces, "one pcapng per link and sink")
	got := modeltest.ByInterface(modeltest.Packets(t, cfg.OutDir))
	marked := map[string]int{}
	for _, l := range want[:4] {
		assert.NotEmpty(t, got[l], l)
		for _, p := range got[l] {
			for _, note := range []string{"lost on the link", "corrupted on the link", "delivered twice", "held back"} {
				if strings.Contains(p.Comment, note) {
					marked[note]++
				}
			}
		}
	}
	assert.Equal(t, map[string]int{"lost on the link": s.Drops["link_loss"], "corrupted on the link": s.Faults["link_corrupt"],
		"delivered twice": s.Faults["link_duplicate"], "held back": s.Faults["link_reorder"]}, marked,
		"every fault is marked in the pcapng")
}

// roceTraffic is the TOML of a nic_icrc model at width with random
// backpressure on both sides, the insert path (in0) and the check path
// (in1, frames with an ICRC, 1 % damaged) each fed perPort random RoCEv2
// frames of every opcode, IPv4 and IPv6, 60 to 4200 bytes.
func roceTraffic(width, perPort int) string {
	return fmt.Sprintf(`
name = "icrc-random-%[1]d"
cycles = 2_000_000_000

[[model]]
name = "icrc"
top = "nic_icrc"
data_width = %[1]d
src_gap_pct = 10
sink_stall_pct = 10

[[traffic]]
kind = "roce"
to = "icrc.in0"
frames = %[2]d
min_size = 60
max_size = 4200

[[traffic]]
kind = "roce"
to = "icrc.in1"
frames = %[2]d
min_size = 60
max_size = 4200
with_icrc = true
corrupt_pct = 1
`, width, perPort)
}

// bthInfo finds the BTH opcode of a RoCEv2 frame (with or without its
// ICRC) by its fixed offsets.
func bthInfo(f []byte) (op byte, v6, vlan, ok bool) {
	off := 14
	if len(f) < off {
		return 0, false, false, false
	}
	et := binary.BigEndian.Uint16(f[12:])
	if et == 0x8100 && len(f) >= 18 {
		vlan, et, off = true, binary.BigEndian.Uint16(f[16:]), 18
	}
	switch {
	case et == 0x0800 && len(f) >= off+20:
		off += int(f[off]&0x0F) * 4
	case et == 0x86DD:
		v6, off = true, off+40
	default:
		return 0, false, false, false
	}
	if len(f) < off+8+roce.BTHLen || binary.BigEndian.Uint16(f[off+2:]) != uint16(roce.UDPPort) {
		return 0, false, false, false
	}
	return f[off+8], v6, vlan, true
}

// beatsOf is how many beats the frames of a port take at width.
func beatsOf(ps []pcapio.Packet, width int) uint64 {
	var n uint64
	for _, p := range ps {
		n += uint64((len(p.Data)*8 + width - 1) / width)
	}
	return n
}

// 100,000 random RoCEv2 frames per data width through the real ICRC
// units, half on the insert path and half on the check path, with random
// backpressure on every input and output: every frame out checked byte for
// byte and tuser against golden, the counters (bad ICRCs included) equal.
func TestICRCRandomFrames100k(t *testing.T) {
	const perPort = 50_000
	for _, width := range []int{64, 512} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			sc := modeltest.Scenario(t, roceTraffic(width, perPort))
			cfg := modeltest.Config(t, sc, 20261130)
			start := time.Now()
			s, err := modeltest.Run(t, cfg)
			modeltest.RequirePass(t, s, err)
			t.Logf("%d frames at %d bits: %.1fs, %.2f Mcycles/s", 2*perPort, width, time.Since(start).Seconds(), s.CyclesPerSec/1e6)
			w := s.Waited
			t.Logf("waited for the models %.2fs, checking %.2fs, stimulus %.2fs", w.Models, w.Checking, w.Stimulus)
			assert.Positive(t, w.Models, "every window waits for the models' replies")
			assert.LessOrEqual(t, w.Models+w.Checking+w.Stimulus, s.WallSeconds, "the waits are parts of the wall time")
			assert.Zero(t, w.Hosts, "no live hosts to wait for")
			assert.Equal(t, 2*perPort, s.FramesIn)
			assert.Equal(t, 2*perPort, s.FramesOut)
			assert.Equal(t, 2*perPort, s.Matched)
			assert.EqualValues(t, perPort, modeltest.Counter(t, s, "icrc", "insert.roce"), "every insert-path frame is RoCEv2")
			assert.Zero(t, modeltest.Counter(t, s, "icrc", "insert.other"))
			assert.EqualValues(t, perPort, modeltest.Counter(t, s, "icrc", "check.roce")+modeltest.Counter(t, s, "icrc", "check.other"))
			bad := modeltest.Counter(t, s, "icrc", "check.bad_icrc")
			assert.Positive(t, bad, "1 % of the check-path frames are damaged")
			assert.Less(t, bad, uint64(perPort/50), "only the damaged frames are bad")

			// The stimulus is what the test claims: every opcode, IPv4 and
			// IPv6 with and without VLAN, sizes spread over 60..4200 bytes.
			got := modeltest.ByInterface(modeltest.Packets(t, cfg.OutDir))
			in0, in1 := got["traffic0->icrc.in0"], got["traffic1->icrc.in1"]
			require.Len(t, in0, perPort)
			require.Len(t, in1, perPort)
			assert.Len(t, got["icrc.out0->sink"], perPort)
			assert.Len(t, got["icrc.out1->sink"], perPort)
			ops := map[byte]bool{}
			encaps := map[[2]bool]int{}
			minLen, maxLen := 1<<30, 0
			for _, p := range append(append([]pcapio.Packet{}, in0...), in1...) {
				minLen, maxLen = min(minLen, len(p.Data)), max(maxLen, len(p.Data))
				if op, v6, vlan, ok := bthInfo(p.Data); ok {
					ops[op] = true
					encaps[[2]bool{v6, vlan}]++
				}
			}
			for _, op := range framegen.KnownOpCodes() {
				assert.True(t, ops[byte(op)], "opcode %v never sent", op)
			}
			assert.Len(t, encaps, 4, "IPv4 and IPv6, with and without 802.1Q: %v", encaps)
			assert.LessOrEqual(t, minLen, 64)
			assert.GreaterOrEqual(t, maxLen, 4000)
			assert.LessOrEqual(t, maxLen, 4200)
			// Backpressure was on: the last frame left clearly later than
			// the busier input port's beats at line rate would allow.
			busiest := max(beatsOf(in0, width), beatsOf(in1, width))
			var last uint64
			for _, p := range append(got["icrc.out0->sink"], got["icrc.out1->sink"]...) {
				last = max(last, p.Cycle)
			}
			t.Logf("last frame out at cycle %d; the busier input port has %d beats (%.3fx)", last, busiest, float64(last)/float64(busiest))
			assert.Greater(t, float64(last), 1.1*float64(busiest), "last frame out at cycle %d vs %d beats", last, busiest)
		})
	}
}

// linkTOML: nic_icrc at 64 bits, insert path into a link to the check path
// with faults, random backpressure.
const linkTOML = `
name = "icrc-link"
cycles = 50_000_000

[[model]]
name = "icrc"
top = "nic_icrc"
data_width = 64
src_gap_pct = 20
sink_stall_pct = 20

[[link]]
from = "icrc.out0"
to = "icrc.in1"
latency = 100
loss_pct = 5
corrupt_pct = 5

[[traffic]]
kind = "roce"
to = "icrc.in0"
frames = 300
min_size = 60
max_size = 4200
`

// zeroWall reads summary.json with its wall-clock fields zeroed.
func zeroWall(tb testing.TB, dir string) []byte {
	tb.Helper()
	m, _ := readSummary(tb, dir)
	require.Contains(tb, m, "wall_seconds")
	require.Contains(tb, m, "cycles_per_second")
	require.Contains(tb, m, "waited")
	m["wall_seconds"], m["cycles_per_second"], m["waited"] = 0, 0, nil
	b, err := json.Marshal(m)
	require.NoError(tb, err)
	return b
}

// The same scenario and seed give byte-identical link pcapng files and
// summary.json (but for the wall-clock fields); another seed gives other
// frames.
func TestDeterministic(t *testing.T) {
	sc := modeltest.Scenario(t, linkTOML)
	var dirs []string
	for _, seed := range []uint64{7, 7, 8} {
		cfg := modeltest.Config(t, sc, seed)
		s, err := modeltest.Run(t, cfg)
		modeltest.RequirePass(t, s, err)
		require.Positive(t, s.Drops["link_loss"]+s.Faults["link_corrupt"], "the faults must fire to be tested")
		dirs = append(dirs, cfg.OutDir)
	}
	read := func(dir string) []byte {
		var all []byte
		for _, f := range modeltest.LinkFiles(t, dir) {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			all = append(all, b...)
		}
		return all
	}
	a, b, c := read(dirs[0]), read(dirs[1]), read(dirs[2])
	assert.True(t, bytes.Equal(a, b), "link pcapng files differs between two runs of seed 7 (%d and %d bytes)", len(a), len(b))
	assert.JSONEq(t, string(zeroWall(t, dirs[0])), string(zeroWall(t, dirs[1])), "summary.json differs between two runs of seed 7")
	assert.False(t, bytes.Equal(a, c), "seeds 7 and 8 gave the same link pcapng files")
	// Not just the seed in the section header: the frames differ.
	pa, pc := modeltest.Packets(t, dirs[0]), modeltest.Packets(t, dirs[2])
	same := len(pa) == len(pc)
	for i := 0; same && i < len(pa); i++ {
		same = bytes.Equal(pa[i].Data, pc[i].Data)
	}
	assert.False(t, same, "seeds 7 and 8 gave the same frames")
}

// NoLinkPcaps: the same run checks the same, and writes summary.json but
// no pcapng.
func TestNoLinkPcaps(t *testing.T) {
	sc := modeltest.Scenario(t, linkTOML)
	with, without := modeltest.Config(t, sc, 7), modeltest.Config(t, sc, 7)
	without.NoLinkPcaps = true
	for _, cfg := range []engine.Config{with, without} {
		s, err := modeltest.Run(t, cfg)
		modeltest.RequirePass(t, s, err)
	}
	modeltest.LinkFiles(t, with.OutDir)
	none, err := filepath.Glob(filepath.Join(without.OutDir, "*.pcapng"))
	require.NoError(t, err)
	assert.Empty(t, none)
	assert.JSONEq(t, string(zeroWall(t, with.OutDir)), string(zeroWall(t, without.OutDir)))
}

// Started hears the process of every model the run started, while it
// runs (a live session tunes their scheduling with it).
func TestStartedNamesTheModelProcesses(t *testing.T) {
	cfg := modeltest.Config(t, modeltest.Scenario(t, linkTOML), 7)
	var pids map[string]int
	alive := map[string]bool{}
	cfg.Started = func(p map[string]int) {
		pids = p
		for name, pid := range p {
			_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
			alive[name] = err == nil
		}
	}
	s, err := modeltest.Run(t, cfg)
	modeltest.RequirePass(t, s, err)
	var names []string
	for _, m := range cfg.Scenario.Models {
		names = append(names, m.Name)
		assert.Positive(t, pids[m.Name], "model %s", m.Name)
		if runtime.GOOS == "linux" {
			assert.True(t, alive[m.Name], "model %s runs when Started hears of it", m.Name)
		}
	}
	assert.Len(t, pids, len(names))
}

// A link that damages every frame and loses some between the real insert
// and check units: the check unit flags the damaged frames bad (tuser),
// golden predicts exactly which, so every frame matches and the run
// passes; the loss shows as drops.
func TestLinkFaultsArePredicted(t *testing.T) {
	t.Run("nic_icrc", func(t *testing.T) {
		sc := modeltest.Scenario(t, strings.NewReplacer("loss_pct = 5", "loss_pct = 10", "corrupt_pct = 5", "corrupt_pct = 100").Replace(linkTOML))
		cfg := modeltest.Config(t, sc, 3)
		s, err := modeltest.Run(t, cfg)
		modeltest.RequirePass(t, s, err)
		lost, corrupted := s.Drops["link_loss"], s.Faults["link_corrupt"]
		assert.Positive(t, lost)
		assert.Equal(t, 300-lost, corrupted, "every frame not lost is damaged")
		assert.Equal(t, 300+300-lost, s.FramesIn)
		bad := modeltest.Counter(t, s, "icrc", "check.bad_icrc")
		roce := modeltest.Counter(t, s, "icrc", "check.roce")
		assert.EqualValues(t, corrupted, roce+modeltest.Counter(t, s, "icrc", "check.other"))
		// A damaged byte in a field the ICRC masks (TTL, checksums, flow
		// label, ...) leaves the ICRC good; those are few.
		assert.Greater(t, bad, uint64(corrupted)*8/10, "bad %d of %d damaged frames", bad, corrupted)
	})
	t.Run("axis_fifo", func(t *testing.T) {
		sc := modeltest.Scenario(t, `
name = "fifo-link"
cycles = 50_000_000
[[model]]
name = "a"
top = "axis_fifo"
sink_stall_pct = 30
[[model]]
name = "b"
top = "axis_fifo"
src_gap_pct = 30
sink_stall_pct = 50
[[link]]
from = "a.out0"
to = "b.in0"
latency = 3
loss_pct = 20
corrupt_pct = 100
[[traffic]]
kind = "roce"
to = "a.in0"
frames = 500
max_size = 1500
`)
		cfg := modeltest.Config(t, sc, 5)
		s, err := modeltest.Run(t, cfg)
		modeltest.RequirePass(t, s, err)
		lost := s.Drops["link_loss"]
		assert.Positive(t, lost)
		assert.Equal(t, 500-lost, s.Faults["link_corrupt"])
		assert.Equal(t, 500+500-lost, s.FramesIn)
		assert.Equal(t, 500+500-lost, s.FramesOut)
		got := modeltest.ByInterface(modeltest.Packets(t, cfg.OutDir))
		assert.Len(t, got["a.out0->b.in0"], 500, "lost frames are recorded on the link too")
		assert.Len(t, got["b.out0->sink"], 500-lost)
	})
}

// The check unit fed frames whose bytes were damaged at the source flags
// those whose ICRC no longer verifies: tuser (matched against golden's
// bad flag frame by frame) and its bad_icrc counter agree with golden and
// with an independent count by roce.VerifyICRC over what the DUT took.
func TestCheckUnitFlagsDamagedFrames(t *testing.T) {
	for _, width := range []int{64, 512} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			sc := modeltest.Scenario(t, fmt.Sprintf(`
name = "icrc-damaged"
cycles = 50_000_000
[[model]]
name = "icrc"
top = "nic_icrc"
data_width = %d
sink_stall_pct = 25
[[traffic]]
kind = "roce"
to = "icrc.in1"
frames = 1000
max_size = 4200
with_icrc = true
corrupt_pct = 100
`, width))
			cfg := modeltest.Config(t, sc, 11)
			s, err := modeltest.Run(t, cfg)
			modeltest.RequirePass(t, s, err)
			bad := modeltest.Counter(t, s, "icrc", "check.bad_icrc")
			oracleBad, oracleOther := 0, 0
			for _, p := range modeltest.Packets(t, cfg.OutDir) {
				if p.InterfaceName == "traffic0->icrc.in1" {
					switch isRoCE, bad := icrcOracle(p.Data); {
					case !isRoCE:
						oracleOther++
					case bad:
						oracleBad++
					}
				}
			}
			t.Logf("DUT bad %d other %d; oracle bad %d other %d", bad, modeltest.Counter(t, s, "icrc", "check.other"), oracleBad, oracleOther)
			assert.Greater(t, bad, uint64(800), "most damaged frames are bad")
			assert.EqualValues(t, oracleBad, bad, "bad ICRCs by roce.VerifyICRC")
			assert.EqualValues(t, oracleOther, modeltest.Counter(t, s, "icrc", "check.other"), "frames no longer RoCEv2")
		})
	}
}

// icrcOracle classifies a frame as the check unit's documented rule does
// (golden/nic, rtl/common/crc32_roce.sv): RoCEv2 when it carries IPv4 or
// IPv6 (after at most one 802.1Q tag) with UDP to port 4791 and an IP
// length with room for UDP, BTH and ICRC; such a frame is bad when it ends
// before the ICRC the IP length locates or when roce.VerifyICRC rejects
// that ICRC.
func icrcOracle(f []byte) (isRoCE, bad bool) {
	off := 14
	if len(f) < off {
		return false, false
	}
	et := binary.BigEndian.Uint16(f[12:])
	if et == 0x8100 {
		if len(f) < 18 {
			return false, false
		}
		et, off = binary.BigEndian.Uint16(f[16:]), 18
	}
	var udp, ipLen int
	switch {
	case et == 0x0800 && len(f) >= off+20 && f[off]>>4 == 4 && f[off]&0x0F >= 5 && f[off+9] == 17:
		udp, ipLen = off+int(f[off]&0x0F)*4, int(binary.BigEndian.Uint16(f[off+2:]))
	case et == 0x86DD && len(f) >= off+40 && f[off]>>4 == 6 && f[off+6] == 17:
		udp, ipLen = off+40, 40+int(binary.BigEndian.Uint16(f[off+4:]))
	default:
		return false, false
	}
	if len(f) < udp+4 || binary.BigEndian.Uint16(f[udp+2:]) != uint16(roce.UDPPort) || off+ipLen < udp+8+roce.BTHLen+roce.ICRCLen {
		return false, false
	}
	if len(f) < off+ipLen {
		return true, true
	}
	ok, _, _, err := roce.VerifyICRC(f[off : off+ipLen])
	return true, err != nil || !ok
}

// A scenario whose traffic needs more than its cycles limit stops there
// with a clear error, fails, and still leaves summary.json (with the seed
// and the error) and the partial link pcapng files.
func TestCycleLimit(t *testing.T) {
	sc := modeltest.Scenario(t, `
name = "too-short"
cycles = 3000
[[model]]
name = "fifo"
top = "axis_fifo"
[[traffic]]
kind = "roce"
to = "fifo.in0"
frames = 200
min_size = 1000
max_size = 1500
`)
	cfg := modeltest.Config(t, sc, 4242)
	s, err := modeltest.Run(t, cfg)
	requireFailedRun(t, cfg, s, err, "limit of 3000 cycles")
	assert.EqualValues(t, 3000, s.Cycles)
	ps := modeltest.Packets(t, cfg.OutDir)
	got := modeltest.ByInterface(ps)
	assert.NotEmpty(t, got["fifo.out0->sink"], "frames out before the limit are saved")
	assert.Less(t, len(got["traffic0->fifo.in0"]), 200, "the partial capture stops at the limit")
}

// A link's capture that cannot be created ends the run before any model
// starts, with an error naming the file and summary.json still written.
func TestCaptureCannotBeCreated(t *testing.T) {
	sc := modeltest.Scenario(t, "name = \"no-capture\"\ncycles = 100_000\n"+
		"[[model]]\nname = \"fifo\"\ntop = \"axis_fifo\"\n"+
		"[[traffic]]\nkind = \"roce\"\nto = \"fifo.in0\"\nframes = 10\n")
	cfg := modeltest.Config(t, sc, 5)
	blocker := filepath.Join(cfg.OutDir, engine.PcapName("fifo.out0->sink"))
	require.NoError(t, os.Mkdir(blocker, 0o755)) // a directory where the file goes
	s, err := modeltest.Run(t, cfg)
	requireFailedRun(t, cfg, s, err, blocker)
	assert.Zero(t, s.FramesIn)
	assert.Zero(t, s.Waited.Models, "no model ran")
}

// requireFailedRun checks a run that failed with an error saying want:
// it still returned and wrote its summary, with pass false, the seed and
// the error.
func requireFailedRun(t *testing.T, cfg engine.Config, s *engine.Summary, err error, want string) {
	t.Helper()
	require.Error(t, err)
	assert.Contains(t, err.Error(), want)
	require.NotNil(t, s)
	assert.False(t, s.Pass)
	assert.Equal(t, err.Error(), s.Error)
	m, _ := readSummary(t, cfg.OutDir)
	assert.EqualValues(t, cfg.Seed, m["seed"])
	assert.Equal(t, false, m["pass"])
	assert.Contains(t, m["error"], want)
}

// A capture is read as the run goes: one damaged past its start fails the
// run where the damage is, as the scenario's fault (*ScenarioError, so
// cosim run exits 2), naming the traffic entry and the packet, after
// every frame before it went through and was checked.
func TestDamagedCaptureMidRun(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "in.pcap")
	require.NoError(t, pcapio.WritePcap(path, exactFrames(t, 300, 128, true, 5)))
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(path, st.Size()-20)) // the last record cut short
	sc := modeltest.Scenario(t, fmt.Sprintf(`
name = "damaged"
cycles = 1_000_000
[[model]]
name = "fifo"
top = "axis_fifo"
[[traffic]]
kind = "pcap"
to = "fifo.in0"
file = %q
`, path))
	cfg := modeltest.Config(t, sc, 3)
	s, err := modeltest.Run(t, cfg)
	require.Error(t, err)
	var se *engine.ScenarioError
	require.True(t, errors.As(err, &se), "%v", err)
	assert.Contains(t, err.Error(), "traffic[0]")
	assert.Contains(t, err.Error(), "packet 300")
	require.NotNil(t, s)
	assert.False(t, s.Pass)
	assert.Equal(t, err.Error(), s.Error)
	assert.Equal(t, 299, s.FramesIn, "the frames before the damage went in")
	assert.Equal(t, 299, s.Matched, "and were checked")

	// With frames still on a long link when the damage is read, they too
	// reach the second FIFO and are checked before the run stops.
	sc = modeltest.Scenario(t, modeltest.FIFOPair("damaged-link", 10_000_000, "latency = 50_000",
		fmt.Sprintf("[[traffic]]\nkind = \"pcap\"\nto = \"a.in0\"\nfile = %q\n", path)))
	s, err = modeltest.Run(t, modeltest.Config(t, sc, 3))
	require.True(t, errors.As(err, &se), "%v", err)
	require.NotNil(t, s)
	assert.Equal(t, 2*299, s.FramesIn, "the frames before the damage went in, and through the link")
	assert.Equal(t, 2*299, s.Matched, "and were checked at both FIFOs")
	assert.Zero(t, s.Missing)
}

// Runs that cannot start leave summary.json too, with the seed, the error
// and pass false; problems with the scenario itself are *ScenarioError.
// No model runs, so none needs to be built.
func TestNotStarted(t *testing.T) {
	for _, tc := range []struct {
		name, toml, want string
		scenario         bool
	}{
		{"unknown top", "[[model]]\nname = \"m\"\ntop = \"no_such_top\"\n", `model m: unknown RTL top "no_such_top"`, true},
		// A remote model has no binary to look for.
		{"port the top lacks", "[[model]]\nname = \"m\"\ntop = \"axis_fifo\"\nremote = \"127.0.0.1:9\"\n[[traffic]]\nkind = \"roce\"\nto = \"m.in3\"\n",
			"m.in3: top axis_fifo has 1 input ports", true},
		{"missing binary", "[[model]]\nname = \"m\"\ntop = \"axis_fifo\"\n", "model m: no binary for top axis_fifo", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := modeltest.Scenario(t, "name = \"not-started\"\ncycles = 1000\n"+tc.toml)
			cfg := engine.Config{Scenario: sc, Seed: 77, OutDir: filepath.Join(t.TempDir(), "out"), ModelDir: t.TempDir()}
			s, err := engine.Run(context.Background(), cfg)
			require.ErrorContains(t, err, tc.want)
			var se *engine.ScenarioError
			assert.Equal(t, tc.scenario, errors.As(err, &se))
			require.NotNil(t, s)
			assert.False(t, s.Pass)
			assert.Equal(t, err.Error(), s.Error)
			m, sum := readSummary(t, cfg.OutDir)
			assert.EqualValues(t, 77, m["seed"])
			assert.Equal(t, false, m["pass"])
			assert.Equal(t, err.Error(), m["error"])
			assert.Equal(t, "not-started", sum.Scenario)
			for _, f := range designFields {
				assert.Contains(t, m, f)
			}
		})
	}
}

// longTOML keeps a real model busy for many seconds; model names the
// instance, so that its process can be told apart.
func longTOML(model string) string {
	return strings.Replace(strings.Replace(linkTOML, `name = "icrc"`, fmt.Sprintf("name = %q", model), 1),
		"icrc.", model+".", -1)
}

func gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// faultMidRun runs a long scenario on a real model, waits until it is
// well into the run, sends the model's process sig and checks that the
// run ends within 2 seconds with an error naming the model, that the
// process is gone, and that summary.json and a partial link pcapng files are
// saved.
func faultMidRun(t *testing.T, name string, sig syscall.Signal, timeouts cosim.Timeouts) error {
	sc := modeltest.Scenario(t, longTOML(name))
	sc.Traffic[0].Frames = 20000
	cfg := modeltest.Config(t, sc, 99)
	cfg.Timeouts = timeouts
	type result struct {
		s   *engine.Summary
		err error
	}
	done := make(chan result, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go func() {
		s, err := engine.Run(ctx, cfg)
		done <- result{s, err}
	}()
	var pid int
	for deadline := time.Now().Add(30 * time.Second); pid == 0; {
		select {
		case r := <-done:
			t.Fatalf("the run ended before the fault: %v", r.err)
		case <-time.After(10 * time.Millisecond):
		}
		require.True(t, time.Now().Before(deadline), "no model process %q found", name)
		pid = cmodeltest.Child(name)
	}
	time.Sleep(300 * time.Millisecond) // into the run
	require.NoError(t, syscall.Kill(pid, sig))
	faulted := time.Now()
	if sig == syscall.SIGSTOP {
		defer syscall.Kill(pid, syscall.SIGKILL) // never leave it behind
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the harness hangs after the fault")
	}
	took := time.Since(faulted)
	t.Logf("ended %v after the fault: %v", took, r.err)
	assert.Less(t, took, 2*time.Second, "the fault must end the run within 2 s")
	require.Error(t, r.err)
	assert.Contains(t, r.err.Error(), fmt.Sprintf("model %q", name))
	var me *cosim.ModelError
	assert.ErrorAs(t, r.err, &me)
	assert.Eventually(t, func() bool { return gone(pid) }, 3*time.Second, 10*time.Millisecond, "model process %d still there", pid)

	require.NotNil(t, r.s)
	assert.False(t, r.s.Pass)
	assert.Positive(t, r.s.Cycles, "the fault came mid-run")
	m, _ := readSummary(t, cfg.OutDir)
	assert.EqualValues(t, 99, m["seed"])
	assert.Equal(t, false, m["pass"])
	assert.Equal(t, r.err.Error(), m["error"])
	assert.NotEmpty(t, modeltest.Packets(t, cfg.OutDir), "the partial link pcapng files is saved")
	return r.err
}

// A real model killed with SIGKILL mid-run.
func TestModelKilledMidRun(t *testing.T) {
	err := faultMidRun(t, "victim_kill", syscall.SIGKILL, cosim.Timeouts{})
	var xe *cosim.ExitError
	assert.ErrorAs(t, err, &xe)
	assert.Contains(t, err.Error(), "signal: killed")
}

// A real model stopped with SIGSTOP mid-run: the step timeout (1 s here)
// catches it and the process is killed.
func TestModelStoppedMidRun(t *testing.T) {
	err := faultMidRun(t, "victim_stop", syscall.SIGSTOP, cosim.Timeouts{Step: time.Second})
	assert.ErrorIs(t, err, cosim.ErrTimeout)
	assert.Contains(t, err.Error(), "no answer within 1s")
	assert.Contains(t, err.Error(), "state T (stopped)")
}

// A link that duplicates and reorders frames between two real FIFOs: the
// second FIFO gets every copy in the link's order, golden (fed what the
// DUT accepted) predicts exactly that, and the counts show both faults.
func TestLinkDuplicatesAndReorders(t *testing.T) {
	sc := modeltest.Scenario(t, modeltest.FIFOPair("fifo-dup", 50_000_000, "latency = 40\ndup_pct = 10\nreorder_pct = 10",
		"[[traffic]]\nkind = \"roce\"\nto = \"a.in0\"\nframes = 500\nmax_size = 300\ngap_cycles = 20\n"))
	cfg := modeltest.Config(t, sc, 9)
	s, err := modeltest.Run(t, cfg)
	modeltest.RequirePass(t, s, err)
	dups, reordered := s.Faults["link_duplicate"], s.Faults["link_reorder"]
	assert.Positive(t, dups)
	assert.Positive(t, reordered)
	assert.Equal(t, 500+500+dups, s.FramesIn)
	got := modeltest.ByInterface(modeltest.Packets(t, cfg.OutDir))
	sent, out := got["a.out0->b.in0"], got["b.out0->sink"]
	require.Len(t, sent, 500)
	require.Len(t, out, 500+dups)
	inOrder := true
	for i := range sent {
		inOrder = inOrder && bytes.Equal(sent[i].Data, out[i].Data)
	}
	assert.False(t, inOrder, "later frames overtook the held-back ones")
}
