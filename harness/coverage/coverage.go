// Package coverage counts functional coverage from the golden side: a bin
// is an event a golden model counts, so a run hits it when the count
// moved. The bins are declared by the golden models, each in one place:
//   - the counters every device declares with its CSR map
//     (harness/device), QP counters summed over QPs
//     ("nic.req_retry_timeout": retry causes, NAKs sent and received,
//     drops), switch counters per port and priority
//     ("switch4.port2.drop_tail.prio3": drop reasons, ECN marks);
//   - the events a golden model counts beside them (engine.Eventer): a
//     NIC's completions by opcode and status ("nic.send.READ.RETRY_EXC_ERR",
//     golden/rc), messages by path MTU and size class
//     ("nic.message.pmtu4096.multi_packet"), DCQCN steps ("nic.dcqcn.cut"),
//     a switch's PFC state changes per port and priority
//     ("switch4.port1.pfc_xoff.prio3", golden/ethswitch).
//
// Bins are named by the model's top, not its name, so that runs of one
// campaign with different topologies add up. A campaign merges the runs'
// hits and lists the holes; a goals file says which bins must be hit.
package coverage

import (
	"fmt"
	"path"
	"regexp"
	"sort"

	"github.com/BurntSushi/toml"

	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/inputfile"
)

// qpCounter is a NIC's per-QP counter, "qp12.req_retry_nak"; indexed is
// a counter by priority, "drop_tail[3]", whose bin is "drop_tail.prio3"
// (no brackets, which goal patterns would read as a class).
var (
	qpCounter = regexp.MustCompile(`^qp\d+\.`)
	indexed   = regexp.MustCompile(`\[(\d+)\]$`)
)

// Bins returns one run's bins and how often each was hit (0: a bin the
// run's devices have but never hit).
func Bins(sum *engine.Summary) map[string]uint64 {
	out := map[string]uint64{}
	// Bins are named by the model's top, its name when the summary has none.
	topOf := func(model string) string {
		if top := sum.Models[model].Top; top != "" {
			return top
		}
		return model
	}
	for model, ctrs := range sum.Counters {
		top := topOf(model)
		for name, p := range ctrs {
			name = indexed.ReplaceAllString(qpCounter.ReplaceAllString(name, ""), ".prio$1")
			out[top+"."+name] += p.Golden
		}
	}
	for model, ev := range sum.Events {
		top := topOf(model)
		for name, n := range ev {
			out[top+"."+name] += n
		}
	}
	return out
}

// Bin is one bin over a campaign.
type Bin struct {
	Name string `json:"name"`
	Hits uint64 `json:"hits"` // events over all runs
	Runs int    `json:"runs"` // runs that hit it
}

// Merged is a campaign's coverage.
type Merged struct {
	Bins  []Bin    `json:"bins"`  // every bin, by name
	Holes []string `json:"holes"` // the bins no run hit
	Hit   int      `json:"hit"`
	Total int      `json:"total"`
}

// Merge adds up the runs' bins.
func Merge(runs []map[string]uint64) *Merged {
	acc := map[string]*Bin{}
	for _, r := range runs {
		for name, n := range r {
			b := acc[name]
			if b == nil {
				b = &Bin{Name: name}
				acc[name] = b
			}
			b.Hits += n
			if n > 0 {
				b.Runs++
			}
		}
	}
	m := &Merged{Bins: []Bin{}, Holes: []string{}}
	for _, b := range acc {
		m.Bins = append(m.Bins, *b)
	}
	sort.Slice(m.Bins, func(i, j int) bool { return m.Bins[i].Name < m.Bins[j].Name })
	for _, b := range m.Bins {
		m.Total++
		if b.Runs > 0 {
			m.Hit++
		} else {
			m.Holes = append(m.Holes, b.Name)
		}
	}
	return m
}

// Goals is a goals file: the bins that must be hit, by name or by a
// pattern with * and ? (path.Match), each hit by at least one run.
type Goals struct {
	Must []string `toml:"must_hit"`
}

// LoadGoals reads a goals file.
func LoadGoals(file string) (*Goals, error) {
	data, err := inputfile.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var g Goals
	md, err := toml.Decode(string(data), &g)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("%s: unknown key %s", file, und[0])
	}
	for _, p := range g.Must {
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("%s: must_hit %q: %w", file, p, err)
		}
	}
	return &g, nil
}

// Unmet lists the goals m does not meet: a pattern that matches no bin
// hit by a run (nor any bin at all) is unmet.
func (g *Goals) Unmet(m *Merged) []string {
	var out []string
	for _, p := range g.Must {
		met, seen := false, false
		for _, b := range m.Bins {
			if ok, _ := path.Match(p, b.Name); ok {
				seen = true
				met = met || b.Runs > 0
			}
		}
		switch {
		case !seen:
			out = append(out, p+" (no such bin)")
		case !met:
			out = append(out, p)
		}
	}
	return out
}
