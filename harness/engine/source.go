package engine

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/harness/framegen"
	"github.com/rocesim/cosim/harness/pcapio"
	"github.com/rocesim/cosim/harness/scenario"
)

// source produces the frames of one [[traffic]] entry, each stamped with
// its arrival cycle at the model's input port. Sources are open loop: the
// whole stimulus is known in advance, so the windows can be long.
type source struct {
	name   string
	model  string
	port   int
	frames []stamped
	next   int
}

type stamped struct {
	cycle uint64
	data  []byte
}

// beats is how many DATA_WIDTH-bit beats a frame takes.
func beats(n, dataWidth int) uint64 { return uint64((n*8 + dataWidth - 1) / dataWidth) }

func newSource(i int, t scenario.Traffic, sc *scenario.Scenario, dataWidth int, seed uint64) (*source, error) {
	model, port := sc.Port(t.To)
	s := &source{name: fmt.Sprintf("traffic%d", i), model: model, port: port}
	rng := rand.New(rand.NewPCG(seed, uint64(i)+1))
	var frames [][]byte
	switch t.Kind {
	case "roce":
		ops := framegen.KnownOpCodes()
		for n := 0; n < t.Frames; n++ {
			f, err := roceFrame(rng, ops, t)
			if err != nil {
				return nil, err
			}
			// Draw for every frame so corrupt_pct does not shift the frames.
			if draw, at := rng.Float64()*100, rng.IntN(1<<30); draw < t.CorruptPct {
				f[14+at%(len(f)-14)] ^= byte(1 + at%255)
			}
			frames = append(frames, f)
		}
	case "pcap":
		r, err := pcapio.Open(t.File)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		for t.Frames == 0 || len(frames) < t.Frames {
			p, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, err
			}
			frames = append(frames, p.Data)
		}
	}
	// Frames arrive back to back at line rate plus the configured gap.
	var cycle uint64
	for _, f := range frames {
		s.frames = append(s.frames, stamped{cycle: cycle, data: f})
		cycle += beats(len(f), dataWidth) + uint64(t.GapCycles)
	}
	return s, nil
}

// roceFrame draws a RoCEv2 frame of a random opcode and encapsulation whose
// size falls in [MinSize, MaxSize] as far as the opcode allows. Without
// WithICRC it ends before the ICRC: what a transport engine hands the ICRC
// unit (IP and UDP lengths already count the ICRC; no Ethernet padding).
func roceFrame(rng *rand.Rand, ops []roce.OpCode, t scenario.Traffic) ([]byte, error) {
	op := ops[rng.IntN(len(ops))]
	e := framegen.Encaps[rng.IntN(len(framegen.Encaps))]
	hdr := 14 + 20 + 8 + roce.BTHLen + op.Headers().HeaderLen() + roce.ICRCLen
	if e == framegen.IPv6 || e == framegen.VLANIPv6 {
		hdr += 20
	}
	if e == framegen.VLANIPv4 || e == framegen.VLANIPv6 {
		hdr += 4
	}
	size := t.MinSize + rng.IntN(t.MaxSize-t.MinSize+1)
	n := framegen.PayloadLen(rng, op, size-hdr)
	f, err := framegen.Build(rng, framegen.Spec{OpCode: op, Encap: e, PayloadLen: n})
	if err != nil {
		return nil, err
	}
	if t.WithICRC {
		return f, nil
	}
	_, end, err := roce.IPPacket(f)
	if err != nil {
		return nil, err
	}
	return f[:end-roce.ICRCLen], nil
}

// due returns the frames arriving before cycle end and consumes them.
func (s *source) due(end uint64) []stamped {
	i := s.next
	for s.next < len(s.frames) && s.frames[s.next].cycle < end {
		s.next++
	}
	return s.frames[i:s.next]
}

// nextCycle returns the arrival of the next frame, or false when done.
func (s *source) nextCycle() (uint64, bool) {
	if s.next >= len(s.frames) {
		return 0, false
	}
	return s.frames[s.next].cycle, true
}
