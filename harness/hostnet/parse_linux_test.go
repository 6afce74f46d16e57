//go:build linux

package hostnet

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The end of iperf3 3.12's -J output, trimmed to what parseIPerf reads.
const iperfJSON = `{"start": {}, "intervals": [],
 "end": {"streams": [{"sender": {"bytes": 61341696, "max_rtt": 8913}, "receiver": {}}],
  "sum_sent": {"start": 0, "end": 5.0, "seconds": 5.0, "bytes": 61341696, "bits_per_second": 98146713.6, "retransmits": 3},
  "sum_received": {"start": 0, "end": 5.02, "seconds": 5.02, "bytes": 60817408, "bits_per_second": 96920969.9},
  "sender_tcp_congestion": "cubic"}}`

func TestParseIPerf(t *testing.T) {
	r, err := parseIPerf([]byte(iperfJSON))
	require.NoError(t, err)
	assert.Equal(t, IPerfResult{Seconds: 5.02, Bytes: 60817408, ReceivedBits: 96920969.9, SentBits: 98146713.6,
		Retransmits: 3, SenderMaxRTTUs: 8913, Congestion: "cubic"}, r)
	_, err = parseIPerf([]byte(`{"start": {}, "error": "unable to connect to server: Connection refused"}`))
	assert.EqualError(t, err, "iperf3: unable to connect to server: Connection refused")
	_, err = parseIPerf([]byte("iperf3: error"))
	assert.Error(t, err)
}

func TestQuantile(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var d []time.Duration
		for _, x := range v {
			d = append(d, time.Duration(x)*time.Millisecond)
		}
		return d
	}
	p := PingResult{Sent: 6, RTTs: ms(5, 1, 4, 2, 3)}
	assert.Equal(t, 1, p.Lost())
	assert.Equal(t, time.Millisecond, p.Quantile(0))
	assert.Equal(t, 3*time.Millisecond, p.Quantile(0.5), "median of 1..5")
	assert.Equal(t, 5*time.Millisecond, p.Quantile(0.99))
	assert.Equal(t, 5*time.Millisecond, p.Quantile(1))
	assert.Zero(t, PingResult{Sent: 3}.Quantile(0.5), "no replies")
}
