// Command gen writes the stimulus and expected output for the icrc_insert and
// icrc_check testbench (rtl/nic/tb/icrc): random RoCEv2 frames of every opcode over
// IPv4 (with and without options), IPv6 and 802.1Q from harness/framegen, frames
// that are not RoCEv2, RoCEv2 frames with a corrupted byte or cut short, and
// RoCEv2 frames with 1..7 extra bytes before the ICRC so that it lands in
// every byte lane.
//
// It writes two files into -out: tx.txt (icrc_insert) and rx.txt (icrc_check).
// Each line is one frame:
//
//	CLASS IN_USER EXP_USER IN_HEX EXP_HEX
//
// CLASS is R (RoCEv2, ICRC good or appended), B (RoCEv2, ICRC bad or missing)
// or O (other); IN_USER is tuser[0] driven on the frame's last input beat (1)
// or, for RoCEv2 frames into icrc_check, on its first input beat only (2);
// EXP_USER is tuser[0] expected on the last output beat. Lines starting with
// # are comments. Expected outputs come from the golden ICRC (roce.ComputeICRC,
// roce.VerifyICRC) and the classification rule documented in
// rtl/common/crc32_roce.sv, which classify mirrors.
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/rocesim/cosim/golden/checksum"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/harness/framegen"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 10000, "frames per file")
	seed := fs.Uint64("seed", 1, "generator seed")
	out := fs.String("out", ".", "directory for tx.txt and rx.txt")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *n < 1 {
		return errors.New("-n must be at least 1")
	}
	g := &gen{rng: rand.New(rand.NewPCG(*seed, *seed^0x1c2c))}
	g.ops = framegen.KnownOpCodes()
	for _, f := range []struct {
		name string
		next func() (line, error)
	}{{"tx.txt", g.tx}, {"rx.txt", g.rx}} {
		path := filepath.Join(*out, f.name)
		tally, err := writeFile(path, *n, *seed, f.next)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "gen: %s: %d frames (%d R, %d B, %d O), seed %d\n",
			path, *n, tally['R'], tally['B'], tally['O'], *seed)
	}
	return nil
}

// line is one frame of a stimulus file.
type line struct {
	class   byte
	inUser  bool
	inFirst bool // tuser[0] on the first input beat instead of the last
	expUser bool
	in, exp []byte
}

func writeFile(path string, n int, seed uint64, next func() (line, error)) (map[byte]int, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "# %s, seed %d: CLASS IN_USER EXP_USER IN_HEX EXP_HEX\n", filepath.Base(path), seed)
	tally := map[byte]int{}
	b := func(v bool) int {
		if v {
			return 1
		}
		return 0
	}
	for i := 0; i < n; i++ {
		l, err := next()
		if err != nil {
			f.Close()
			return nil, err
		}
		tally[l.class]++
		fmt.Fprintf(w, "%c %d %d %s %s\n", l.class, b(l.inUser)+2*b(l.inFirst), b(l.expUser),
			hex.EncodeToString(l.in), hex.EncodeToString(l.exp))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return nil, err
	}
	return tally, f.Close()
}

type gen struct {
	rng *rand.Rand
	ops []roce.OpCode
}

// frame builds a valid RoCEv2 frame with its ICRC, trimmed to the IP end
// (no Ethernet padding), sometimes with IPv4 options.
func (g *gen) frame() ([]byte, error) {
	op := g.ops[g.rng.IntN(len(g.ops))]
	enc := framegen.Encaps[g.rng.IntN(len(framegen.Encaps))]
	maxLen := []int{16, 256, 1500, 4096}[g.rng.IntN(4)]
	f, err := framegen.Build(g.rng, framegen.Spec{OpCode: op, Encap: enc, PayloadLen: framegen.PayloadLen(g.rng, op, maxLen)})
	if err != nil {
		return nil, err
	}
	_, end, err := roce.IPPacket(f)
	if err != nil {
		return nil, err
	}
	f = f[:end]
	if (enc == framegen.IPv4 || enc == framegen.VLANIPv4) && g.rng.IntN(4) == 0 {
		if f, err = g.options(f); err != nil {
			return nil, err
		}
	}
	if g.rng.IntN(4) == 0 {
		return g.misalign(f)
	}
	return f, nil
}

