//go:build !linux

package tap

// Open fails everywhere but Linux.
func Open(cfg Config) (*TAP, error) { return nil, ErrUnsupported }

// Inspect fails everywhere but Linux.
func Inspect(name string) (Info, error) { return Info{}, ErrUnsupported }

// Delete fails everywhere but Linux.
func Delete(name string) error { return ErrUnsupported }

// keepClean has nothing to do: no TAP opens here.
func (t *TAP) keepClean() {}
