package tap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/gopacket/gopacket/layers"
	"github.com/rocesim/cosim/golden/checksum"
)

// TCP flag bits in the header's flags byte.
const (
	tcpFIN = 0x01
	tcpPSH = 0x08
	tcpCWR = 0x80
)

// fuzzSuperPacket builds the super-packet a host would hand over: payload
// stretched to size bytes, the given flags, sequence number and IPv4 ID,
// with an 802.1Q tag after the MACs when tagged.
func fuzzSuperPacket(t *testing.T, v6, tagged bool, payload []byte, size uint16, flags uint8, seq uint32, id uint16, mss uint16) ([]byte, vnetHdr) {
	// Room for the largest headers within the 16-bit IP length fields.
	n := min(int(size), 65535-20-32)
	if len(payload) > 0 {
		payload = bytes.Repeat(payload, n/len(payload)+1)[:n]
	}
	pkt, h := superPacket(t, v6, payload, int(mss), func(tcp *layers.TCP) {
		tcp.Seq = seq
		tcp.FIN, tcp.SYN, tcp.RST, tcp.PSH = flags&0x01 != 0, flags&0x02 != 0, flags&0x04 != 0, flags&0x08 != 0
		tcp.ACK, tcp.URG, tcp.ECE, tcp.CWR = flags&0x10 != 0, flags&0x20 != 0, flags&0x40 != 0, flags&0x80 != 0
	})
	if !v6 {
		l3 := HeaderLen
		binary.BigEndian.PutUint16(pkt[l3+4:], id)
		setIPv4Csum(pkt[l3 : l3+20])
	}
	if tagged {
		// Neither checksum covers the Ethernet header, so the tag needs none.
		pkt = append(pkt[:12:12], append([]byte{0x81, 0x00, 0x20, 0x07}, pkt[12:]...)...)
		h.csumStart += TagLen
	}
	return pkt, h
}

// tcpFields reads what a frame carries: its offsets, sequence number,
// flags and payload.
func tcpFields(t *testing.T, f []byte, v6 bool) (l3, l4 int, seq uint32, flags uint8, payload []byte) {
	l3, _ = l3Offset(f)
	l4, ok := tcpOffset(f, l3, v6)
	if !ok {
		t.Fatalf("not a TCP frame: % x", f)
	}
	hlen := l4 + int(f[l4+12]>>4)*4
	return l3, l4, binary.BigEndian.Uint32(f[l4+4:]), f[l4+13], f[hlen:]
}

// checkCsums requires a whole IPv4 header checksum and a whole TCP
// checksum (pseudo-header included).
func checkCsums(t *testing.T, f []byte, l3, l4 int, v6 bool) {
	if !v6 && checksum.Checksum(f[l3:l4]) != 0 {
		t.Fatalf("bad IPv4 header checksum: % x", f[l3:l4])
	}
	if c := ^checksum.Sum(pseudoSum(f, l3, v6, len(f)-l4), f[l4:]); c != 0 {
		t.Fatalf("bad TCP checksum (%#04x off)", c)
	}
}