// misalign adds 1..7 random bytes before the ICRC, growing the IP and UDP
// lengths, so that the ICRC lands at every byte lane (a well-formed RoCEv2
// frame keeps it 4-byte aligned within the IP packet, 2 bytes off a beat
// boundary).
func (g *gen) misalign(f []byte) ([]byte, error) {
	l3, end, err := roce.IPPacket(f)
	if err != nil {
		return nil, err
	}
	k := 1 + g.rng.IntN(7)
	out := append([]byte{}, f[:end-roce.ICRCLen]...)
	for i := 0; i < k; i++ {
		out = append(out, byte(g.rng.Uint32()))
	}
	ip := out[l3:]
	l4 := 40
	if ip[0]>>4 == 6 {
		binary.BigEndian.PutUint16(ip[4:], binary.BigEndian.Uint16(ip[4:])+uint16(k))
	} else {
		l4 = int(ip[0]&0x0F) * 4
		binary.BigEndian.PutUint16(ip[2:], binary.BigEndian.Uint16(ip[2:])+uint16(k))
		binary.BigEndian.PutUint16(ip[10:], 0)
		binary.BigEndian.PutUint16(ip[10:], checksum.Checksum(ip[:l4]))
	}
	binary.BigEndian.PutUint16(ip[l4+4:], binary.BigEndian.Uint16(ip[l4+4:])+uint16(k))
	icrc, err := computeICRC(ip)
	if err != nil {
		return nil, err
	}
	return binary.LittleEndian.AppendUint32(out, icrc), nil
}

// options inserts 4..40 bytes of IPv4 options, fixing IHL, total length, the
// header checksum and the ICRC.
func (g *gen) options(f []byte) ([]byte, error) {
	l3, _, err := roce.IPPacket(f)
	if err != nil {
		return nil, err
	}
	k := 1 + g.rng.IntN(10)
	opt := make([]byte, 4*k)
	for i := range opt {
		opt[i] = byte(g.rng.Uint32())
	}
	var out []byte
	out = append(out, f[:l3+20]...)
	out = append(out, opt...)
	out = append(out, f[l3+20:]...)
	ip := out[l3:]
	ip[0] = 0x40 | byte(5+k)
	binary.BigEndian.PutUint16(ip[2:], binary.BigEndian.Uint16(ip[2:])+uint16(4*k))
	binary.BigEndian.PutUint16(ip[10:], 0)
	binary.BigEndian.PutUint16(ip[10:], checksum.Checksum(ip[:20+4*k]))
	icrc, err := computeICRC(ip[:len(ip)-roce.ICRCLen])
	if err != nil {
		return nil, err
	}
	binary.LittleEndian.PutUint32(ip[len(ip)-roce.ICRCLen:], icrc)
	return out, nil
}

var errDisagree = errors.New("ICRC implementations disagree")

// computeICRC is roce.ComputeICRC except for IPv4 headers with IHL 10: the
// golden tells IPv4 from IPv6 by the UDP offset (40) and applies the IPv6
// masks to them (golden/roce/icrc_test.go TestICRCIPv4IHL10), so these get
// maskedICRC, which follows IBA annex A17.3.3 by the IP version. Every
// other packet is computed both ways and must agree.
func computeICRC(pkt []byte) (uint32, error) {
	want, err := roce.ComputeICRC(pkt)
	if err != nil {
		return 0, err
	}
	got := maskedICRC(pkt)
	if len(pkt) > 0 && pkt[0] == 0x4A {
		return got, nil
	}
	if got != want {
		return 0, fmt.Errorf("%w: maskedICRC %#08x, roce.ComputeICRC %#08x", errDisagree, got, want)
	}
	return want, nil
}

