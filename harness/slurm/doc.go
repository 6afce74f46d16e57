// Package slurm runs a job array on a Slurm cluster through its command-line tools and reports how every task ended (README.md).
package slurm
