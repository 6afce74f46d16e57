package nic

import (
	"fmt"
	"math"

	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/roce"
)

// Timing constants of the NIC RTL (rtl/nic/README.md "Timing"): the golden
// RC node is called at the cycles they give, so every timer, pacing and
// CNP decision of the RTL is predicted, not read back.
const (
	// RxLatency: a frame whose last beat is taken on in0 at L is decided
	// (rc.Node.Receive) at L + RxLatency.
	RxLatency = 2
	// CmdLatency: a command record whose last beat is taken on in1 at L is
	// posted at L + CmdLatency; a host frame on in2 may be sent from then.
	CmdLatency = 1
	// TxExtra: a frame decided at t has its first beat on out0 at
	// t + DMA latency + TxExtra.
	TxExtra = 4
	// DMAMaxReads is the DMA port's limit of reads outstanding (sim/dma.h).
	DMAMaxReads = 16
)

// Output ports of the NIC.
const (
	PortNet        = 0 // out0: frames to the link
	PortCompletion = 1 // out1: completion records
	PortHost       = 2 // out2: received frames for the host OS
)

// TimedConfig is what the timing depends on.
type TimedConfig struct {
	DataWidth  int    // bits per beat
	DMALatency uint64 // the DMA port's read latency L, cycles
}

// Out is one frame the NIC sends: a network frame with the cycle its
// first beat leaves, a completion record or a host frame with the cycle it
// was made (the queues in front of out1 and out2 may hold it longer).
type Out struct {
	Port  int
	Cycle uint64
	Data  []byte
	// Completion is the completion a PortCompletion record encodes.
	Completion rc.Completion
}

// Timed drives an rc.Node with the NIC RTL's timing: inputs are given with
// the cycle of their last beat, and Run works out, cycle by cycle, when the
// node decides each input and each frame it sends (rtl/nic/README.md
// "Timing": per cycle, timers, then the receive decision, then the command
// post, then the transmit decision when the transmitter is free).
//
// Host frames (in2) go before anything the node sends. The transmitter is
// free at t when t is at least t' + beats(f') of its previous decision
// (t', f') and fewer than DMAMaxReads payload reads are outstanding at
// t+1: a read of n payload bytes for a frame decided at t' is outstanding
// through t' + L + ceil(n / beat bytes).
type Timed struct {
	node *rc.Node
	cfg  TimedConfig
	beat int // bytes per beat
	now  uint64

	rx   []pending // by decision cycle
	cmds []pending // by post cycle
	host []pending // by the cycle they may go

	txFree uint64   // the transmitter is free from this cycle on
	reads  []uint64 // the last cycle of each payload read outstanding
	buf    []byte
	frame  roce.Frame

	outs     []Out
	rejected int // commands the node refused (the RTL counts cmd_rejected)
	bad      int // command records that do not decode (cmd_bad)
}

type pending struct {
	at   uint64
	data []byte
}

// NewTimed wraps node.
func NewTimed(node *rc.Node, cfg TimedConfig) (*Timed, error) {
	if cfg.DataWidth <= 0 || cfg.DataWidth%8 != 0 || cfg.DMALatency == 0 {
		return nil, fmt.Errorf("nic: timing needs a data width in whole bytes and a DMA latency, got %+v", cfg)
	}
	if c := node.Config(); c.DataWidth != 0 && c.DataWidth != cfg.DataWidth {
		// pause quanta are converted at the node's width (rc.NodeConfig.DataWidth)
		return nil, fmt.Errorf("nic: the node converts pause quanta at %d bits, the timing is for %d", c.DataWidth, cfg.DataWidth)
	}
	return &Timed{node: node, cfg: cfg, beat: cfg.DataWidth / 8, buf: make([]byte, rc.MaxFrameLen)}, nil
}

// Node returns the wrapped node.
func (t *Timed) Node() *rc.Node { return t.node }

// Now is the first cycle Run has not simulated.
func (t *Timed) Now() uint64 { return t.now }

// Rejected is the number of commands the node refused (cmd_rejected) and
// Bad the number of records that did not decode (cmd_bad).
func (t *Timed) Rejected() int { return t.rejected }
func (t *Timed) Bad() int      { return t.bad }

// Receive gives the frame whose last beat was taken on in0 at cycle last.
// Inputs of one port must come in order, and before Run passes their
// decision cycle. The frame is kept, not copied.
func (t *Timed) Receive(frame []byte, last uint64) error {
	return t.queue(&t.rx, last+RxLatency, frame, "frame")
}

// Command gives the command record whose last beat was taken on in1 at
// cycle last.
func (t *Timed) Command(record []byte, last uint64) error {
	return t.queue(&t.cmds, last+CmdLatency, record, "command")
}

// HostFrame gives the frame the host OS sent on in2, last beat at last.
func (t *Timed) HostFrame(frame []byte, last uint64) error {
	return t.queue(&t.host, last+CmdLatency, frame, "host frame")
}

func (t *Timed) queue(q *[]pending, at uint64, data []byte, what string) error {
	if at < t.now {
		return fmt.Errorf("nic: %s taking effect at cycle %d, but cycles before %d are simulated", what, at, t.now)
	}
	if n := len(*q); n > 0 && (*q)[n-1].at > at {
		return fmt.Errorf("nic: %s at cycle %d after one at %d", what, at, (*q)[n-1].at)
	}
	*q = append(*q, pending{at: at, data: data})
	return nil
}

