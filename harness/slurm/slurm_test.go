package slurm_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocesim/cosim/harness/slurm"
	"github.com/rocesim/cosim/harness/slurm/slurmtest"
)

// arrayScript is what each task of TestArrayStates runs: most tasks say
// hello, task 3 fails, task 5 outlives its time limit and task 7 kills the
// wrapper so that it leaves no status file.
const arrayScript = `
case $SLURM_ARRAY_TASK_ID in
3) echo "task 3 fails"; exit 1 ;;
5) echo "task 5 sleeps past its limit"; exec sleep 300 ;;
7) echo "task 7 kills its wrapper"; kill -KILL $PPID; exit 0 ;;
*) echo "task $SLURM_ARRAY_TASK_ID says $GREETING in $PWD" ;;
esac
`

// The main test: eight tasks that end in four different ways, checked
// while slurmctld knows them and again once it has forgotten them. Task 5
// has to reach Slurm's shortest time limit, one minute, and slurmctld
// checks limits every 30 s, so this takes 60 to 100 s.
func TestArrayStates(t *testing.T) {
	cluster := slurmtest.Start(t)
	c := &slurm.Client{Conf: cluster.Conf, LostAfter: time.Second}
	work, logs := t.TempDir(), filepath.Join(t.TempDir(), "logs")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	id, err := c.Submit(ctx, slurm.Job{
		Name:      "states",
		Command:   []string{"/bin/bash", "-c", arrayScript},
		Tasks:     8,
		Partition: cluster.Partition,
		TimeLimit: 30 * time.Second, // rounded up to Slurm's minute
		Dir:       work,
		LogDir:    logs,
		Env:       []string{"GREETING=hello 'there'"},
	})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	tasks, err := c.Wait(ctx, id, time.Second)
	if err != nil {
		t.Fatalf("Wait: %v\n%v", err, tasks)
	}
	t.Logf("array of 8 ended in %v", time.Since(start).Round(time.Second))

	want := map[int]slurm.Task{
		3: {State: slurm.Failed, ExitCode: 1},
		5: {State: slurm.Timeout, ExitCode: 143}, // the shell's 128+SIGTERM
		7: {State: slurm.Failed, Signal: 9},
	}
	for i, task := range tasks {
		t.Log(task)
		w, ok := want[i]
		if !ok {
			w = slurm.Task{State: slurm.Completed}
		}
		if task.Index != i || task.State != w.State || task.ExitCode != w.ExitCode || task.Signal != w.Signal {
			t.Errorf("task %d: got %s, want %s exit %d signal %d", i, task, w.State, w.ExitCode, w.Signal)
		}
		if task.Source != slurm.FromController {
			t.Errorf("task %d: state from %q, want %q", i, task.Source, slurm.FromController)
		}
		if task.Log != filepath.Join(logs, "task-"+strconv.Itoa(i)+".log") {
			t.Errorf("task %d: log %s", i, task.Log)
		}
		log, err := os.ReadFile(task.Log)
		if err != nil {
			t.Errorf("task %d: %v", i, err)
			continue
		}
		if !ok && !strings.Contains(string(log), "says hello 'there' in "+work) {
			t.Errorf("task %d: log says %q", i, log)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	if log, _ := os.ReadFile(tasks[5].Log); !strings.Contains(string(log), "DUE TO TIME LIMIT") {
		t.Errorf("task 5's log lacks slurmstepd's time-limit line: %q", log)
	}

	// Once slurmctld has forgotten the array, the status files tell the
	// same story, and task 7, which left none, is reported lost.
	cluster.ForgetJobs(t)
	again, err := c.Wait(ctx, id, 200*time.Millisecond)
	if err != nil {
		t.Fatalf("Wait after ForgetJobs: %v", err)
	}
	for i, task := range again {
		t.Log(task)
		want := tasks[i].State
		if i == 7 {
			want = slurm.Lost
		}
		if task.State != want || task.ExitCode != tasks[i].ExitCode {
			t.Errorf("task %d after ForgetJobs: got %s, want %s exit %d", i, task, want, tasks[i].ExitCode)
		}
		if i != 7 && task.Source != slurm.FromStatusFile {
			t.Errorf("task %d after ForgetJobs: state from %q", i, task.Source)
		}
	}
	if r := again[7].Reason; !strings.Contains(r, id.StatusPath(7)) || again[7].Log != tasks[7].Log {
		t.Errorf("lost task 7: reason %q, log %s: want the status file named and the log kept", r, again[7].Log)
	}
}

// Cancel ends a running task and the pending ones; the running one's status
// file records that Slurm ended it.
func TestCancel(t *testing.T) {
	cluster := slurmtest.Start(t)
	c := &slurm.Client{Conf: cluster.Conf, LostAfter: time.Second}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	id, err := c.Submit(ctx, slurm.Job{
		Command:    []string{"/bin/sh", "-c", "echo started; exec sleep 300"},
		Tasks:      3,
		Concurrent: 1,
		Dir:        dir,
	})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, id.LogPath(0), "started")
	if err := c.Cancel(ctx, id); err != nil {
		t.Fatal(err)
	}
	tasks, err := c.Wait(ctx, id, 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		t.Log(task)
		if task.State != slurm.Cancelled || task.Source != slurm.FromController {
			t.Errorf("got %s from %s, want CANCELLED from slurmctld", task, task.Source)
		}
	}
	if err := c.Cancel(ctx, id); err != nil {
		t.Errorf("cancelling an ended array: %v", err)
	}

	// Forgotten: task 0 ran and says so; tasks 1 and 2 never ran.
	cluster.ForgetJobs(t)
	tasks, err = c.Wait(ctx, id, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []slurm.State{slurm.Cancelled, slurm.Lost, slurm.Lost} {
		t.Log(tasks[i])
		if tasks[i].State != want {
			t.Errorf("task %d after ForgetJobs: got %s, want %s", i, tasks[i], want)
		}
	}
}

// Submit errors carry the tool's own words and match the package's errors.
func TestSubmitErrors(t *testing.T) {
	cluster := slurmtest.Start(t)
	ctx := context.Background()
	job := slurm.Job{Command: []string{"true"}, Tasks: 1, Dir: t.TempDir()}

	c := &slurm.Client{Conf: cluster.Conf}
	bad := job
	bad.Partition = "nosuch"
	_, err := c.Submit(ctx, bad)
	t.Logf("bad partition: %v", err)
	if !errors.Is(err, slurm.ErrPartition) || !strings.Contains(err.Error(), "Invalid partition name specified") {
		t.Errorf("bad partition: got %v", err)
	}

	// The same cluster on a port nobody listens on: sbatch gives up after
	// its retries (about 10 s).
	conf, err := os.ReadFile(cluster.Conf)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(conf), "\n") {
		if strings.HasPrefix(l, "SlurmctldPort=") {
			l = "SlurmctldPort=1" // privileged and unused: nothing answers
		}
		lines = append(lines, l)
	}
	down := filepath.Join(t.TempDir(), "down.conf")
	if err := os.WriteFile(down, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = (&slurm.Client{Conf: down}).Submit(ctx, job)
	t.Logf("unreachable (%v): %v", time.Since(start).Round(time.Second), err)
	if !errors.Is(err, slurm.ErrUnreachable) || !strings.Contains(err.Error(), "Unable to contact slurm controller") {
		t.Errorf("unreachable controller: got %v", err)
	}

	_, err = (&slurm.Client{Conf: filepath.Join(t.TempDir(), "none.conf")}).Submit(ctx, job)
	t.Logf("missing slurm.conf: %v", err)
	if err == nil || !strings.Contains(err.Error(), "none.conf") {
		t.Errorf("missing slurm.conf: got %v", err)
	}

	_, err = (&slurm.Client{Conf: cluster.Conf, Bin: t.TempDir()}).Submit(ctx, job)
	t.Logf("no sbatch: %v", err)
	if !errors.Is(err, slurm.ErrNotInstalled) || !strings.Contains(err.Error(), "sbatch") {
		t.Errorf("no sbatch: got %v", err)
	}
}

// waitFor waits until file holds text.
func waitFor(t *testing.T, file, text string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(file); err == nil && strings.Contains(string(data), text) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s does not say %q after 30s", file, text)
}
