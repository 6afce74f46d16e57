// Package slurmtest starts a private single-node Slurm cluster for a test:
// munged, slurmctld and slurmd, all as root, everything they write inside
// t.TempDir(), nothing taken from or left in the system's Slurm or munge
// setup.
//
// What it takes, as tried with Slurm 22.05 and munge 0.5.15 on Debian 12
// without systemd:
//
//   - munged runs on its own key (1024 random bytes, mode 0400, in a 0700
//     folder), socket, pid, log and seed files. It refuses a socket whose
//     folder, or any folder above it, is not searchable by everyone, so the
//     temporary folders are opened to 0755.
//   - slurmctld and slurmd read a private slurm.conf given with -f; clients
//     find it through SLURM_CONF. SlurmctldHost is the short host name with
//     address 127.0.0.1, the ports are free ones, SlurmUser and SlurmdUser
//     are root, munge is reached through AuthInfo=socket=..., ClusterName is
//     required. proctrack/linuxproc and task/none need no cgroups;
//     select/cons_tres with CR_Core gives one CPU per task; no accounting
//     (jobacct_gather/none, no slurmdbd, so sacct has nothing).
//   - MinJobAge is 600 s, so finished tasks stay visible to scontrol for the
//     length of a test; KillWait is 10 s, so a cancelled task that ignores
//     SIGTERM is killed soon.
//   - slurmd logs errors about the PMIx MPI plugin at start; they are
//     harmless.
//
// The daemons run in the foreground as children of the test and are stopped
// by the pids in their pid files. Job steps (slurmstepd) outlive slurmd, so
// cleanup cancels every job first, then looks for any process still
// carrying the cluster's SLURM_CONF in its environment.
//
// Without root or the binaries the test is skipped, or fails when
// COSIM_REQUIRE_ORACLES=1 (CI), as the oracle tests do.
package slurmtest

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Partition is the name of the cluster's one partition, its default.
const Partition = "test"

// startTimeout bounds the wait for the node to become idle; it took under
// 3 s on a 2-core machine.
const startTimeout = 30 * time.Second

// tools are the programs Start needs.
var tools = []string{"munged", "slurmctld", "slurmd", "sbatch", "scontrol", "scancel", "squeue", "sinfo"}

// Cluster is a running private cluster.
type Cluster struct {
	Dir       string // everything the cluster writes
	Conf      string // its slurm.conf
	Partition string
	Node      string // the node's name, the short host name
	CPUs      int

	munged, ctld, slurmd *daemon
}

// Env is the environment entry that points Slurm's tools at the cluster.
func (c *Cluster) Env() []string { return []string{"SLURM_CONF=" + c.Conf} }

// daemon is one of the cluster's processes.
type daemon struct {
	name    string
	pidFile string
	log     string // its own log file
	out     string // its stdout and stderr, for what it says before logging starts
	cmd     *exec.Cmd
	exited  chan struct{}
}

func require(t testing.TB) {
	t.Helper()
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root (slurmd starts jobs as their user; munged and the daemons run as root)")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := "slurm cluster unavailable, missing: " + strings.Join(missing, ", ")
	if os.Getenv("COSIM_REQUIRE_ORACLES") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg + " (set COSIM_REQUIRE_ORACLES=1 to fail instead)")
}

