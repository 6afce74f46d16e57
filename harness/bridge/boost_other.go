//go:build !linux

package bridge

import "errors"

func raiseNice([]int, int) (map[int]int, error) {
	return nil, errors.New("model priorities are set on Linux only")
}

func restoreNice(map[int]int) {}
