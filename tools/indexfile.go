package tools

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// The encoding of an index, as the cache keeps it and the worker receives it.
// Little-endian:
//
//	magic     8 bytes  "rlmindex"
//	version   u32      indexVersion
//	block     u32      blockSize
//	size      i64      the file's size in bytes
//	dev, ino  u64      the file's device and inode
//	mtime     i64      modification time, ns since 1970
//	ctime     i64      change time, ns since 1970
//	sample    u32      CRC-32C of the file's first and last sampleBytes
//	pathLen   u32      length of the path that follows (≤ maxIndexPath)
//	blocks    u64      the number of blocks, ceil(size / blockSize)
//	path      pathLen bytes: the file's absolute path when it was indexed
//	per block 10 bytes: start - k*blockSize (u8, 0..3), ascii (u8, 0 or 1),
//	          characters (u32), '\n' bytes (u32) in the block
//	crc       u32      CRC-32C of everything before it
//
// 10 bytes per 32 KiB block: 0.03% of the file (320 KB per GB).
const (
	indexMagic   = "rlmindex"
	indexVersion = 1
	headerLen    = 72
	blockLen     = 10
	maxIndexPath = 4096
	sampleBytes  = 4096
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// fileKey identifies a file's content cheaply: every write moves the size,
// the modification time or the change time, and the change time cannot be
// set back.
type fileKey struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // ns since 1970
}

// indexed is an index with the identity of the file it describes.
type indexed struct {
	key    fileKey
	sample uint32 // sampleOf the file's data
	path   string
	x      *index
}

// sampleOf is the CRC-32C of the first and the last sampleBytes of data (all
// of it when shorter): a check of the content that costs two pages.
func sampleOf(data []byte) uint32 {
	head := data[:min(len(data), sampleBytes)]
	tail := data[max(len(data)-sampleBytes, 0):]
	return crc32.Update(crc32.Update(0, castagnoli, head), castagnoli, tail)
}

// encodedLen is the length of the encoding of an index of a file of size
// bytes whose path is pathLen bytes long.
func encodedLen(size int64, pathLen int) int64 {
	return headerLen + int64(pathLen) + blocks(size)*blockLen + 4
}

func blocks(size int64) int64 { return (size + blockSize - 1) / blockSize }

// encode returns ix in the encoding above.
func (ix *indexed) encode() []byte {
	path := ix.path
	if len(path) > maxIndexPath {
		path = "" // a cleaner cannot check it; the index itself stays good
	}
	x, nb := ix.x, len(ix.x.starts)-1
	b := make([]byte, 0, encodedLen(ix.key.size, len(path)))
	b = append(b, indexMagic...)
	b = binary.LittleEndian.AppendUint32(b, indexVersion)
	b = binary.LittleEndian.AppendUint32(b, blockSize)
	for _, v := range []uint64{uint64(ix.key.size), ix.key.dev, ix.key.ino, uint64(ix.key.mtime), uint64(ix.key.ctime)} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	b = binary.LittleEndian.AppendUint32(b, ix.sample)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(path)))
	b = binary.LittleEndian.AppendUint64(b, uint64(nb))
	b = append(b, path...)
	for k := range nb {
		ascii := byte(0)
		if x.ascii[k] {
			ascii = 1
		}
		b = append(b, byte(x.starts[k]-int64(k)*blockSize), ascii)
		b = binary.LittleEndian.AppendUint32(b, uint32(x.chars[k+1]-x.chars[k]))
		b = binary.LittleEndian.AppendUint32(b, uint32(x.lines[k+1]-x.lines[k]))
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// errMalformed marks an encoding that decode refuses.
var errMalformed = errors.New("malformed index")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errMalformed, fmt.Sprintf(format, args...))
}

