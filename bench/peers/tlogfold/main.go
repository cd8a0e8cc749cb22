// Command tlogfold is the peer of cardproof's fold in bench/log.py: Go's checksum
// database code (golang.org/x/mod/sumdb/tlog, Debian's golang-golang-x-mod-dev) hashing
// the same entries into a tree (tlog.StoredHashes, as the Go sumdb's sequencer does)
// and making its tiles (tlog.NewTiles, tlog.ReadTileData).
//
// It reads entries on standard input, one a line, and prints the entries folded, the
// seconds it took (reading excluded) and the root hash (base64), which bench/log.py
// requires to be cardproof's.
package main

import (
	"bufio"
	"fmt"
	"os"
	"time"

	"golang.org/x/mod/sumdb/tlog"
)

type memory map[int64]tlog.Hash

func (m memory) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, index := range indexes {
		out[i] = m[index]
	}
	return out, nil
}

func main() {
	var entries [][]byte
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		entries = append(entries, append([]byte(nil), scanner.Bytes()...))
	}
	stored := memory{}
	start := time.Now()
	for n, entry := range entries {
		hashes, err := tlog.StoredHashes(int64(n), entry, stored)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		first := tlog.StoredHashIndex(0, int64(n))
		for i, h := range hashes {
			stored[first+int64(i)] = h
		}
	}
	size := int64(len(entries))
	tiles := 0
	for _, tile := range tlog.NewTiles(8, 0, size) {
		if _, err := tlog.ReadTileData(tile, stored); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		tiles++
	}
	root, err := tlog.TreeHash(size, stored)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(size, time.Since(start).Seconds(), root.String(), tiles)
}
