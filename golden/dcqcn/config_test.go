package dcqcn_test

import (
	"math"
	"strings"
	"testing"

	"github.com/rocesim/cosim/golden/dcqcn"
)

// Expected values are bps*8192/clockHz worked out by hand, rounded down.
func TestRateConversion(t *testing.T) {
	from := []struct {
		bps, clock uint64
		want       dcqcn.Rate
	}{
		{100_000_000_000, 250_000_000, 3276800}, // 50 B/cycle exactly
		{2_000_000_000, 250_000_000, dcqcn.RateOne},
		{40_000_000, 250_000_000, 1310},          // 1310.72
		{400_000_000_000, 322_265_625, 10168009}, // 10168009.7
		{1, 250_000_000, 0},
		{1_000_000_000_000_000_000, 1, dcqcn.MaxRate}, // saturates
		{math.MaxUint64, math.MaxUint64, 8192},        // 128-bit product
		{math.MaxUint64, 1, dcqcn.MaxRate},
		{100, 0, 0},
	}
	for _, tc := range from {
		if got := dcqcn.RateFromBitsPerSecond(tc.bps, tc.clock); got != tc.want {
			t.Errorf("RateFromBitsPerSecond(%d, %d) = %d, want %d", tc.bps, tc.clock, got, tc.want)
		}
	}

	back := []struct {
		r     dcqcn.Rate
		clock uint64
		want  uint64
	}{
		{3276800, 250_000_000, 100_000_000_000},
		{1310, 250_000_000, 39_978_027}, // 39978027.34
		{1, 8192, 1},
		{1, 8191, 0},
		{dcqcn.MaxRate, math.MaxUint64, math.MaxUint64}, // saturates
		{0, 250_000_000, 0},
	}
	for _, tc := range back {
		if got := tc.r.BitsPerSecond(tc.clock); got != tc.want {
			t.Errorf("Rate(%d).BitsPerSecond(%d) = %d, want %d", tc.r, tc.clock, got, tc.want)
		}
	}

	str := []struct {
		r    dcqcn.Rate
		want string
	}{
		{0, "0.0000 B/cycle"},
		{1, "0.0000 B/cycle"},
		{dcqcn.RateOne, "1.0000 B/cycle"},
		{dcqcn.RateOne + 7, "1.0001 B/cycle"}, // 7/65536 = 0.000107
		{98304, "1.5000 B/cycle"},
		{3276800, "50.0000 B/cycle"},
		{1310, "0.0199 B/cycle"}, // 0.019989
		{dcqcn.MaxRate, "65535.9999 B/cycle"},
	}
	for _, tc := range str {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("Rate(%d).String() = %q, want %q", tc.r, got, tc.want)
		}
	}

	cycles := []struct {
		r     dcqcn.Rate
		bytes int
		want  uint64
	}{
		{dcqcn.RateOne, 64, 64},
		{3276800, 1500, 30},    // 1500/50
		{3276800, 1501, 31},    // 30.02 rounds up
		{2457600, 4096, 110},   // 4096/37.5 = 109.2
		{1, 1, 65536},          // 1/65536 B/cycle
		{dcqcn.RateOne, 0, 0},  // nothing to send
		{dcqcn.RateOne, -5, 0}, // nonsense length
		{0, 1, math.MaxUint64}, // never
		{1, math.MaxInt, math.MaxUint64},
		{dcqcn.MaxRate, math.MaxInt, 140737488388096},
	}
	for _, tc := range cycles {
		if got := tc.r.Cycles(tc.bytes); got != tc.want {
			t.Errorf("Rate(%d).Cycles(%d) = %d, want %d", tc.r, tc.bytes, got, tc.want)
		}
	}
}

