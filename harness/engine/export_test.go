package engine

// SentAhead is how many windows this process's runs sent before the
// replies to the window before them were in.
func SentAhead() uint64 { return sentAhead.Load() }

// SentDeep is how many of them went out while two or more windows were
// in flight.
func SentDeep() uint64 { return sentDeep.Load() }
