package slurm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// State is a task's state as Slurm names it (JOB_STATE_CODES in squeue(1)),
// or Lost.
type State string

// The states Wait returns, and the two it passes through on the way.
const (
	Pending     State = "PENDING"
	Running     State = "RUNNING"
	Completed   State = "COMPLETED"
	Failed      State = "FAILED" // non-zero exit, or the script was killed
	Timeout     State = "TIMEOUT"
	Cancelled   State = "CANCELLED"
	NodeFail    State = "NODE_FAIL"
	OutOfMemory State = "OUT_OF_MEMORY"
	Preempted   State = "PREEMPTED"
	BootFail    State = "BOOT_FAIL"
	Deadline    State = "DEADLINE"
	// Lost: slurmctld no longer knows the task and it left no status file
	// (it never ran, or was killed before its wrapper could write one).
	Lost State = "LOST"
)

// Done reports whether s is final.
func (s State) Done() bool {
	switch s {
	case Completed, Failed, Timeout, Cancelled, NodeFail, OutOfMemory, Preempted, BootFail, Deadline, Lost:
		return true
	}
	return false
}

// Where a task's state came from.
const (
	FromController = "slurmctld"
	FromStatusFile = "status file"
)

// Task is how one array task ended (or, before that, where it is).
type Task struct {
	Index int
	State State
	// ExitCode is the task's exit status; as the shell reports it, 128+n
	// when the command was killed by signal n.
	ExitCode int
	// Signal is the signal that killed the batch script itself, according
	// to slurmctld (the wrapper was killed before it could record anything).
	Signal int
	Reason string // slurmctld's reason (TimeLimit, NonZeroExitCode, ...) or why the task is lost
	Log    string // its standard output and error
	Source string // FromController, FromStatusFile, or "" for a lost task
}

// OK reports whether the task completed with exit status 0.
func (t Task) OK() bool { return t.State == Completed && t.ExitCode == 0 }

func (t Task) String() string {
	s := fmt.Sprintf("task %d: %s", t.Index, t.State)
	if t.ExitCode != 0 {
		s += fmt.Sprintf(" exit %d", t.ExitCode)
	}
	if t.Signal != 0 {
		s += fmt.Sprintf(" signal %d", t.Signal)
	}
	if t.Reason != "" && t.Reason != "None" {
		s += " (" + t.Reason + ")"
	}
	return s + ", log " + t.Log
}

// DefaultPoll is Wait's interval when given none.
const DefaultPoll = 5 * time.Second

// Wait polls until every task of id has ended and returns them in index
// order. While slurmctld knows a task (until MinJobAge seconds after it
// ended; 300 by default) its word is final. A task it no longer knows is
// read from the status file its wrapper wrote; one with neither is Lost
// after Client.LostAfter, never dropped. Wait can be called again, from
// another process too, with the same JobID. On error (the controller
// unreachable, ctx done) it returns what it knew so far.
func (c *Client) Wait(ctx context.Context, id JobID, poll time.Duration) ([]Task, error) {
	if poll <= 0 {
		poll = DefaultPoll
	}
	tasks := make([]Task, id.Tasks)
	for i := range tasks {
		tasks[i] = Task{Index: i, State: Pending, Log: id.LogPath(i)}
	}
	unknownSince := make(map[int]time.Time)
	for {
		recs, err := c.show(ctx, id.ID)
		if err != nil {
			return tasks, err
		}
		now := time.Now()
		left := 0
		for i := range tasks {
			if tasks[i].State.Done() {
				continue
			}
			if r, ok := recs[i]; ok {
				delete(unknownSince, i)
				tasks[i].State, tasks[i].ExitCode, tasks[i].Signal = r.state, r.exit, r.signal
				tasks[i].Reason, tasks[i].Source = r.reason, FromController
			} else if t, ok := readStatus(id, i); ok {
				tasks[i] = t
			} else if since, seen := unknownSince[i]; !seen {
				unknownSince[i] = now
			} else if now.Sub(since) >= c.lostAfter() {
				tasks[i].State, tasks[i].Source = Lost, ""
				tasks[i].Reason = fmt.Sprintf("slurmctld no longer knows task %s_%d and it wrote no %s", id.ID, i, id.StatusPath(i))
			}
			if !tasks[i].State.Done() {
				left++
			}
		}
		if left == 0 {
			return tasks, nil
		}
		select {
		case <-ctx.Done():
			return tasks, ctx.Err()
		case <-time.After(poll):
		}
	}
}

