package tap

import (
	"fmt"
	"strings"
)

// Frame and device limits.
const (
	HeaderLen  = 14    // Ethernet II header: two MACs and the EtherType
	TagLen     = 4     // one 802.1Q tag, allowed on top of the MTU
	DefaultMTU = 1500  // what the kernel gives a new TAP
	MinMTU     = 68    // the kernel's lower bound for a TAP
	MaxMTU     = 65535 // the kernel's upper bound for a TAP
	MaxNameLen = 15    // IFNAMSIZ less the terminating NUL
)

// readBufLen fits the largest frame a TAP can hand over: MaxMTU, the
// header and a VLAN tag the kernel re-inserts from skb metadata.
const readBufLen = MaxMTU + HeaderLen + TagLen

// Mode says what Open does with the name.
type Mode uint8

const (
	// ModeCreate attaches to the TAP if it exists and creates it otherwise.
	ModeCreate Mode = iota
	// ModeOpen attaches only to a TAP that already exists.
	ModeOpen
	// ModeCreateNew creates the TAP and fails if the name is taken.
	ModeCreateNew
)

func (m Mode) String() string {
	switch m {
	case ModeCreate:
		return "create"
	case ModeOpen:
		return "open"
	case ModeCreateNew:
		return "create-new"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// Owner lets a user (and optionally a group) open a persistent TAP later
// without CAP_NET_ADMIN.
type Owner struct {
	UID int
	GID int // negative: no group
}

// Config says which TAP to open and how to create it.
type Config struct {
	// Name is the interface name. Empty lets the kernel pick (tap0, tap1,
	// ...), which only the create modes allow.
	Name string
	Mode Mode

	// Persist keeps a TAP that Open creates after Close. It has no effect
	// on a TAP that existed before: that one keeps its own flag.
	Persist bool
	// Owner, when set, is given the TAP that Open creates. A TAP that
	// existed before keeps its owner.
	Owner *Owner
	// MTU is set on a TAP that Open creates (0: the kernel's 1500). For a
	// TAP that existed before it must be 0 or equal the TAP's MTU, because
	// Open never changes a device it did not make.
	MTU int
	// Offload lets the host hand over TCP super-packets and leave
	// checksums to the TAP, which splits them into wire frames on Read
	// and joins a flow's segments on WriteFrames (see offload.go). The
	// frames Read and WriteFrames carry are the same; the hosts' kernels
	// do a fraction of the per-packet work. Open then sets the device's
	// flags itself: water cannot ask for the virtio-net header, and the
	// kernel takes a TAP's flags only when a descriptor attaches.
	Offload bool
}

func (c Config) check() error {
	if c.Mode > ModeCreateNew {
		return fmt.Errorf("tap: %w: unknown mode %v", ErrInvalidConfig, c.Mode)
	}
	if c.Name == "" && c.Mode == ModeOpen {
		return fmt.Errorf("tap: %w: ModeOpen needs a name", ErrInvalidConfig)
	}
	if c.Name != "" {
		if err := checkName(c.Name); err != nil {
			return err
		}
	}
	if c.MTU != 0 && (c.MTU < MinMTU || c.MTU > MaxMTU) {
		return fmt.Errorf("tap: %w: MTU %d outside %d..%d", ErrInvalidConfig, c.MTU, MinMTU, MaxMTU)
	}
	if c.Owner != nil && c.Owner.UID < 0 {
		return fmt.Errorf("tap: %w: owner UID %d", ErrInvalidConfig, c.Owner.UID)
	}
	return nil
}

// checkName applies the kernel's rules for interface names
// (dev_valid_name).
func checkName(name string) error {
	switch {
	case name == "" || len(name) > MaxNameLen:
		return fmt.Errorf("tap: %w: name %q: want 1 to %d bytes", ErrInvalidConfig, name, MaxNameLen)
	case name == "." || name == "..":
		return fmt.Errorf("tap: %w: name %q", ErrInvalidConfig, name)
	case strings.ContainsAny(name, "/: \t\n\r\v\f\x00"):
		return fmt.Errorf("tap: %w: name %q has '/', ':', a space or NUL", ErrInvalidConfig, name)
	}
	return nil
}

// Info describes a network device, as netlink reports it.
type Info struct {
	Name  string
	Index int
	// Kind is "tap" or "tun" for tun devices, else the netlink kind
	// ("veth", "bridge", "dummy", ...) or, for plain devices, their
	// link type ("loopback", "ether").
	Kind       string
	MTU        int
	Persistent bool // TAP/TUN only
	MultiQueue bool // TAP/TUN only
	// Owner and Group of a TAP/TUN. Netlink omits an unset owner, so 0
	// means root or unset.
	Owner, Group uint32
}

// IsTAP reports whether the device is a TAP, the only kind Open attaches
// to.
func (i Info) IsTAP() bool { return i.Kind == "tap" }
