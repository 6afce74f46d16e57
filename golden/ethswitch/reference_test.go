package ethswitch

import (
	"encoding/binary"
	"sort"

	"github.com/rocesim/cosim/golden/checksum"
)

// refModel is a slow, obviously literal reading of rtl/switch/README.md: it
// steps every cycle, computes each cycle from the state at its start and
// commits at its end, keeps pause times as count-down timers (as hardware
// would) and shares no code with Model beyond Config, Out and the
// constants (a marked header's checksum it recomputes whole with
// golden/checksum, where Model updates it). TestAgainstReference runs both on random traffic.
type refModel struct {
	cfg  Config
	now  uint64
	regs map[uint32]uint32 // writable registers by address, as written

	ins     [][]refIn
	queues  [][NumQueues][]refEntry
	occ     []int
	qocc    [][NumQueues]int
	timer   [][NumQueues]uint64
	pfcq    [][]refPFC
	tx      []refTx
	rr      []int
	fresh   []bool
	deficit [][NumQueues]int

	table     []refMAC
	freeSlots int
	frames    map[int]*refFrame // by slot holder id
	nextID    int
	ic        [][NumQueues]int
	pfcOn     [][NumQueues]bool
	refresh   [][NumQueues]uint64

	cnt    [][NumCounterSlots]uint64
	outs   []Out
	writes []csrWrite
	loads  [][NumQueues]int64 // pause timer loads of the cycle, -1 none
}

type refIn struct {
	frame []byte
	bad   bool
	last  uint64
	seq   int
}

type refEntry struct {
	frame   []byte
	decided uint64
	id      int
	ingress int
	seq     int
	marked  bool
}

type refPFC struct {
	frame   []byte
	visible uint64
}

type refTx struct {
	active    bool
	out       Out
	id        int // -1 for PFC
	total     int
	taken     int
	validFrom uint64
}

type refMAC struct {
	valid bool
	mac   [6]byte
	port  int
	stamp uint64
}

type refFrame struct {
	refs, ingress, prio, length int
}

func newRef(cfg Config) *refModel {
	r := &refModel{
		cfg:       cfg,
		regs:      map[uint32]uint32{},
		ins:       make([][]refIn, cfg.Ports),
		queues:    make([][NumQueues][]refEntry, cfg.Ports),
		occ:       make([]int, cfg.Ports),
		qocc:      make([][NumQueues]int, cfg.Ports),
		timer:     make([][NumQueues]uint64, cfg.Ports),
		pfcq:      make([][]refPFC, cfg.Ports),
		tx:        make([]refTx, cfg.Ports),
		rr:        make([]int, cfg.Ports),
		fresh:     make([]bool, cfg.Ports),
		deficit:   make([][NumQueues]int, cfg.Ports),
		table:     make([]refMAC, cfg.MACEntries),
		freeSlots: cfg.Slots,
		frames:    map[int]*refFrame{},
		ic:        make([][NumQueues]int, cfg.Ports),
		pfcOn:     make([][NumQueues]bool, cfg.Ports),
		refresh:   make([][NumQueues]uint64, cfg.Ports),
		cnt:       make([][NumCounterSlots]uint64, cfg.Ports),
	}
	r.regs[0x10] = 0
	r.regs[0x14] = uint32(cfg.MTUMax)
	r.regs[0x18] = 0
	r.regs[0x1C] = 0
	r.regs[0x20] = 8192
	r.regs[0x24] = 4096
	r.regs[0x28] = 0xFFFF
	r.regs[0x2C] = 32768
	for p := uint32(0); p < 8; p++ {
		r.regs[0x40+4*p] = 0
		r.regs[0x80+4*p] = 4096
		r.regs[0xC0+4*p] = uint32(cfg.MTUMax)
	}
	return r
}

func (r *refModel) input(port int, frame []byte, bad bool, last uint64) {
	r.ins[port] = append(r.ins[port], refIn{frame, bad, last, len(r.ins[port])})
}

// The reference keeps every input; seq is its index. Decided inputs are
// marked by clearing the frame (inputs are never empty frames here).

func (r *refModel) write(addr, data uint32, cycle uint64) {
	r.writes = append(r.writes, csrWrite{addr: addr, data: data, cycle: cycle})
}

func (r *refModel) reg(a uint32) uint32 { return r.regs[a] }

func (r *refModel) ready(e int, t uint64) bool {
	return r.cfg.Ready == nil || r.cfg.Ready(e, t)
}