// FuzzSplitJoin splits a super-packet built from the fuzz parameters the
// way a TSO NIC would, joins the frames back the way GRO would, and
// requires the same TCP stream out: payload, sequence numbers, flags (FIN
// and PSH on the last piece only, CWR on the first only), checksums. A
// damaged copy must be refused with errOffload or split, never panic.
func FuzzSplitJoin(f *testing.F) {
	f.Add([]byte("hello"), uint16(20000), uint16(1448), false, uint8(0x18), uint32(1000), uint16(50), false, uint16(0), uint8(0))
	f.Add([]byte("hello"), uint16(20000), uint16(1428), true, uint8(0x18), uint32(1000), uint16(50), false, uint16(0), uint8(0))
	f.Add([]byte{1, 2, 3}, uint16(65000), uint16(1448), false, uint8(0x99), uint32(0xfffff000), uint16(0xfffe), false, uint16(30), uint8(1))
	f.Add([]byte{1, 2, 3}, uint16(9000), uint16(1000), true, uint8(0x11), uint32(7), uint16(1), true, uint16(14), uint8(0x10))
	f.Add([]byte{0xff}, uint16(1), uint16(1448), false, uint8(0x10), uint32(1), uint16(1), true, uint16(0), uint8(0))
	f.Add([]byte{}, uint16(0), uint16(1448), true, uint8(0x12), uint32(1), uint16(1), false, uint16(0), uint8(0))
	f.Add([]byte("x"), uint16(4000), uint16(0), false, uint8(0x10), uint32(1), uint16(1), false, uint16(0), uint8(0))
	f.Add([]byte("x"), uint16(4000), uint16(65535), true, uint8(0x10), uint32(1), uint16(1), false, uint16(0), uint8(0))
	f.Add([]byte("x"), uint16(4000), uint16(1), false, uint8(0x10), uint32(1), uint16(1), false, uint16(0), uint8(0))

	f.Fuzz(func(t *testing.T, data []byte, size, mss uint16, v6 bool, flags uint8, seq uint32, id uint16, tagged bool, damageAt uint16, damage uint8) {
		if len(data) == 0 {
			size = 0
		}
		pkt, h := fuzzSuperPacket(t, v6, tagged, data, size, flags, seq, id, mss)
		_, _, _, _, stream := tcpFields(t, pkt, v6)
		stream = bytes.Clone(stream)

		// A damaged copy: any outcome but a panic or another error.
		if damage != 0 {
			bad := bytes.Clone(pkt)
			bad[int(damageAt)%len(bad)] ^= damage
			var s splitter
			if frames, err := s.split(bad, h); err != nil && !errors.Is(err, errOffload) {
				t.Fatalf("split: %v", err)
			} else if err == nil {
				for i := 0; i < len(frames); {
					n, a := runLen(frames[i:], 1<<16)
					if n > 1 {
						join(nil, frames[i:i+n], a)
					}
					i += n
				}
			}
		}

		var s splitter
		split, err := s.split(pkt, h)
		if mss == 0 {
			if !errors.Is(err, errOffload) {
				t.Fatalf("split with MSS 0: %v", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("split: %v", err)
		}
		want := max(1, (len(stream)+int(mss)-1)/int(mss))
		if len(split) != want {
			t.Fatalf("%d frames, want %d", len(split), want)
		}
		var frames [][]byte
		for i, fr := range split {
			fr = bytes.Clone(fr)
			frames = append(frames, fr)
			l3, l4, _, fl, pl := tcpFields(t, fr, v6)
			if len(pl) > int(mss) {
				t.Fatalf("frame %d: %d bytes of payload above MSS %d", i, len(pl), mss)
			}
			if !v6 && binary.BigEndian.Uint16(fr[l3+4:]) != id+uint16(i) {
				t.Fatalf("frame %d: IPv4 ID %d, want %d", i, binary.BigEndian.Uint16(fr[l3+4:]), id+uint16(i))
			}
			wantFl := flags
			if i > 0 {
				wantFl &^= tcpCWR
			}
			if i < len(split)-1 {
				wantFl &^= tcpFIN | tcpPSH
			}
			if fl != wantFl {
				t.Fatalf("frame %d: flags %#02x, want %#02x", i, fl, wantFl)
			}
			checkCsums(t, fr, l3, l4, v6)
		}

		// Join as WriteFrames does; a joined super-packet must split back
		// into its frames byte for byte.
		var got []byte
		for i := 0; i < len(frames); {
			n, a := runLen(frames[i:], 1<<16)
			out := frames[i]
			if n > 1 {
				sp := join(nil, frames[i:i+n], a)
				jh := parseVnetHdr(sp)
				out = bytes.Clone(sp[vnetHdrLen:])
				var again splitter
				back, err := again.split(out, jh)
				if err != nil {
					t.Fatalf("joined frames %d..%d do not split: %v", i, i+n-1, err)
				}
				if len(back) != n {
					t.Fatalf("joined frames %d..%d split into %d", i, i+n-1, len(back))
				}
				for k := range back {
					if !bytes.Equal(back[k], frames[i+k]) {
						t.Fatalf("joined frame %d splits back different:\n% x\n% x", i+k, back[k], frames[i+k])
					}
				}
				// The TCP checksum is left partial, as for a host's own
				// super-packet; completed, it must be whole.
				if err := completeCsum(out, jh); err != nil {
					t.Fatalf("joined frames %d..%d: %v", i, i+n-1, err)
				}
			}
			l3, l4, sq, fl, pl := tcpFields(t, out, v6)
			checkCsums(t, out, l3, l4, v6)
			if sq != seq+uint32(len(got)) {
				t.Fatalf("piece at frame %d: sequence %d, want %d", i, sq, seq+uint32(len(got)))
			}
			_, _, _, lastFl, _ := tcpFields(t, frames[i+n-1], v6)
			if fl != lastFl {
				t.Fatalf("piece at frame %d: flags %#02x, its last frame's are %#02x", i, fl, lastFl)
			}
			if i > 0 && fl&tcpCWR != 0 {
				t.Fatalf("piece at frame %d has CWR", i)
			}
			if i+n < len(frames) && fl&(tcpFIN|tcpPSH) != 0 {
				t.Fatalf("piece at frame %d, not the last, has flags %#02x", i, fl)
			}
			got = append(got, pl...)
			i += n
		}
		if !bytes.Equal(got, stream) {
			t.Fatalf("joined stream of %d bytes differs from the %d sent", len(got), len(stream))
		}
	})
}
