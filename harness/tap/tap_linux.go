//go:build linux

package tap

import (
	"errors"
	"fmt"
	"os"

	"github.com/songgao/water"
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// Open attaches to or creates the TAP that cfg names, in the network
// namespace of the calling thread (wrap it in netns.Namespace.Do to work in
// another). See the package documentation for what it refuses.
func Open(cfg Config) (*TAP, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	var before Info
	exists := false
	if cfg.Name != "" {
		// Look before opening: TUNSETIFF on a free name creates a TAP, so
		// only this lookup tells "open" from "create".
		info, err := Inspect(cfg.Name)
		switch {
		case err == nil:
			before, exists = info, true
		case !errors.Is(err, ErrNotFound):
			return nil, err
		}
	}
	if err := admit(cfg, before, exists); err != nil {
		return nil, err
	}
	if !exists && !hasNetAdmin() {
		// Refuse here: water leaks its descriptor when TUNSETIFF fails.
		return nil, &DeviceError{Name: cfg.Name, Err: ErrPermission,
			Detail: "creating a TAP needs CAP_NET_ADMIN; run once as root with Persist and Owner set, then open it as that user"}
	}

	wc := water.Config{DeviceType: water.TAP}
	wc.Name = cfg.Name
	wc.Persist = cfg.Persist
	if exists {
		// water always writes the persist flag; write back what the TAP
		// had, or closing a persistent TAP would delete it.
		wc.Persist = before.Persistent
	}
	var f *os.File
	var name string
	var err error
	if cfg.Offload {
		f, name, err = openVnet(wc.Name, wc.Persist)
	} else {
		f, name, err = openWater(wc)
	}
	if err != nil {
		return nil, openError(cfg.Name, exists, err)
	}
	t := &TAP{
		f:          f,
		name:       name,
		created:    !exists,
		persistent: wc.Persist,
		rbuf:       make([]byte, readBufLen),
		vnet:       cfg.Offload,
	}
	if t.vnet {
		t.rbuf = make([]byte, vnetHdrLen+readBufLen)
	} else if err := t.ioctl(unix.TUNSETOFFLOAD, 0); err != nil {
		// An offload session that ended badly may have left them on a
		// persistent TAP; a reader without the virtio-net header would
		// then get super-packets, not frames.
		t.abandon()
		return nil, fmt.Errorf("tap: %s: clearing offloads: %w", t.name, err)
	}
	if err := t.settle(cfg, before); err != nil {
		t.abandon()
		return nil, err
	}
	return t, nil
}

func openWater(wc water.Config) (*os.File, string, error) {
	ifce, err := water.New(wc)
	if err != nil {
		return nil, "", err
	}
	f, ok := ifce.ReadWriteCloser.(*os.File)
	if !ok {
		ifce.Close()
		return nil, "", fmt.Errorf("tap: water returned a %T, want *os.File", ifce.ReadWriteCloser)
	}
	return f, ifce.Name(), nil
}

// openVnet attaches to (or creates) the TAP called name, as water would,
// but with the virtio-net header on and the offloads offered (see
// offload.go). Like water it writes the persist flag; errors come back in
// water's shapes (the open error bare, ioctl errors as *os.SyscallError)
// for openError. Unlike water it closes the descriptor when it fails.
func openVnet(name string, persist bool) (*os.File, string, error) {
	fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, "", err
	}
	fail := func(err error) (*os.File, string, error) {
		unix.Close(fd)
		return nil, "", os.NewSyscallError("ioctl", err)
	}
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		unix.Close(fd)
		return nil, "", err
	}
	ifr.SetUint16(unix.IFF_TAP | unix.IFF_NO_PI | unix.IFF_VNET_HDR)
	if err := unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr); err != nil {
		return fail(err)
	}
	if err := unix.IoctlSetPointerInt(fd, unix.TUNSETVNETHDRSZ, vnetHdrLen); err != nil {
		return fail(err)
	}
	if err := unix.IoctlSetInt(fd, unix.TUNSETOFFLOAD, offloadFeatures); err != nil {
		return fail(err)
	}
	// Last: a failure before this leaves no persistent TAP behind.
	p := 0
	if persist {
		p = 1
	}
	if err := unix.IoctlSetInt(fd, unix.TUNSETPERSIST, p); err != nil {
		return fail(err)
	}
	// Non-blocking before NewFile, so the runtime polls it (and Close
	// wakes a pending Read).
	return os.NewFile(uintptr(fd), "/dev/net/tun"), ifr.Name(), nil
}

