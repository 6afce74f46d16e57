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