// decode parses and checks an encoded index. It trusts nothing in b: every
// offset and count it returns is within the file the header describes, so a
// corrupt or hostile encoding can make lookups wrong but never out of bounds.
func decode(b []byte) (*indexed, error) {
	if len(b) < headerLen+4 {
		return nil, malformed("%d bytes, shorter than a header", len(b))
	}
	if string(b[:8]) != indexMagic {
		return nil, malformed("no %q header", indexMagic)
	}
	le := binary.LittleEndian
	if v, bs := le.Uint32(b[8:]), le.Uint32(b[12:]); v != indexVersion || bs != blockSize {
		return nil, malformed("version %d with %d-byte blocks; this rlm writes version %d with %d-byte blocks", v, bs, indexVersion, blockSize)
	}
	if got, want := le.Uint32(b[len(b)-4:]), crc32.Checksum(b[:len(b)-4], castagnoli); got != want {
		return nil, malformed("checksum %08x, want %08x", got, want)
	}
	ix := &indexed{key: fileKey{size: int64(le.Uint64(b[16:])), dev: le.Uint64(b[24:]), ino: le.Uint64(b[32:]),
		mtime: int64(le.Uint64(b[40:])), ctime: int64(le.Uint64(b[48:]))}, sample: le.Uint32(b[56:])}
	pathLen, nb := int64(le.Uint32(b[60:])), le.Uint64(b[64:])
	size := ix.key.size
	switch {
	case size < 0:
		return nil, malformed("negative size %d", size)
	case pathLen > maxIndexPath:
		return nil, malformed("a path of %d bytes", pathLen)
	case nb != uint64(blocks(size)):
		return nil, malformed("%d blocks for %d bytes, want %d", nb, size, blocks(size))
	case int64(len(b)) != encodedLen(size, int(pathLen)):
		return nil, malformed("%d bytes, want %d for %d blocks", len(b), encodedLen(size, int(pathLen)), nb)
	}
	ix.path = string(b[headerLen : headerLen+pathLen])
	x, err := decodeBlocks(b[headerLen+pathLen:len(b)-4], size)
	if err != nil {
		return nil, err
	}
	ix.x = x
	return ix, nil
}

// decodeBlocks rebuilds the index's arrays from the per-block records of a
// file of size bytes, checking each record against what a block can hold.
func decodeBlocks(rec []byte, size int64) (*index, error) {
	nb := len(rec) / blockLen
	x := &index{starts: make([]int64, nb+1), chars: make([]int64, nb+1), lines: make([]int64, nb+1), ascii: make([]bool, nb+1)}
	x.starts[nb] = size
	for k := range nb {
		r := rec[k*blockLen:]
		off := int64(r[0])
		if off > 3 || k == 0 && off != 0 {
			return nil, malformed("block %d starts %d bytes past its border", k, off)
		}
		if x.starts[k] = int64(k)*blockSize + off; x.starts[k] > size {
			return nil, malformed("block %d starts at %d, past the end (%d)", k, x.starts[k], size)
		}
		if r[1] > 1 {
			return nil, malformed("block %d has ascii flag %d", k, r[1])
		}
		x.ascii[k] = r[1] == 1
	}
	for k := range nb {
		r := rec[k*blockLen:]
		n := x.starts[k+1] - x.starts[k] // bytes in the block
		chars, lines := int64(binary.LittleEndian.Uint32(r[2:])), int64(binary.LittleEndian.Uint32(r[6:]))
		switch {
		case n < 0:
			return nil, malformed("block %d ends before it starts", k)
		case chars > n || chars*4 < n:
			return nil, malformed("block %d holds %d characters in %d bytes", k, chars, n)
		case x.ascii[k] && chars != n:
			return nil, malformed("block %d is marked ASCII but holds %d characters in %d bytes", k, chars, n)
		case lines > n:
			return nil, malformed("block %d holds %d newlines in %d bytes", k, lines, n)
		}
		x.chars[k+1] = x.chars[k] + chars
		x.lines[k+1] = x.lines[k] + lines
	}
	return x, nil
}
