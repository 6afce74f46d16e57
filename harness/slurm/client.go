package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Errors that callers may want to tell apart; an [*Error] matches them with
// errors.Is and still carries the tool's own message.
var (
	// ErrNotInstalled: a Slurm client tool is not on PATH (or in Client.Bin).
	ErrNotInstalled = errors.New("slurm: client tools not installed")
	// ErrUnreachable: the tool could not contact slurmctld.
	ErrUnreachable = errors.New("slurm: controller unreachable")
	// ErrPartition: the cluster has no such partition.
	ErrPartition = errors.New("slurm: no such partition")
)

// DefaultLostAfter is how long Wait gives a task that slurmctld no longer
// knows to show its status file: a shared file system may hide a file
// another node wrote for a while (NFS caches directory lookups).
const DefaultLostAfter = time.Minute

// Client runs the Slurm tools against one cluster. The zero value uses the
// tools on PATH and the cluster that SLURM_CONF (or the tools' built-in
// default) names.
type Client struct {
	// Conf is the slurm.conf to use, passed to every tool as SLURM_CONF;
	// empty means the caller's SLURM_CONF or the tools' default.
	Conf string
	// Bin is the folder holding sbatch, scontrol and scancel; empty means
	// PATH.
	Bin string
	// LostAfter overrides DefaultLostAfter when positive.
	LostAfter time.Duration
}

// Error is a Slurm tool that failed; Msg is what it printed on stderr.
type Error struct {
	Tool string
	Args []string
	Msg  string
	Err  error // the exec error, or ErrNotInstalled
}

func (e *Error) Error() string {
	if e.Msg == "" {
		return fmt.Sprintf("%s: %v", e.Tool, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Tool, e.Msg)
}

// Unwrap exposes the exec error and, from the tool's message, the kind of
// failure, so errors.Is(err, ErrUnreachable) works without string matching
// at the caller.
func (e *Error) Unwrap() []error {
	errs := []error{e.Err}
	switch {
	case strings.Contains(e.Msg, "Unable to contact slurm controller"):
		errs = append(errs, ErrUnreachable)
	case strings.Contains(e.Msg, "Invalid partition name"):
		errs = append(errs, ErrPartition)
	}
	return errs
}

// run runs a Slurm tool and returns its standard output. A missing tool or
// a missing slurm.conf is reported at once: the tools themselves would retry
// reading the file for a minute before saying so.
func (c *Client) run(ctx context.Context, stdin io.Reader, tool string, args ...string) ([]byte, error) {
	path, err := c.tool(tool)
	if err != nil {
		return nil, err
	}
	conf := c.conf()
	if conf != "" {
		if _, err := os.Stat(conf); err != nil {
			return nil, &Error{Tool: tool, Args: args, Msg: "slurm.conf: " + err.Error(), Err: err}
		}
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdin = stdin
	cmd.Env = os.Environ()
	if c.Conf != "" {
		// Absolute, as the tasks inherit it and run in another folder.
		abs, err := filepath.Abs(c.Conf)
		if err != nil {
			return nil, err
		}
		cmd.Env = append(cmd.Env, "SLURM_CONF="+abs)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", tool, ctx.Err())
		}
		return out, &Error{Tool: tool, Args: args, Msg: toolMessage(stderr.String()), Err: err}
	}
	return out, nil
}

func (c *Client) tool(name string) (string, error) {
	if c.Bin != "" {
		p := filepath.Join(c.Bin, name)
		if _, err := os.Stat(p); err != nil {
			return "", &Error{Tool: name, Msg: fmt.Sprintf("not found in %s", c.Bin), Err: ErrNotInstalled}
		}
		return p, nil
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", &Error{Tool: name, Msg: "not found on PATH (install the Slurm client tools, slurm-client on Debian)", Err: ErrNotInstalled}
	}
	return p, nil
}

func (c *Client) conf() string {
	if c.Conf != "" {
		return c.Conf
	}
	return os.Getenv("SLURM_CONF")
}

func (c *Client) lostAfter() time.Duration {
	if c.LostAfter > 0 {
		return c.LostAfter
	}
	return DefaultLostAfter
}

// toolMessage joins a tool's stderr into one line, without the repeated
// "sbatch: error: " prefixes.
func toolMessage(stderr string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"sbatch: error: ", "scontrol: error: ", "scancel: error: "} {
			l = strings.TrimPrefix(l, p)
		}
		if l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}
