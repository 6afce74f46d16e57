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
	dupPct, reorderPct  float64
	reorderCycles       uint64
	rng                 *rand.Rand
	inflight            fifo.Queue[stamped] // by arrival cycle
	late                fifo.Queue[stamped] // reordered frames, by arrival cycle
	pcap                int                 // interface in the run's pcapng writer
	toNode              *node               // the model of to
}

// linkFault is what a link did to a frame: a set of these bits. A lost
// frame has no other; a corrupted one may also be duplicated or held back.
type linkFault uint8

const (
	faultLost       linkFault = 1 << iota
	faultCorrupted            // one byte after the Ethernet header damaged
	faultDuplicated           // delivered twice
	faultReordered            // held back, later frames overtake it
)

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
		dupPct: l.DupPct, reorderPct: l.ReorderPct, reorderCycles: l.ReorderCycles,
		rng: rand.New(rand.NewPCG(seed, h.Sum64())),
	}
}

// send puts a frame whose last beat left at cycle on the wire; it reports
// what the faults did and the frame as it travels.
func (l *link) send(cycle uint64, data []byte) (linkFault, []byte) {
	// Draw both faults for every frame so one fault's setting does not
	// shift the other's random sequence. Duplication and reordering draw
	// only when set, so that scenarios without them keep their sequence.
	lossDraw, corruptDraw := l.rng.Float64()*100, l.rng.Float64()*100
	where, flip := l.rng.IntN(1<<30), byte(1+l.rng.IntN(255))
	var dupDraw, reorderDraw float64 = 100, 100
	if l.dupPct > 0 {
		dupDraw = l.rng.Float64() * 100
	}
	if l.reorderPct > 0 {
		reorderDraw = l.rng.Float64() * 100
	}
	if lossDraw < l.lossPct {
		return faultLost, nil
	}
	out := data
	var fault linkFault
	if corruptDraw < l.corruptPct && len(data) > 14 {
		out = append([]byte{}, data...)
		out[14+where%(len(out)-14)] ^= flip
		fault |= faultCorrupted
	}
	at := stamped{cycle: cycle + l.latency, data: out}
	switch {
	case reorderDraw < l.reorderPct:
		at.cycle += l.reorderCycles
		l.late.Push(at)
		return fault | faultReordered, out
	case dupDraw < l.dupPct:
		l.inflight.Push(at)
		fault |= faultDuplicated
	}
	l.inflight.Push(at)
	return fault, out
}

// pending is the number of frames on the wire.
func (l *link) pending() int { return l.inflight.Len() + l.late.Len() }

// deliver appends the frames arriving before end to a window's frames,
// on the receiving port, and removes them from the link.
func (l *link) deliver(end uint64, frames []cosim.Frame) []cosim.Frame {
	// Each queue is in arrival order (one latency each): merge the two.
	for {
		q := &l.inflight
		if l.late.Len() > 0 && (q.Len() == 0 || l.late.Items()[0].cycle < q.Items()[0].cycle) {
			q = &l.late
		}
		if q.Len() == 0 || q.Items()[0].cycle >= end {
			return frames
		}
		f := q.Pop()
		frames = append(frames, cosim.Frame{Port: uint16(l.to.port), Cycle: f.cycle, Data: f.data})
	}
}
