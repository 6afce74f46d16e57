package engine

import (
	"context"
	"fmt"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/harness/scenario"
)

// Workload plays the hosts behind some of a run's models: it gives them
// frames and hears what they emit, closing the loop that traffic sources
// leave open (harness/workload/rdma posts RDMA work requests and reacts to
// completions). The engine calls it from its run loop only.
type Workload interface {
	// Name names it in summaries and reports ("rdma0"); its failures
	// start with it.
	Name() string
	// Reaction is the fewest cycles between a frame a model emits and a
	// frame the workload gives because of it: no window is longer, so a
	// reaction never reaches back into a window already run.
	Reaction() uint64
	// Due appends the frames the workload gives model before cycle end.
	Due(model string, end uint64, frames []cosim.Frame) []cosim.Frame
	// Next is the cycle of the next frame it will give, if one is known.
	Next() (uint64, bool)
	// Emitted hears a frame model emitted on port, its last beat at last.
	// data is not changed and must not be kept.
	Emitted(model string, port int, data []byte, last uint64)
	// Pending reports whether the workload waits for something a model
	// has still to do: the run is not over while it does.
	Pending() bool
	// Finish runs once the models drained, before they stop, at cycle at:
	// it may step the models it drives (to read their memory back), and
	// returns what it found wrong. An error is a run that broke.
	Finish(ctx context.Context, at uint64, models map[string]*cosim.Model) (fails []string, err error)
}

// WorkloadSetup is what a workload factory sees of a run being built: the
// scenario, the seed, and every model with its golden model, to configure.
type WorkloadSetup struct {
	Scenario *scenario.Scenario
	Seed     uint64
	ClockHz  uint64
	r        *run
}

// Path is the models a frame from model a crosses to reach model b, a and
// b included, or nil when no links join them. Links through a model that
// floods form a forest (checkLoops), so through switches it is the one
// path.
func (s *WorkloadSetup) Path(a, b string) []string {
	tree := map[string][]string{}
	for _, lk := range s.r.links {
		tree[lk.from.model] = append(tree[lk.from.model], lk.to.model)
		tree[lk.to.model] = append(tree[lk.to.model], lk.from.model)
	}
	return treePath(tree, b, a) // treePath lists its path from its second end back
}

// SetupModel is one model of a run being built, as a workload sees it.
type SetupModel struct {
	Spec   scenario.Model // as the scenario wrote it
	Top    Top
	Golden Golden
	n      *node
}

// Model returns the scenario's model called name.
func (s *WorkloadSetup) Model(name string) (*SetupModel, error) {
	n := s.r.byName[name]
	if n == nil {
		return nil, fmt.Errorf("no model %s", name)
	}
	return &SetupModel{Spec: n.spec, Top: n.top, Golden: n.golden, n: n}, nil
}

// Configure appends CSR writes to the model's configuration, written one
// per cycle from cycle 0 after the scenario's own csr table; it returns
// how many writes the configuration now holds.
func (m *SetupModel) Configure(w []cosim.CSR) int {
	m.n.config = append(m.n.config, w...)
	return len(m.n.config)
}

// InitMemory appends blocks to the host memory written into the model
// before its first cycle.
func (m *SetupModel) InitMemory(b []cosim.Mem) { m.n.memInit = append(m.n.memInit, b...) }

// DrivenBy says that w gives the model frames (Workload.Due) and hears
// what it emits (Workload.Emitted).
func (m *SetupModel) DrivenBy(w Workload) { m.n.workloads = append(m.n.workloads, w) }

// clockHz is the scenario's clock in Hz.
func clockHz(sc *scenario.Scenario) uint64 { return uint64(sc.ClockMHz*1e6 + 0.5) }

// WorkloadFactory makes the workloads a scenario asks for (none when it
// asks for none). An error that is the scenario's fault is a
// *ScenarioError.
type WorkloadFactory func(*WorkloadSetup) ([]Workload, error)

var workloadFactories []WorkloadFactory

// RegisterWorkload makes a kind of workload known to the engine; its
// package calls it from init.
func RegisterWorkload(f WorkloadFactory) { workloadFactories = append(workloadFactories, f) }

// addWorkloads asks every registered factory for its workloads and tells
// each model which ones drive it.
func (r *run) addWorkloads() error {
	setup := &WorkloadSetup{Scenario: r.sc, Seed: r.cfg.Seed, ClockHz: clockHz(r.sc), r: r}
	for _, f := range workloadFactories {
		ws, err := f(setup)
		if err != nil {
			return err
		}
		r.workloads = append(r.workloads, ws...)
	}
	return nil
}

// Explainer is a workload that says what it still waits for (the work
// requests not completed), for the error of a run that stalled or ran out
// of cycles.
type Explainer interface {
	Waiting() string
}
