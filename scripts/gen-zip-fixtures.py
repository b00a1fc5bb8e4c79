#!/usr/bin/env python3
"""Generates the small zip/usdz fixtures under Tests/Fixtures/zip/ used by the ZipArchive and
USDZPackage tests. Every archive is assembled byte by byte with `struct` (Python 3 standard
library only), so each fixture contains exactly the structure its test needs, including the
invalid ones no zip writer would produce. Run from anywhere:

    python3 scripts/gen-zip-fixtures.py            # writes Tests/Fixtures/zip/*.usdz
    python3 scripts/gen-zip-fixtures.py --check    # exit 1 unless the committed files match

The output is deterministic (fixed timestamps, no randomness); re-running rewrites the same bytes.
"""
import argparse
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fixturecheck import add_option, check  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "zip")

LOCAL_SIG = 0x04034B50
CENTRAL_SIG = 0x02014B50
EOCD_SIG = 0x06054B50
ZIP64_EOCD_SIG = 0x06064B50
ZIP64_LOCATOR_SIG = 0x07064B50
DOS_TIME, DOS_DATE = 0, (2024 - 1980) << 9 | 1 << 5 | 1
M32 = 0xFFFFFFFF
M16 = 0xFFFF


def crc(data):
    return zlib.crc32(data) & 0xFFFFFFFF


def deflate_raw(data):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def usd_padding(offset, name_len):
    """Extra field (id 0x1986, as USD's writer does) that puts the data on a 64-byte boundary."""
    start = offset + 30 + name_len
    pad = (64 - start % 64) % 64
    if pad == 0:
        return b""
    if pad < 4:
        pad += 64
    return struct.pack("<HH", 0x1986, pad - 4) + b"\0" * (pad - 4)


class Entry:
    """One entry. `data` is what is stored (already compressed for method 8)."""

    def __init__(self, name, content, method=0, flags=0, crc_value=None, usize=None, align=True,
                 central_name=None, local_sizes=True, data=None):
        self.name = name.encode() if isinstance(name, str) else name
        self.central_name = self.central_name_bytes(central_name)
        self.content = content
        self.method = method
        self.flags = flags
        self.data = data if data is not None else (deflate_raw(content) if method == 8 else content)
        self.crc = crc(content) if crc_value is None else crc_value
        self.usize = len(content) if usize is None else usize
        self.align = align
        self.local_sizes = local_sizes
        self.offset = 0

    def central_name_bytes(self, central_name):
        if central_name is None:
            return self.name
        return central_name.encode() if isinstance(central_name, str) else central_name


def local_header(e, extra=b"", zip64=False):
    csize, usize, crcv = len(e.data), e.usize, e.crc
    if not e.local_sizes:
        csize = usize = crcv = 0
    if zip64:
        extra = struct.pack("<HHQQ", 1, 16, usize, csize) + extra
        csize = usize = M32
    return struct.pack("<IHHHHHIIIHH", LOCAL_SIG, 45 if zip64 else 20, e.flags, e.method, DOS_TIME, DOS_DATE,
                       crcv, csize, usize, len(e.name), len(extra)) + e.name + extra


def central_record(e, extra=b"", zip64=False):
    csize, usize, off = len(e.data), e.usize, e.offset
    if zip64:
        extra = struct.pack("<HHQQQ", 1, 24, usize, csize, off) + extra
        csize = usize = off = M32
    return struct.pack("<IHHHHHHIIIHHHHHII", CENTRAL_SIG, 45 if zip64 else 20, 45 if zip64 else 20, e.flags,
                       e.method, DOS_TIME, DOS_DATE, e.crc, csize, usize, len(e.central_name), len(extra), 0,
                       0, 0, 0, off) + e.central_name + extra


def eocd(count, cd_size, cd_offset, disk=0, cd_disk=0, on_disk=None, comment=b""):
    on_disk = count if on_disk is None else on_disk
    return struct.pack("<IHHHHIIH", EOCD_SIG, disk, cd_disk, on_disk, count, cd_size, cd_offset,
                       len(comment)) + comment


