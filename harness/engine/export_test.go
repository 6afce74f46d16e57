package engine

// SentAhead is how many windows this process's runs sent before the
// replies to the window before them were in.
func SentAhead() uint64 { return sentAhead.Load() }
