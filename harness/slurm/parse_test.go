package slurm

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// Lines as scontrol 22.05 prints them for array job 7: task 0 timed out,
// task 1 is running, tasks 2 to 4 wait behind a %2 limit; a line of
// another job is mixed in. Fields the parser does not read are cut.
const showJob = `JobId=8 ArrayJobId=7 ArrayTaskId=0 JobName=w UserId=root(0) JobState=TIMEOUT Reason=TimeLimit Dependency=(null) ExitCode=143:0 Command=/tmp/a dir/run.sh WorkDir=/tmp StdOut=/tmp/logs/task-0.log
JobId=9 ArrayJobId=7 ArrayTaskId=1 JobName=w JobState=RUNNING Reason=None ExitCode=0:0 AllocNode:Sid=localhost:1 CPUs/Task=1
JobId=7 ArrayJobId=7 ArrayTaskId=2-4%2 JobName=w JobState=PENDING Reason=JobArrayTaskLimit ExitCode=0:0
JobId=12 ArrayJobId=12 ArrayTaskId=0 JobName=x JobState=FAILED Reason=NonZeroExitCode ExitCode=1:0
`

func TestParseShowJob(t *testing.T) {
	got, err := parseShowJob(showJob, "7")
	if err != nil {
		t.Fatal(err)
	}
	pending := record{state: Pending, reason: "JobArrayTaskLimit"}
	want := map[int]record{
		0: {state: Timeout, exit: 143, reason: "TimeLimit"},
		1: {state: Running, reason: "None"},
		2: pending, 3: pending, 4: pending,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if f := fields(strings.SplitN(showJob, "\n", 2)[0]); f["Command"] != "/tmp/a dir/run.sh" {
		t.Errorf("a value with a space: got %q", f["Command"])
	}
}

func TestParseIndexes(t *testing.T) {
	for in, want := range map[string][]int{"3": {3}, "4-6%2": {4, 5, 6}, "1,3,5-6": {1, 3, 5, 6}} {
		if got, err := parseIndexes(in); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %v, %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "5-3", "1-"} {
		if got, err := parseIndexes(in); err == nil {
			t.Errorf("%q: got %v, want an error", in, got)
		}
	}
}

// The status file decides a forgotten task's state; a file of another job
// in the same folder is not taken for this one's.
func TestReadStatus(t *testing.T) {
	dir := t.TempDir()
	id := JobID{ID: "7", Tasks: 5, LogDir: dir}
	files := map[int]string{
		0: "job=7 task=0 exit=0 term=\n",
		1: "job=7 task=1 exit=2 term=\n",
		2: "job=7 task=2 exit=143 term=JobState=COMPLETING,Reason=TimeLimit\n",
		3: "job=7 task=3 exit=143 term=JobState=COMPLETING,Reason=None\n",
		4: "job=6 task=4 exit=0 term=\n",
	}
	for i, s := range files {
		if err := os.WriteFile(id.StatusPath(i), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range []State{Completed, Failed, Timeout, Cancelled, ""} {
		got, ok := readStatus(id, i)
		if ok != (want != "") || got.State != want {
			t.Errorf("task %d: got %v %v, want %q", i, got, ok, want)
		}
	}
}
