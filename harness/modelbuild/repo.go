package modelbuild

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// RepoEnv names the checkout whose sim/ builds the models, when neither a
// flag nor the places FindRepo looks give one.
const RepoEnv = "COSIM_REPO"

// Module is this project's Go module: a user's project requires it, so
// `go list -m` finds its source from there.
const Module = "github.com/rocesim/cosim"

// FindRepo finds the checkout of this repository whose sim/build.mk
// builds a user's model, in this order: dir when not empty (a flag);
// $COSIM_REPO; the directory above the running program's when it holds
// sim/build.mk (make build's build/cosim); the source of the module
// github.com/rocesim/cosim as `go list -m` sees it from the working
// directory (this repository, or a user's module that requires it, with
// or without a replace directive). The answer is absolute.
func FindRepo(ctx context.Context, dir string) (string, error) {
	check := func(d, from string) (string, error) {
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", err
		}
		if _, err := os.Stat(filepath.Join(abs, "sim", "build.mk")); err != nil {
			return "", fmt.Errorf("%s %s: no sim/build.mk there: it must be a checkout of %s", from, d, Module)
		}
		return abs, nil
	}
	if dir != "" {
		return check(dir, "--repo")
	}
	if d := os.Getenv(RepoEnv); d != "" {
		return check(d, "$"+RepoEnv)
	}
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			if d, err := check(filepath.Dir(filepath.Dir(exe)), "the program's"); err == nil {
				return d, nil
			}
		}
	}
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", Module)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if d := strings.TrimSpace(string(out)); err == nil && d != "" {
		return check(d, "go list -m "+Module+":")
	}
	return "", fmt.Errorf("cannot find a checkout of %s to build with: give --repo DIR or set $%s (go list -m %s: %v %s)",
		Module, RepoEnv, Module, err, strings.TrimSpace(stderr.String()))
}
