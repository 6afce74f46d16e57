package slurm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Job is a job array to submit: Tasks copies of Command, told apart by
// SLURM_ARRAY_TASK_ID (0 to Tasks-1).
type Job struct {
	Name    string   // --job-name; "cosim" when empty
	Command []string // what each task runs, a program and its arguments (a script is just a program)
	Tasks   int      // the array size, at least 1
	// Concurrent caps how many tasks run at once (--array=...%K); 0 means
	// no cap beyond the cluster's.
	Concurrent int
	Partition  string // empty means the cluster's default partition
	// TimeLimit is each task's limit; Slurm counts whole minutes, so it is
	// rounded up. 0 means the partition's default.
	TimeLimit time.Duration
	// Dir is the tasks' working directory and LogDir where their logs and
	// status files go (Dir when empty). On a multi-node cluster both must
	// be on a file system every node shares, at the same path.
	Dir    string
	LogDir string
	Env    []string // KEY=VALUE set in every task's environment
	Args   []string // more sbatch options, such as --account=A or --mem=4G
}

// JobID names a submitted array and where its tasks report: everything
// Wait needs, so a later process can wait for the same array again.
type JobID struct {
	ID     string `json:"id"` // Slurm's job id of the array
	Tasks  int    `json:"tasks"`
	LogDir string `json:"log_dir"`
}

func (j JobID) String() string { return j.ID }

// LogPath is where task i's standard output and error go.
func (j JobID) LogPath(i int) string {
	return filepath.Join(j.LogDir, fmt.Sprintf("task-%d.log", i))
}

// StatusPath is the file task i's wrapper writes when it ends.
func (j JobID) StatusPath(i int) string {
	return filepath.Join(j.LogDir, fmt.Sprintf("task-%d.status", i))
}

var envKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Submit submits job with sbatch and returns its id once slurmctld has
// accepted it. It creates LogDir and removes status files left there by an
// earlier array; Dir must exist.
func (c *Client) Submit(ctx context.Context, job Job) (JobID, error) {
	script, args, logDir, err := c.prepare(job)
	if err != nil {
		return JobID{}, err
	}
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return JobID{}, fmt.Errorf("slurm: log folder: %w", err)
	}
	// Status files of an earlier array in the same folder could be taken
	// for this one's if job ids repeat (a controller started afresh).
	for i := range job.Tasks {
		p := JobID{LogDir: logDir}.StatusPath(i)
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return JobID{}, fmt.Errorf("slurm: stale status file: %w", err)
		}
	}
	out, err := c.run(ctx, strings.NewReader(script), "sbatch", args...)
	if err != nil {
		return JobID{}, err
	}
	// --parsable prints "id" or "id;cluster".
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return JobID{}, fmt.Errorf("slurm: sbatch printed %q, not a job id", out)
	}
	return JobID{ID: id, Tasks: job.Tasks, LogDir: logDir}, nil
}

// prepare checks job and returns the batch script, sbatch's arguments and
// the absolute log folder.
func (c *Client) prepare(job Job) (script string, args []string, logDir string, err error) {
	if len(job.Command) == 0 || job.Command[0] == "" {
		return "", nil, "", fmt.Errorf("slurm: job has no command")
	}
	if job.Tasks < 1 {
		return "", nil, "", fmt.Errorf("slurm: job has %d tasks, want at least 1", job.Tasks)
	}
	if job.Concurrent < 0 || job.TimeLimit < 0 {
		return "", nil, "", fmt.Errorf("slurm: negative concurrency or time limit")
	}
	if job.Dir == "" {
		return "", nil, "", fmt.Errorf("slurm: job has no working directory")
	}
	dir, err := filepath.Abs(job.Dir)
	if err != nil {
		return "", nil, "", err
	}
	logDir = dir
	if job.LogDir != "" {
		if logDir, err = filepath.Abs(job.LogDir); err != nil {
			return "", nil, "", err
		}
	}
	// sbatch expands %-patterns in --output; a literal % in the folder
	// would land the logs elsewhere.
	if strings.Contains(logDir, "%") {
		return "", nil, "", fmt.Errorf("slurm: log folder %q contains %%", logDir)
	}
	for _, kv := range job.Env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || !envKey.MatchString(k) {
			return "", nil, "", fmt.Errorf("slurm: environment entry %q is not KEY=VALUE", kv)
		}
	}
	name := job.Name
	if name == "" {
		name = "cosim"
	}
	array := fmt.Sprintf("0-%d", job.Tasks-1)
	if job.Concurrent > 0 {
		array += fmt.Sprintf("%%%d", job.Concurrent)
	}
	args = []string{
		"--parsable",
		"--job-name=" + name,
		"--array=" + array,
		"--chdir=" + dir,
		"--output=" + filepath.Join(logDir, "task-%a.log"), // stderr follows stdout
	}
	if job.Partition != "" {
		args = append(args, "--partition="+job.Partition)
	}
	if job.TimeLimit > 0 {
		mins := (job.TimeLimit + time.Minute - 1) / time.Minute
		args = append(args, fmt.Sprintf("--time=%d", mins))
	}
	args = append(args, job.Args...)
	return wrapper(job, logDir), args, logDir, nil
}

// wrapper is the batch script: it runs the command in the background, so a
// SIGTERM from slurmd (time limit, scancel) reaches its trap at once, and
// then records the exit status in the task's status file, renamed into
// place so a reader never sees half of it. On SIGTERM it also asks
// slurmctld, which is ending the task and still knows why, for the state
// and reason (Reason=TimeLimit on a timeout), so the file says what
// happened after slurmctld has forgotten the task.
func wrapper(job Job, logDir string) string {
	var b strings.Builder
	b.WriteString("#!/bin/bash\n")
	b.WriteString("# cosim task wrapper: runs one array task and records how it ended.\n")
	for _, kv := range job.Env {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, "export %s=%s\n", k, shellQuote(v))
	}
	fmt.Fprintf(&b, "status=%s/task-$SLURM_ARRAY_TASK_ID.status\n", shellQuote(logDir))
	b.WriteString(`term=
on_term() {
	term=$(timeout 10 scontrol show job -o "${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}" 2>/dev/null |
		grep -o 'JobState=[^ ]* Reason=[^ ]*' | head -n 1 | tr ' ' ',')
	term=${term:-unknown}
}
trap on_term TERM
`)
	quoted := make([]string, len(job.Command))
	for i, a := range job.Command {
		quoted[i] = shellQuote(a)
	}
	b.WriteString(strings.Join(quoted, " ") + " &\n")
	b.WriteString(`child=$!
wait "$child"
rc=$?
# A trapped signal ends wait early; wait again for the command itself.
while [ -n "$term" ] && kill -0 "$child" 2>/dev/null; do
	wait "$child"
	rc=$?
done
printf 'job=%s task=%s exit=%d term=%s\n' "$SLURM_ARRAY_JOB_ID" "$SLURM_ARRAY_TASK_ID" "$rc" "$term" >"$status.tmp" &&
	mv -f "$status.tmp" "$status"
exit "$rc"
`)
	return b.String()
}

// shellQuote quotes s for bash in single quotes; a quote inside closes
// them, is escaped with a backslash and reopens them.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