// admit applies the mode and the safety rules to what the lookup found.
func admit(cfg Config, before Info, exists bool) error {
	switch {
	case exists && !before.IsTAP():
		return &DeviceError{Name: cfg.Name, Kind: before.Kind, Err: ErrNotTAP}
	case exists && cfg.Mode == ModeCreateNew:
		return &DeviceError{Name: cfg.Name, Kind: before.Kind, Err: ErrExists, Detail: "ModeCreateNew wants a free name"}
	case !exists && cfg.Mode == ModeOpen:
		return &DeviceError{Name: cfg.Name, Err: ErrNotFound,
			Detail: "if it was moved into another network namespace, open it from inside that namespace; opening the name here would create a new TAP"}
	case exists && before.MultiQueue:
		return &DeviceError{Name: cfg.Name, Kind: before.Kind, Err: ErrIncompatible, Detail: "it is multi-queue; only single-queue TAPs are supported"}
	case exists && cfg.MTU != 0 && cfg.MTU != before.MTU:
		return &DeviceError{Name: cfg.Name, Kind: before.Kind, Err: ErrIncompatible,
			Detail: fmt.Sprintf("it has MTU %d, the config asks for %d, and Open does not change devices it did not create", before.MTU, cfg.MTU)}
	}
	return nil
}

// settle checks that Open got the device it looked at, and configures a
// device it created.
func (t *TAP) settle(cfg Config, before Info) error {
	after, err := Inspect(t.name)
	if err != nil {
		return fmt.Errorf("tap: %s vanished right after opening: %w", t.name, err)
	}
	if !after.IsTAP() {
		return &DeviceError{Name: t.name, Kind: after.Kind, Err: ErrNotTAP}
	}
	if !t.created && after.Index != before.Index {
		return &DeviceError{Name: t.name, Kind: after.Kind, Err: ErrNotFound,
			Detail: "it was replaced by another device while opening"}
	}
	t.index, t.mtu = after.Index, after.MTU
	if !t.created {
		return nil
	}
	if cfg.Owner != nil {
		if err := t.ioctl(unix.TUNSETOWNER, uintptr(cfg.Owner.UID)); err != nil {
			return fmt.Errorf("tap: %s: setting owner %d: %w", t.name, cfg.Owner.UID, err)
		}
		if cfg.Owner.GID >= 0 {
			if err := t.ioctl(unix.TUNSETGROUP, uintptr(cfg.Owner.GID)); err != nil {
				return fmt.Errorf("tap: %s: setting group %d: %w", t.name, cfg.Owner.GID, err)
			}
		}
	}
	if cfg.MTU != 0 && cfg.MTU != after.MTU {
		l, err := netlink.LinkByIndex(after.Index)
		if err == nil {
			err = netlink.LinkSetMTU(l, cfg.MTU)
		}
		if err != nil {
			return fmt.Errorf("tap: %s: setting MTU %d: %w", t.name, cfg.MTU, err)
		}
		t.mtu = cfg.MTU
	}
	return nil
}

// abandon undoes a half-finished Open: a TAP it created must not outlive
// the failure, persistent or not.
func (t *TAP) abandon() {
	if t.created && t.persistent {
		_ = t.ioctl(unix.TUNSETPERSIST, 0)
	}
	t.f.Close()
}

// keepClean takes back the offloads from a TAP that outlives Close, so
// the next reader, ours or not, gets plain frames.
func (t *TAP) keepClean() {
	if t.vnet && (t.persistent || !t.created) {
		_ = t.ioctl(unix.TUNSETOFFLOAD, 0)
	}
}

