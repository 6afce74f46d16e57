module github.com/rocesim/cosim

go 1.26

require (
	github.com/gopacket/gopacket v1.7.7 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
)