func (r *refModel) run(until uint64) {
	for ; r.now < until; r.now++ {
		r.cycle(r.now)
	}
}

func (r *refModel) cycle(t uint64) {
	type rel struct{ e, q, id, n int }
	var rels []rel
	// Egress: beats of t, then the picks of the free transmitters.
	for e := range r.cfg.Ports {
		tx := &r.tx[e]
		free := !tx.active
		if tx.active && tx.validFrom <= t && r.ready(e, t) {
			if tx.taken == 0 {
				tx.out.First = t
			}
			tx.taken++
			tx.validFrom = t + 1
			if tx.taken == tx.total {
				o := tx.out
				o.Last = t
				r.outs = append(r.outs, o)
				r.cnt[e][2]++
				r.cnt[e][3] += uint64(len(o.Frame))
				if tx.id < 0 {
					r.cnt[e][11]++
				} else {
					rels = append(rels, rel{e, o.Queue, tx.id, len(o.Frame)})
				}
				*tx = refTx{}
				free = true
			}
		}
		if free {
			r.pick(e, t)
		}
	}

	// Decisions of t, ports ascending; lookups see the table before the
	// learns of t; slots freed in t come back after t.
	type learnRec struct {
		idx int
		v   refMAC
	}
	var learns []learnRec
	if r.loads == nil {
		r.loads = make([][NumQueues]int64, r.cfg.Ports)
	}
	loads := r.loads
	for i := range loads {
		for p := range loads[i] {
			loads[i][p] = -1
		}
	}
	freedNow := 0
	for i := range r.cfg.Ports {
		for k := range r.ins[i] {
			in := &r.ins[i][k]
			if in.frame == nil || in.last+1 != t {
				continue
			}
			f, bad := in.frame, in.bad
			in.frame = nil
			n := len(f)
			r.cnt[i][0]++
			r.cnt[i][1] += uint64(n)
			mtu := int(r.reg(0x14))
			if r.reg(0x14) > uint32(r.cfg.MTUMax) {
				mtu = r.cfg.MTUMax
			}
			if n < 60 {
				r.cnt[i][4]++
				continue
			}
			if n > mtu {
				r.cnt[i][5]++
				continue
			}
			if bad {
				r.cnt[i][6]++
				continue
			}
			et := int(f[12])<<8 | int(f[13])
			if et == 0x8808 {
				if f[0] == 1 && f[1] == 0x80 && f[2] == 0xC2 && f[3] == 0 && f[4] == 0 && f[5] == 1 && f[14] == 1 && f[15] == 1 {
					r.cnt[i][9]++
					if r.reg(0x10)&8 != 0 {
						for p := range 8 {
							if f[17]>>p&1 == 1 {
								q := int64(f[18+2*p])<<8 | int64(f[19+2*p])
								loads[i][p] = q * 512 / int64(r.cfg.DataWidth)
							}
						}
					}
				} else {
					r.cnt[i][10]++
				}
				continue
			}
			var prio int
			switch {
			case et == 0x8100:
				prio = int(f[14]) >> 5
			case et == 0x0800 && f[14]>>4 == 4 && f[14]&15 >= 5:
				dscp := int(f[15]) >> 2
				prio = int(r.reg(0x40+4*uint32(dscp/8))>>(4*(dscp%8))) & 7
			default:
				prio = int(r.reg(0x1C) & 7)
			}
			var dst, src [6]byte
			copy(dst[:], f[0:6])
			copy(src[:], f[6:12])
			if src[0]&1 == 0 {
				learns = append(learns, learnRec{refHash(src, r.cfg.MACEntries), refMAC{true, src, i, t}})
			}
			var targets []int
			hit := -1
			if dst[0]&1 == 0 {
				en := r.table[refHash(dst, r.cfg.MACEntries)]
				age := uint64(r.reg(0x18))
				if en.valid && en.mac == dst && (age == 0 || t-en.stamp < age) {
					hit = en.port
				}
			}
			if hit == i {
				r.cnt[i][8]++
				continue
			}
			if hit >= 0 {
				targets = []int{hit}
			} else {
				for e := range r.cfg.Ports {
					if e != i {
						targets = append(targets, e)
					}
				}
			}
			if r.freeSlots == 0 {
				r.cnt[i][7]++
				continue
			}
			r.freeSlots--
			id := r.nextID
			r.nextID++
			queued := 0
			for _, e := range targets {
				if r.occ[e]+n > r.cfg.BufBytes {
					r.cnt[e][16+prio]++
					continue
				}
				ent := refEntry{frame: f, decided: t, id: id, ingress: i, seq: in.seq}
				if r.reg(0x10)&2 != 0 && r.qocc[e][prio] > int(r.reg(0x80+4*uint32(prio))) {
					if mk := refMark(f); mk != nil {
						ent.frame, ent.marked = mk, true
						r.cnt[e][24+prio]++
					}
				}
				r.queues[e][prio] = append(r.queues[e][prio], ent)
				r.occ[e] += n
				r.qocc[e][prio] += n
				queued++
			}
			if queued == 0 {
				freedNow++
				continue
			}
			r.frames[id] = &refFrame{refs: queued, ingress: i, prio: prio, length: n}
			r.ic[i][prio] += n
		}
	}
	for _, l := range learns {
		r.table[l.idx] = l.v
	}

	// End of t: releases of the last beats of t, slots back, timers.
	for _, x := range rels {
		r.occ[x.e] -= x.n
		r.qocc[x.e][x.q] -= x.n
		fr := r.frames[x.id]
		fr.refs--
		if fr.refs == 0 {
			r.ic[fr.ingress][fr.prio] -= fr.length
			delete(r.frames, x.id)
			freedNow++
		}
	}
	r.freeSlots += freedNow
	for e := range r.cfg.Ports {
		for p := range NumQueues {
			switch {
			case loads[e][p] >= 0:
				r.timer[e][p] = uint64(loads[e][p])
			case r.timer[e][p] > 0:
				r.timer[e][p]--
			}
		}
	}

	// PFC generation at the end of t.
	if r.reg(0x10)&4 != 0 {
		ref := uint64(r.reg(0x2C))
		if ref == 0 {
			ref = 1
		}
		for i := range r.cfg.Ports {
			for p := range NumQueues {
				ic := uint64(r.ic[i][p])
				send := -1
				if !r.pfcOn[i][p] {
					if ic > uint64(r.reg(0x20)) {
						r.pfcOn[i][p] = true
						r.refresh[i][p] = t + ref
						send = int(r.reg(0x28))
					}
				} else if ic <= uint64(r.reg(0x24)) {
					r.pfcOn[i][p] = false
					send = 0
				} else if t == r.refresh[i][p] {
					r.refresh[i][p] = t + ref
					send = int(r.reg(0x28))
				}
				if send >= 0 {
					f := make([]byte, 60)
					copy(f, []byte{1, 0x80, 0xC2, 0, 0, 1})
					hi, lo := r.reg(0x34), r.reg(0x30)
					copy(f[6:], []byte{byte(hi >> 8), byte(hi), byte(lo >> 24), byte(lo >> 16), byte(lo >> 8), byte(lo)})
					f[12], f[13], f[14], f[15] = 0x88, 0x08, 0x01, 0x01
					f[17] = 1 << p
					f[18+2*p], f[19+2*p] = byte(send>>8), byte(send)
					replaced := false // one waiting frame per priority: the newer replaces it in place
					for k := range r.pfcq[i] {
						if r.pfcq[i][k].frame[17] == f[17] {
							r.pfcq[i][k].frame, replaced = f, true
						}
					}
					if !replaced {
						r.pfcq[i] = append(r.pfcq[i], refPFC{f, t + 1})
					}
				}
			}
		}
	}

	// CSR writes of t: the register holds the value from t+1 on (a counter
	// write wins over what the counter counted in t).
	for len(r.writes) > 0 && r.writes[0].cycle == t {
		w := r.writes[0]
		r.writes = r.writes[1:]
		r.applyWrite(w.addr, w.data)
	}
}

