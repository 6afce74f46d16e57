package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rocesim/cosim/harness/scenario"
)

// Run is one run of a campaign: a scenario and a seed, and a mutant's
// models instead of the campaign's when it is one of a mutant's runs.
type Run struct {
	ID       string `json:"id"`       // "0007": its directory under runs/
	Scenario string `json:"scenario"` // an absolute scenario file (a generated one's is under scenarios/), or "" for the built-in one
	Seed     uint64 `json:"seed"`
	// Description says what a generated scenario holds: its generator's
	// line (the shape the seed drew). Empty for the others.
	Description string `json:"description,omitempty"`
	NoPcap      bool   `json:"no_pcap,omitempty"` // cosim run --no-pcap: the file's no_pcap
	Mutant      string `json:"mutant,omitempty"`
	Bug         string `json:"bug,omitempty"`    // the mutant's, in plain words
	Models      string `json:"models,omitempty"` // the mutant's models directory
	from        *Scenario
}

// Args are the cosim run arguments of the run, its output in dir, on the
// models in models unless it is a mutant's.
func (r Run) Args(dir, models string) []string {
	args := []string{"run"}
	if r.Scenario != "" {
		args = append(args, r.Scenario)
	}
	if r.NoPcap {
		args = append(args, "--no-pcap")
	}
	if r.Models != "" {
		models = r.Models
	}
	return append(args, "--seed", fmt.Sprint(r.Seed), "--out", dir, "--models", models)
}

// Rerun is the command that reruns it by hand. It leaves out --no-pcap:
// the rerun of a failure is for looking closely, every link captured.
func (r Run) Rerun(dir string) string {
	s := "cosim run"
	if r.Scenario != "" {
		s += " " + r.Scenario
	}
	s = fmt.Sprintf("%s --seed %d --out %s", s, r.Seed, dir)
	if r.Models != "" {
		s += " --models " + r.Models
	}
	return s
}

// Plan expands the file into its runs: every scenario with every seed, in
// that order. A generator scenario's runs get their scenario from
// Generate.
func (c *File) Plan() []Run {
	var runs []Run
	for i, s := range c.Scenarios {
		for k := range c.Seeds.Count {
			runs = append(runs, Run{ID: fmt.Sprintf("%04d", len(runs)), Scenario: s.File, Seed: c.Seeds.From + uint64(k),
				NoPcap: c.NoPcap, from: &c.Scenarios[i]})
		}
	}
	return runs
}

// ScenariosDir is where, under the campaign directory, Generate writes
// each generated scenario, as <run id>.toml: not in runs/<id>/, which is
// cleared before its run.
const ScenariosDir = "scenarios"

