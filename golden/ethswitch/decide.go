// The ingress decision of a frame (forward, flood, drop and why, ECN
// mark) and the PFC frames the switch sends, as rtl/switch/switch_decide.sv
// and switch_pfc_ctl.sv make them.

package ethswitch

import (
	"math"
	"math/bits"
)

// decide runs README step 2 for one frame at cycle t and reports it.
func (m *Model) decide(i int, in *input, t uint64) {
	d := Decision{Port: i, Seq: in.seq, Cycle: t, Len: len(in.frame), Prio: -1}
	m.decision(&d, in, t)
	if m.cfg.OnDecide != nil {
		m.cfg.OnDecide(d)
	}
}

// decision fills d; learns are collected and applied after every port of t
// is decided.
func (m *Model) decision(d *Decision, in *input, t uint64) {
	i, f, n := d.Port, in.frame, d.Len
	c := &m.cnt[i]
	c[RxFrames]++
	c[RxBytes] += uint64(n)

	// 1. Validity.
	switch {
	case n < MinFrameLen:
		c[DropRunt]++
		d.Fate = FateRunt
		return
	case n > m.effMTU():
		c[DropOversize]++
		d.Fate = FateOversize
		return
	case in.bad:
		c[DropBad]++
		d.Fate = FateBad
		return
	}

	// 2. MAC Control.
	if etherType(f, 12) == EtherTypeMACControl {
		if !isPFC(f) {
			c[RxMACControl]++
			d.Fate = FateMACControl
			return
		}
		c[RxPFC]++
		d.Fate = FatePFC
		if m.r.ctrl&CtrlPFCRx != 0 {
			p := &m.ports[i]
			enable := f[17]
			for q := range NumQueues {
				if enable&(1<<q) != 0 {
					quanta := uint16(f[18+2*q])<<8 | uint16(f[19+2*q])
					p.pause(q, t+PauseStartDelay, t+PauseCycles(quanta, m.cfg.DataWidth)+PauseStartDelay)
					if quanta == 0 {
						m.pfcEv[i][q][pfcResumed]++
					} else {
						m.pfcEv[i][q][pfcPaused]++
					}
				}
			}
		}
		return
	}

	// 3. Priority.
	prio := priority(f, &m.r)
	d.Prio = prio

	// 4. Learning (applied after the lookups of cycle t).
	dst, src := MAC(f[0:6]), MAC(f[6:12])
	if !src.Group() {
		m.learns = append(m.learns, learn{index: MACIndex(src, m.cfg.MACEntries),
			entry: macEntry{mac: src, port: i, stamp: t, valid: true}})
	}

	// 5. Forwarding.
	all := uint64(1)<<m.cfg.Ports - 1
	if m.cfg.Ports == 64 {
		all = math.MaxUint64
	}
	targets := all &^ (1 << i)
	if !dst.Group() {
		if e := &m.table[MACIndex(dst, m.cfg.MACEntries)]; e.valid && e.mac == dst &&
			(m.r.age == 0 || t-e.stamp < uint64(m.r.age)) {
			if e.port == i {
				c[DropFiltered]++
				d.Fate = FateFiltered
				return
			}
			targets = 1 << e.port
		}
	}
	d.Targets = targets

	// 6. Slot.
	if len(m.free) == 0 {
		c[DropNoSlot]++
		d.Fate = FateNoSlot
		return
	}
	s := m.free[len(m.free)-1]
	m.free = m.free[:len(m.free)-1]

	// 7. Admission and ECN, egress ports ascending.
	ecn := m.r.ctrl&CtrlECN != 0 && ecnCapable(f)
	var refs int32
	for rest := targets; rest != 0; rest &= rest - 1 {
		e := bits.TrailingZeros64(rest)
		p := &m.ports[e]
		if p.occ+uint64(n) > uint64(m.cfg.BufBytes) {
			m.cnt[e][DropTail(prio)]++
			continue
		}
		ent := entry{frame: f, visible: t + QueueVisibleDelay, slot: s, ingress: int32(i), seq: in.seq}
		if ecn && m.ecnMark(p.qocc[prio], prio) {
			ent.frame, ent.marked = MarkCE(f)
			m.cnt[e][ECNMarked(prio)]++
			d.Marked |= 1 << e
		}
		p.q[prio].push(ent)
		p.occ += uint64(n)
		p.qocc[prio] += uint64(n)
		p.qoccMax[prio] = max(p.qoccMax[prio], p.qocc[prio])
		d.Queued |= 1 << e
		refs++
	}

	// 8. Slot bookkeeping.
	if refs == 0 {
		m.freeLater = append(m.freeLater, s)
		d.Fate = FateTail
		return
	}
	m.slots[s] = slot{refs: refs, ingress: int32(i), prio: int8(prio), length: n}
	m.ic[i][prio] += uint64(n)
	m.icDirty |= 1 << i
	d.Fate = FateQueued
}

