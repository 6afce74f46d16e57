//go:build linux

package hostnet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"time"
)

// IPerfResult is one iperf3 TCP stream, as the two ends saw it.
type IPerfResult struct {
	Seconds        float64 // as measured by the receiver
	Bytes          int64   // received
	ReceivedBits   float64 // per second, at the receiver
	SentBits       float64 // per second, at the sender
	Retransmits    int
	SenderMaxRTTUs int    // the sender's largest smoothed RTT, microseconds
	Congestion     string // the sender's congestion control ("cubic")
}

// iperfPort is iperf3's default port; each host has its own namespace,
// so runs never share it.
const iperfPort = 5201

// IPerf runs a TCP stream from client to server for d (iperf3 -t) with
// the congestion control algorithm congestion (iperf3 -C; "": the client
// namespace's default) and returns what the server received. The server
// runs for one test only.
func IPerf(ctx context.Context, client, server *Host, d time.Duration, congestion string) (IPerfResult, error) {
	ctx, cancel := context.WithTimeout(ctx, d+30*time.Second)
	defer cancel()
	srv := exec.CommandContext(ctx, "iperf3", "-s", "-1", "-B", server.Addr.String(), "-p", strconv.Itoa(iperfPort))
	var srvOut bytes.Buffer
	srv.Stdout, srv.Stderr = &srvOut, &srvOut
	if err := server.Start(srv); err != nil {
		return IPerfResult{}, fmt.Errorf("iperf3 server in %s: %w", server.Label, err)
	}
	waited := false
	stopServer := func() {
		if !waited {
			cancel() // a server whose client never came
			_ = srv.Wait()
			waited = true
		}
	}
	defer stopServer()
	// The server needs a moment to listen: retry a refused connection
	// (iperf3 -J reports it in its JSON, with exit status 0).
	for try := 0; ; try++ {
		args := []string{"-c", server.Addr.String(), "-p", strconv.Itoa(iperfPort),
			"-t", strconv.FormatFloat(d.Seconds(), 'f', 3, 64), "-J"}
		if congestion != "" {
			args = append(args, "-C", congestion)
		}
		cmd := exec.CommandContext(ctx, "iperf3", args...)
		out, err := client.Output(cmd)
		res, perr := parseIPerf(out)
		if perr == nil && err == nil {
			return res, nil
		}
		if try < 20 && bytes.Contains(out, []byte("Connection refused")) {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		stopServer() // its output is complete only then
		return IPerfResult{}, fmt.Errorf("iperf3 from %s to %s: %w (server: %s)", client.Label, server.Label, errors.Join(err, perr), srvOut.Bytes())
	}
}

// parseIPerf reads iperf3 -J output.
func parseIPerf(out []byte) (IPerfResult, error) {
	var j struct {
		Error string `json:"error"`
		End   struct {
			Congestion string `json:"sender_tcp_congestion"`
			Streams    []struct {
				Sender struct {
					MaxRTT int `json:"max_rtt"`
				} `json:"sender"`
			} `json:"streams"`
			Sent struct {
				BitsPerSecond float64 `json:"bits_per_second"`
				Retransmits   int     `json:"retransmits"`
			} `json:"sum_sent"`
			Received struct {
				Seconds       float64 `json:"seconds"`
				Bytes         int64   `json:"bytes"`
				BitsPerSecond float64 `json:"bits_per_second"`
			} `json:"sum_received"`
		} `json:"end"`
	}
	if err := json.Unmarshal(out, &j); err != nil {
		return IPerfResult{}, fmt.Errorf("iperf3 output: %w: %s", err, out)
	}
	if j.Error != "" {
		return IPerfResult{}, errors.New("iperf3: " + j.Error)
	}
	r := IPerfResult{Seconds: j.End.Received.Seconds, Bytes: j.End.Received.Bytes, ReceivedBits: j.End.Received.BitsPerSecond,
		SentBits: j.End.Sent.BitsPerSecond, Retransmits: j.End.Sent.Retransmits, Congestion: j.End.Congestion}
	for _, s := range j.End.Streams {
		r.SenderMaxRTTUs = max(r.SenderMaxRTTUs, s.Sender.MaxRTT)
	}
	return r, nil
}
