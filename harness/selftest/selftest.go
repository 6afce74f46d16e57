// Package selftest exercises the golden codecs and the frame checker end to
// end on this machine: it builds sample frames of every RoCEv2 opcode and
// encapsulation and PFC/PAUSE frames, checks that all of them pass, then
// corrupts each in a known way and checks that the checker names the fault.
package selftest

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"

	"github.com/rocesim/cosim/golden/pfc"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/golden/wirecheck"
	"github.com/rocesim/cosim/harness/framegen"
	"github.com/rocesim/cosim/harness/pcapio"
)

// Result counts what the self-test saw.
type Result struct {
	Samples, SamplesOK       int
	Corrupted, CorruptedSeen int
	Failures                 []string // one line per sample that passed wrongly or failed wrongly
}

// Pass reports whether every sample passed and every corruption was caught.
func (r *Result) Pass() bool { return len(r.Failures) == 0 }

// corruption damages a frame in one way and names the problem code the
// checker must report.
type corruption struct {
	name string
	code string
	// apply damages f in place and returns it (possibly shorter), or nil
	// when this corruption does not apply to the frame.
	apply func(f []byte, ip, bth int) []byte
}

var corruptions = []corruption{
	{"flip a payload or header bit", wirecheck.CodeICRC, func(f []byte, ip, bth int) []byte {
		f[len(f)-5] ^= 0x10 // last byte before the ICRC: payload, pad or header
		return f
	}},
	{"TVer 1, ICRC recomputed", wirecheck.CodeTVer, func(f []byte, ip, bth int) []byte {
		f[bth+1] |= 0x01
		return refixICRC(f)
	}},
	{"TTL changed, IPv4 checksum left stale", wirecheck.CodeIPv4Checksum, func(f []byte, ip, bth int) []byte {
		if f[ip]>>4 != 4 {
			return nil
		}
		f[ip+8]-- // TTL is masked by the ICRC: only the IPv4 checksum notices
		return f
	}},
	{"UDP length off by 4", wirecheck.CodeUDPLength, func(f []byte, ip, bth int) []byte {
		l := binary.BigEndian.Uint16(f[bth-4:])
		binary.BigEndian.PutUint16(f[bth-4:], l+4)
		return refixICRC(f)
	}},
	{"PadCnt set where no pad may be, ICRC recomputed", wirecheck.CodePadCount, func(f []byte, ip, bth int) []byte {
		// Elsewhere another PadCnt just means another payload length.
		switch roce.OpCode(f[bth]).Payload() {
		case roce.PayloadNone, roce.PayloadFull:
			f[bth+1] |= 0x30
			return refixICRC(f)
		}
		return nil
	}},
	{"cut inside the BTH", wirecheck.CodeTruncated, func(f []byte, ip, bth int) []byte {
		return fixIPLength(f[:bth+6], ip, bth-8)
	}},
}

// Run builds the samples from seed, writes samples.pcap and corrupted.pcap
// under dir (when dir is not empty) and checks both. It logs to w.
func Run(seed uint64, dir string, w io.Writer) (*Result, error) {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	samples, err := buildSamples(rng)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	c := wirecheck.NewChecker()
	for i, f := range samples {
		res.Samples++
		if v := c.Check(f); v.OK() {
			res.SamplesOK++
		} else {
			res.Failures = append(res.Failures, fmt.Sprintf("sample %d (%s) should be valid: %v", i+1, v.Summary(), v.Problems))
		}
	}
	var bad [][]byte
	for i, f := range samples {
		g, code, name := corrupt(rng, f)
		if g == nil {
			continue
		}
		res.Corrupted++
		bad = append(bad, g)
		v := c.Check(g)
		if slices.ContainsFunc(v.Problems, func(p wirecheck.Problem) bool { return p.Code == code }) {
			res.CorruptedSeen++
		} else {
			res.Failures = append(res.Failures, fmt.Sprintf("sample %d corrupted (%s): want problem %q, got %v", i+1, name, code, v.Problems))
		}
	}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		for name, frames := range map[string][][]byte{"samples.pcap": samples, "corrupted.pcap": bad} {
			if err := pcapio.WritePcap(filepath.Join(dir, name), frames); err != nil {
				return nil, err
			}
		}
		fmt.Fprintf(w, "wrote %s and %s (open them in Wireshark, or run 'cosim check' on them)\n",
			filepath.Join(dir, "samples.pcap"), filepath.Join(dir, "corrupted.pcap"))
	}
	return res, nil
}

// buildSamples makes every known opcode in every encapsulation, with a
// payload size drawn per frame, plus PFC and PAUSE frames.
func buildSamples(rng *rand.Rand) ([][]byte, error) {
	var out [][]byte
	for _, op := range framegen.KnownOpCodes() {
		for _, e := range framegen.Encaps {
			f, err := framegen.Build(rng, framegen.Spec{OpCode: op, Encap: e, PayloadLen: framegen.PayloadLen(rng, op, 4096)})
			if err != nil {
				return nil, err
			}
			out = append(out, f)
		}
	}
	src := net.HardwareAddr{0x02, 0, 0, 0, 0, 1}
	for prio := 0; prio < pfc.NumPriorities; prio++ {
		var q [pfc.NumPriorities]uint16
		q[prio] = uint16(rng.Uint32())
		f, err := pfc.New(src, 1<<prio, q)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	f, err := pfc.NewPause(src, 0xFFFF)
	if err != nil {
		return nil, err
	}
	return append(out, f), nil
}

// corrupt damages a copy of f with a corruption drawn from rng, and returns
// it with the problem code it must raise.
func corrupt(rng *rand.Rand, f []byte) (g []byte, code, name string) {
	ip, _, err := roce.IPPacket(f)
	if err != nil {
		// A MAC control frame: set the reserved byte of a PFC enable
		// vector, or give a PAUSE an unknown opcode.
		g = slices.Clone(f)
		if binary.BigEndian.Uint16(g[14:]) == uint16(pfc.OpcodePFC) {
			g[16] = 0x80
			return g, "pfc-" + pfc.CodeEnableReserved, "reserved PFC enable bits"
		}
		g[15] = 0x03
		return g, "pfc-" + pfc.CodeUnknownOpcode, "unknown MAC control opcode"
	}
	udp := ip + 20
	if f[ip]>>4 == 6 {
		udp = ip + 40
	}
	bth := udp + 8
	start := rng.IntN(len(corruptions))
	for k := range corruptions {
		cr := corruptions[(start+k)%len(corruptions)]
		if g = cr.apply(slices.Clone(f), ip, bth); g != nil {
			return g, cr.code, cr.name
		}
	}
	return nil, "", ""
}

func refixICRC(f []byte) []byte {
	if err := roce.FixICRC(f); err != nil {
		return nil
	}
	return f
}

// fixIPLength makes the IP length fit a frame cut short, so the only fault
// left is the truncated header.
func fixIPLength(f []byte, ip, udp int) []byte {
	if f[ip]>>4 == 4 {
		binary.BigEndian.PutUint16(f[ip+2:], uint16(len(f)-ip))
		f[ip+10], f[ip+11] = 0, 0
		binary.BigEndian.PutUint16(f[ip+10:], wirecheck.IPv4Checksum(f[ip:ip+20]))
	} else {
		binary.BigEndian.PutUint16(f[ip+4:], uint16(len(f)-ip-40))
	}
	binary.BigEndian.PutUint16(f[udp+4:], uint16(len(f)-udp))
	return f
}
