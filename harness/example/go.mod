module example.com/vlantagger

go 1.26

// cosim model build builds rtl/ into a model: go tool cosim.
tool github.com/rocesim/cosim/cmd/cosim

require (
	github.com/gopacket/gopacket v1.7.7
	github.com/rocesim/cosim v0.0.0
	github.com/stretchr/testify v1.12.1
)

require (
	codeberg.org/go-fonts/liberation v0.5.0 // indirect
	codeberg.org/go-latex/latex v0.2.0 // indirect
	codeberg.org/go-pdf/fpdf v0.11.1 // indirect
	git.sr.ht/~sbinet/gg v0.7.0 // indirect
	github.com/BurntSushi/toml v1.6.0 // indirect
	github.com/ajstarks/svgo v0.0.0-20211024235047-1546f124cd8b // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	github.com/songgao/water v0.0.0-20200317203138-2b4b6d7c09d8 // indirect
	github.com/vishvananda/netlink v1.3.1 // indirect
	github.com/vishvananda/netns v0.0.5 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/image v0.30.0 // indirect
	golang.org/x/net v0.55.0 // indirect
	golang.org/x/sys v0.45.0 // indirect
	golang.org/x/text v0.37.0 // indirect
	gonum.org/v1/plot v0.17.0 // indirect
)

// The harness, from this checkout. A project of one's own elsewhere points
// this at its checkout of cosim (or drops it for a released version).
replace github.com/rocesim/cosim => ../..
