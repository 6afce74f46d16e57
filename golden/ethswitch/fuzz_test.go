package ethswitch

import (
	"bytes"
	"testing"
)

// FuzzFrame gives any bytes to a switch with any CTRL, after a frame that
// makes it learn hosts, and checks that it neither panics nor loses the
// frame: it is counted once, and every copy that leaves is the input or
// its CE-marked version.
func FuzzFrame(f *testing.F) {
	f.Add(plain(Broadcast, macA, 64), uint8(0), false, uint8(0))
	f.Add(buildIPv4(macB, macA, 80, 0x02, true, 5), uint8(1), false, uint8(CtrlECN))
	f.Add(pfcIn(macB, 0xFF, [8]uint16{1, 2, 3, 4, 5, 6, 7, 8}), uint8(1), false, uint8(CtrlPFCRx))
	f.Add([]byte{1, 2, 3}, uint8(2), true, uint8(15))
	f.Fuzz(func(t *testing.T, frame []byte, port uint8, bad bool, ctrl uint8) {
		if len(frame) > 4000 {
			return
		}
		cfg := DefaultConfig()
		cfg.Slots, cfg.BufBytes = 2, 200
		m, _ := New(cfg)
		m.CSRWrite(AddrCtrl, uint32(ctrl), 0)
		m.CSRWrite(AddrECNK, 0, 0)
		m.CSRWrite(AddrPFCXoff, 10, 0)
		m.CSRWrite(AddrPFCXon, 0, 0) // XON < XOFF: no PFC storm
		m.Input(1, buildIPv4(Broadcast, macB, 100, 0x02, false, 0), false, 10)
		p, seq := int(port%4), 0
		if p == 1 {
			seq = 1 // after the learning frame
		}
		orig := append([]byte(nil), frame...)
		m.Input(p, frame, bad, 20)
		m.Run(1_000_000)
		var rx uint64
		for i := range 4 {
			rx += m.Counter(i, RxFrames)
		}
		if rx != 2 || !bytes.Equal(frame, orig) {
			t.Fatalf("rx_frames %d, input modified %v", rx, !bytes.Equal(frame, orig))
		}
		for _, o := range m.Outputs() {
			if o.PFC() || o.Ingress != p || o.Seq != seq {
				continue
			}
			want := orig
			if o.Marked {
				want, _ = MarkCE(orig)
			}
			if !bytes.Equal(o.Frame, want) || o.Port == p {
				t.Fatalf("output %s differs from its input", outString(o))
			}
		}
		if !m.Idle() {
			t.Fatal("not idle after a million cycles")
		}
	})
}