// Start starts a cluster and returns once its node is idle. Cleanup stops it
// and fails the test if any of its processes is left.
func Start(t testing.TB) *Cluster {
	t.Helper()
	require(t)
	dir := t.TempDir()
	// munged wants every folder above its socket searchable by all.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".")
	c := &Cluster{Dir: dir, Conf: filepath.Join(dir, "slurm.conf"), Partition: Partition, Node: host, CPUs: runtime.NumCPU()}
	t.Cleanup(func() { c.stop(t) })

	sock := c.startMunge(t)
	ports := freePorts(t, 2)
	if err := os.WriteFile(c.Conf, []byte(c.config(sock, ports[0], ports[1])), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"ctld-state", "slurmd-spool"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c.ctld = c.start(t, "slurmctld", "-D", "-f", c.Conf)
	c.slurmd = c.start(t, "slurmd", "-D", "-f", c.Conf)
	c.waitIdle(t)
	return c
}

// ForgetJobs restarts slurmctld with its state cleared (-c), as if MinJobAge
// had passed for every job: scontrol no longer knows any of them. Use it
// only once the jobs have ended.
func (c *Cluster) ForgetJobs(t testing.TB) {
	t.Helper()
	if err := c.ctld.stop(); err != nil {
		t.Fatal(err)
	}
	c.ctld = c.start(t, "slurmctld", "-D", "-c", "-f", c.Conf)
	c.waitIdle(t)
}

func (c *Cluster) startMunge(t testing.TB) string {
	keyDir := filepath.Join(c.Dir, "munge-key")
	runDir := filepath.Join(c.Dir, "munge")
	if err := os.Mkdir(keyDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	key := make([]byte, 1024)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(keyDir, "munge.key")
	if err := os.WriteFile(keyFile, key, 0o400); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(runDir, "munge.socket")
	d := &daemon{name: "munged", pidFile: filepath.Join(runDir, "munged.pid"), log: filepath.Join(runDir, "munged.log")}
	c.munged = c.run(t, d, "--foreground", "--key-file="+keyFile, "--socket="+sock,
		"--pid-file="+d.pidFile, "--log-file="+d.log, "--seed-file="+filepath.Join(runDir, "munged.seed"))
	deadline := time.Now().Add(startTimeout)
	for {
		if _, err := os.Stat(sock); err == nil {
			return sock
		}
		select {
		case <-c.munged.exited:
			t.Fatalf("munged exited at start:\n%s", c.munged.tail())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("munged made no socket in %v:\n%s", startTimeout, c.munged.tail())
		}
	}
}

// config is the cluster's slurm.conf.
func (c *Cluster) config(sock string, ctldPort, slurmdPort int) string {
	in := func(name string) string { return filepath.Join(c.Dir, name) }
	lines := []string{
		"ClusterName=cosimtest",
		fmt.Sprintf("SlurmctldHost=%s(127.0.0.1)", c.Node),
		fmt.Sprintf("SlurmctldPort=%d", ctldPort),
		fmt.Sprintf("SlurmdPort=%d", slurmdPort),
		"SlurmUser=root",
		"SlurmdUser=root",
		"AuthType=auth/munge",
		"AuthInfo=socket=" + sock,
		"CredType=cred/munge",
		"StateSaveLocation=" + in("ctld-state"),
		"SlurmdSpoolDir=" + in("slurmd-spool"),
		"SlurmctldPidFile=" + in("slurmctld.pid"),
		"SlurmdPidFile=" + in("slurmd.pid"),
		"SlurmctldLogFile=" + in("slurmctld.log"),
		"SlurmdLogFile=" + in("slurmd.log"),
		"ProctrackType=proctrack/linuxproc",
		"TaskPlugin=task/none",
		"SelectType=select/cons_tres",
		"SelectTypeParameters=CR_Core",
		"JobAcctGatherType=jobacct_gather/none",
		"MpiDefault=none",
		"ReturnToService=2",
		"MinJobAge=600",
		"KillWait=10",
		fmt.Sprintf("NodeName=%s NodeAddr=127.0.0.1 CPUs=%d State=UNKNOWN", c.Node, c.CPUs),
		fmt.Sprintf("PartitionName=%s Nodes=%s Default=YES MaxTime=INFINITE State=UP", c.Partition, c.Node),
	}
	return strings.Join(lines, "\n") + "\n"
}

// start starts slurmctld or slurmd, whose pid and log files slurm.conf names.
func (c *Cluster) start(t testing.TB, name string, args ...string) *daemon {
	d := &daemon{name: name, pidFile: filepath.Join(c.Dir, name+".pid"), log: filepath.Join(c.Dir, name+".log")}
	return c.run(t, d, args...)
}

func (c *Cluster) run(t testing.TB, d *daemon, args ...string) *daemon {
	t.Helper()
	os.Remove(d.pidFile) // a pid file of an earlier run must not pass for this one's
	d.out = filepath.Join(c.Dir, d.name+".out")
	out, err := os.OpenFile(d.out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	d.cmd = exec.Command(d.name, args...)
	// SLURM_CONF also marks the daemons and the job steps they start, for
	// the check that nothing is left.
	d.cmd.Env = append(os.Environ(), "SLURM_CONF="+c.Conf)
	d.cmd.Stdout, d.cmd.Stderr = out, out
	if err := d.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", d.name, err)
	}
	d.exited = make(chan struct{})
	go func() { d.cmd.Wait(); close(d.exited) }()
	return d
}

// waitIdle waits until sinfo shows the node idle.
func (c *Cluster) waitIdle(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(startTimeout)
	var state string
	for time.Now().Before(deadline) {
		for _, d := range []*daemon{c.munged, c.ctld, c.slurmd} {
			select {
			case <-d.exited:
				t.Fatalf("%s exited at start:\n%s", d.name, c.tails())
			default:
			}
		}
		out, err := c.Command("sinfo", "-h", "-N", "-n", c.Node, "-o", "%T").CombinedOutput()
		state = strings.TrimSpace(string(out))
		if err == nil && state == "idle" {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("node %s not idle after %v (sinfo: %q):\n%s", c.Node, startTimeout, state, c.tails())
}

// Command returns a Slurm tool's command pointed at the cluster.
func (c *Cluster) Command(tool string, args ...string) *exec.Cmd {
	cmd := exec.Command(tool, args...)
	cmd.Env = append(os.Environ(), c.Env()...)
	return cmd
}

func (c *Cluster) tails() string {
	var b strings.Builder
	for _, d := range []*daemon{c.munged, c.ctld, c.slurmd} {
		if d != nil {
			b.WriteString(d.tail())
		}
	}
	return b.String()
}

// stop cancels every job, stops slurmd, slurmctld and munged, in that
// order (each needs the next), and fails the test if a process of the
// cluster is left.
func (c *Cluster) stop(t testing.TB) {
	if c.ctld != nil && c.slurmd != nil {
		if err := c.cancelAll(); err != nil {
			t.Errorf("cancelling the cluster's jobs: %v\n%s", err, c.tails())
		}
	}
	for _, d := range []*daemon{c.slurmd, c.ctld, c.munged} {
		if d == nil {
			continue
		}
		if err := d.stop(); err != nil {
			t.Error(err)
		}
	}
	for _, p := range c.leftovers() {
		t.Errorf("slurm cluster left process %d running (%s); killing it", p.pid, p.cmd)
		syscall.Kill(p.pid, syscall.SIGKILL)
	}
}

// cancelAll cancels every job and waits until squeue lists none: a task
// runs under a slurmstepd that would outlive slurmd.
func (c *Cluster) cancelAll() error {
	deadline := time.Now().Add(30 * time.Second) // KillWait, and some
	for {
		out, err := c.Command("squeue", "-h", "-o", "%i").Output()
		if err != nil {
			return fmt.Errorf("squeue: %v", err)
		}
		ids := strings.Fields(string(out))
		if len(ids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("jobs %s still listed after scancel", strings.Join(ids, " "))
		}
		if out, err := c.Command("scancel", ids...).CombinedOutput(); err != nil {
			return fmt.Errorf("scancel: %v: %s", err, bytes.TrimSpace(out))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

type process struct {
	pid int
	cmd string
}

// leftovers lists live processes whose environment holds the cluster's
// SLURM_CONF: the daemons, the job steps and the tasks all do.
func (c *Cluster) leftovers() []process {
	marker := []byte("SLURM_CONF=" + c.Conf + "\x00")
	ents, _ := os.ReadDir("/proc")
	var left []process
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, marker) {
			continue // gone, or a zombie (which has no environment)
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		left = append(left, process{pid, strings.TrimSpace(string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))})
	}
	return left
}

// stop sends SIGTERM to the pid in the pid file and waits for the daemon to
// exit, then SIGKILL. A pid file naming another process than the one
// started is an error: the daemon is not what it seems.
func (d *daemon) stop() error {
	select {
	case <-d.exited:
		return nil
	default:
	}
	pid := d.cmd.Process.Pid
	data, err := os.ReadFile(d.pidFile)
	var perr error
	if err != nil {
		perr = fmt.Errorf("%s: no pid file: %v", d.name, err)
	} else if p, err := strconv.Atoi(strings.TrimSpace(string(data))); err != nil || p != pid {
		perr = fmt.Errorf("%s: pid file %s says %q, but the daemon is pid %d", d.name, d.pidFile, bytes.TrimSpace(data), pid)
	}
	syscall.Kill(pid, syscall.SIGTERM)
	select {
	case <-d.exited:
		return perr
	case <-time.After(15 * time.Second):
	}
	syscall.Kill(pid, syscall.SIGKILL)
	<-d.exited
	return fmt.Errorf("%s (pid %d) ignored SIGTERM for 15s and was killed:\n%s", d.name, pid, d.tail())
}

// tail is the end of a daemon's log and of its own output.
func (d *daemon) tail() string {
	var b strings.Builder
	for _, f := range []string{d.log, d.out} {
		data, err := os.ReadFile(f)
		if err != nil || len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(lines) > 15 {
			lines = lines[len(lines)-15:]
		}
		fmt.Fprintf(&b, "--- %s\n%s\n", f, strings.Join(lines, "\n"))
	}
	return b.String()
}

// freePorts returns n TCP ports free at the moment on every address, as
// slurmctld and slurmd listen on all of them. Another process may take one
// before the daemons do; the start then fails with the daemon's log.
func freePorts(t testing.TB, n int) []int {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", ":0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}
