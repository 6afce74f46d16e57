package engine

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"

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
	inflight            []stamped // by arrival cycle
	pcap                int       // interface in the run's pcapng writer
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
	l.inflight = append(l.inflight, stamped{cycle: cycle + l.latency, data: out})
	return false, corrupted, out
}

// due returns the frames arriving before end and removes them.
func (l *link) due(end uint64) []stamped {
	// One sender port, one latency: frames are already in arrival order.
	n := 0
	for n < len(l.inflight) && l.inflight[n].cycle < end {
		n++
	}
	out := append([]stamped{}, l.inflight[:n]...)
	l.inflight = l.inflight[n:]
	return out
}
