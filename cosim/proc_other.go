//go:build !unix

package cosim

import (
	"os"
	"os/exec"
)

func setProcAttr(*exec.Cmd) {}

func procState(int) string { return "" }

func killGroup(p *os.Process) { p.Kill() }
