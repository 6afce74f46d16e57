package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/rocesim/cosim/harness/campaign"
	"github.com/rocesim/cosim/harness/coverage"
	"github.com/rocesim/cosim/harness/scenario"
)

const campaignUsage = `usage: cosim campaign run FILE [--jobs N] [--out DIR] [--models DIR] [--mutants DIR] [--resume] [--coverage]
                           [--seed-from N] [--seed-count M] [--set KEY=VALUE]...
                           [--slurm [--partition P] [--array-limit K] [--detach]]
       cosim campaign wait DIR
       cosim campaign merge DIR [--goals FILE]`

// runCampaign is "cosim campaign run|merge".
func runCampaign(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, campaignUsage)
		return fail(exitBadInput, "campaign: run or merge?")
	}
	switch args[0] {
	case "run":
		return runCampaignRun(ctx, args[1:], stdout, stderr)
	case "wait":
		if len(args) != 2 || strings.HasPrefix(args[1], "-") {
			fmt.Fprintln(stderr, campaignUsage)
			return fail(exitBadInput, "campaign wait: one campaign directory (campaign run --slurm --detach submitted its runs)")
		}
		cl := campaign.Cluster{Local: campaign.Local{Out: args[1], Progress: stdout}}
		if _, err := cl.Collect(ctx); err != nil {
			if errors.Is(err, campaign.ErrNotSubmitted) {
				return fail(exitBadInput, "campaign wait: %v", err)
			}
			if ctx.Err() != nil {
				return fail(exitInterrupted, "campaign wait: interrupted; the job array runs on; wait again later")
			}
			return fail(exitFailed, "campaign wait: %v", err)
		}
		m, err := campaign.Merge(args[1], nil)
		if err != nil {
			return fail(exitFailed, "%v", err)
		}
		return campaignVerdict(stdout, args[1], m)
	case "task": // one Slurm array task (campaign run --slurm submits it)
		return runCampaignTask(ctx, args[1:], stderr)
	case "merge":
		fs := flag.NewFlagSet("campaign merge", flag.ContinueOnError)
		fs.SetOutput(stderr)
		goalsFile := fs.String("goals", "", "a coverage goals `FILE` (must_hit = [bins or patterns]): exit 1 while one is unmet")
		rest, err := parseInterleaved(fs, args[1:])
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		if err != nil || len(rest) != 1 {
			fmt.Fprintln(stderr, campaignUsage)
			return fail(exitBadInput, "campaign merge: one campaign directory")
		}
		var goals *coverage.Goals
		if *goalsFile != "" {
			if goals, err = coverage.LoadGoals(*goalsFile); err != nil {
				return fail(exitBadInput, "campaign merge: --goals: %v", err)
			}
		}
		m, err := campaign.Merge(rest[0], goals)
		if err != nil {
			return fail(exitBadInput, "%v", err)
		}
		return campaignVerdict(stdout, rest[0], m)
	}
	fmt.Fprintln(stderr, campaignUsage)
	return fail(exitBadInput, "campaign: unknown subcommand %q", args[0])
}

func runCampaignRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("campaign run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jobs := fs.Int("jobs", max(1, runtime.NumCPU()-1), "runs at once (default: one per spare CPU)")
	out := fs.String("out", "out/campaign", "the campaign directory: runs/<id>/ per run, campaign.json, junit.xml, index.html")
	models := fs.String("models", "build/models", "directory of the Verilator-built models")
	mutants := fs.String("mutants", "", "where the campaign's [[mutant]] models are built (default: OUT/mutants; keep one between campaigns and make rebuilds only what changed)")
	resume := fs.Bool("resume", false, "skip the runs that already ended in --out (after Ctrl-C)")
	useSlurm := fs.Bool("slurm", false, "submit the runs as a Slurm job array (SLURM_CONF names the cluster) and wait for it")
	partition := fs.String("partition", "", "with --slurm: the partition (default: the cluster's)")
	arrayLimit := fs.Int("array-limit", 0, "with --slurm: tasks running at once (sbatch --array=...%K; 0: no cap)")
	detach := fs.Bool("detach", false, "with --slurm: return once submitted; campaign wait DIR waits for the array and merges")
	seedFrom := fs.Uint64("seed-from", 0, "the first seed, instead of the file's seeds.from")
	seedCount := fs.Int("seed-count", 0, "how many seeds, instead of the file's seeds.count")
	var sets []string
	fs.Func("set", "set a generator parameter, `KEY=VALUE`, in every [[scenario]] whose generator takes KEY (repeatable; an error when none does)", func(v string) error {
		if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
			return fmt.Errorf("%q is not KEY=VALUE", v)
		}
		sets = append(sets, v)
		return nil
	})
	rtlCov := fs.Bool("coverage", false, "every run with --coverage: the models (default --models "+coverageModels+") write Verilator coverage, merged into OUT/coverage/")
	fs.Usage = func() { fmt.Fprintln(stderr, campaignUsage); fs.PrintDefaults() }
	rest, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return fail(exitBadInput, "campaign run: %v", err)
	}
	if len(rest) != 1 {
		fs.Usage()
		return fail(exitBadInput, "campaign run: one campaign file")
	}
	if *detach && !*useSlurm {
		return fail(exitBadInput, "campaign run: --detach goes with --slurm")
	}
	c, err := campaign.Load(rest[0])
	if err != nil {
		return fail(exitBadInput, "campaign run: %v", err)
	}
	if err := override(fs, c, *seedFrom, *seedCount, sets); err != nil {
		return fail(exitBadInput, "campaign run: %v", err)
	}
	if err := usableOut(*out); err != nil {
		return fail(exitBadInput, "campaign run: --out %s: %v", *out, err)
	}
	self, err := os.Executable()
	if err != nil {
		return fail(exitFailed, "campaign run: %v", err)
	}
	if *rtlCov && !flagSet(fs, "models") {
		*models = coverageModels
	}
	abs, err := filepath.Abs(*models)
	if err != nil {
		return fail(exitBadInput, "campaign run: --models: %v", err)
	}
	if *mutants == "" {
		*mutants = filepath.Join(*out, "mutants")
	}
	runs, err := campaign.Prepare(ctx, c, *out, abs, *mutants, stdout)
	if err != nil {
		var se *scenario.Error
		switch {
		case ctx.Err() != nil:
			return fail(exitInterrupted, "campaign run: interrupted while preparing: %v", err)
		case errors.As(err, &se):
			return fail(exitBadInput, "campaign run: %v", err)
		}
		return fail(exitFailed, "campaign run: %v", err)
	}
	l := campaign.Local{Cosim: self, Models: abs, Out: *out, Jobs: *jobs, Resume: *resume, Progress: stdout, Coverage: *rtlCov}
	var runErr error
	if *useSlurm {
		_, runErr = campaign.Cluster{Local: l, Partition: *partition, ArrayLimit: *arrayLimit, Detach: *detach}.Run(ctx, c, runs)
		if runErr != nil && ctx.Err() == nil {
			return fail(exitFailed, "campaign run --slurm: %v", runErr)
		}
		if *detach && runErr == nil {
			return nil
		}
	} else {
		_, runErr = l.Run(ctx, c, runs)
		if runErr != nil && ctx.Err() == nil {
			return fail(exitFailed, "campaign run: %v", runErr)
		}
	}
	m, err := campaign.Merge(*out, nil)
	if err != nil {
		return fail(exitFailed, "%v", err)
	}
	if runErr != nil {
		return fail(exitInterrupted, "campaign run: interrupted; what ended is merged in %s; --resume runs the rest", *out)
	}
	return campaignVerdict(stdout, *out, m)
}

// override applies the command line's --seed-from, --seed-count and
// --set to the campaign file c.
func override(fs *flag.FlagSet, c *campaign.File, from uint64, count int, sets []string) error {
	seeds := c.Seeds
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "seed-from":
			seeds.From = from
		case "seed-count":
			seeds.Count = count
		}
	})
	if err := c.SetSeeds(seeds.From, seeds.Count); err != nil {
		return fmt.Errorf("--seed-count: %v", err)
	}
	for _, kv := range sets {
		k, v, _ := strings.Cut(kv, "=")
		if err := c.Set(k, v); err != nil {
			return fmt.Errorf("--set %s: %v", kv, err)
		}
	}
	return nil
}

