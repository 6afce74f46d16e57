package ethswitch

import (
	"fmt"
	"testing"
)

// The PFC events of random runs agree with the PFC frames the model sent:
// per ingress and priority the pause and the resume alternate (xon <=
// xoff <= xon+1), each pause frame sent is an XOFF or a refresh and each
// zero-time frame an XON (fewer frames than events: a frame still waiting
// is replaced in place). Over the seeds, every kind of event happens.
func TestPFCEvents(t *testing.T) {
	seen := map[string]uint64{}
	for seed := range uint64(60) {
		sc := randomScenario(seed)
		_, outs, m := runScenario(t, seed, sc)
		cfg := sc.cfg
		ev := map[string]uint64{}
		m.Events(func(name string, c uint64) { ev[name] = c })
		if want := cfg.Ports * NumQueues * numPFCEvents; len(ev) != want {
			t.Fatalf("seed %d: %d events, want %d (every port, priority and kind)", seed, len(ev), want)
		}
		pauses, resumes := make([][NumQueues]uint64, cfg.Ports), make([][NumQueues]uint64, cfg.Ports)
		for _, o := range outs {
			if !o.PFC() {
				continue
			}
			for p := range NumQueues {
				if o.Frame[17]&(1<<p) == 0 {
					continue
				}
				if o.Frame[18+2*p] == 0 && o.Frame[19+2*p] == 0 {
					resumes[o.Port][p]++
				} else {
					pauses[o.Port][p]++
				}
			}
		}
		for i := range cfg.Ports {
			for p := range NumQueues {
				get := func(kind string) uint64 { return ev[fmt.Sprintf("port%d.%s.prio%d", i, kind, p)] }
				xoff, xon, refresh := get("pfc_xoff"), get("pfc_xon"), get("pfc_refresh")
				if xon > xoff || xoff > xon+1 {
					t.Fatalf("seed %d port %d prio %d: %d XOFF and %d XON do not alternate", seed, i, p, xoff, xon)
				}
				if pauses[i][p] > xoff+refresh || resumes[i][p] > xon {
					t.Fatalf("seed %d port %d prio %d: %d pauses and %d resumes sent for %d XOFF, %d refreshes, %d XON",
						seed, i, p, pauses[i][p], resumes[i][p], xoff, refresh, xon)
				}
			}
		}
		for i := range cfg.Ports {
			for p := range NumQueues {
				for _, kind := range pfcEventNames {
					seen[kind] += ev[fmt.Sprintf("port%d.%s.prio%d", i, kind, p)]
				}
			}
		}
	}
	for _, kind := range pfcEventNames {
		if seen[kind] == 0 {
			t.Errorf("no %s in 60 random runs", kind)
		}
	}
}

// The paused cycles of a queue are the picks its PFC frames paused, a
// frame that comes mid-pause replacing the rest (rtl/switch/README.md
// "Pause": picks D+1..D+N); the largest queue occupancy is kept.
func TestPausedCyclesAndMaxQueue(t *testing.T) {
	cfg := DefaultConfig()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.CSRWrite(AddrCtrl, CtrlPFCRx, 0); err != nil {
		t.Fatal(err)
	}
	src := MAC{0x02, 0, 0, 0, 0, 9}
	n := func(q uint16) uint64 { return PauseCycles(q, cfg.DataWidth) }
	// A pause of 10 quanta decided at D = 101 (last beat at 100), then 4
	// quanta decided at 161 while that one still runs, then a resume.
	in := func(quanta uint16, last uint64) {
		if err := m.Input(1, PFCFrame(src, 3, quanta), false, last); err != nil {
			t.Fatal(err)
		}
	}
	in(10, 100)
	m.Run(150)
	d := uint64(100 + DecideDelay)
	if got, want := m.PausedCycles(1, 3), 150-(d+1); got != want {
		t.Fatalf("mid-pause: %d paused cycles, want %d", got, want)
	}
	in(4, 160)
	in(0, 400)
	m.Run(1000)
	d2, d3 := uint64(160+DecideDelay), uint64(400+DecideDelay)
	if d2+1 >= d+n(10)+1 || d2+n(4)+1 > d3+1 {
		t.Fatalf("test set-up: the second pause must cut the first short and end before the resume")
	}
	want := (d2 + 1) - (d + 1) + n(4) // the first cut short at D2+1, the second whole
	if got := m.PausedCycles(1, 3); got != want {
		t.Fatalf("%d paused cycles, want %d", got, want)
	}
	if got := m.PausedCycles(1, 2); got != 0 {
		t.Fatalf("priority 2: %d paused cycles, want 0", got)
	}
	// Two broadcast frames of 100 bytes back to back on port 0: queued on
	// 1..3 together before the first has left.
	bc := make([]byte, 100)
	copy(bc, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 1, 0x88, 0xb5})
	for k := range uint64(2) {
		if err := m.Input(0, bc, false, 1100+13*k); err != nil {
			t.Fatal(err)
		}
	}
	m.Run(3000)
	if got := m.MaxQueueOccupancy(2, 0); got != 200 {
		t.Fatalf("port 2 queue 0: max occupancy %d, want 200", got)
	}
	if got := m.MaxQueueOccupancy(0, 0); got != 0 {
		t.Fatalf("port 0 (the ingress) queue 0: max occupancy %d, want 0", got)
	}
}
