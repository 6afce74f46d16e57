package ethswitch

import "testing"

// TestLFSRMaximal: the RED LFSR visits all 65,535 non-zero states before
// it comes back (README "ECN": maximal length), so a seed never locks it.
func TestLFSRMaximal(t *testing.T) {
	s, n := uint16(1), 0
	for {
		s = lfsrStep(s)
		n++
		if s == 0 {
			t.Fatal("the LFSR reached 0")
		}
		if s == 1 {
			break
		}
	}
	if n != 65535 {
		t.Errorf("period %d, want 65535", n)
	}
}

// redRun sends count 64-byte frames of ECN codepoint ecn[k] from port 0 to
// B on port 1, one every 10 cycles from cycle 20, while port 1's sink holds
// tready low until 1000: frame k sees qocc(1,0) = 64k before its add. It
// returns the marks per frame (in port 1's output order, which is FIFO)
// and the RED_LFSR read at the end.
func redRun(t *testing.T, csr []csrWrite, ecn []byte) ([]bool, uint32) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Ready = ready(map[int]func(uint64) bool{1: func(c uint64) bool { return c >= 1000 }})
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range csr {
		if err := m.CSRWrite(x.addr, x.data, x.cycle); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Input(learnB.port, learnB.frame, false, learnB.last); err != nil {
		t.Fatal(err)
	}
	for k, e := range ecn {
		if err := m.Input(0, buildIPv4(macB, macA, 64, e, false, 0), false, 20+10*uint64(k)); err != nil {
			t.Fatal(err)
		}
	}
	m.Run(3000)
	var marks []bool
	for _, o := range m.Outputs() {
		if o.Port == 1 && o.Ingress == 0 {
			marks = append(marks, o.Marked)
		}
	}
	if len(marks) != len(ecn) {
		t.Fatalf("%d frames out of port 1, want %d", len(marks), len(ecn))
	}
	return marks, m.CSRRead(AddrREDLFSR)
}

// red_candidates: ECN_K[0] = 64, ECN_KMAX[0] = 256, ECN_PMAX[0] = 255,
// LFSR seeded 0xACE1. Frames see q = 0, 64, 128, ...: q <= 64 never
// marked, q > 256 always, q = 128, 192, 256 are candidates. Worked by hand
// from the README's rule (span 192, PMAX*256 = 65280):
//
//	q=128: lfsr 0xACE1 -> 0xE270 = 57968; 57968*192 = 11129856 <  64*65280 =  4177920? no
//	q=192: lfsr 0xE270 -> 0x7138 = 28984; 28984*192 =  5564928 < 128*65280 =  8355840? mark
//	q=256: lfsr 0x7138 -> 0x389C = 14492; 14492*192 =  2782464 < 192*65280 = 12533760? mark
//
// The Not-ECT frame at q = 320 is no candidate and the CE one at 384 is
// not ECT: neither is marked nor steps the LFSR; the ECT frame at 448 is
// above KMAX: marked, no step. RED_LFSR reads 0x389C at the end.
func TestREDCandidates(t *testing.T) {
	csr := setup(w(AddrCtrl, CtrlECN|CtrlRED, 0), w(AddrECNK, 64, 0), w(AddrECNKMax, 256, 0),
		w(AddrECNPMax, 255, 0), w(AddrREDLFSR, 0xACE1, 0))
	marks, lfsr := redRun(t, csr, []byte{2, 1, 2, 2, 1, 0, 3, 2})
	want := []bool{false, false, false, true, true, false, false, true}
	for k := range want {
		if marks[k] != want[k] {
			t.Errorf("frame %d (q = %d) marked %v, want %v", k, 64*k, marks[k], want[k])
		}
	}
	if lfsr != 0x389C {
		t.Errorf("RED_LFSR = %#04x at the end, want 0x389c", lfsr)
	}
}

// red_lfsr_seed: RED off leaves the threshold rule (every ECT frame above
// ECN_K marked, whatever KMAX says) and never steps the LFSR; a write of 0
// loads 1.
func TestREDOffAndSeed(t *testing.T) {
	csr := setup(w(AddrCtrl, CtrlECN, 0), w(AddrECNK, 64, 0), w(AddrECNKMax, 100000, 0),
		w(AddrECNPMax, 0, 0), w(AddrREDLFSR, 0, 0))
	marks, lfsr := redRun(t, csr, []byte{2, 2, 2, 2})
	for k, want := range []bool{false, false, true, true} {
		if marks[k] != want {
			t.Errorf("RED off: frame %d marked %v, want %v", k, marks[k], want)
		}
	}
	if lfsr != 1 {
		t.Errorf("RED_LFSR = %#x after writing 0 and no candidate, want 1", lfsr)
	}
}

// TestREDProbability: over many candidates at one queue depth the share
// marked is (q-K)/(KMAX-K) * PMAX/256 (README "ECN"), within 1 %: the
// LFSR is uniform enough over its period for the profile to hold.
func TestREDProbability(t *testing.T) {
	m, _ := New(DefaultConfig())
	m.r.ctrl = CtrlECN | CtrlRED
	m.r.ecnK[2], m.r.ecnKMax[2] = 1000, 5000
	for _, c := range []struct {
		q    uint64
		pmax uint32
	}{{1001, 255}, {2000, 255}, {3000, 128}, {5000, 26}, {5000, 255}, {4000, 0}} {
		m.r.ecnPMax[2] = c.pmax
		marked := 0
		const n = 65535
		for range n {
			if m.ecnMark(c.q, 2) {
				marked++
			}
		}
		want := float64(c.q-1000) / 4000 * float64(c.pmax) / 256
		if got := float64(marked) / n; got < want-0.01 || got > want+0.01 {
			t.Errorf("q %d PMAX %d: %.4f marked, want %.4f", c.q, c.pmax, got, want)
		}
	}
}
