"""Zip containers assembled byte by byte: entries whose headers can declare sizes, checksums and
offsets other than the real ones, and well-formed `.usdz` packages."""

import struct
import zlib

LOCAL_SIG, CENTRAL_SIG, EOCD_SIG = 0x04034B50, 0x02014B50, 0x06054B50
DOS_TIME, DOS_DATE = 0, (2024 - 1980) << 9 | 1 << 5 | 1


def crc32(data):
    return zlib.crc32(data) & 0xFFFFFFFF


def deflate_raw(data):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


class ZipEntry:
    """One entry; `data` is what is stored (already deflated for method 8). `usize`, `csize` and
    `crc` override what the headers declare."""

    def __init__(self, name, content, method=0, usize=None, csize=None, crc=None, data=None, offset=None):
        self.name = name.encode()
        self.content = content
        self.method = method
        self.data = data if data is not None else (deflate_raw(content) if method == 8 else content)
        self.usize = len(content) if usize is None else usize
        self.csize = len(self.data) if csize is None else csize
        self.crc = crc32(content) if crc is None else crc
        self.offset = offset  # a central-directory offset that overrides where the entry was written


def zip_padding(offset, name_len):
    """Extra field (id 0x1986, as USD's writer does) that puts the data on a 64-byte boundary."""
    pad = (64 - (offset + 30 + name_len) % 64) % 64
    if pad == 0:
        return b""
    if pad < 4:
        pad += 64
    return struct.pack("<HH", 0x1986, pad - 4) + b"\0" * (pad - 4)


def local_header(e, extra):
    return struct.pack("<IHHHHHIIIHH", LOCAL_SIG, 20, 0, e.method, DOS_TIME, DOS_DATE, e.crc, e.csize,
                       e.usize, len(e.name), len(extra)) + e.name + extra


def central_record(e, offset):
    return struct.pack("<IHHHHHHIIIHHHHHII", CENTRAL_SIG, 20, 20, 0, e.method, DOS_TIME, DOS_DATE, e.crc,
                       e.csize, e.usize, len(e.name), 0, 0, 0, 0, 0, offset) + e.name


def zip_archive(entries):
    out = bytearray()
    offsets = []
    for e in entries:
        offsets.append(len(out))
        out += local_header(e, zip_padding(len(out), len(e.name)))
        out += e.data
    cd_offset = len(out)
    for e, off in zip(entries, offsets):
        out += central_record(e, off if e.offset is None else e.offset)
    cd_size = len(out) - cd_offset
    out += struct.pack("<IHHHHIIH", EOCD_SIG, 0, 0, len(entries), len(entries), cd_size, cd_offset, 0)
    return bytes(out)


def usdz(files):
    """A well-formed package: stored entries, data 64-byte aligned, the first entry is the root."""
    return zip_archive([ZipEntry(name, data) for name, data in files])