// pfcEval is the PFC generation at the end of cycle t (README "PFC"). It
// skips the ports whose evaluation cannot change anything: ic unchanged
// since the last evaluation, no state ON (so no refresh and no XON), no
// state left to flip and no CSR write since.
func (m *Model) pfcEval(t uint64) {
	xoff, xon := uint64(m.r.xoff), uint64(m.r.xon)
	look := m.icDirty | m.pfcAgain
	m.pfcAgain = 0
	for i := range m.pfc {
		if !m.pfcAll && look&(1<<i) == 0 && m.pfcOnPort[i] == 0 {
			continue
		}
		for p := range NumQueues {
			g, ic := &m.pfc[i][p], m.ic[i][p]
			switch {
			case !g.on:
				if ic > xoff {
					g.on, g.refresh = true, t+m.effRefresh()
					m.pfcOn++
					m.pfcOnPort[i]++
					m.pfcEv[i][p][pfcXOFF]++
					m.sendPFC(i, p, uint16(m.r.quanta))
				}
			case ic <= xon:
				g.on = false
				m.pfcOn--
				m.pfcOnPort[i]--
				m.pfcEv[i][p][pfcXON]++
				m.sendPFC(i, p, 0)
			case t == g.refresh:
				g.refresh = t + m.effRefresh()
				m.pfcEv[i][p][pfcRefresh]++
				m.sendPFC(i, p, uint16(m.r.quanta))
			}
			// With PFC_XON >= PFC_XOFF a state can flip again at t+1
			// without any change of ic: Run must not skip t+1 then.
			if g.on && ic <= xon || !g.on && ic > xoff {
				m.pfcAgain |= 1 << i
			}
		}
	}
}

// sendPFC queues a PFC frame on egress port e, built now; it replaces a
// frame of the same priority still waiting there.
func (m *Model) sendPFC(e, prio int, quanta uint16) {
	p := &m.ports[e]
	if p.pfcWait[prio] == nil {
		p.pfcq.push(prio)
	}
	p.pfcWait[prio] = PFCFrame(m.r.switchMAC(), prio, quanta)
}

// ecnMark decides whether an ECT copy queued on priority prio with q bytes
// already in its queue leaves marked (README "ECN"): above ECN_K always,
// unless CTRL.red makes a q up to ECN_KMAX a RED candidate, which steps the
// LFSR once and marks with probability (q-K)/(KMAX-K) * PMAX/256.
func (m *Model) ecnMark(q uint64, prio int) bool {
	k, kmax := uint64(m.r.ecnK[prio]), uint64(m.r.ecnKMax[prio])
	if q <= k {
		return false
	}
	if m.r.ctrl&CtrlRED == 0 || q > kmax {
		return true
	}
	m.lfsr = lfsrStep(m.lfsr)
	return uint64(m.lfsr)*(kmax-k) < (q-k)*uint64(m.r.ecnPMax[prio])<<8
}

// lfsrStep is one step of the RED LFSR: 16-bit Galois, right shift, taps
// 0xB400 (x^16 + x^14 + x^13 + x^11 + 1, a maximal-length polynomial).
func lfsrStep(s uint16) uint16 {
	if s&1 != 0 {
		return s>>1 ^ 0xB400
	}
	return s >> 1
}
