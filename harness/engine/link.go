package engine

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/harness/internal/fifo"
	"github.com/rocesim/cosim/harness/scenario"
)

// link carries frames from an output port to an input port with a latency
// and seeded faults. A frame arrives latency cycles after its last beat
// left the sender (store and forward): the sender reports a frame in the
// window its last beat left, so with windows no longer than the latency
// every frame reaches its receiver in a later window.
type link struct {
	name                string
	from, to            portRef
	latency             uint64
	lossPct, corruptPct float64
	rng                 *rand.Rand
	inflight            fifo.Queue[stamped] // by arrival cycle
	pcap                int                 // interface in the run's pcapng writer
	lost, corrupted     int
}

type portRef struct {
	model string
	port  int
}

func (p portRef) in() string  { return fmt.Sprintf("%s.in%d", p.model, p.port) }
func (p portRef) out() string { return fmt.Sprintf("%s.out%d", p.model, p.port) }

func newLink(l scenario.Link, sc *scenario.Scenario, seed uint64) *link {
	fm, fp := sc.Port(l.From)
	tm, tp := sc.Port(l.To)
	name := l.From + "->" + l.To
	h := fnv.New64a()
	h.Write([]byte(name))
	return &link{
		name: name, from: portRef{fm, fp}, to: portRef{tm, tp},
		latency: l.Latency, lossPct: l.LossPct, corruptPct: l.CorruptPct,
		rng: rand.New(rand.NewPCG(seed, h.Sum64())),
	}
}

// send puts a frame whose last beat left at cycle on the wire; it reports
// what the faults did.
func (l *link) send(cycle uint64, data []byte) (lost, corrupted bool, out []byte) {
	// Draw both faults for every frame so one fault's setting does not
	// shift the other's random sequence.
	lossDraw, corruptDraw := l.rng.Float64()*100, l.rng.Float64()*100
	where, flip := l.rng.IntN(1<<30), byte(1+l.rng.IntN(255))
	if lossDraw < l.lossPct {
		l.lost++
		return true, false, nil
	}
	out = data
	if corruptDraw < l.corruptPct && len(data) > 14 {
		out = append([]byte{}, data...)
		out[14+where%(len(out)-14)] ^= flip
		l.corrupted++
		corrupted = true
	}
	l.inflight.Push(stamped{cycle: cycle + l.latency, data: out})
	return false, corrupted, out
}

// deliver appends the frames arriving before end to a window's frames,
// on the receiving port, and removes them from the link.
func (l *link) deliver(end uint64, frames []cosim.Frame) []cosim.Frame {
	// One sender port, one latency: frames are already in arrival order.
	for l.inflight.Len() > 0 && l.inflight.Items()[0].cycle < end {
		f := l.inflight.Pop()
		frames = append(frames, cosim.Frame{Port: uint16(l.to.port), Cycle: f.cycle, Data: f.data})
	}
	return frames
}
