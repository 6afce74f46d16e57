package dcqcn_test

import (
	"fmt"

	"github.com/rocesim/cosim/golden/dcqcn"
)

// A requester QP at 100 Gb/s and 250 MHz gets a CNP, halves its rate, and
// takes its first fast-recovery step when the increase timer expires.
func Example() {
	const clock = 250_000_000
	cfg := dcqcn.DefaultConfig(100_000_000_000, clock)
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	var rp dcqcn.ReactionPoint
	rp.Reset(&cfg)
	show := func(when string) {
		fmt.Printf("%-9s %v = %d b/s, alpha %d, active %v\n",
			when, rp.Rate(), rp.Rate().BitsPerSecond(clock), rp.Alpha(), rp.Active())
	}
	show("start")

	rp.OnCNP(1000)
	show("CNP")

	next, _ := rp.NextEvent() // both timers: 1000 + 55 us
	rp.Advance(next)
	show(fmt.Sprint(next))

	// The pacer spaces 4096-byte packets this many cycles apart now.
	fmt.Println(rp.Rate().Cycles(4096), "cycles per 4096 bytes")
	// Output:
	// start     50.0000 B/cycle = 100000000000 b/s, alpha 65536, active false
	// CNP       25.0000 B/cycle = 50000000000 b/s, alpha 65536, active true
	// 14750     37.5000 B/cycle = 75000000000 b/s, alpha 65280, active true
	// 110 cycles per 4096 bytes
}

// The responder sends at most one CNP per QP per interval, however many
// CE-marked packets arrive.
func ExampleNotificationPoint() {
	interval := dcqcn.DefaultCNPInterval(250_000_000) // 50 us
	var np dcqcn.NotificationPoint
	for _, now := range []uint64{0, 100, interval - 1, interval, 30_000} {
		fmt.Println(now, np.Allow(now, interval))
	}
	fmt.Printf("%+v\n", np.Counters())
	// Output:
	// 0 true
	// 100 false
	// 12499 false
	// 12500 true
	// 30000 true
	// {CEPackets:5 CNPsAllowed:3 CNPsSuppressed:2}
}

func ExampleRateFromBitsPerSecond() {
	r := dcqcn.RateFromBitsPerSecond(25_000_000_000, 156_250_000)
	fmt.Println(uint32(r), r, r.BitsPerSecond(156_250_000))
	r = dcqcn.RateFromBitsPerSecond(40_000_000, 250_000_000) // R_AI
	fmt.Println(uint32(r), r, r.BitsPerSecond(250_000_000))
	// Output:
	// 1310720 20.0000 B/cycle 25000000000
	// 1310 0.0199 B/cycle 39978027
}

func ExampleRate_Cycles() {
	r := dcqcn.RateFromBitsPerSecond(100_000_000_000, 250_000_000) // 50 B/cycle
	fmt.Println(r.Cycles(1500), r.Cycles(1501), r.Cycles(0))
	// Output:
	// 30 31 0
}