// campaignVerdict prints the merged verdict: exit 1 when any run failed
// or any mutant survived.
func campaignVerdict(stdout io.Writer, dir string, m *campaign.Merged) error {
	fmt.Fprintf(stdout, "%d runs: %d passed, %d failed, %d timed out, %d never ended; %s, %s, %s in %s\n",
		m.Runs, m.Passed, m.Failed, m.TimedOut, m.Pending, campaign.MergedFile, campaign.JUnitFile, campaign.IndexFile, dir)
	for _, mm := range m.Mutants {
		if mm.Caught {
			fmt.Fprintf(stdout, "mutant %s caught by run %s (%s): rerun with: %s\n", mm.Name, mm.CaughtBy, strings.SplitN(mm.Error, "\n", 2)[0], mm.Rerun)
		} else {
			fmt.Fprintf(stdout, "MUTANT SURVIVED %s: no run of its %d failed; the planted bug: %s\n", mm.Name, mm.Runs, mm.Bug)
		}
	}
	fmt.Fprintf(stdout, "functional coverage: %d of %d bins hit (%s)\n", m.Coverage.Hit, m.Coverage.Total, campaign.CoverageFile)
	printRTLCoverage(stdout, dir, m.RTLCoverage)
	for _, g := range m.Coverage.Unmet {
		fmt.Fprintf(stdout, "GOAL NOT MET: %s\n", g)
	}
	for i, f := range m.Failures {
		if i == 10 {
			fmt.Fprintf(stdout, "... %d more in %s\n", len(m.Failures)-10, campaign.MergedFile)
			break
		}
		fmt.Fprintf(stdout, "FAILED run %s (%s seed %d): rerun with: %s\n", f.ID, f.Scenario, f.Seed, f.Rerun)
	}
	if len(m.Failures) > 0 || m.Pending > 0 {
		return fail(exitFailed, "campaign: %d of %d runs did not pass", len(m.Failures)+m.Pending, m.Runs+m.Pending)
	}
	if m.Survived > 0 {
		return fail(exitFailed, "campaign: %d of %d mutants survived", m.Survived, len(m.Mutants))
	}
	if len(m.Coverage.Unmet) > 0 {
		return fail(exitFailed, "campaign: %d coverage goals not met", len(m.Coverage.Unmet))
	}
	return nil
}

// runCampaignTask runs the one run of a Slurm array task.
func runCampaignTask(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("campaign task", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "the campaign directory")
	models := fs.String("models", "", "directory of the Verilator-built models")
	rtlCov := fs.Bool("coverage", false, "the runs write Verilator coverage")
	rest, err := parseInterleaved(fs, args)
	if err != nil || len(rest) != 1 || *out == "" || *models == "" {
		return fail(exitBadInput, "campaign task: FILE --out DIR --models DIR [--coverage] (run by campaign run --slurm)")
	}
	c, err := campaign.Load(rest[0])
	if err != nil {
		return fail(exitBadInput, "campaign task: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		return fail(exitFailed, "campaign task: %v", err)
	}
	o, err := campaign.Local{Cosim: self, Models: *models, Out: *out, Coverage: *rtlCov}.Task(ctx, c)
	if err != nil {
		return fail(exitFailed, "campaign task: %v", err)
	}
	fmt.Fprintf(stderr, "run %s: exit %d\n", o.ID, o.Exit)
	return nil // the run's verdict is in its run.json; the task itself did its job
}

// printRTLCoverage prints the merged RTL coverage's totals and the cover
// points no run hit.
func printRTLCoverage(stdout io.Writer, dir string, c *campaign.RTLCoverage) {
	if c == nil {
		return
	}
	fmt.Fprintf(stdout, "RTL coverage: %d of %d lines, %d of %d cover points hit, from %d coverage files; %s\n",
		c.Lines.Hit, c.Lines.Total, len(c.Covers)-len(c.NeverHit), len(c.Covers), c.Files, filepath.Join(dir, campaign.RTLHTMLIndex))
	for _, p := range c.NeverHit {
		fmt.Fprintf(stdout, "cover point never hit: %s\n", p)
	}
}
