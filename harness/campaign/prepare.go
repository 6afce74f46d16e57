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

// PlanFile lists every run of a prepared campaign, in its directory, so
// that what a campaign will run can be seen before it ends.
const PlanFile = "plan.json"

// Prepare readies the campaign in out before any run starts: it writes
// the generated scenarios (Generate), builds every mutant (under mutants/<name>, once, so that a job array's tasks
// find them; make rebuilds only what changed when the directory is kept
// between campaigns) and lists the runs: the
// scenarios times the seeds, then for each mutant the scenarios that run
// a model built with its bug, times the seeds. The list is written to
// plan.json.
func Prepare(ctx context.Context, c *File, out, models, mutants string, log io.Writer) ([]Run, error) {
	runs := c.Plan()
	if err := Generate(out, runs); err != nil {
		return nil, err
	}
	if len(c.Mutants) > 0 {
		uses := map[string][]string{} // each scenario file's models ("" the built-in one)
		var all []string
		for _, r := range runs {
			if _, ok := uses[r.Scenario]; ok {
				continue
			}
			ms, err := scenarioModels(r.Scenario)
			if err != nil {
				return nil, err
			}
			uses[r.Scenario] = ms
			for _, m := range ms {
				if !slices.Contains(all, m) {
					all = append(all, m)
				}
			}
		}
		plain := len(runs)
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
			if len(mutated) == 0 {
				return nil, c.at.KeyError(fmt.Sprintf("mutant.%d.name", j), "mutant %s changes %s, which none of the campaign's scenarios runs",
					m.Name, m.m.Device())
			}
			if log != nil {
				fmt.Fprintf(log, "mutant %s: %v built in %.0f s\n", m.Name, mutated, time.Since(start).Seconds())
			}
			for _, r := range runs[:plain] {
				if !slices.ContainsFunc(uses[r.Scenario], func(x string) bool { return slices.Contains(mutated, x) }) {
					continue // the bug cannot show in this scenario
				}
				r.ID = fmt.Sprintf("%04d", len(runs))
				r.Mutant, r.Bug, r.Models = m.Name, m.m.Bug, mdir
				runs = append(runs, r)
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

// scenarioModels names the models a scenario file ("" the built-in
// default) runs, as sim/build.mk does ("switch4_64").
func scenarioModels(file string) ([]string, error) {
	var sc *scenario.Scenario
	var err error
	if file == "" {
		sc, err = scenario.Default()
	} else {
		sc, err = scenario.Load(file)
	}
	if err != nil {
		return nil, err
	}
	return engine.ModelNames(sc)
}
