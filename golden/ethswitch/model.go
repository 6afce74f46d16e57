package ethswitch

import (
	"errors"
	"fmt"
	"math"
)

// Config holds the RTL parameters of the switch and the sink backpressure
// of its output ports.
type Config struct {
	Ports      int // PORTS: input and output ports, 2..64
	DataWidth  int // DATA_WIDTH: bits per beat, a power of two from 8 to 512
	Queues     int // QUEUES: priority queues per egress port; must be 8
	MTUMax     int // MTU_MAX: largest frame the buffer holds, 60..65535 bytes
	Slots      int // SLOTS: frame slots in the shared pool, at least 1
	BufBytes   int // BUF_BYTES: bytes one egress port may hold queued, 0..2^32-1
	MACEntries int // MAC_ENTRIES: MAC table entries, a power of two from 2 to 256

	// Ready is m_axis_tready of output port in a cycle (the sink's
	// backpressure). It must be a pure function of its arguments. The model
	// calls it only for cycles in which the port has a beat valid, at most
	// once per (port, cycle), in increasing cycle order per port, and only
	// for cycles before the until of the Run call in progress. nil means
	// always ready, which lets the model compute each frame's departure at
	// once instead of beat by beat.
	Ready func(port int, cycle uint64) bool

	// OnDecide, when not nil, is called with every frame's decision, in
	// decision order (cycle, then ingress port). It is meant for harness
	// diagnostics and tests; the model does not depend on it.
	OnDecide func(Decision)
}

// DefaultConfig returns the RTL defaults (README "Parameters"): 4 ports,
// 64-bit beats, 8 queues, MTU_MAX 4224 (jumbo: a RoCEv2 packet of path MTU
// 4096), 96 slots, 32768 buffer bytes per egress (7 such frames), 64 MAC
// entries, always ready.
func DefaultConfig() Config {
	return Config{Ports: 4, DataWidth: 64, Queues: NumQueues, MTUMax: DefaultMTUMax, Slots: 96, BufBytes: 32768, MACEntries: 64}
}

// DefaultMTUMax is the default MTU_MAX: the longest RoCEv2 packet of path
// MTU 4096, 4178 bytes (Ethernet 14, one 802.1Q tag 4, IPv4 20, UDP 8, BTH
// 12, RETH 16, ImmDt 4, payload 4096, ICRC 4: IBTA annex A17 and IBA 9.2
// to 9.4; no FCS on the ports), rounded up to whole 64-byte beats of the
// 512-bit switch.
const DefaultMTUMax = 4224

// Validate reports the first parameter outside what the model supports.
func (c Config) Validate() error {
	pow2 := func(v int) bool { return v > 0 && v&(v-1) == 0 }
	switch {
	case c.Ports < 2 || c.Ports > 64:
		return fmt.Errorf("ethswitch: Ports = %d, want 2..64", c.Ports)
	case !pow2(c.DataWidth) || c.DataWidth < 8 || c.DataWidth > 512:
		return fmt.Errorf("ethswitch: DataWidth = %d, want a power of two from 8 to 512", c.DataWidth)
	case c.Queues != NumQueues:
		return fmt.Errorf("ethswitch: Queues = %d, want %d (queue index = priority)", c.Queues, NumQueues)
	case c.MTUMax < MinFrameLen || c.MTUMax > 65535:
		return fmt.Errorf("ethswitch: MTUMax = %d, want %d..65535", c.MTUMax, MinFrameLen)
	case c.Slots < 1:
		return fmt.Errorf("ethswitch: Slots = %d, want at least 1", c.Slots)
	case c.BufBytes < 0 || int64(c.BufBytes) > math.MaxUint32:
		return fmt.Errorf("ethswitch: BufBytes = %d, want 0..2^32-1", c.BufBytes)
	case !pow2(c.MACEntries) || c.MACEntries < 2 || c.MACEntries > 256:
		return fmt.Errorf("ethswitch: MACEntries = %d, want a power of two from 2 to 256", c.MACEntries)
	}
	return nil
}

// Fate is what the decision did with a frame.
type Fate uint8

const (
	FateQueued     Fate = iota // at least one copy queued
	FateTail                   // every copy dropped by admission (drop_tail)
	FateRunt                   // drop_runt
	FateOversize               // drop_oversize
	FateBad                    // drop_bad
	FatePFC                    // PFC frame consumed (rx_pfc)
	FateMACControl             // other MAC Control frame consumed (rx_mac_control)
	FateFiltered               // drop_filtered
	FateNoSlot                 // drop_no_slot
)

