package engine

// SentAhead is how many windows this process's runs sent before the
// replies to the window before them were in.
func SentAhead() uint64 { return sentAhead.Load() }

// RDMABuffersFit tells whether an [[rdma]] workload's buffers fit each
// NIC's memory.
func RDMABuffersFit(qps, outstanding, maxSize int) bool {
	return rdmaBuffers(qps, outstanding, maxSize) <= maxRDMAMemory
}

// SentDeep is how many of them went out while two or more windows were
// in flight.
func SentDeep() uint64 { return sentDeep.Load() }
