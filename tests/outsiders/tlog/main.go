// Command tlogcheck checks a cardproof log with code nobody at cardproof wrote: Go's
// golang.org/x/mod/sumdb/note and sumdb/tlog (Debian's golang-golang-x-mod-dev).
//
// It reads one job as JSON on standard input: a checkpoint (a signed note), the log's
// verifier key, the log's tiles and entry bundles by their C2SP paths
// (tile/<L>/<N>[.p/<W>], tile/entries/<N>[.p/<W>], base64), and inclusion and
// consistency proofs to check. It opens the note; hashes every entry of the bundles
// into the tree itself (tlog.StoredHashes), whose root must be the checkpoint's and
// whose tiles (tlog.NewTiles, tlog.ReadTileData) must be the served ones, byte for byte
// and no other; then checks each proof with tlog.CheckRecord or tlog.CheckTree and
// compares it with the proof tlog makes. It prints "ok" and exits 0, or names the first
// failure and exits 1. (tlog.TileHashReader is not used: in x/mod 0.7.0 it leaves some
// tiles of a read unauthenticated when several of the tree's subtrees share a tile.)
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type inclusion struct {
	Index int64    `json:"index"`
	Leaf  string   `json:"leaf"`
	Proof []string `json:"proof"`
}

type consistency struct {
	Old     int64    `json:"old"`
	OldRoot string   `json:"old_root"`
	Proof   []string `json:"proof"`
}

type job struct {
	VKey        string            `json:"vkey"`
	Checkpoint  string            `json:"checkpoint"`
	Tiles       map[string]string `json:"tiles"`
	Inclusion   []inclusion       `json:"inclusion"`
	Consistency []consistency     `json:"consistency"`
}

// c2sp is a tile's path as C2SP tlog-tiles spells it: tlog's without the height.
func c2sp(tile tlog.Tile) string {
	path := strings.Replace(tile.Path(), "tile/8/", "tile/", 1)
	return strings.Replace(path, "tile/data/", "tile/entries/", 1)
}

func hash(text string) (tlog.Hash, error) {
	var h tlog.Hash
	raw, err := base64.StdEncoding.DecodeString(text)
	if err != nil || len(raw) != tlog.HashSize {
		return h, fmt.Errorf("not a base64 hash: %q", text)
	}
	copy(h[:], raw)
	return h, nil
}

func hashes(texts []string) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(texts))
	for i, text := range texts {
		h, err := hash(text)
		if err != nil {
			return nil, err
		}
		out[i] = h
	}
	return out, nil
}

func same(a, b []tlog.Hash) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func run(j job) error {
	verifier, err := note.NewVerifier(j.VKey)
	if err != nil {
		return fmt.Errorf("vkey: %v", err)
	}
	opened, err := note.Open([]byte(j.Checkpoint), note.VerifierList(verifier))
	if err != nil {
		return fmt.Errorf("checkpoint: %v", err)
	}
	lines := strings.Split(opened.Text, "\n")
	if len(lines) < 4 {
		return fmt.Errorf("checkpoint: %d lines", len(lines))
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		return fmt.Errorf("checkpoint size: %v", err)
	}
	root, err := hash(lines[2])
	if err != nil {
		return fmt.Errorf("checkpoint root: %v", err)
	}
	served := map[string][]byte{}
	for path, text := range j.Tiles {
		data, err := base64.StdEncoding.DecodeString(text)
		if err != nil {
			return fmt.Errorf("tile %s: %v", path, err)
		}
		served[path] = data
	}
	var stored []tlog.Hash
	reader := tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		for i, x := range indexes {
			if x < 0 || x >= int64(len(stored)) {
				return nil, fmt.Errorf("no stored hash %d", x)
			}
			out[i] = stored[x]
		}
		return out, nil
	})
	count := int64(0)
	for n := int64(0); count < size; n++ {
		width := size - n*256
		if width > 256 {
			width = 256
		}
		bundle := tlog.Tile{H: 8, L: -1, N: n, W: int(width)}
		data, ok := served[c2sp(bundle)]
		if !ok {
			return fmt.Errorf("no entry bundle %s", c2sp(bundle))
		}
		for len(data) > 0 {
			if len(data) < 2 || len(data) < 2+int(data[0])<<8+int(data[1]) {
				return fmt.Errorf("entry bundle %s is cut short", c2sp(bundle))
			}
			length := int(data[0])<<8 + int(data[1])
			hashes, err := tlog.StoredHashes(count, data[2:2+length], reader)
			if err != nil {
				return err
			}
			stored = append(stored, hashes...)
			data = data[2+length:]
			count++
		}
		if count != n*256+width {
			return fmt.Errorf("entry bundle %s holds %d entries", c2sp(bundle), count-n*256)
		}
	}
	if size > 0 {
		got, err := tlog.TreeHash(size, reader)
		if err != nil {
			return fmt.Errorf("tree hash: %v", err)
		}
		if got != root {
			return fmt.Errorf("the entries' root is not the checkpoint's")
		}
	}
	expected := map[string]bool{}
	for _, tile := range tlog.NewTiles(8, 0, size) {
		if width := size>>(8*tile.L) - tile.N<<8; width < 256 && int64(tile.W) != width {
			continue // x/mod 0.7.0 lists every partial width a tree passed through
		}
		expected[c2sp(tile)] = true
		made, err := tlog.ReadTileData(tile, reader)
		if err != nil {
			return fmt.Errorf("tile %s: %v", c2sp(tile), err)
		}
		if !bytes.Equal(made, served[c2sp(tile)]) {
			return fmt.Errorf("tile %s is not the tree's", c2sp(tile))
		}
	}
	for path := range served {
		if !expected[path] && !strings.HasPrefix(path, "tile/entries/") {
			return fmt.Errorf("tile %s is not one of the tree's", path)
		}
	}
	for _, in := range j.Inclusion {
		leaf, err := hash(in.Leaf)
		if err != nil {
			return err
		}
		proof, err := hashes(in.Proof)
		if err != nil {
			return err
		}
		if err := tlog.CheckRecord(proof, size, root, in.Index, leaf); err != nil {
			return fmt.Errorf("inclusion of %d: %v", in.Index, err)
		}
		made, err := tlog.ProveRecord(size, in.Index, reader)
		if err != nil {
			return fmt.Errorf("tlog's proof of %d: %v", in.Index, err)
		}
		if !same(made, proof) {
			return fmt.Errorf("inclusion of %d: not the proof tlog makes", in.Index)
		}
		if stored[tlog.StoredHashIndex(0, in.Index)] != leaf {
			return fmt.Errorf("inclusion of %d: the entries hold another leaf", in.Index)
		}
	}
	for _, c := range j.Consistency {
		oldRoot, err := hash(c.OldRoot)
		if err != nil {
			return err
		}
		proof, err := hashes(c.Proof)
		if err != nil {
			return err
		}
		if err := tlog.CheckTree(proof, size, root, c.Old, oldRoot); err != nil {
			return fmt.Errorf("consistency with %d: %v", c.Old, err)
		}
		made, err := tlog.ProveTree(size, c.Old, reader)
		if err != nil {
			return fmt.Errorf("tlog's proof from %d: %v", c.Old, err)
		}
		if !same(made, proof) {
			return fmt.Errorf("consistency with %d: not the proof tlog makes", c.Old)
		}
	}
	return nil
}

func main() {
	var j job
	if err := json.NewDecoder(os.Stdin).Decode(&j); err != nil {
		fmt.Println("job:", err)
		os.Exit(2)
	}
	if err := run(j); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("ok")
}