// maskedICRC: copy, set the variant fields to ones (by the IP version), CRC-32
// over 8 bytes of 0xFF and the copy. pkt must hold IP, UDP and BTH headers.
func maskedICRC(pkt []byte) uint32 {
	m := append([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, pkt...)
	ip := m[8:]
	l4 := 40
	if ip[0]>>4 == 6 {
		ip[0] |= 0x0F
		ip[1], ip[2], ip[3], ip[7] = 0xFF, 0xFF, 0xFF, 0xFF
	} else {
		l4 = int(ip[0]&0x0F) * 4
		ip[1], ip[8], ip[10], ip[11] = 0xFF, 0xFF, 0xFF, 0xFF
	}
	ip[l4+6], ip[l4+7], ip[l4+8+4] = 0xFF, 0xFF, 0xFF
	return crc32.ChecksumIEEE(m)
}

// notRoCE turns a RoCEv2 frame into one that is not (by the RTL's rule), or
// builds a random frame.
func (g *gen) notRoCE(f []byte) []byte {
	l3, _, _ := classify(f)
	f = append([]byte{}, f...)
	v6 := f[l3]>>4 == 6
	l4 := l3 + 40
	if !v6 {
		l4 = l3 + int(f[l3]&0x0F)*4
	}
	switch g.rng.IntN(9) {
	case 0: // random EtherType (ARP, PFC, anything)
		et := []uint16{0x0806, 0x8808, 0x88CC, uint16(g.rng.Uint32())}[g.rng.IntN(4)]
		binary.BigEndian.PutUint16(f[l3-2:], et)
	case 1: // 802.1ad outer tag, or a second 802.1Q tag
		tag := []byte{0x88, 0xA8, 0x00, byte(g.rng.Uint32())}
		if g.rng.IntN(2) == 0 {
			tag[0], tag[1] = 0x81, 0x00
		}
		f = append(f[:12:12], append(tag, f[12:]...)...)
	case 2: // another transport protocol
		if v6 {
			f[l3+6] = []byte{0, 6, 43, 44, 58}[g.rng.IntN(5)]
		} else {
			f[l3+9] = []byte{1, 6, 47, 132}[g.rng.IntN(4)]
		}
	case 3: // another UDP port (4789 VXLAN, 4790, 4792, random)
		binary.BigEndian.PutUint16(f[l4+2:], []uint16{4789, 4790, 4792, uint16(g.rng.Uint32())}[g.rng.IntN(4)])
	case 4: // IP length below headers + 24
		if v6 {
			binary.BigEndian.PutUint16(f[l3+4:], uint16(g.rng.IntN(24)))
		} else {
			binary.BigEndian.PutUint16(f[l3+2:], uint16(g.rng.IntN(l4-l3+24)))
		}
	case 5: // wrong IP version nibble or IHL below 5
		if v6 || g.rng.IntN(2) == 0 {
			f[l3] = f[l3]&0x0F | byte(g.rng.IntN(16))<<4
		} else {
			f[l3] = f[l3]&0xF0 | byte(g.rng.IntN(5))
		}
	case 6: // cut before the UDP destination port is complete
		f = f[:1+g.rng.IntN(l4+3)]
	default: // random bytes
		r := make([]byte, 1+g.rng.IntN(300))
		for i := range r {
			r[i] = byte(g.rng.Uint32())
		}
		if g.rng.IntN(2) == 0 && len(r) > 14 {
			binary.BigEndian.PutUint16(r[12:], []uint16{0x0800, 0x86DD, 0x8100}[g.rng.IntN(3)])
		}
		f = r
	}
	return f
}

// tx: icrc_insert input (frame without its ICRC) and the expected output.
func (g *gen) tx() (line, error) {
	for {
		f, err := g.frame()
		if err != nil {
			return line{}, err
		}
		in := f[:len(f)-roce.ICRCLen]
		switch r := g.rng.IntN(20); {
		case r < 3:
			in = g.notRoCE(in)
		case r < 4: // one random byte changed anywhere
			in = append([]byte{}, in...)
			in[g.rng.IntN(len(in))] ^= byte(1 + g.rng.IntN(255))
		}
		l := line{in: in, inUser: g.rng.IntN(20) == 0}
		l.expUser = l.inUser
		l3, _, isRoCE := classify(in)
		if !isRoCE {
			l.class, l.exp = 'O', in
			return l, nil
		}
		icrc, err := computeICRC(in[l3:])
		if errors.Is(err, errDisagree) {
			return line{}, err
		}
		if err != nil {
			// RoCEv2 by the rule but shorter than its headers: a transport
			// engine never sends one, and the golden has no ICRC for it.
			continue
		}
		l.class = 'R'
		l.exp = binary.LittleEndian.AppendUint32(append([]byte{}, in...), icrc)
		return l, nil
	}
}

// rx: icrc_check input (frame with ICRC, maybe padded, maybe damaged) and the
// expected output.
func (g *gen) rx() (line, error) {
	f, err := g.frame()
	if err != nil {
		return line{}, err
	}
	in := append([]byte{}, f...)
	switch r := g.rng.IntN(20); {
	case r < 3:
		in = g.notRoCE(in)
	case r < 6: // one byte of the IP packet changed (masked fields included)
		l3, _, _ := classify(in)
		in[l3+g.rng.IntN(len(in)-l3)] ^= byte(1 << g.rng.IntN(8))
	case r < 7: // one byte changed anywhere
		in[g.rng.IntN(len(in))] ^= byte(1 + g.rng.IntN(255))
	case r < 8: // cut short
		in = in[:1+g.rng.IntN(len(in)-1)]
	}
	// Ethernet padding to 60 bytes as a MAC receives it, usually; sometimes
	// none, sometimes more bytes of garbage after the IP packet.
	switch r := g.rng.IntN(10); {
	case r < 7:
		for len(in) < 60 {
			in = append(in, 0)
		}
	case r < 8:
		for k := 1 + g.rng.IntN(70); k > 0; k-- {
			in = append(in, byte(g.rng.Uint32()))
		}
	}
	l := line{in: in, inUser: g.rng.IntN(20) == 0}
	l3, end, isRoCE := classify(in)
	if !isRoCE {
		l.class, l.exp, l.expUser = 'O', in, l.inUser
		return l, nil
	}
	out := end - roce.ICRCLen
	bad := true
	if len(in) >= end {
		// roce.VerifyICRC, through computeICRC for the IHL 10 case
		icrc, err := computeICRC(in[l3:out])
		if errors.Is(err, errDisagree) {
			return line{}, err
		}
		bad = err != nil || icrc != binary.LittleEndian.Uint32(in[out:end])
	}
	l.exp = in[:min(out, len(in))]
	l.class = 'R'
	if bad {
		l.class = 'B'
	}
	if l.inUser && g.rng.IntN(2) == 0 {
		// icrc_check ORs tuser[0] over every beat of a RoCEv2 frame
		l.inUser, l.inFirst = false, true
	}
	l.expUser = l.inUser || l.inFirst || bad
	return l, nil
}

// classify is the RTL's rule (rtl/common/crc32_roce.sv): EtherType 0x0800 or
// 0x86DD at 12, or at 16 after one 0x8100 tag; IPv4 version 4, IHL >= 5,
// protocol 17, total length >= 4*IHL + 24; IPv6 version 6, next header 17,
// payload length >= 24; UDP destination port 4791; every byte read present.
// It returns the IP header offset, the IP end and whether the frame is RoCEv2.
func classify(f []byte) (l3, end int, isRoCE bool) {
	l3 = 14
	if len(f) < 14 {
		return l3, 0, false
	}
	et := binary.BigEndian.Uint16(f[12:])
	if et == 0x8100 {
		l3 = 18
		if len(f) < 18 {
			return l3, 0, false
		}
		et = binary.BigEndian.Uint16(f[16:])
	}
	var l4 int
	switch {
	case et == 0x0800 && len(f) > l3 && f[l3]>>4 == 4 && f[l3]&0x0F >= 5:
		l4 = l3 + int(f[l3]&0x0F)*4
		if len(f) < l4+4 || f[l3+9] != 17 {
			return l3, 0, false
		}
		n := int(binary.BigEndian.Uint16(f[l3+2:]))
		if n < l4-l3+24 {
			return l3, 0, false
		}
		end = l3 + n
	case et == 0x86DD && len(f) > l3 && f[l3]>>4 == 6:
		l4 = l3 + 40
		if len(f) < l4+4 || f[l3+6] != 17 {
			return l3, 0, false
		}
		n := int(binary.BigEndian.Uint16(f[l3+4:]))
		if n < 24 {
			return l3, 0, false
		}
		end = l4 + n
	default:
		return l3, 0, false
	}
	return l3, end, binary.BigEndian.Uint16(f[l4+2:]) == uint16(roce.UDPPort)
}
