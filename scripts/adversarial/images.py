"""Texture files whose headers declare a huge size: a JPEG cut after its frame header and a PNG
holding one row."""

import struct
import zlib

from .ziparchive import crc32


def huge_jpeg(side):
    """A baseline JPEG header (SOI, DQT, SOF0 declaring side×side, 3 components) cut after the frame
    header: enough for any reader to learn the size."""
    dqt = b"\xFF\xDB" + struct.pack(">H", 67) + b"\0" + bytes(range(1, 65))
    sof = b"\xFF\xC0" + struct.pack(">HBHHB", 17, 8, side, side, 3) + b"\x01\x22\x00\x02\x11\x00\x03\x11\x00"
    return b"\xFF\xD8" + dqt + sof + b"\xFF\xD9"


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc32(kind + data))


def huge_png(side):
    """A PNG whose IHDR declares side×side RGB8 and whose IDAT holds one filtered zero row."""
    ihdr = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\0" * (1 + 3 * side), 9)
    return b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", idat) + png_chunk(b"IEND", b"")