var fateNames = [...]string{"queued", "tail", "runt", "oversize", "bad", "pfc", "mac_control", "filtered", "no_slot"}

func (f Fate) String() string {
	if int(f) < len(fateNames) {
		return fateNames[f]
	}
	return fmt.Sprintf("Fate(%d)", uint8(f))
}

// Decision is what happened to one input frame at its decision cycle.
// Port masks have bit e set for egress port e.
type Decision struct {
	Port    int    // ingress port
	Seq     int    // the frame's index among the Input calls of Port, from 0
	Cycle   uint64 // D = last + DecideDelay
	Len     int    // frame length in bytes
	Fate    Fate   // the outcome
	Prio    int    // priority (queue), or -1 when the frame was not classified
	Targets uint64 // egress ports the frame was forwarded to (set for no_slot too)
	Queued  uint64 // the targets that queued a copy
	Marked  uint64 // the queued copies marked CE
}

// Out is a frame that left an output port.
type Out struct {
	Port   int    // output port
	Frame  []byte // the bytes that left (see Model.Input for ownership)
	Picked uint64 // cycle the scheduler picked the frame
	First  uint64 // cycle the first beat was taken (tvalid && tready)
	Last   uint64 // cycle the last beat was taken
	// Where the frame came from: the ingress port and the index of its
	// Input call on that port, and the queue (priority) it left from.
	// PFC frames the switch generates have Ingress, Seq and Queue -1.
	Ingress, Seq, Queue int
	Marked              bool // ECN set to CE by this switch
}

// PFC reports whether o is a PFC frame generated by the switch.
func (o Out) PFC() bool { return o.Queue < 0 }

// Model is the cycle model of eth_switch. It is not safe for concurrent
// use.
type Model struct {
	cfg       Config
	beatBytes int
	now       uint64 // cycles < now are simulated
	r         regs
	csrq      ring[csrWrite]
	lfsr      uint16 // RED LFSR state

	ports  []port
	table  []macEntry
	learns []learn // learns of the cycle being decided

	slots     []slot
	free      []int32 // pool slots free now
	freeLater []int32 // slots freed in the cycle being simulated (back from the next)
	rel       []release

	ic        [][NumQueues]uint64               // ic(i,p)
	pfc       [][NumQueues]pfcGen               // PFC generation state of (i,p)
	pfcEv     [][NumQueues][numPFCEvents]uint64 // Events': PFC state changes of (i,p)
	pfcOn     int                               // how many are ON
	pfcOnPort []int                             // how many of port i's are ON
	// Ports the PFC evaluation must look at (the others cannot change):
	// ic changed this cycle, or a state flips again at the next evaluation
	// without any change (possible when PFC_XON >= PFC_XOFF); pfcAll after
	// a CSR write.
	icDirty, pfcAgain uint64
	pfcAll            bool
	csrStep           bool // a CSR write took effect: the next cycle must be stepped

	cnt         [][NumCounterSlots]uint64
	outs, spare []Out
}

type csrWrite struct {
	addr, data uint32
	cycle      uint64
}

type input struct {
	frame  []byte
	bad    bool
	decide uint64
	seq    int
}

// entry is one queued copy.
type entry struct {
	frame   []byte // shared with the other copies unless marked
	visible uint64 // first cycle the scheduler sees it
	slot    int32
	ingress int32
	seq     int
	marked  bool
}

type slot struct {
	refs    int32 // copies not yet sent
	ingress int32
	prio    int8
	length  int
}

type release struct {
	e, q int
	slot int32
	n    int
}

type macEntry struct {
	mac   MAC
	port  int
	stamp uint64
	valid bool
}

type learn struct {
	index int
	entry macEntry
}

type pfcGen struct {
	on      bool
	refresh uint64
}

