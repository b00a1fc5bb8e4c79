"""The small PNG textures shared by all cases (written by the parent process)."""

from __future__ import annotations

import os
import struct
import zlib

from .constants import TEXTURE_NAMES


def png_bytes(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A tiny valid RGB PNG filled with one colour."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(row * height, 9))
            + chunk(b"IEND", b""))


def write_textures(outdir: str) -> int:
    texdir = os.path.join(outdir, "textures")
    os.makedirs(texdir, exist_ok=True)
    colours = ((200, 120, 40), (128, 128, 255), (90, 90, 90))
    for name, colour in zip(TEXTURE_NAMES, colours):
        with open(os.path.join(texdir, name), "wb") as f:
            f.write(png_bytes(4, 4, colour))
    return len(TEXTURE_NAMES)