def build(entries, with_directory=True, prefix=b"", zip64=False, descriptor=False, eocd_args=None):
    out = bytearray(prefix)
    for e in entries:
        e.offset = len(out)
        extra = b""
        if e.align:
            lh_len = len(local_header(e, zip64=zip64)) - 30 - len(e.name)
            extra = usd_padding(e.offset + lh_len, len(e.name))
        out += local_header(e, extra, zip64=zip64)
        out += e.data
        if descriptor:
            out += struct.pack("<IIII", 0x08074B50, e.crc, len(e.data), e.usize)
    if not with_directory:
        return bytes(out)
    cd_offset = len(out)
    for e in entries:
        out += central_record(e, zip64=zip64)
    cd_size = len(out) - cd_offset
    if zip64:
        record_offset = len(out)
        out += struct.pack("<IQHHIIQQQQ", ZIP64_EOCD_SIG, 44, 45, 45, 0, 0, len(entries), len(entries),
                           cd_size, cd_offset)
        out += struct.pack("<IIQI", ZIP64_LOCATOR_SIG, 0, record_offset, 1)
        out += eocd(M16, M32, M32, on_disk=M16)
    else:
        out += eocd(len(entries), cd_size, cd_offset, **(eocd_args or {}))
    return bytes(out)


LAYER = b"#usda 1.0\n"


def layer(name):
    return LAYER + b'def "' + name.encode() + b'" {}\n'


# --- a deflate stream that inflates to the whole archive that contains it --------------------------

class BitWriter:
    def __init__(self):
        self.out = bytearray()
        self.acc = 0
        self.n = 0

    def bits(self, value, count):  # LSB first
        self.acc |= value << self.n
        self.n += count
        while self.n >= 8:
            self.out.append(self.acc & 0xFF)
            self.acc >>= 8
            self.n -= 8

    def huffman(self, code, length):  # Huffman codes are sent most significant bit first
        self.bits(int(format(code, "0%db" % length)[::-1], 2), length)

    def align(self):
        if self.n:
            self.bits(0, 8 - self.n)


LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
               163, 195, 227, 258]
LENGTH_EXTRA = [0] * 8 + [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4 + [5] * 4 + [0]
DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385]
DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7]


def fixed_literal_length(w, symbol):
    if symbol < 144:
        w.huffman(0x30 + symbol, 8)
    elif symbol < 256:
        w.huffman(0x190 + symbol - 144, 9)
    elif symbol < 280:
        w.huffman(symbol - 256, 7)
    else:
        w.huffman(0xC0 + symbol - 280, 8)


def copy(w, length, distance):
    i = max(k for k in range(len(LENGTH_BASE)) if LENGTH_BASE[k] <= length)
    fixed_literal_length(w, 257 + i)
    w.bits(length - LENGTH_BASE[i], LENGTH_EXTRA[i])
    d = max(k for k in range(len(DIST_BASE)) if DIST_BASE[k] <= distance)
    w.huffman(d, 5)
    w.bits(distance - DIST_BASE[d], DIST_EXTRA[d])


OP = 10  # every opcode below encodes to exactly 10 bytes


def op_literal(n):
    """Ln: four empty fixed-Huffman blocks, then a stored block header announcing n literal bytes."""
    w = BitWriter()
    for _ in range(4):
        w.bits(0b010, 3)  # BFINAL=0, BTYPE=01
        fixed_literal_length(w, 256)
    w.bits(0b000, 3)  # BFINAL=0, BTYPE=00
    w.align()
    w.bits(n, 16)
    w.bits(n ^ 0xFFFF, 16)
    assert len(w.out) == OP, len(w.out)
    return bytes(w.out)


def op_repeat(n, final=False):
    """Rn: an empty fixed block, a fixed block copying the last n bytes, an empty stored block."""
    w = BitWriter()
    w.bits(0b010, 3)
    fixed_literal_length(w, 256)
    w.bits(0b010, 3)
    copy(w, n, n)
    fixed_literal_length(w, 256)
    w.bits(0b001 if final else 0b000, 3)
    w.align()
    w.bits(0, 16)
    w.bits(0xFFFF, 16)
    assert len(w.out) == OP, len(w.out)
    return bytes(w.out)


