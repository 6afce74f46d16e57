package main

import (
	"github.com/rocesim/cosim/harness/bridge"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/scenario"
)

// replaying is `cosim run --replay`: a recording and the scenario to run
// it in.
type replaying struct {
	rec *bridge.Recording
	sc  *scenario.Scenario
}

// loadReplay reads the recording and takes the scenario from the command
// line if one is given, else from the recording.
func loadReplay(path string, rest []string) (*replaying, error) {
	rec, err := bridge.LoadRecording(path)
	if err != nil {
		return nil, err
	}
	var sc *scenario.Scenario
	if len(rest) == 1 {
		sc, err = scenario.Open(rest[0])
	} else {
		sc, err = scenario.Parse(path+" (recorded scenario)", rec.Scenario)
	}
	if err != nil {
		return nil, err
	}
	return &replaying{rec: rec, sc: sc}, nil
}

// ends are the recorded taps, one per [[tap]] of the scenario.
func (r *replaying) ends() map[string]engine.TapEnd {
	names := make([]string, 0, len(r.sc.Taps))
	for _, t := range r.sc.Taps {
		names = append(names, t.Name)
	}
	return r.rec.Ends(names)
}
