package campaign

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/mutant"
	"github.com/rocesim/cosim/harness/scenario"
)

// PlanFile lists every run of a prepared campaign, in its directory: what
// a Slurm array task reads to find its run.
const PlanFile = "plan.json"

// Prepare readies the campaign in out before any run starts: it builds
// every mutant (under mutants/<name>, once, so that a job array's tasks
// find them; make rebuilds only what changed when the directory is kept
// between campaigns) and lists the runs: the
// scenarios times the seeds, then for each mutant the scenarios that run
// a model built with its bug, times the seeds. The list is written to
// plan.json.
func Prepare(ctx context.Context, c *File, out, models, mutants string, log io.Writer) ([]Run, error) {
	runs := c.Plan()
	if len(c.Mutants) > 0 {
		uses := make([][]string, len(c.Scenarios)) // each scenario's models
		var all []string
		for i, s := range c.Scenarios {
			var err error
			if uses[i], err = scenarioModels(s); err != nil {
				return nil, err
			}
			for _, m := range uses[i] {
				if !slices.Contains(all, m) {
					all = append(all, m)
				}
			}
		}
		for j, m := range c.Mutants {
			dir, err := filepath.Abs(filepath.Join(mutants, m.Name))
			if err != nil {
				return nil, err
			}
			if log != nil {
				fmt.Fprintf(log, "building mutant %s: %s\n", m.Name, m.m.Bug)
			}
			start := time.Now()
			b := mutant.Build{Root: m.root, Dir: dir, Models: all, Base: models, NoPGO: true}
			mdir, mutated, err := b.Build(ctx, m.m)
			if err != nil {
				return nil, err
			}
			if log != nil {
				fmt.Fprintf(log, "mutant %s: %v built in %.0f s\n", m.Name, mutated, time.Since(start).Seconds())
			}
			n := len(runs)
			for i, s := range c.Scenarios {
				if !slices.ContainsFunc(uses[i], func(x string) bool { return slices.Contains(mutated, x) }) {
					continue // the bug cannot show in this scenario
				}
				for k := range c.Seeds.Count {
					runs = append(runs, Run{ID: fmt.Sprintf("%04d", len(runs)), Scenario: s.File, Seed: c.Seeds.From + uint64(k),
						Mutant: m.Name, Bug: m.m.Bug, Models: mdir})
				}
			}
			if len(runs) == n {
				return nil, c.at.KeyError(fmt.Sprintf("mutant.%d.name", j), "mutant %s changes %s, which none of the campaign's scenarios runs",
					m.Name, m.m.Device())
			}
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(runs, "", "  ")
	if err != nil {
		return nil, err
	}
	return runs, os.WriteFile(filepath.Join(out, PlanFile), append(b, '\n'), 0o644)
}

// readPlan reads the runs Prepare listed in out.
func readPlan(out string) ([]Run, error) {
	b, err := os.ReadFile(filepath.Join(out, PlanFile))
	if err != nil {
		return nil, err
	}
	var runs []Run
	if err := json.Unmarshal(b, &runs); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(out, PlanFile), err)
	}
	return runs, nil
}

// scenarioModels names the models a campaign scenario runs, as
// sim/build.mk does ("switch4_64").
func scenarioModels(s Scenario) ([]string, error) {
	var sc *scenario.Scenario
	var err error
	if s.File == "" {
		sc, err = scenario.Default()
	} else {
		sc, err = scenario.Load(s.File)
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, m := range sc.Models {
		if m.Remote != "" {
			continue // started elsewhere: no mutant of ours runs there
		}
		top, err := engine.LookupTop(m.Top)
		if err != nil {
			return nil, sc.KeyError("model", "%v", err)
		}
		if n := engine.ModelName(top, m.DataWidth); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names, nil
}
