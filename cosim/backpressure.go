package cosim

// The sinks of a model program drive tready from a seeded generator
// (sim/rng.h, sim/axis.h): one draw per cycle from cycle 0, so whether a
// sink is ready in a cycle is a function of the seed, the port and the
// cycle alone. Golden models that predict timing (the switch) need it.

const splitMixGamma = 0x9E3779B97F4A7C15

func splitMix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// streamState is SplitMix64::stream(seed, role, port): the state the
// adapter's generator starts from.
func streamState(seed uint64, role, port uint32) uint64 {
	return splitMix(seed ^ uint64(role)<<56 ^ uint64(port)<<32 + splitMixGamma)
}

// chance is SplitMix64::chance: true with probability pct/100.
func chance(draw uint64, pct uint32) bool { return ((draw>>32)*100)>>32 < uint64(pct) }

// SinkReady reports whether output port port of a model holds m_axis_tready
// high in cycle c, given the backpressure seed and stall percentage of the
// handshake (HelloAck). It is the sink's c-th draw (counting from 0),
// computed directly: SplitMix64's state after n draws is its seed plus n
// times the golden gamma.
func SinkReady(seed uint64, stallPct, port uint32, c uint64) bool {
	if stallPct == 0 {
		return true
	}
	s := streamState(seed, 2, port) + (c+1)*splitMixGamma
	return !chance(splitMix(s), stallPct)
}