// port is the state of one port: its pending inputs (ingress), its queues,
// pause timers, PFC frames waiting, transmitter and DRR state (egress).
type port struct {
	in     ring[input]
	seq    int
	lastIn uint64
	anyIn  bool

	q          [NumQueues]ring[entry]
	occ        uint64
	qocc       [NumQueues]uint64
	pauseUntil [NumQueues]uint64 // queue p is paused at picks of cycles < pauseUntil[p]
	// The picks paused so far: pausedDone before pauseFrom, and
	// pauseFrom..pauseUntil-1 as the cycles pass.
	pausedDone [NumQueues]uint64
	pauseFrom  [NumQueues]uint64
	qoccMax    [NumQueues]uint64 // the largest qocc seen
	// PFC frames waiting: at most one per priority, in the order their
	// priorities first asked; a newer frame for a waiting priority
	// replaces it in place (README "PFC").
	pfcq    ring[int]
	pfcWait [NumQueues][]byte

	tx      transmitter
	settled bool // the last pick attempt found nothing and nothing changed since

	rr      int
	fresh   bool
	deficit [NumQueues]uint64
}

// transmitter is the frame leaving an output port.
type transmitter struct {
	busy      bool
	out       Out
	slot      int32 // -1 for a PFC frame
	beats     int   // beats not yet taken
	next      uint64
	haveFirst bool
	ended     bool // end is known
	end       uint64
}

// New returns a switch just out of reset (cycle 0, every CSR at its reset
// value, empty MAC table, every slot free).
func New(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Model{
		cfg:       cfg,
		beatBytes: cfg.DataWidth / 8,
		r:         resetRegs(cfg.MTUMax),
		lfsr:      ResetREDLFSR,
		ports:     make([]port, cfg.Ports),
		table:     make([]macEntry, cfg.MACEntries),
		slots:     make([]slot, cfg.Slots),
		free:      make([]int32, 0, cfg.Slots),
		freeLater: make([]int32, 0, cfg.Slots),
		ic:        make([][NumQueues]uint64, cfg.Ports),
		pfc:       make([][NumQueues]pfcGen, cfg.Ports),
		pfcOnPort: make([]int, cfg.Ports),
		cnt:       make([][NumCounterSlots]uint64, cfg.Ports),
		pfcEv:     make([][NumQueues][numPFCEvents]uint64, cfg.Ports),
		learns:    make([]learn, 0, cfg.Ports),
		rel:       make([]release, 0, cfg.Ports),
	}
	for s := cfg.Slots - 1; s >= 0; s-- {
		m.free = append(m.free, int32(s))
	}
	return m, nil
}

// Config returns the configuration the model was built with.
func (m *Model) Config() Config { return m.cfg }

// Now returns the first cycle not yet simulated: after Run(until), until.
func (m *Model) Now() uint64 { return m.now }

// ErrPast is wrapped by the errors of Input and CSRWrite for events that
// would take effect in a cycle already simulated or out of order.
var ErrPast = errors.New("ethswitch: event out of time order")

// Input gives the model a frame whose last beat was accepted on input port
// at cycle last; bad is tuser[0] on that beat. The frame is decided at
// last+1, when Run gets there. Per port, last must increase from call to
// call, and last+1 must not be before Now(); inputs of different ports may
// come in any order, and a whole window's inputs may be given before the
// Run that covers them.
//
// Ownership: the model keeps frame without copying it and never modifies
// it; the caller must not modify it afterwards. The Frame of every
// unmarked copy that leaves is this same slice (a flooded frame's copies
// share it); marked copies and PFC frames are new slices.
func (m *Model) Input(port int, frame []byte, bad bool, last uint64) error {
	if port < 0 || port >= m.cfg.Ports {
		return fmt.Errorf("ethswitch: input port %d out of range 0..%d", port, m.cfg.Ports-1)
	}
	p := &m.ports[port]
	switch {
	case last == math.MaxUint64:
		return fmt.Errorf("%w: last beat at cycle 2^64-1", ErrPast)
	case last+DecideDelay < m.now:
		return fmt.Errorf("%w: port %d frame ending at %d would be decided at %d, before cycle %d",
			ErrPast, port, last, last+DecideDelay, m.now)
	case p.anyIn && last <= p.lastIn:
		return fmt.Errorf("%w: port %d frame ending at %d after one ending at %d", ErrPast, port, last, p.lastIn)
	}
	p.lastIn, p.anyIn = last, true
	p.in.push(input{frame: frame, bad: bad, decide: last + DecideDelay, seq: p.seq})
	p.seq++
	return nil
}

