#!/usr/bin/python3
"""Writes the amplification inputs of tests/data/bad/, each FILE with FILE.err.

Each is a small file that decompresses to far more than its size (a chunk of one repeated byte
compresses to a few KiB) and asked the analyzer for memory in proportion to the decompressed
bytes, with no cap: the reader now refuses each at one of the caps of gputrace-format(5), LIMITS
(the cost contract). Built with make_bad.py's writer of the format, from the spec alone.

    python3 tests/data/bad/make_amplify.py      (run from anywhere; needs the zstd command)
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_bad import (HERE, STRING, META, DEVICE, VAR, block, chunk, device, file_header,  # noqa: E402
                      kernel_block, meta, string, var_block)

BLOB, CAPTURE = 4, 5
MIB = 1 << 20
CHUNK_RAW = 64 * MIB


def chunks(blocks_list):
    """Each (raw, nrec, nblocks) as a chunk, in sequence, behind a file header."""
    out = bytearray(file_header())
    for seq, (raw, nrec, nblocks) in enumerate(blocks_list):
        out += chunk(raw, nrec, nblocks, seq)
    return out


def one(rtype, recs):
    return var_block(rtype, recs), len(recs), 1


def blob_piece(blob_id, total, offset, nbytes, kind=2):
    return struct.pack("<QQQII", blob_id, total, offset, kind, nbytes) + bytes(nbytes)


def blob_chunks(blob_id, total, first_seq_off=0):
    """A blob of total zero bytes in 8 MiB pieces, 7 pieces to a chunk."""
    parts, off, piece = [], 0, 8 * MIB
    while off < total:
        recs = []
        while off < total and len(recs) < 7:
            n = min(piece, total - off)
            recs.append(blob_piece(blob_id, total, off, n))
            off += n
        parts.append(one(BLOB, recs))
    return parts


def capture(name_id, params, param_bytes):
    c = struct.pack("<QQQ4I9I5I", 1, 10**9, 0, name_id, 1, 0, 0, 1, 1, 1, 256, 1, 1, 1, 1, 1, 0,
                    len(params), len(param_bytes), 0, 0)
    assert len(c) == 96
    return c + b"".join(struct.pack("<IIIIQQQQ", *p) for p in params) + param_bytes


CASES = []


def case(name):
    def register(fn):
        CASES.append((name, fn))
        return fn
    return register


@case("amp-string-long.gtrace")
def _():
    # 16 strings of 60 MiB: info kept 1 GB of names from a 40 KB file.
    parts = [one(STRING, [string(i, "A" * (60 * MIB) + str(i))]) for i in range(1, 17)]
    return chunks(parts), "GT_ERR_TOO_LARGE 32 string 1 of 62914561 bytes, limit 1048576"


@case("amp-strings-total.gtrace")
def _():
    # 1 MiB strings (each within the length cap), 160 of them: past 128 MiB in all.
    parts, i = [], 1
    for _ in range(4):
        recs = []
        for _ in range(40):
            recs.append(string(i, ("%08d" % i) + "B" * (MIB - 8)))
            i += 1
        parts.append(one(STRING, recs))
    data = chunks(parts)
    off = len(file_header()) + sum(len(chunk(*p, s)) for s, p in enumerate(parts[:3]))
    return data, "GT_ERR_TOO_LARGE %d more than 134217728 bytes of strings" % off


@case("amp-meta-bytes.gtrace")
def _():
    # 16 metadata values of 60 MiB each: past 16 MiB of metadata in the first.
    parts = [one(META, [meta("k%d" % i, "v" * (60 * MIB))]) for i in range(16)]
    return chunks(parts), "GT_ERR_TOO_LARGE 32 more than 16777216 bytes of metadata"


@case("amp-device-name.gtrace")
def _():
    # 16 devices named in 60 MiB each.
    parts = [one(DEVICE, [device("N" * (60 * MIB))]) for _ in range(16)]
    return chunks(parts), "GT_ERR_TOO_LARGE 32 device name of 62914560 bytes, limit 1024"


@case("amp-blobs-total.gtrace")
def _():
    # saxpy captured with four 1 GiB buffers of zeros: 4 GiB of blobs, past 2 GiB in all. shadow
    # held every buffer and a working copy (6 GB) and took half a minute.
    parts = [one(STRING, [string(1, "_Z5saxpyifPKfPf")])]
    for b in range(1, 5):
        parts += blob_chunks(b, 1 << 30)
    n = (1 << 30) // 4
    pb = struct.pack("<ifQQ", n, 2.0, 0x10000000, 0x90000000)
    params = [(0, 4, 1, 0, 0, 0, 0, 0), (4, 4, 1, 0, 0, 0, 0, 0),
              (8, 8, 2, 0, 0x10000000, 1 << 30, 1, 2), (16, 8, 2, 0, 0x90000000, 1 << 30, 3, 4)]
    parts.append(one(CAPTURE, [capture(1, params, pb)]))
    data = chunks(parts)
    # The cap is passed in the chunk holding the 2 GiB + 8 MiB-th byte of blobs.
    seen, off = 0, len(file_header())
    for s, p in enumerate(parts):
        if s:
            seen += p[1] * 8 * MIB
        if seen > 2 << 30:
            break
        off += len(chunk(*p, s))
    return data, "GT_ERR_TOO_LARGE %d more than 2147483648 bytes of blobs" % off


@case("amp-capture-bytes.gtrace")
def _():
    # One 64 MiB blob named by 4096 parameters, each a 64 MiB allocation of its own: a replay
    # would make 4096 working copies (256 GiB) of 64 MiB of file.
    parts = [one(STRING, [string(1, "_Z4wideP5float")])]
    parts += blob_chunks(1, 64 * MIB - 4096)
    size = 64 * MIB - 4096
    params = [(8 * i, 8, 2, 0, (i + 1) << 32, size, 1, 1) for i in range(4096)]
    pb = b"".join(struct.pack("<Q", (i + 1) << 32) for i in range(4096))
    parts.append(one(CAPTURE, [capture(1, params, pb)]))
    data = chunks(parts)
    off = len(file_header()) + sum(len(chunk(*p, s)) for s, p in enumerate(parts[:-1]))
    return data, "GT_ERR_TOO_LARGE %d capture 1 of %d buffer bytes, limit 1073741824" % (
        off, 2 * 4096 * size)


def seq_id(i):
    """The Itanium ABI's substitution S<i>_: S_ for the first, then S0_, S1_, ... in base 36."""
    if i == 0:
        return "S_"
    i -= 1
    d = ""
    while True:
        d = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[i % 36] + d
        i //= 36
        if not i:
            return "S" + d + "_"


