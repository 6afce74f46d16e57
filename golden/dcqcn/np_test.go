package dcqcn_test

import (
	"testing"

	"github.com/rocesim/cosim/golden/dcqcn"
)

func TestNotificationPoint(t *testing.T) {
	type call struct {
		now, interval uint64
		want          bool
	}
	tests := []struct {
		name  string
		calls []call
		want  dcqcn.NPCounters
	}{
		{
			name: "interval",
			calls: []call{
				{1000, 50, true},  // first CE: no CNP sent yet
				{1000, 50, false}, // same cycle
				{1049, 50, false}, // interval-1 after the last CNP
				{1050, 50, true},  // exactly interval after
				{1099, 50, false},
				{1100, 50, true},
				{5000, 50, true}, // long after
			},
			want: dcqcn.NPCounters{CEPackets: 7, CNPsAllowed: 4, CNPsSuppressed: 3},
		},
		{
			// The first CE is allowed even when fewer than interval cycles
			// have passed since cycle 0.
			name:  "first-at-zero",
			calls: []call{{0, 50, true}, {49, 50, false}, {50, 50, true}},
			want:  dcqcn.NPCounters{CEPackets: 3, CNPsAllowed: 2, CNPsSuppressed: 1},
		},
		{
			name:  "interval-zero",
			calls: []call{{7, 0, true}, {7, 0, true}, {8, 0, true}},
			want:  dcqcn.NPCounters{CEPackets: 3, CNPsAllowed: 3},
		},
		{
			// Suppressed CE packets do not move the interval's start.
			name:  "suppressed-do-not-extend",
			calls: []call{{0, 10, true}, {5, 10, false}, {9, 10, false}, {10, 10, true}},
			want:  dcqcn.NPCounters{CEPackets: 4, CNPsAllowed: 2, CNPsSuppressed: 2},
		},
		{
			name:  "time-went-back",
			calls: []call{{100, 10, true}, {50, 10, false}},
			want:  dcqcn.NPCounters{CEPackets: 2, CNPsAllowed: 1, CNPsSuppressed: 1},
		},
		{
			name:  "huge-interval",
			calls: []call{{0, ^uint64(0), true}, {^uint64(0) - 1, ^uint64(0), false}, {^uint64(0), ^uint64(0), true}},
			want:  dcqcn.NPCounters{CEPackets: 3, CNPsAllowed: 2, CNPsSuppressed: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var np dcqcn.NotificationPoint
			if _, ok := np.Last(); ok {
				t.Fatal("zero value has a last CNP")
			}
			var last uint64
			for i, c := range tc.calls {
				if got := np.Allow(c.now, c.interval); got != c.want {
					t.Fatalf("call %d Allow(%d, %d) = %v, want %v", i, c.now, c.interval, got, c.want)
				}
				if c.want {
					last = c.now
				}
				if got, ok := np.Last(); !ok || got != last {
					t.Fatalf("call %d Last() = %d, %v; want %d, true", i, got, ok, last)
				}
			}
			if got := np.Counters(); got != tc.want {
				t.Errorf("counters %+v, want %+v", got, tc.want)
			}
			np.Reset()
			if _, ok := np.Last(); ok || np.Counters() != (dcqcn.NPCounters{}) {
				t.Error("Reset left state behind")
			}
		})
	}
}