// Run simulates the cycles before until.
func (t *Timed) Run(until uint64) {
	for t.now < until {
		c := t.next()
		if c >= until {
			t.now = until
			return
		}
		t.now = c // freeAt counts from the cycle being simulated
		t.step(c)
		t.now = c + 1
	}
}

// next is the first cycle from now on in which anything can happen.
func (t *Timed) next() uint64 {
	c := uint64(math.MaxUint64)
	for _, q := range [][]pending{t.rx, t.cmds, t.host} {
		if len(q) > 0 {
			c = min(c, q[0].at)
		}
	}
	// Timers fire in the cycle they are due, transmitter busy or not.
	if e, ok := t.node.NextTimer(); ok {
		c = min(c, e)
	}
	// Something to send waits for the transmitter: a host frame from its
	// cycle on, and the node's next frame even while a host frame waits
	// for a later cycle (the transmitter may send the node's frame first).
	free := t.freeAt()
	if len(t.host) > 0 {
		c = min(c, max(free, t.host[0].at))
	}
	if e, ok := t.node.NextEvent(); ok {
		c = min(c, max(e, free))
	}
	return max(c, t.now)
}

// freeAt is the first cycle from now on the transmitter is free.
func (t *Timed) freeAt() uint64 {
	c := max(t.txFree, t.now)
	for {
		n := 0
		var first uint64 = math.MaxUint64
		for _, end := range t.reads {
			if end >= c+1 {
				n++
				first = min(first, end)
			}
		}
		if n < DMAMaxReads {
			return c
		}
		c = first // that read is done at first, so first+1 > first: retry from there
	}
}

// step runs cycle c: timers, the receive decision, the post, the transmit
// decision.
func (t *Timed) step(c uint64) {
	t.node.Advance(c)
	for len(t.rx) > 0 && t.rx[0].at == c {
		t.receive(t.rx[0].data, c)
		t.rx = t.rx[1:]
	}
	for len(t.cmds) > 0 && t.cmds[0].at == c {
		t.post(t.cmds[0].data, c)
		t.cmds = t.cmds[1:]
	}
	t.takeCompletions(c)
	if t.freeAt() != c {
		return
	}
	if len(t.host) > 0 && t.host[0].at <= c {
		f := t.host[0].data
		t.host = t.host[1:]
		t.send(f, c, 0)
		return
	}
	if f, ok := t.node.Poll(c, t.buf); ok {
		payload := 0
		if t.frame.Decode(f) == nil {
			payload = len(t.frame.BTH.Payload)
		}
		t.send(append([]byte(nil), f...), c, payload)
	}
	t.takeCompletions(c)
}

// receive decides a frame at c; frames the NIC hands to the host (not
// RoCEv2, or a broadcast or multicast for another address) go to out2.
func (t *Timed) receive(f []byte, c uint64) {
	before := t.node.Counters()
	t.node.Receive(f, c)
	after := t.node.Counters()
	toHost := after[rc.RxNotRoCE] > before[rc.RxNotRoCE] ||
		after[rc.RxWrongAddress] > before[rc.RxWrongAddress] && len(f) > 0 && f[0]&1 != 0
	if toHost {
		t.outs = append(t.outs, Out{Port: PortHost, Cycle: c, Data: f})
	}
}

// post decodes a command record and posts it at c.
func (t *Timed) post(rec []byte, c uint64) {
	cmd, err := DecodeCommand(rec)
	if err != nil {
		t.bad++
		return
	}
	if cmd.Kind == KindPostSend {
		err = t.node.PostSend(cmd.QPN, cmd.Send, c)
	} else {
		err = t.node.PostRecv(cmd.QPN, cmd.Recv, c)
	}
	if err != nil {
		t.rejected++
	}
}

func (t *Timed) takeCompletions(c uint64) {
	for _, comp := range t.node.TakeCompletions() {
		t.outs = append(t.outs, Out{Port: PortCompletion, Cycle: c, Data: AppendCompletion(nil, comp), Completion: comp})
	}
}

// send records a frame decided at c with payload bytes read by DMA. f is
// the frame as it leaves, Ethernet padding included (rc pads short frames
// to rc.MinFrameLen), so its beats are the wire's.
func (t *Timed) send(f []byte, c uint64, payload int) {
	b := uint64(t.beat)
	t.txFree = c + (uint64(len(f))+b-1)/b
	if payload > 0 {
		end := c + t.cfg.DMALatency + (uint64(payload)+b-1)/b
		t.reads = append(t.reads[:0], keepAfter(t.reads, c)...)
		t.reads = append(t.reads, end)
	}
	t.outs = append(t.outs, Out{Port: PortNet, Cycle: c + t.cfg.DMALatency + TxExtra, Data: f})
}

// keepAfter returns the reads still outstanding after cycle c.
func keepAfter(reads []uint64, c uint64) []uint64 {
	var keep []uint64
	for _, e := range reads {
		if e > c {
			keep = append(keep, e)
		}
	}
	return keep
}

// Outputs returns what the NIC sent since the previous call, in the order
// it was made.
func (t *Timed) Outputs() []Out {
	o := t.outs
	t.outs = nil
	return o
}