def self_reproducing(prefix_len, suffix_len, make_prefix, make_suffix):
    """Deflate data D such that inflate(D) == prefix + D + suffix (a literal/repeat program whose
    output is its own encoding framed by the archive's header and trailer)."""
    p, s = prefix_len, suffix_len
    L, R = op_literal, op_repeat

    def program(P, S):
        return b"".join([
            L(p + OP), P, L(p + OP),
            R(p + OP),
            L(OP), R(p + OP),
            L(OP), L(OP),
            L(4 * OP), R(p + OP), L(OP), L(OP), L(4 * OP),
            R(4 * OP),
            L(4 * OP), R(4 * OP), L(4 * OP), R(4 * OP), L(4 * OP),
            R(4 * OP),
            L(4 * OP), R(4 * OP), L(0), L(0), L(s + OP),
            R(4 * OP),
            L(0), L(0),
            L(s + OP), R(s + OP, final=True), S,
            R(s + OP, final=True),
        ])

    size = len(program(b"\0" * p, b"\0" * s))
    prefix, suffix = make_prefix(size), make_suffix(size)
    assert len(prefix) == p and len(suffix) == s
    data = program(prefix, suffix)
    assert zlib.decompressobj(-15).decompress(data) == prefix + data + suffix
    return prefix + data + suffix


def contains_itself():
    name = b"inner.usdz"

    def header(csize):
        total = 30 + len(name) + csize + 46 + len(name) + 22
        return struct.pack("<IHHHHHIIIHH", LOCAL_SIG, 20, 0, 8, DOS_TIME, DOS_DATE, 0, csize, total,
                           len(name), 0) + name

    def trailer(csize):
        total = 30 + len(name) + csize + 46 + len(name) + 22
        record = struct.pack("<IHHHHHHIIIHHHHHII", CENTRAL_SIG, 20, 20, 0, 8, DOS_TIME, DOS_DATE, 0, csize,
                             total, len(name), 0, 0, 0, 0, 0, 0) + name
        return record + eocd(1, len(record), 30 + len(name) + csize)

    return self_reproducing(30 + len(name), 46 + len(name) + 22, header, trailer)


# --- fixtures -----------------------------------------------------------------------------------

