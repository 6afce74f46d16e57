//go:build !unix

package cosim

import "os/exec"

func setProcAttr(*exec.Cmd) {}

func procState(int) string { return "" }