// Generate writes the scenario of each run of a generator scenario to
// out/scenarios/<id>.toml, generated from its params and the run's seed
// (the same bytes each time), and points the run at it, with its
// description. Prepare calls it before any run starts, so that
// every run, its rerun command and a Slurm task on a node that shares the
// file system find it there.
func Generate(out string, runs []Run) error {
	dir, err := filepath.Abs(filepath.Join(out, ScenariosDir))
	if err != nil {
		return err
	}
	for i := range runs {
		r := &runs[i]
		if r.from == nil || r.from.gen == nil {
			continue
		}
		text, desc, err := r.from.gen.Generate(r.from.Params, r.Seed)
		if err != nil {
			return fmt.Errorf("campaign: run %s: %w", r.ID, err)
		}
		p := filepath.Join(dir, r.ID+".toml")
		if _, err := scenario.Parse(p, []byte(text)); err != nil {
			return fmt.Errorf("campaign: run %s: generator %s made a scenario that does not parse: %w", r.ID, r.from.gen.Name, err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
		r.Scenario, r.Description = p, desc
	}
	return nil
}

// Outcome is what a run left in its directory's run.json, once it ended.
type Outcome struct {
	Run
	Exit     int     `json:"exit"`     // cosim run's exit status; -1 when killed
	TimedOut bool    `json:"timedout"` // killed at the time limit
	Seconds  float64 `json:"seconds"`
	Rerun    string  `json:"rerun"`
	Log      string  `json:"log"` // stdout and stderr of the run, beside it
}

// OutcomeFile is the file that marks a run as ended (--resume skips it).
const OutcomeFile = "run.json"

// Local says how to run a campaign on this machine.
type Local struct {
	Cosim  string // the cosim binary
	Models string // the models directory
	Out    string // the campaign directory: runs/<id>/ beneath it
	Jobs   int    // runs at once (at least 1)
	Resume bool   // skip the runs that already ended
	// Coverage runs each run with --coverage: its models, which must be
	// built by make models-coverage, write their Verilator coverage.
	Coverage bool
	// Progress gets one line per run that ends, and a last one.
	Progress io.Writer
}

// RunDir is where run r's results go.
func (l Local) RunDir(r Run) string { return filepath.Join(l.Out, "runs", r.ID) }

// Run runs the campaign's runs (Prepare lists them) over l.Jobs workers
// until all ended or ctx is done; a run cut short by ctx is not marked
// ended, so --resume redoes it. It returns the outcomes of the runs that
// ended in this call.
func (l Local) Run(ctx context.Context, c *File, runs []Run) ([]Outcome, error) {
	if l.Jobs < 1 {
		l.Jobs = 1
	}
	if err := os.MkdirAll(filepath.Join(l.Out, "runs"), 0o755); err != nil {
		return nil, err
	}
	var todo []Run
	for _, r := range runs {
		if l.Resume && exists(filepath.Join(l.RunDir(r), OutcomeFile)) {
			continue
		}
		todo = append(todo, r)
	}
	l.progressf("campaign %s: %d runs, %d to run, %d jobs\n", c.Name, len(runs), len(todo), l.Jobs)
	start := time.Now()
	work := make(chan Run)
	var mu sync.Mutex
	var outs []Outcome
	failed := 0
	var wg sync.WaitGroup
	for range l.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range work {
				o, err := l.one(ctx, c, r)
				if err != nil {
					continue // cut short by ctx: not ended
				}
				mu.Lock()
				outs = append(outs, o)
				if o.Exit != 0 && o.Mutant == "" {
					failed++
				}
				done := len(outs)
				rate := float64(done) / time.Since(start).Minutes()
				left := time.Duration(float64(len(todo)-done) / rate * float64(time.Minute)).Round(time.Second)
				l.progressf("%d/%d runs, %d failed, %.1f runs/min, about %s left: run %s %s\n",
					done, len(todo), failed, rate, left, r.ID, verdict(o))
				mu.Unlock()
			}
		}()
	}
	for _, r := range todo {
		select {
		case work <- r:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(work)
	wg.Wait()
	if ctx.Err() != nil {
		l.progressf("stopped: %d of %d runs ended; --resume runs the rest\n", len(outs), len(todo))
		return outs, ctx.Err()
	}
	return outs, nil
}

func verdict(o Outcome) string {
	switch {
	case o.Mutant != "" && (o.TimedOut || o.Exit != 0):
		return fmt.Sprintf("caught mutant %s (exit %d): rerun with %s", o.Mutant, o.Exit, o.Rerun)
	case o.Mutant != "":
		return fmt.Sprintf("passed on mutant %s", o.Mutant)
	case o.TimedOut:
		return "TIMED OUT"
	case o.Exit == 0:
		return "passed"
	}
	return fmt.Sprintf("FAILED (exit %d): rerun with %s", o.Exit, o.Rerun)
}

// one runs r as a cosim run subprocess in its own process group, killed
// with its models at the time limit or when ctx ends.
func (l Local) one(ctx context.Context, c *File, r Run) (Outcome, error) {
	dir := l.RunDir(r)
	if err := os.RemoveAll(dir); err != nil {
		return Outcome{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Outcome{}, err
	}
	log, err := os.Create(filepath.Join(dir, "run.log"))
	if err != nil {
		return Outcome{}, err
	}
	defer log.Close()
	cmd := exec.Command(l.Cosim, l.runArgs(r, dir)...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Outcome{}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	limit := time.NewTimer(c.TimeLimitOf())
	defer limit.Stop()
	o := Outcome{Run: r, Rerun: r.Rerun(dir), Log: "run.log"}
	select {
	case err = <-done:
	case <-limit.C:
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err, o.TimedOut = <-done, true
		fmt.Fprintf(log, "campaign: killed at the time limit %s\n", c.TimeLimitOf())
	case <-ctx.Done():
		// SIGINT to the run: it stops and writes what it has; not ended.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		<-done
		return Outcome{}, ctx.Err()
	}
	o.Seconds = time.Since(start).Seconds()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		o.Exit = ee.ExitCode()
	default:
		return Outcome{}, err
	}
	b, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return Outcome{}, err
	}
	return o, os.WriteFile(filepath.Join(dir, OutcomeFile), append(b, '\n'), 0o644)
}

func (l Local) progressf(format string, args ...any) {
	if l.Progress != nil {
		fmt.Fprintf(l.Progress, format, args...)
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// runIDs lists the run directories under out/runs, in order.
func runIDs(out string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(out, "runs"))
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			ids = append(ids, e.Name())
		}
	}
	return ids, nil
}