func TestDefaultConfig(t *testing.T) {
	tests := []struct {
		line, clock uint64
		want        dcqcn.Config
		cnp         uint64
	}{
		{
			// 100 Gb/s at 250 MHz: 55 us = 13750 cycles exactly.
			line: 100_000_000_000, clock: 250_000_000,
			want: dcqcn.Config{LineRate: 3276800, MinRate: 3276, GShift: 8,
				AlphaPeriod: 13750, IncreasePeriod: 13750, ByteCounter: 10_000_000,
				FastRecoverySteps: 5, AdditiveStep: 1310, HyperStep: 6553},
			cnp: 12500,
		},
		{
			// 25 Gb/s at 156.25 MHz: 55 us = 8593.75 cycles, rounded up.
			line: 25_000_000_000, clock: 156_250_000,
			want: dcqcn.Config{LineRate: 1310720, MinRate: 5242, GShift: 8,
				AlphaPeriod: 8594, IncreasePeriod: 8594, ByteCounter: 10_000_000,
				FastRecoverySteps: 5, AdditiveStep: 2097, HyperStep: 10485},
			cnp: 7813,
		},
		{
			// A line slower than the 100 Mb/s floor: MinRate = LineRate.
			line: 10_000_000, clock: 1_000_000_000,
			want: dcqcn.Config{LineRate: 81, MinRate: 81, GShift: 8,
				AlphaPeriod: 55000, IncreasePeriod: 55000, ByteCounter: 10_000_000,
				FastRecoverySteps: 5, AdditiveStep: 327, HyperStep: 1638},
			cnp: 50000,
		},
	}
	for _, tc := range tests {
		got := dcqcn.DefaultConfig(tc.line, tc.clock)
		if got != tc.want {
			t.Errorf("DefaultConfig(%d, %d):\n got %+v\nwant %+v", tc.line, tc.clock, got, tc.want)
		}
		if err := got.Validate(); err != nil {
			t.Errorf("DefaultConfig(%d, %d).Validate(): %v", tc.line, tc.clock, err)
		}
		if got := dcqcn.DefaultCNPInterval(tc.clock); got != tc.cnp {
			t.Errorf("DefaultCNPInterval(%d) = %d, want %d", tc.clock, got, tc.cnp)
		}
	}
	// A zero line rate cannot be fixed up; Validate says so.
	zero := dcqcn.DefaultConfig(0, 250_000_000)
	if err := zero.Validate(); err == nil || !strings.Contains(err.Error(), "LineRate") {
		t.Errorf("DefaultConfig(0, ...).Validate() = %v, want a LineRate error", err)
	}
	// A slow clock rounds the periods up to at least one cycle.
	if got := dcqcn.DefaultConfig(1000, 1); got.AlphaPeriod != 1 || got.IncreasePeriod != 1 {
		t.Errorf("DefaultConfig(1000, 1) periods %d, %d; want 1, 1", got.AlphaPeriod, got.IncreasePeriod)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*dcqcn.Config)
		wants []string // substrings of the error; none: valid
	}{
		{"valid", func(*dcqcn.Config) {}, nil},
		{"byte-counter-off", func(c *dcqcn.Config) { c.ByteCounter = 0 }, nil},
		{"no-fast-recovery", func(c *dcqcn.Config) { c.FastRecoverySteps = 0 }, nil},
		{"no-hyper-step", func(c *dcqcn.Config) { c.HyperStep = 0 }, nil},
		{"g-1", func(c *dcqcn.Config) { c.GShift = 0 }, nil},
		{"g-max", func(c *dcqcn.Config) { c.GShift = dcqcn.MaxGShift }, nil},
		{"min-equals-line", func(c *dcqcn.Config) { c.MinRate = c.LineRate }, nil},
		{"line-zero", func(c *dcqcn.Config) { c.LineRate = 0; c.MinRate = 0 }, []string{"LineRate must", "MinRate must"}},
		{"min-zero", func(c *dcqcn.Config) { c.MinRate = 0 }, []string{"MinRate must"}},
		{"min-above-line", func(c *dcqcn.Config) { c.MinRate = c.LineRate + 1 }, []string{"exceeds LineRate"}},
		{"g-too-big", func(c *dcqcn.Config) { c.GShift = dcqcn.MaxGShift + 1 }, []string{"GShift 17"}},
		{"alpha-period-zero", func(c *dcqcn.Config) { c.AlphaPeriod = 0 }, []string{"AlphaPeriod"}},
		{"increase-period-zero", func(c *dcqcn.Config) { c.IncreasePeriod = 0 }, []string{"IncreasePeriod"}},
		{"additive-zero", func(c *dcqcn.Config) { c.AdditiveStep = 0 }, []string{"AdditiveStep"}},
		{"all", func(c *dcqcn.Config) { *c = dcqcn.Config{GShift: 99} },
			[]string{"LineRate", "MinRate", "GShift", "AlphaPeriod", "IncreasePeriod", "AdditiveStep"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			tc.edit(&cfg)
			err := cfg.Validate()
			if len(tc.wants) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
