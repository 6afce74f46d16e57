module github.com/rocesim/cosim

go 1.26

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/gopacket/gopacket v1.7.7
	github.com/stretchr/testify v1.12.1
)

require (
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/net v0.55.0 // indirect
	golang.org/x/sys v0.45.0 // indirect
)