// Cancel cancels every task of id that has not ended; tasks already ended
// keep their state.
func (c *Client) Cancel(ctx context.Context, id JobID) error {
	_, err := c.run(ctx, nil, "scancel", id.ID)
	var e *Error
	if errors.As(err, &e) && strings.Contains(e.Msg, "already completing or completed") {
		return nil
	}
	return err
}

// record is what slurmctld says of one task.
type record struct {
	state        State
	exit, signal int
	reason       string
}

// show asks slurmctld for every task of array job id; a job it does not
// know (never submitted, or purged) gives an empty map.
func (c *Client) show(ctx context.Context, id string) (map[int]record, error) {
	out, err := c.run(ctx, nil, "scontrol", "show", "job", "-o", id)
	var e *Error
	if errors.As(err, &e) && strings.Contains(e.Msg, "Invalid job id") {
		return map[int]record{}, nil
	}
	if err != nil {
		return nil, err
	}
	return parseShowJob(string(out), id)
}

// parseShowJob reads `scontrol show job -o` output: one line per task that
// has started or ended, and one line for the tasks still pending together
// (ArrayTaskId=4-7%2). Lines of other jobs are ignored.
func parseShowJob(out, arrayID string) (map[int]record, error) {
	recs := make(map[int]record)
	for _, line := range strings.Split(out, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := fields(line)
		if f["ArrayJobId"] != arrayID {
			continue
		}
		idx, err := parseIndexes(f["ArrayTaskId"])
		if err != nil {
			return nil, fmt.Errorf("slurm: scontrol show job %s: %v in %q", arrayID, err, line)
		}
		r := record{state: State(f["JobState"]), reason: f["Reason"]}
		if code, sig, ok := strings.Cut(f["ExitCode"], ":"); ok {
			r.exit, _ = strconv.Atoi(code)
			r.signal, _ = strconv.Atoi(sig)
		}
		for _, i := range idx {
			recs[i] = r
		}
	}
	return recs, nil
}

// fields splits a one-line record into its Key=Value pairs. Values may hold
// spaces (a command's path), so a word that does not start with Key= belongs
// to the value before it.
func fields(line string) map[string]string {
	f := make(map[string]string)
	last := ""
	for _, w := range strings.Split(line, " ") {
		k, v, ok := strings.Cut(w, "=")
		if ok && isKey(k) {
			f[k], last = v, k
		} else if last != "" {
			f[last] += " " + w
		}
	}
	return f
}

func isKey(k string) bool {
	if k == "" || k[0] < 'A' || k[0] > 'Z' {
		return false
	}
	for _, r := range k {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("_:/", r)) {
			return false
		}
	}
	return true
}

// parseIndexes expands an ArrayTaskId: "3", "4-7", "1,3,5-9" with an
// optional "%K" concurrency suffix.
func parseIndexes(s string) ([]int, error) {
	s, _, _ = strings.Cut(s, "%")
	if s == "" {
		return nil, errors.New("no ArrayTaskId")
	}
	var idx []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("bad ArrayTaskId %q", s)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("bad ArrayTaskId %q", s)
			}
		}
		for i := a; i <= b; i++ {
			idx = append(idx, i)
		}
	}
	return idx, nil
}

// readStatus reads the status file of task i, if it is there and belongs to
// this job (a file left by an earlier job in the same folder does not).
func readStatus(id JobID, i int) (Task, bool) {
	data, err := os.ReadFile(id.StatusPath(i))
	if err != nil {
		return Task{}, false
	}
	f := make(map[string]string)
	for _, w := range strings.Fields(string(data)) {
		k, v, _ := strings.Cut(w, "=")
		f[k] = v
	}
	if f["job"] != id.ID || f["task"] != strconv.Itoa(i) {
		return Task{}, false
	}
	code, err := strconv.Atoi(f["exit"])
	if err != nil {
		return Task{}, false
	}
	t := Task{Index: i, ExitCode: code, Log: id.LogPath(i), Source: FromStatusFile}
	term := f["term"]
	switch {
	case strings.Contains(term, "Reason=TimeLimit"):
		t.State, t.Reason = Timeout, "TimeLimit"
	case term != "":
		// SIGTERM from slurmd for another reason: scancel, preemption.
		t.State, t.Reason = Cancelled, "SIGTERM from Slurm ("+term+")"
	case code == 0:
		t.State = Completed
	default:
		t.State, t.Reason = Failed, "NonZeroExitCode"
	}
	return t, true
}