def fixtures():
    f = {}
    text = b"deflate me, " * 40
    f["stored_deflated.usdz"] = build([Entry("root.usda", layer("Root")),
                                       Entry("notes.txt", text, method=8)])
    f["zip64.usdz"] = build([Entry("root.usda", layer("Root")), Entry("tex.png", b"PNG:zip64")], zip64=True)
    f["misaligned.usdz"] = build([Entry("root.usda", layer("Root"), align=False)])
    f["dotdot_name.usdz"] = build([Entry("../evil.usda", layer("Evil"))])
    f["absolute_name.usdz"] = build([Entry("/etc/evil.usda", layer("Evil"))])
    f["duplicate_names.usdz"] = build([Entry("root.usda", layer("A")), Entry("root.usda", layer("B"))])

    # b.png's header and data sit inside a.usda's data; the directory lists both.
    inner = Entry("b.png", b"PNG:overlap", align=False)
    inner.offset = 64 + 0
    hidden = local_header(inner) + inner.data
    outer = Entry("a.usda", LAYER + hidden + b"\n")
    blob = bytearray(build([outer], with_directory=False))
    inner.offset = 64 + len(LAYER)
    cd = central_record(outer) + central_record(inner)
    f["overlapping.usdz"] = bytes(blob) + cd + eocd(2, len(cd), len(blob))

    past = Entry("root.usda", layer("Root"))
    past.data = past.content
    blob = build([past], with_directory=False)
    big = Entry("root.usda", layer("Root"), usize=100_000, data=b"x" * 100_000)
    big.offset = 0
    cd = central_record(big)
    body = bytearray(blob)
    struct.pack_into("<II", body, 18, 100_000, 100_000)  # local sizes agree with the directory
    struct.pack_into("<I", body, 14, big.crc)
    f["past_eof.usdz"] = bytes(body) + cd + eocd(1, len(cd), len(body))

    f["encrypted.usdz"] = build([Entry("root.usda", layer("Root"), flags=1)])
    f["bad_method.usdz"] = build([Entry("root.usda", layer("Root"), method=12, data=b"BZh9")])

    zeros = b"\0" * 1000
    f["zip_bomb.usdz"] = build([Entry("root.usda", layer("Root")),
                                Entry("bomb.bin", zeros, method=8, usize=4_000_000_000, crc_value=0)])

    deeper = build([Entry("d.usda", layer("D")), Entry("d.png", b"PNG:d")])
    inner_pkg = build([Entry("inner.usda", layer("Inner")), Entry("textures/in.png", b"PNG:in"),
                       Entry("deeper.usdz", deeper)])
    f["nested.usdz"] = build([Entry("root.usda", layer("Root")), Entry("inner.usdz", inner_pkg),
                              Entry("tex/outer.png", b"PNG:outer")])

    level = build([Entry("root.usda", layer("Bottom"))])
    for _ in range(6):
        level = build([Entry("inner.usdz", level)])
    f["nested_too_deep.usdz"] = level
    f["contains_itself.usdz"] = contains_itself()
    f["nested_root.usdz"] = build([
        Entry("pkg.usdz", build([Entry("root.usda", layer("Root"), align=False), Entry("tex.png", b"PNG:t")])),
        Entry("outside.png", b"PNG:o")])

    f["no_eocd.usdz"] = build([Entry("root.usda", layer("Root")), Entry("tex.png", b"PNG:walk")],
                              with_directory=False)
    f["data_descriptor.usdz"] = build([Entry("root.usda", layer("Root"), flags=8, local_sizes=False)],
                                      descriptor=True)
    f["multi_disk.usdz"] = build([Entry("root.usda", layer("Root"))], eocd_args={"disk": 1, "cd_disk": 1})
    f["name_mismatch.usdz"] = build([Entry("root.usda", layer("Root"), central_name="other.usda")])
    f["crc_mismatch.usdz"] = build([Entry("root.usda", layer("Root"), crc_value=0x12345678)])
    f["short_deflate.usdz"] = build([Entry("root.usda", layer("Root")),
                                     Entry("short.txt", text, method=8, usize=len(text) + 5)])
    f["first_not_layer.usdz"] = build([Entry("tex.png", b"PNG:first"), Entry("root.usda", layer("Root"))])
    f["empty.usdz"] = eocd(0, 0, 0)
    f["junk_prefix.usdz"] = build([Entry("root.usda", layer("Root"))], prefix=b"J" * 64)

    nested_for_resolve = build([Entry("inner.usda", layer("Inner")), Entry("tex/c.png", b"PNG:c"),
                                Entry("sub/n.usda", layer("N")),
                                Entry("deeper.usdz", build([Entry("d.usda", layer("D")),
                                                            Entry("d.png", b"PNG:d")]))])
    f["resolve.usdz"] = build([
        Entry("scene/root.usda", layer("Root")),
        Entry("scene/textures/a.png", b"PNG:a"),
        Entry("scene/sub/layer.usda", layer("Sub")),
        Entry("scene/sub/textures/b.png", b"PNG:b"),
        Entry("scene/Textures/Mixed.PNG", b"PNG:mixed"),
        Entry("scene/0/copy.png", b"PNG:copy"),
        Entry("scene/inner.usdz", nested_for_resolve),
        Entry("textures/top.png", b"PNG:top"),
    ])
    return f


def write(out):
    os.makedirs(out, exist_ok=True)
    for name, data in sorted(fixtures().items()):
        with open(os.path.join(out, name), "wb") as fh:
            fh.write(data)
        print("%-28s %6d bytes" % (name, len(data)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_option(parser)
    if parser.parse_args().check:
        # nested-packages/ below is gen-nested-packages.py's.
        check("gen-zip-fixtures", OUT, write, owns=lambda rel: "/" not in rel)
    else:
        write(OUT)


if __name__ == "__main__":
    main()
