package modeltest

import "fmt"

// FIFOPair is a scenario called name of two 64-bit axis_fifo models, a's
// out0 linked to b's in0 with the link keys given (latency, faults), and
// then the rest (its [[traffic]] into a.in0, say).
func FIFOPair(name string, cycles uint64, link, rest string) string {
	return fmt.Sprintf("name = %q\ncycles = %d\n[[model]]\nname = \"a\"\ntop = \"axis_fifo\"\n[[model]]\nname = \"b\"\ntop = \"axis_fifo\"\n"+
		"[[link]]\nfrom = \"a.out0\"\nto = \"b.in0\"\n%s\n%s", name, cycles, link, rest)
}
