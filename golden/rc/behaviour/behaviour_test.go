package behaviour

import (
	"testing"

	"github.com/rocesim/cosim/golden/rc"
)

// The table is well formed: names unique, steps in order, every field a
// step sets meant for its kind, every configuration valid.
func TestCasesWellFormed(t *testing.T) {
	names := map[string]bool{}
	for _, c := range Cases() {
		if c.Name == "" || names[c.Name] {
			t.Errorf("case name %q empty or used twice", c.Name)
		}
		names[c.Name] = true
		nc, qc := c.Config()
		if err := nc.Validate(); err != nil {
			t.Errorf("%s: node: %v", c.Name, err)
		}
		if err := qc.Validate(); err != nil {
			t.Errorf("%s: QP: %v", c.Name, err)
		}
		var last uint64
		for i, s := range c.Steps {
			if s.At < last {
				t.Errorf("%s: step %d at cycle %d goes back in time (previous %d)", c.Name, i, s.At, last)
			}
			last = s.At
			if s.Kind != Expect && (s.Out != nil || s.Comps != nil || s.Next != NextUnchecked || s.Rate != 0) {
				t.Errorf("%s: step %d (%v) has an Expect step's checks", c.Name, i, s.Kind)
			}
			if s.Kind != Post && s.WR != (rc.WorkRequest{}) || s.Kind != PostRecv && s.RR != (rc.RecvRequest{}) ||
				s.Kind != Poke && s.Poke.Data != nil {
				t.Errorf("%s: step %d (%v) sets another kind's fields", c.Name, i, s.Kind)
			}
		}
	}
}