// ioctl goes through SyscallConn so the descriptor stays non-blocking.
// TUNSETOWNER, TUNSETGROUP and TUNSETPERSIST take the value itself, not a
// pointer.
func (t *TAP) ioctl(req uint, arg uintptr) error {
	rc, err := t.f.SyscallConn()
	if err != nil {
		return err
	}
	var errno unix.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = unix.Syscall(unix.SYS_IOCTL, fd, uintptr(req), arg)
	}); err != nil {
		return err
	}
	if errno != 0 {
		return errno
	}
	return nil
}

// openError turns what water returns into something a user can act on.
func openError(name string, exists bool, err error) error {
	kind := ""
	if exists {
		kind = "tap"
	}
	var se *os.SyscallError
	if !errors.As(err, &se) || se.Syscall != "ioctl" {
		// water returns the open(2) error bare.
		switch {
		case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
			return &DeviceError{Name: name, Kind: kind, Err: ErrPermission,
				Detail: "cannot open /dev/net/tun; for use without root it must be mode 0666 (chmod once as root)"}
		case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENODEV):
			return &DeviceError{Name: name, Kind: kind, Err: err, Detail: "no /dev/net/tun: load the tun module"}
		}
		return &DeviceError{Name: name, Kind: kind, Err: err, Detail: "opening /dev/net/tun"}
	}
	switch {
	case errors.Is(err, unix.EPERM):
		return &DeviceError{Name: name, Kind: kind, Err: ErrPermission,
			Detail: "this user is not the TAP's owner or group and lacks CAP_NET_ADMIN"}
	case errors.Is(err, unix.EBUSY):
		return &DeviceError{Name: name, Kind: kind, Err: ErrInUse}
	}
	return &DeviceError{Name: name, Kind: kind, Err: err}
}

// hasNetAdmin reports whether the process may create a TAP. When the
// question cannot be asked it says yes and lets the kernel decide.
func hasNetAdmin() bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return true
	}
	return data[0].Effective&(1<<unix.CAP_NET_ADMIN) != 0
}

// Inspect describes the device called name in the calling thread's network
// namespace. It needs no privileges.
func Inspect(name string) (Info, error) {
	if err := checkName(name); err != nil {
		return Info{}, err
	}
	l, err := netlink.LinkByName(name)
	if err != nil {
		var nf netlink.LinkNotFoundError
		if errors.As(err, &nf) {
			return Info{}, &DeviceError{Name: name, Err: ErrNotFound}
		}
		return Info{}, fmt.Errorf("tap: looking up %q: %w", name, err)
	}
	return infoOf(l), nil
}

func infoOf(l netlink.Link) Info {
	a := l.Attrs()
	i := Info{Name: a.Name, Index: a.Index, MTU: a.MTU, Kind: l.Type()}
	switch d := l.(type) {
	case *netlink.Tuntap:
		i.Kind = "tun"
		if d.Mode == netlink.TUNTAP_MODE_TAP {
			i.Kind = "tap"
		}
		i.Persistent = !d.NonPersist
		i.MultiQueue = d.Flags&netlink.TUNTAP_MULTI_QUEUE != 0
		i.Owner, i.Group = d.Owner, d.Group
	case *netlink.Device:
		// No rtnetlink kind (lo, a physical NIC): name the link type.
		if a.EncapType != "" {
			i.Kind = a.EncapType
		}
	}
	return i
}

// Delete removes the TAP called name (a persistent one, typically). It
// refuses any device that is not a TAP.
func Delete(name string) error {
	info, err := Inspect(name)
	if err != nil {
		return err
	}
	if !info.IsTAP() {
		return &DeviceError{Name: name, Kind: info.Kind, Err: ErrNotTAP}
	}
	l, err := netlink.LinkByIndex(info.Index)
	if err == nil {
		err = netlink.LinkDel(l)
	}
	if err != nil {
		return &DeviceError{Name: name, Kind: info.Kind, Err: err, Detail: "deleting"}
	}
	return nil
}