// CSRWrite puts a register write on the CSR bus at cycle: it takes effect
// for cycle+1 (decisions, picks and PFC evaluation of cycle+1 see it; a
// counter written at cycle holds data at cycle+1, whatever it counted in
// cycle). cycle+1 must not be before Now(), and writes must come in
// non-decreasing cycle order; writes of the same cycle apply in call order.
func (m *Model) CSRWrite(addr, data uint32, cycle uint64) error {
	if cycle == math.MaxUint64 || cycle+CSRWriteDelay < m.now {
		return fmt.Errorf("%w: CSR write at cycle %d, model at cycle %d", ErrPast, cycle, m.now)
	}
	if m.csrq.len() > 0 && cycle < m.csrq.back().cycle {
		return fmt.Errorf("%w: CSR write at cycle %d after one at %d", ErrPast, cycle, m.csrq.back().cycle)
	}
	m.csrq.push(csrWrite{addr: addr, data: data, cycle: cycle})
	m.applyCSR(m.now)
	return nil
}

// CSRRead returns the register at addr as a read issued at cycle Now()
// returns it (csr_rvalid at Now()+CSRReadLatency): the value after every
// update of the cycles before Now() and every write stamped before Now().
func (m *Model) CSRRead(addr uint32) uint32 {
	m.applyCSR(m.now)
	return m.readCSR(addr)
}

// applyCSR applies the queued writes stamped before cycle t.
func (m *Model) applyCSR(t uint64) {
	for m.csrq.len() > 0 && m.csrq.front().cycle < t {
		w := m.csrq.pop()
		m.writeCSR(w.addr, w.data)
		m.csrStep, m.pfcAll = true, true
		for e := range m.ports {
			m.ports[e].settled = false
		}
	}
}

// Outputs returns the frames whose last beat was taken since the previous
// call, ordered by Last, then by port. The slice is reused: it is valid
// until the next call of Outputs (the frames in it stay valid for good).
func (m *Model) Outputs() []Out {
	out := m.outs
	clear(m.spare) // drop the references of the batch before last
	m.outs, m.spare = m.spare[:0], out
	return out
}

// AppendOutputs appends the frames Outputs would return to dst, clears the
// list and returns dst.
func (m *Model) AppendOutputs(dst []Out) []Out {
	dst = append(dst, m.outs...)
	clear(m.outs)
	m.outs = m.outs[:0]
	return dst
}

// Idle mirrors the idle output in cycle Now(): no frame given to Input is
// still waiting for its decision (a frame the model has not been told about
// cannot count, so a caller must not ask while one is half arrived), no
// pool slot is in use, and no PFC frame is waiting or leaving.
func (m *Model) Idle() bool {
	for e := range m.ports {
		p := &m.ports[e]
		if p.in.len() > 0 || p.pfcq.len() > 0 || (p.tx.busy && p.tx.slot < 0) {
			return false
		}
	}
	return len(m.free) == m.cfg.Slots
}

// FreeSlots returns the number of pool slots free in cycle Now().
func (m *Model) FreeSlots() int { return len(m.free) }

// Occupancy returns occ(e), the bytes of the copies queued or leaving on
// egress port e, as decisions of cycle Now() see it.
func (m *Model) Occupancy(e int) uint64 { return m.ports[e].occ }

// QueueOccupancy returns qocc(e,p) as decisions of cycle Now() see it.
func (m *Model) QueueOccupancy(e, p int) uint64 { return m.ports[e].qocc[p] }

// IngressBytes returns ic(i,p), the bytes of frames from port i with
// priority p holding a slot, after every update of the cycles before Now().
func (m *Model) IngressBytes(i, p int) uint64 { return m.ic[i][p] }

// PausedCycles returns the cycles whose picks saw queue p of egress e
// paused by a received PFC frame, of the cycles before Now().
func (m *Model) PausedCycles(e, p int) uint64 {
	pt := &m.ports[e]
	return pt.pausedDone[p] + min(m.now, pt.pauseUntil[p]) - min(m.now, pt.pauseFrom[p], pt.pauseUntil[p])
}

// MaxQueueOccupancy returns the largest qocc(e,p) any decision saw.
func (m *Model) MaxQueueOccupancy(e, p int) uint64 { return m.ports[e].qoccMax[p] }

// pause pauses queue q's picks of cycles from..until-1 (none when until is
// from), replacing what an earlier PFC frame left of its pause.
func (p *port) pause(q int, from, until uint64) {
	if p.pauseUntil[q] > p.pauseFrom[q] {
		p.pausedDone[q] += min(from, p.pauseUntil[q]) - min(from, p.pauseFrom[q])
	}
	p.pauseFrom[q], p.pauseUntil[q] = from, until
}

