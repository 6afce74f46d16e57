//go:build unix

package cosim

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// setProcAttr puts the model in its own process group, so that a Ctrl-C
// on the terminal reaches the harness only, which then closes its models
// in order.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the model's whole process group: a model started through
// a wrapper script runs as its child, which must not outlive the run. The
// group leader is not reaped yet (killProc checks), so its id is still its
// group's.
func killGroup(p *os.Process) {
	syscall.Kill(-p.Pid, syscall.SIGKILL)
	p.Kill()
}

var procStates = map[byte]string{
	'R': "running", 'S': "sleeping", 'D': "disk sleep", 'T': "stopped",
	't': "tracing stop", 'Z': "zombie", 'X': "dead", 'I': "idle",
}

// procState describes a live process's scheduler state from /proc (Linux),
// e.g. "state T (stopped)"; "" where /proc is not available.
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces
	if i < 0 || i+2 >= len(s) {
		return ""
	}
	c := s[i+2]
	if n, ok := procStates[c]; ok {
		return fmt.Sprintf("state %c (%s)", c, n)
	}
	return fmt.Sprintf("state %c", c)
}
