package tagger

import (
	"github.com/rocesim/cosim/harness/engine"

	"bytes"
	"testing"
)

func frame(etherType uint16, n int) []byte {
	f := make([]byte, n)
	for i := range f {
		f[i] = byte(i)
	}
	f[12], f[13] = byte(etherType>>8), byte(etherType)
	return f
}

func TestTCI(t *testing.T) {
	if got := TCI(5, 1, 100); got != 0xb064 {
		t.Fatalf("TCI(5, 1, 100) = %#04x, want 0xb064 (101 1 000001100100)", got)
	}
	if got := TCI(7, 0, 0x1fff); got != 0xefff {
		t.Fatalf("TCI(7, 0, 0x1fff) = %#04x: the VID keeps 12 bits", got)
	}
}

func TestTag(t *testing.T) {
	in := frame(0x0800, 60)
	out, tagged := Tag(in, TCI(3, 0, 42))
	if !tagged || len(out) != 64 {
		t.Fatalf("Tag: tagged %v, %d bytes; want a tag and 64 bytes", tagged, len(out))
	}
	if want := []byte{0x81, 0x00, 0x60, 0x2a, 0x08, 0x00}; !bytes.Equal(out[12:18], want) {
		t.Fatalf("bytes 12..17 = % x, want % x", out[12:18], want)
	}
	if !bytes.Equal(out[:12], in[:12]) || !bytes.Equal(out[16:], in[12:]) {
		t.Fatal("the addresses and what follows the tag must be the frame's")
	}
	for _, f := range [][]byte{frame(TPID, 64), frame(0x0800, 14)[:13], {}} {
		if out, tagged := Tag(f, 1); tagged || !bytes.Equal(out, f) {
			t.Fatalf("a %d-byte frame with bytes 12..13 % x must pass unchanged", len(f), f[min(12, len(f)):min(14, len(f))])
		}
	}
}

// A write applies from the first frame whose first beat comes after its
// cycle; the counters count per port.
func TestGoldenCSRWriteAppliesFromTheNextFrame(t *testing.T) {
	g := newGolden(engine.GoldenEnv{}).(*golden)
	g.CSRWrite(AddrTag, uint32(TCI(1, 0, 7)), 10)
	g.CSRWrite(AddrCtrl, 0, 20)
	check := func(first uint64, wantLen int) {
		t.Helper()
		o := g.Accept(0, first, first+8, frame(0x0800, 60), false)
		if len(o) != 1 || len(o[0].Data) != wantLen {
			t.Fatalf("frame at cycle %d: %d bytes out, want %d", first, len(o[0].Data), wantLen)
		}
	}
	check(5, 64) // the reset TAG
	check(11, 64)
	if g.tag != uint32(TCI(1, 0, 7)) {
		t.Fatalf("TAG %#x after cycle 10's write", g.tag)
	}
	check(20, 64) // CTRL written in cycle 20 applies from 21
	check(21, 60)
	g.Accept(1, 30, 31, frame(0x0800, 60), true)
	want := map[string]uint64{"tagged": 3, "passed": 1, "port1_frames": 1}
	for k, v := range g.Counters() {
		if want[k] != v {
			t.Errorf("counter %s = %d, want %d", k, v, want[k])
		}
	}
}
