#!/usr/bin/python3
"""Writes the hand-made known-bad traces of tests/data/bad/, each FILE with FILE.err.

A third writer of the format, built from gputrace-format(5) alone (the file header, the chunk
header and its FNV-1a check, zstd frames with checksum and content size through the zstd command,
blocks, the delta encoding and byte transposition of fixed records), so the files are byte-for-byte
reproducible and depend on nothing in traces/. Each case is a valid trace with one thing wrong.
FILE.err says what test_trace_hostile expects: the error's name, the byte offset the message must
name, and a piece of the message. Files found by the fuzzer (crash-*, oom-*, timeout-*) are not
made here; they are committed as found, with a .err written by hand.

    python3 tests/data/bad/make_bad.py      (run from anywhere; needs the zstd command)
"""
import os
import struct
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KERNEL, API, STRING, META, DEVICE, END = 64, 67, 1, 2, 3, 6
VAR, FIXED = 0, 1
KERNEL_SIZE, DEVICE_SIZE = 120, 88


def fnv1a(b):
    h = 2166136261
    for x in b:
        h = ((h ^ x) * 16777619) & 0xFFFFFFFF
    return h


def zstd(raw):
    """One frame with content size and checksum (the zstd command's defaults for a file)."""
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "raw")
        with open(src, "wb") as f:
            f.write(raw)
        return subprocess.run(["zstd", "-q", "-3", "--check", "-c", src], check=True,
                              stdout=subprocess.PIPE).stdout


def file_header(major=1, minor=0, header_bytes=32):
    return b"GPUTRACE" + struct.pack("<HHIQQ", major, minor, header_bytes, 0, 0)


def chunk(raw, nrec, nblocks, seq, frame=None):
    z = zstd(raw) if frame is None else frame
    h = struct.pack("<IIIIIII", 0x4B435447, 0, len(z), len(raw), nrec, nblocks, seq)
    return h + struct.pack("<I", fnv1a(h)) + z


def block(rtype, enc, count, rsize, payload):
    return struct.pack("<HHIII", rtype, enc, count, rsize, len(payload)) + payload


def var_block(rtype, records):
    return block(rtype, VAR, len(records), 0, b"".join(struct.pack("<I", len(r)) + r for r in records))


def string(i, s):
    return struct.pack("<I", i) + s.encode()


def meta(k, v):
    return struct.pack("<I", len(k)) + k.encode() + v.encode()


def device(name, name_len=None):
    d = struct.pack("<IIIIQIIIIIIIIIII", 0, 132, 9, 0, 150754820096, 1980000, 2619000, 6144, 5, 16,
                    5, 16, 60 << 20, 2048, len(name) if name_len is None else name_len, 0)
    d += bytes(range(0xA0, 0xB0)) + b"\0\0\0\0"  # uuid, then 4 bytes of tail padding
    assert len(d) == DEVICE_SIZE
    return d + name.encode()


def zigzag(v):
    return ((v << 1) ^ (v >> 63)) & 0xFFFFFFFFFFFFFFFF


def kernel_block(kernels):
    """kernels: (start, end, name_id, correlation_id) each; the rest of the record is constant."""
    recs, pbase, pcorr = [], 0, 0
    for start, end, name_id, corr in kernels:
        r = bytearray(KERNEL_SIZE)
        struct.pack_into("<QQ", r, 0, zigzag(start - pbase), zigzag(end - start) + 1)
        struct.pack_into("<II", r, 40, name_id, (corr - pcorr) & 0xFFFFFFFF)
        struct.pack_into("<IIIIII", r, 64, 120, 68, 1, 16, 16, 1)  # grid, block
        struct.pack_into("<H", r, 112, 64)  # registers
        recs.append(bytes(r))
        pbase, pcorr = start, corr
    n = len(recs)
    out = bytes(recs[i][j] for j in range(KERNEL_SIZE) for i in range(n))
    return block(KERNEL, FIXED, n, KERNEL_SIZE, out)


def definitions():
    blocks = [var_block(STRING, [string(1, "_Z9compositePK5SplatiP6float4ii")]),
              var_block(META, [meta("tool.version", "0.1.0"), meta("trace.synthetic", "1")]),
              var_block(DEVICE, [device("NVIDIA H200 (synthetic)")])]
    return b"".join(blocks), 4, 3


def kernels_chunk_raw(first=0, n=8):
    ks = [(10**9 + i * 250000 + (i * 37) % 11, 10**9 + i * 250000 + 180000 + i % 7, 1, i + 1)
          for i in range(first, first + n)]
    return kernel_block(ks), n, 1


def end_raw(records, chunks):
    return var_block(END, [struct.pack("<QQQ", records, chunks, 0)]), 1, 1


def good_trace():
    """Header, a definitions chunk, two kernel chunks, the END chunk; and the chunk offsets."""
    out, offs = bytearray(file_header()), []
    parts = [definitions(), kernels_chunk_raw(0), kernels_chunk_raw(8)]
    total = sum(p[1] for p in parts)
    parts.append(end_raw(total, len(parts)))
    for seq, (raw, nrec, nblocks) in enumerate(parts):
        offs.append(len(out))
        out += chunk(raw, nrec, nblocks, seq)
    return out, offs


CASES = []


def case(name):
    def register(fn):
        CASES.append((name, fn))
        return fn
    return register


@case("valid.gtrace")
def _():
    t, _ = good_trace()
    return t, "GT_OK"


@case("truncated_mid_chunk.gtrace")
def _():
    t, offs = good_trace()
    return t[:offs[2] + 40], "GT_OK"


@case("empty.gtrace")
def _():
    return b"", "GT_ERR_EMPTY 0 shorter than the 32-byte file header"