func (r *refModel) applyWrite(a, d uint32) {
	masks := map[uint32]uint32{0x10: 0xF, 0x1C: 7, 0x28: 0xFFFF, 0x34: 0xFFFF}
	switch {
	case a >= 0x1000:
		i, n := int((a-0x1000)/0x100), (a-0x1000)%0x100/4
		if i < r.cfg.Ports && a%4 == 0 && (n < 12 || n >= 16 && n < 32) {
			r.cnt[i][n] = uint64(d)
		}
	case a >= 0x40 && a < 0x60:
		r.regs[a] = d & 0x77777777
	case a == 0 || a == 4:
	default:
		if _, ok := r.regs[a]; ok || a == 0x30 || a == 0x34 {
			if mk, ok := masks[a]; ok {
				d &= mk
			}
			r.regs[a] = d
		}
	}
}

func (r *refModel) startTx(e int, t uint64, o Out, id int) {
	o.Port, o.Picked = e, t
	b := r.cfg.DataWidth / 8
	r.tx[e] = refTx{active: true, out: o, id: id, total: (len(o.Frame) + b - 1) / b, validFrom: t + 1}
}

func (r *refModel) pick(e int, t uint64) {
	if len(r.pfcq[e]) > 0 && r.pfcq[e][0].visible <= t {
		f := r.pfcq[e][0].frame
		r.pfcq[e] = r.pfcq[e][1:]
		r.startTx(e, t, Out{Frame: f, Ingress: -1, Seq: -1, Queue: -1}, -1)
		return
	}
	visible := func(q int) bool {
		return len(r.queues[e][q]) > 0 && r.queues[e][q][0].decided < t
	}
	eligible := func(q int) bool { return visible(q) && r.timer[e][q] == 0 }
	take := func(q int) {
		h := r.queues[e][q][0]
		r.queues[e][q] = r.queues[e][q][1:]
		r.startTx(e, t, Out{Frame: h.frame, Ingress: h.ingress, Seq: h.seq, Queue: q, Marked: h.marked}, h.id)
	}
	if r.reg(0x10)&1 == 0 {
		for q := 7; q >= 0; q-- {
			if eligible(q) {
				take(q)
				return
			}
		}
		return
	}
	for step := 0; step < NumQueues; step++ {
		q := r.rr[e]
		if !eligible(q) {
			if !visible(q) {
				r.deficit[e][q] = 0
			}
			r.rr[e] = (q + 1) % 8
			r.fresh[e] = false
			continue
		}
		if !r.fresh[e] {
			r.deficit[e][q] += int(r.reg(0xC0 + 4*uint32(q)))
			r.fresh[e] = true
		}
		if n := len(r.queues[e][q][0].frame); r.deficit[e][q] >= n {
			r.deficit[e][q] -= n
			take(q)
			return
		}
		r.rr[e] = (q + 1) % 8
		r.fresh[e] = false
	}
}

