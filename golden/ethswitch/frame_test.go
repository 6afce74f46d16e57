package ethswitch

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/gopacket/gopacket/layers"

	"github.com/rocesim/cosim/golden/pfc"
)

// TestMACIndex pins the README hash with values worked out by hand, and
// checks it against the bit-level reference on random addresses.
func TestMACIndex(t *testing.T) {
	for _, c := range []struct {
		mac           MAC
		e2, e64, e256 int
	}{
		// h = 0x0000^0x0000^0x0001 = 0x0001; h^h>>8 = 0x0001
		{MAC{0, 0, 0, 0, 0, 1}, 1, 1, 1},
		// h = 0x0180^0xC200^0x0001 = 0xC381; ^0xC3 = 0xC342
		{PFCDstMAC, 0, 2, 0x42},
		// h = 0xFFFF; ^0xFF = 0xFF00
		{Broadcast, 0, 0, 0},
		// h = 0x0200^0x0000^0x000A = 0x020A; ^0x02 = 0x0208
		{hostMAC(0xA), 0, 8, 8},
		// h = 0x1234^0x5678^0x9ABC = 0xDEF0; ^0xDE = 0xDE2E
		{MAC{0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC}, 0, 0x2E, 0x2E},
	} {
		for _, e := range []struct{ entries, want int }{{2, c.e2}, {64, c.e64}, {256, c.e256}} {
			if got := MACIndex(c.mac, e.entries); got != e.want {
				t.Errorf("MACIndex(%v, %d) = %d, want %d", c.mac, e.entries, got, e.want)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		var a MAC
		for k := range a {
			a[k] = byte(rng.Uint32())
		}
		for _, e := range []int{2, 4, 64, 256} {
			if MACIndex(a, e) != refHash(a, e) {
				t.Fatalf("MACIndex(%v, %d) = %d, reference %d", a, e, MACIndex(a, e), refHash(a, e))
			}
		}
	}
	if g, a := groupTwin(macA), indexTwin(macA); MACIndex(g, 64) != MACIndex(macA, 64) || !g.Group() ||
		MACIndex(a, 64) != MACIndex(macA, 64) || a.Group() || a == macA {
		t.Errorf("test twins of %v: %v %v", macA, g, a)
	}
}

func TestMACString(t *testing.T) {
	if s := PFCDstMAC.String(); s != "01:80:c2:00:00:01" {
		t.Errorf("String = %q", s)
	}
	if !Broadcast.Group() || macA.Group() {
		t.Error("Group")
	}
}

// TestMarkCE: which frames are marked and the bytes of a marked copy.
func TestMarkCE(t *testing.T) {
	for _, c := range []struct {
		name  string
		frame []byte
		mark  bool
	}{
		{"ect0", buildIPv4(macB, macA, 64, 0x02, false, 0), true},
		{"ect1", buildIPv4(macB, macA, 64, 0xB9, false, 0), true},
		{"not_ect", buildIPv4(macB, macA, 64, 0xB8, false, 0), false},
		{"ce", buildIPv4(macB, macA, 64, 0x03, false, 0), false},
		{"vlan_ect0", buildIPv4(macB, macA, 64, 0x02, true, 3), true},
		{"ihl4", withByte(buildIPv4(macB, macA, 64, 0x02, false, 0), 14, 0x44), false},
		{"version6", withByte(buildIPv4(macB, macA, 64, 0x02, false, 0), 14, 0x65), false},
		{"two_tags", doubleTag(buildIPv4(macB, macA, 64, 0x02, true, 3)), false},
		{"not_ip", plain(macB, macA, 64), false},
		{"short", buildIPv4(macB, macA, 64, 0x02, false, 0)[:30], false},
	} {
		orig := append([]byte(nil), c.frame...)
		got, ok := MarkCE(c.frame)
		if ok != c.mark {
			t.Errorf("%s: marked %v, want %v", c.name, ok, c.mark)
		}
		if !bytes.Equal(c.frame, orig) {
			t.Errorf("%s: MarkCE modified its input", c.name)
		}
		if !ok {
			if &got[0] != &c.frame[0] {
				t.Errorf("%s: unmarked result is not the input", c.name)
			}
			continue
		}
		checkMarked(t, orig, got, true)
	}
}

// doubleTag turns a tagged frame into a QinQ-looking one (a second 0x8100
// where IPv4 was expected): not IPv4 after at most one tag.
func doubleTag(f []byte) []byte {
	binary.BigEndian.PutUint16(f[16:], EtherTypeVLAN)
	return f
}

// TestPFCFrame compares the frames the switch sends with golden/pfc.New
// and decodes them.
func TestPFCFrame(t *testing.T) {
	src := MAC{0x02, 0x11, 0x22, 0x33, 0x44, 0x55}
	for prio := range 8 {
		for _, q := range []uint16{0, 1, 0xFFFF} {
			var quanta [8]uint16
			quanta[prio] = q
			want, err := pfc.New(src[:], 1<<prio, quanta)
			if err != nil {
				t.Fatal(err)
			}
			got := PFCFrame(src, prio, q)
			if !bytes.Equal(got, want) {
				t.Fatalf("prio %d quanta %d:\n got % x\nwant % x", prio, q, got, want)
			}
			if checkPFCFrame(t, got, src, prio) != q {
				t.Errorf("prio %d: time %d", prio, q)
			}
		}
	}
	if b := AppendPFCFrame([]byte{1, 2}, src, 0, 5); len(b) != 62 || b[0] != 1 || !isPFC(b[2:]) {
		t.Errorf("AppendPFCFrame does not append: % x", b)
	}
	var eth layers.Ethernet
	if err := eth.DecodeFromBytes(PFCFrame(src, 1, 1), nil); err != nil || eth.EthernetType != pfc.EtherType {
		t.Errorf("EtherType %v, %v", eth.EthernetType, err)
	}
}

func TestPauseCycles(t *testing.T) {
	for _, c := range []struct {
		quanta uint16
		width  int
		want   uint64
	}{
		{0, 64, 0}, {1, 64, 8}, {2, 64, 16}, {0xFFFF, 64, 0xFFFF * 8},
		{1, 512, 1}, {2, 512, 2}, {3, 8, 192}, {5, 128, 20},
	} {
		if got := PauseCycles(c.quanta, c.width); got != c.want {
			t.Errorf("PauseCycles(%d, %d) = %d, want %d", c.quanta, c.width, got, c.want)
		}
		if got := pfc.QuantaToCycles(c.quanta, c.width); got != c.want {
			t.Errorf("pfc.QuantaToCycles(%d, %d) = %d, want %d", c.quanta, c.width, got, c.want)
		}
	}
}
