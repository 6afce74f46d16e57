//go:build linux

package hostnet

import (
	"context"
	"fmt"
	"net/netip"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"time"
)

// PingResult is one ping run: the round-trip time of every reply.
type PingResult struct {
	Sent int
	RTTs []time.Duration // in reply order
}

// Lost is how many echo requests got no reply.
func (p PingResult) Lost() int { return p.Sent - len(p.RTTs) }

// Quantile returns the q-quantile (0..1) of the RTTs, nearest rank; 0
// without replies.
func (p PingResult) Quantile(q float64) time.Duration {
	if len(p.RTTs) == 0 {
		return 0
	}
	s := slices.Clone(p.RTTs)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

var rttRE = regexp.MustCompile(`time=([0-9.]+) ms`)

// Ping sends count echo requests from h to addr, interval apart (below
// 0.2 s needs root), each waiting at most a second for its reply.
func (h *Host) Ping(ctx context.Context, addr netip.Addr, count int, interval time.Duration) (PingResult, error) {
	cmd := exec.CommandContext(ctx, "ping", "-n", "-c", strconv.Itoa(count),
		"-i", strconv.FormatFloat(interval.Seconds(), 'f', 3, 64), "-W", "1", addr.String())
	out, err := h.Output(cmd)
	res := PingResult{Sent: count}
	for _, m := range rttRE.FindAllSubmatch(out, -1) {
		ms, _ := strconv.ParseFloat(string(m[1]), 64)
		res.RTTs = append(res.RTTs, time.Duration(ms*float64(time.Millisecond)))
	}
	// ping exits 1 when some replies were lost: the result says how many.
	if err != nil && len(res.RTTs) == 0 {
		return res, fmt.Errorf("ping from %s to %v: %w: %s", h.Label, addr, err, out)
	}
	return res, nil
}
