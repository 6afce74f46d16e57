package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rocesim/cosim/harness/slurm"
)

// Cluster says how to run a campaign as a Slurm job array: each array
// task runs one run through "cosim campaign task", in its directory under
// Out, which must be on a file system the cluster's nodes share (as must
// the models and the cosim binary).
type Cluster struct {
	Local     // Cosim, Models, Out, Resume, Progress as for a local campaign
	Client    slurm.Client
	Partition string
	// ArrayLimit caps the tasks running at once (sbatch --array=...%K).
	ArrayLimit int
	// Poll is how often Wait asks the controller (default 2 s).
	Poll time.Duration
	// Detach returns once the array is submitted; Collect waits for it
	// later, from another process.
	Detach bool
}

// jobFile records the submitted array in the campaign's slurm/ directory,
// for Collect.
const jobFile = "job.json"

// ErrNotSubmitted: Collect found no job array submitted into the campaign
// directory.
var ErrNotSubmitted = errors.New("no submitted job array")

// todoFile lists, for the array's tasks, the runs they run: task i runs
// its i-th entry, as planned here (seeds and parameters overridden on the
// command line included; the task reads the campaign file only for its
// time limit).
const todoFile = "todo.json"

// Run submits the runs still to run as one job array, waits for every
// task (unless cl.Detach), and gives each task that ended without
// recording its run (killed by Slurm, its node lost) a run.json saying so,
// with its log: no run is lost. The campaign file must be reachable from the nodes at c.Path.
func (cl Cluster) Run(ctx context.Context, c *File, plan []Run) ([]slurm.Task, error) {
	dir := filepath.Join(cl.Out, "slurm")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var todo []Run
	for _, r := range plan {
		if cl.Resume && exists(filepath.Join(cl.RunDir(r), OutcomeFile)) {
			continue
		}
		todo = append(todo, r)
	}
	cl.progressf("campaign %s: %d runs, %d to run as a Slurm job array\n", c.Name, len(plan), len(todo))
	if len(todo) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(todo)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, todoFile), b, 0o644); err != nil {
		return nil, err
	}
	out, err := filepath.Abs(cl.Out)
	if err != nil {
		return nil, err
	}
	file, err := filepath.Abs(c.Path)
	if err != nil {
		return nil, err
	}
	job := slurm.Job{
		Name:    "cosim-" + c.Name,
		Command: append([]string{cl.Cosim, "campaign", "task", file, "--out", out, "--models", cl.Models}, cl.taskArgs()...),
		Tasks:   len(todo), Concurrent: cl.ArrayLimit, Partition: cl.Partition,
		// The run kills itself at its limit; Slurm's is a backstop.
		TimeLimit: c.TimeLimitOf() + time.Minute,
		Dir:       out, LogDir: filepath.Join(out, "slurm"),
	}
	id, err := cl.Client.Submit(ctx, job)
	if err != nil {
		return nil, err
	}
	if b, err = json.Marshal(id); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, jobFile), b, 0o644); err != nil {
		return nil, err
	}
	if cl.Detach {
		cl.progressf("submitted job array %s of %d tasks (tasks log to %s); cosim campaign wait %s waits for it and merges\n",
			id, len(todo), job.LogDir, cl.Out)
		return nil, nil
	}
	cl.progressf("submitted job array %s of %d tasks; waiting (tasks log to %s)\n", id, len(todo), job.LogDir)
	return cl.collect(ctx, todo, id)
}

// Collect waits for the array a detached Run submitted into the campaign
// directory cl.Out, and records the runs its tasks lost, as Run does.
func (cl Cluster) Collect(ctx context.Context) ([]slurm.Task, error) {
	var todo []Run
	var id slurm.JobID
	for name, v := range map[string]any{todoFile: &todo, jobFile: &id} {
		b, err := os.ReadFile(filepath.Join(cl.Out, "slurm", name))
		if err != nil {
			return nil, fmt.Errorf("%w: %s holds none (campaign run --slurm --detach submits one)", ErrNotSubmitted, cl.Out)
		}
		if err := json.Unmarshal(b, v); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(cl.Out, "slurm", name), err)
		}
	}
	cl.progressf("waiting for job array %s of %d tasks\n", id, id.Tasks)
	return cl.collect(ctx, todo, id)
}

// collect waits for every task of array id and gives each task that ended
// without recording its run a run.json saying so.
func (cl Cluster) collect(ctx context.Context, todo []Run, id slurm.JobID) ([]slurm.Task, error) {
	poll := cl.Poll
	if poll == 0 {
		poll = 2 * time.Second
	}
	tasks, err := cl.Client.Wait(ctx, id, poll)
	if err != nil {
		return tasks, err
	}
	for _, t := range tasks {
		r := todo[t.Index]
		p := filepath.Join(cl.RunDir(r), OutcomeFile)
		if exists(p) {
			continue
		}
		// The task ended without the run recording its end: say how.
		if err := os.MkdirAll(cl.RunDir(r), 0o755); err != nil {
			return tasks, err
		}
		o := Outcome{Run: r, Exit: -1, TimedOut: t.State == slurm.Timeout, Rerun: r.Rerun(cl.RunDir(r)), Log: t.Log}
		b, err := json.MarshalIndent(o, "", "  ")
		if err != nil {
			return tasks, err
		}
		if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
			return tasks, err
		}
		cl.progressf("run %s: Slurm task %d ended %s (%s) before the run recorded its end; log %s\n", r.ID, t.Index, t.State, t.Reason, t.Log)
	}
	return tasks, nil
}

// Task runs the one run a job array task stands for: the index is
// SLURM_ARRAY_TASK_ID, into the campaign's todo list.
func (l Local) Task(ctx context.Context, c *File) (Outcome, error) {
	i, err := strconv.Atoi(os.Getenv("SLURM_ARRAY_TASK_ID"))
	if err != nil {
		return Outcome{}, fmt.Errorf("campaign task: SLURM_ARRAY_TASK_ID: %w", err)
	}
	b, err := os.ReadFile(filepath.Join(l.Out, "slurm", todoFile))
	if err != nil {
		return Outcome{}, err
	}
	var todo []Run
	if err := json.Unmarshal(b, &todo); err != nil {
		return Outcome{}, err
	}
	if i < 0 || i >= len(todo) {
		return Outcome{}, fmt.Errorf("campaign task: index %d, but %d runs to run", i, len(todo))
	}
	return l.one(ctx, c, todo[i])
}