func (r *refModel) idle() bool {
	for e := range r.cfg.Ports {
		for _, in := range r.ins[e] {
			if in.frame != nil {
				return false
			}
		}
		if len(r.pfcq[e]) > 0 || r.tx[e].active && r.tx[e].id < 0 {
			return false
		}
	}
	return r.freeSlots == r.cfg.Slots
}

// takeOutputs returns the outputs so far in Model's order (Last, Port).
func (r *refModel) takeOutputs() []Out {
	o := r.outs
	r.outs = nil
	sort.SliceStable(o, func(a, b int) bool {
		if o[a].Last != o[b].Last {
			return o[a].Last < o[b].Last
		}
		return o[a].Port < o[b].Port
	})
	return o
}

// refHash is the README's index, computed bit by bit from the 48-bit number.
func refHash(mac [6]byte, entries int) int {
	var v uint64
	for _, b := range mac {
		v = v<<8 | uint64(b)
	}
	h := (v >> 32 & 0xFFFF) ^ (v >> 16 & 0xFFFF) ^ (v & 0xFFFF)
	return int((h ^ h>>8) % uint64(entries))
}

// refMark marks a copy by recomputing the checksum from scratch (which
// equals RFC 1624 equation 3 whenever the original checksum was valid, and
// is what TestAgainstReference feeds it), or returns nil when the frame may
// not be marked.
func refMark(f []byte) []byte {
	off := 14
	if f[12] == 0x81 && f[13] == 0 {
		off = 18
	}
	if binary.BigEndian.Uint16(f[off-2:]) != 0x0800 || f[off]>>4 != 4 || f[off]&15 < 5 {
		return nil
	}
	if ecn := f[off+1] & 3; ecn != 1 && ecn != 2 {
		return nil
	}
	out := append([]byte(nil), f...)
	out[off+1] |= 3
	ihl := int(out[off]&15) * 4
	out[off+10], out[off+11] = 0, 0
	// Only the header's whole words that are in the frame: a short frame
	// may cut its options.
	end := off + min(ihl, (len(out)-off)&^1)
	binary.BigEndian.PutUint16(out[off+10:], checksum.Checksum(out[off:end]))
	return out
}