def doubling_name(tag, levels):
    """f<tag>(A<A, A>, A<A<A, A>, A<A, A> >, ...): each parameter twice the one before, so a name
    of 12 levels (about 100 bytes) demangles to tens of KiB, within the 64 KiB per-name cap."""
    fn = "f%d" % tag
    s = "_Z%d%s1AIS_S_E" % (len(fn), fn)
    for i in range(1, levels):
        s += "S_I" + seq_id(i) + seq_id(i) + "E"
    return s


@case("amp-demangled.gtrace")
def _():
    # 20,000 distinct names of 12 levels, each launched once: about 130 bytes of name and 120 of
    # kernel record each (5 MB decompressed), each name demangling to 40 KB: dump and export keep
    # every one (800 MB), summary and report each kernel's. Not refused: the names are legal; the
    # analyzer's budget for demangled text (64 MiB) leaves the rest mangled, with one warning.
    n = 40000
    names = [doubling_name(i, 11) for i in range(n)]
    parts = [one(STRING, [string(i + 1, names[i]) for i in range(n)])]
    for first in range(0, n, 5000):
        ks = [(10**9 + i * 1000, 10**9 + i * 1000 + 500, i + 1, i + 1)
              for i in range(first, first + 5000)]
        parts.append((kernel_block(ks), 5000, 1))
    return chunks(parts), "GT_OK"


def main():
    only = sys.argv[1:]
    for name, fn in CASES:
        if only and name not in only:
            continue
        data, expect = fn()
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(bytes(data))
        with open(os.path.join(HERE, name + ".err"), "w") as f:
            f.write(expect + "\n")
        print("%s: %d bytes" % (name, len(data)))


if __name__ == "__main__":
    main()