@case("short_header.gtrace")
def _():
    return file_header()[:20], "GT_ERR_EMPTY 0 shorter than the 32-byte file header"


@case("not_a_trace.elf")
def _():
    # An ELF64 header for x86-64, as any executable starts.
    e = b"\x7fELF\x02\x01\x01\x00" + bytes(8) + struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, 0x401000, 64,
                                                             0, 0, 64, 56, 0, 64, 0, 0)
    return e, "GT_ERR_MAGIC 0 bad file magic"


@case("bad_file_magic.gtrace")
def _():
    t, _ = good_trace()
    return b"GPUTRACX" + t[8:], "GT_ERR_MAGIC 0 bad file magic"


@case("major_2.gtrace")
def _():
    t, _ = good_trace()
    return t[:8] + struct.pack("<H", 2) + t[10:], "GT_ERR_VERSION 8 format 2.0"


@case("header_bytes_beyond_file.gtrace")
def _():
    t, _ = good_trace()
    return t[:12] + struct.pack("<I", len(t) + 1) + t[16:], "GT_ERR_CORRUPT 12 file header size"


@case("bad_chunk_magic.gtrace")
def _():
    t, offs = good_trace()
    t[offs[2]:offs[2] + 4] = b"GTCX"
    return t, "GT_ERR_MAGIC %d bad chunk magic" % offs[2]


@case("bad_header_check.gtrace")
def _():
    t, offs = good_trace()
    t[offs[1] + 16] ^= 1  # the record count, not re-checked
    return t, "GT_ERR_CHECKSUM %d chunk header check" % offs[1]


@case("frame_checksum.gtrace")
def _():
    t, offs = good_trace()
    csize = struct.unpack_from("<I", t, offs[1] + 8)[0]
    t[offs[1] + 32 + csize - 1] ^= 0x10  # last byte of zstd's content checksum
    return t, "GT_ERR_CHECKSUM %d zstd" % offs[1]


@case("raw_size_too_large.gtrace")
def _():
    raw, nrec, nblocks = definitions()
    c = bytearray(chunk(raw, nrec, nblocks, 0))
    struct.pack_into("<I", c, 12, 0xFFFFFFF0)
    struct.pack_into("<I", c, 28, fnv1a(bytes(c[:28])))
    return file_header() + c, "GT_ERR_TOO_LARGE 32 raw bytes, limit"


@case("frame_without_checksum.gtrace")
def _():
    raw, nrec, nblocks = definitions()
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "raw")
        with open(src, "wb") as f:
            f.write(raw)
        z = subprocess.run(["zstd", "-q", "--no-check", "-c", src], check=True,
                           stdout=subprocess.PIPE).stdout
    return file_header() + chunk(raw, nrec, nblocks, 0, frame=z), \
        "GT_ERR_CORRUPT 32 zstd frame header does not match"


@case("record_count_mismatch.gtrace")
def _():
    raw, nrec, nblocks = definitions()
    return file_header() + chunk(raw, nrec + 1, nblocks, 0), "GT_ERR_CORRUPT 32 chunk header says"


@case("block_past_chunk.gtrace")
def _():
    raw, nrec, nblocks = definitions()
    raw += struct.pack("<HHIII", KERNEL, FIXED, 1, KERNEL_SIZE, 4096) + bytes(KERNEL_SIZE)
    return file_header() + chunk(raw, nrec + 1, nblocks + 1, 0), "GT_ERR_CORRUPT 32 past the chunk"


@case("fixed_size_mismatch.gtrace")
def _():
    raw, nrec, nblocks = definitions()
    raw += block(KERNEL, FIXED, 3, KERNEL_SIZE, bytes(2 * KERNEL_SIZE))
    return file_header() + chunk(raw, nrec + 3, nblocks + 1, 0), \
        "GT_ERR_CORRUPT 32 fixed block of 3 records"


@case("var_record_past_block.gtrace")
def _():
    raw, nrec, nblocks = definitions()
    raw += block(META, VAR, 1, 0, struct.pack("<I", 1000) + b"key")
    return file_header() + chunk(raw, nrec + 1, nblocks + 1, 0), "GT_ERR_CORRUPT 32 past its block"


@case("string_id_repeated.gtrace")
def _():
    # Regression: the reader used to accept a repeated id silently.
    t, offs = good_trace()
    raw = var_block(STRING, [string(2, "a"), string(2, "b")])
    c = chunk(raw, 2, 1, 4)
    return t[:offs[3]] + c, "GT_ERR_CORRUPT %d string id 2 out of sequence (expected 3)" % offs[3]


@case("string_id_gap.gtrace")
def _():
    t, offs = good_trace()
    raw = var_block(STRING, [string(5, "a")])
    return t[:offs[3]] + chunk(raw, 1, 1, 4), \
        "GT_ERR_CORRUPT %d string id 5 out of sequence (expected 2)" % offs[3]


@case("device_name_len.gtrace")
def _():
    raw = var_block(DEVICE, [device("NVIDIA H200", name_len=4096)])
    return file_header() + chunk(raw, 1, 1, 0), "GT_ERR_CORRUPT 32 device name of 4096 bytes"


@case("meta_key_len.gtrace")
def _():
    raw = var_block(META, [struct.pack("<I", 99) + b"tool.version"])
    return file_header() + chunk(raw, 1, 1, 0), "GT_ERR_CORRUPT 32 metadata record"


def main():
    for name, fn in CASES:
        data, expect = fn()
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(bytes(data))
        with open(os.path.join(HERE, name + ".err"), "w") as f:
            f.write(expect + "\n")
    print("wrote %d cases to %s" % (len(CASES), HERE))


if __name__ == "__main__":
    main()