// PausedUntil returns the first cycle whose picks no longer see queue p of
// egress e paused by a received PFC frame (0 if it was never paused).
func (m *Model) PausedUntil(e, p int) uint64 { return m.ports[e].pauseUntil[p] }

// MACEntry is one entry of the MAC table.
type MACEntry struct {
	MAC   MAC
	Port  int
	Stamp uint64 // decision cycle of the learn
}

// Entry returns MAC table entry index and whether it is valid (ever
// learned; a valid entry may be dead, see AGE_CYCLES).
func (m *Model) Entry(index int) (MACEntry, bool) {
	e := m.table[index]
	return MACEntry{MAC: e.mac, Port: e.port, Stamp: e.stamp}, e.valid
}

// Run simulates every cycle before until. Stretches in which nothing can
// change are skipped; a port sending under a non-nil Ready is followed
// beat by beat.
func (m *Model) Run(until uint64) {
	for m.now < until {
		t := m.now
		m.applyCSR(t)
		if next := m.nextEvent(t, until); next > t {
			m.now = next
			continue
		}
		m.step(t)
		m.now = t + 1
	}
}

// nextEvent returns the first cycle in [t, limit] whose step can change
// anything, or limit. A step is needed at a decision, the cycle after a CSR
// write, a PFC refresh, a last beat, and a cycle in which a free
// transmitter has something to pick or has not tried since a change.
func (m *Model) nextEvent(t, limit uint64) uint64 {
	if m.csrStep || m.pfcAgain != 0 && m.r.ctrl&CtrlPFCTx != 0 {
		return t
	}
	ev := limit
	if m.csrq.len() > 0 {
		ev = min(ev, m.csrq.front().cycle+CSRWriteDelay)
	}
	if m.pfcOn > 0 && m.r.ctrl&CtrlPFCTx != 0 {
		for i := range m.pfc {
			for p := range NumQueues {
				if g := &m.pfc[i][p]; g.on && g.refresh >= t {
					ev = min(ev, g.refresh)
				}
			}
		}
	}
	for e := range m.ports {
		p := &m.ports[e]
		if p.in.len() > 0 {
			ev = min(ev, p.in.front().decide)
		}
		if !p.tx.busy {
			if !p.settled || p.pfcq.len() > 0 {
				return t
			}
			for q := range NumQueues {
				if p.q[q].len() > 0 {
					ev = min(ev, max(p.q[q].front().visible, p.pauseUntil[q]))
				}
			}
		}
		if ev <= t {
			return t
		}
	}
	for e := range m.ports {
		tx := &m.ports[e].tx
		if tx.busy {
			if !tx.ended {
				m.scan(e, ev)
			}
			if tx.ended {
				ev = min(ev, tx.end)
			}
		}
	}
	return max(ev, t)
}

// step simulates cycle t: beats and picks, decisions, the releases of the
// last beats of t, then the PFC evaluation at the end of t.
func (m *Model) step(t uint64) {
	m.csrStep = false
	for e := range m.ports {
		p := &m.ports[e]
		if p.tx.busy {
			if !p.tx.ended {
				m.scan(e, t+1)
			}
			if p.tx.ended && p.tx.end == t {
				m.finish(e, t)
			}
		}
		if !p.tx.busy {
			m.pick(e, t)
		}
	}

	for i := range m.ports {
		p := &m.ports[i]
		if p.in.len() > 0 && p.in.front().decide == t {
			in := p.in.pop()
			m.decide(i, &in, t)
		}
	}
	for _, l := range m.learns {
		m.table[l.index] = l.entry
	}
	clear(m.learns)
	m.learns = m.learns[:0]

	for _, r := range m.rel {
		p := &m.ports[r.e]
		p.occ -= uint64(r.n)
		p.qocc[r.q] -= uint64(r.n)
		s := &m.slots[r.slot]
		if s.refs--; s.refs == 0 {
			m.ic[s.ingress][s.prio] -= uint64(s.length)
			m.icDirty |= 1 << s.ingress
			m.freeLater = append(m.freeLater, r.slot)
		}
	}
	m.rel = m.rel[:0]
	m.free = append(m.free, m.freeLater...)
	m.freeLater = m.freeLater[:0]

	if m.r.ctrl&CtrlPFCTx != 0 {
		m.pfcEval(t)
	} else {
		m.pfcAgain = 0
	}
	m.icDirty, m.pfcAll = 0, false
}
