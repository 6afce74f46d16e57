package roce

import "fmt"

// TruncatedError reports a header cut short. Decoders return it instead of
// reading past the end of their input.
type TruncatedError struct {
	Header string // the header being decoded, e.g. "RETH"
	Need   int    // bytes the header needs
	Have   int    // bytes there were
}

func (e *TruncatedError) Error() string {
	return fmt.Sprintf("truncated %s: need %d bytes, have %d", e.Header, e.Need, e.Have)
}

func truncated(header string, need, have int) error {
	return &TruncatedError{Header: header, Need: need, Have: have}
}
