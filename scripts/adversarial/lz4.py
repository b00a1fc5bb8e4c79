"""LZ4 blocks and TfFastCompression (the crate's LZ4 framing), written by hand: literal blocks and
runs that expand one byte to any length."""


def lz4_length(n):
    """The 255-run extension bytes of a length whose nibble is 15."""
    out = bytearray()
    n -= 15
    while n >= 255:
        out.append(255)
        n -= 255
    out.append(n)
    return bytes(out)


def lz4_literals(data):
    """A valid LZ4 block holding `data` as literals only (no matches)."""
    n = len(data)
    if n < 15:
        return bytes([n << 4]) + data
    return bytes([0xF0]) + lz4_length(n) + data


def lz4_run(byte, n):
    """A valid LZ4 block that expands to `n` (>= 13) copies of `byte`: one literal, one overlapping
    match of offset 1, then 12 closing literals (the block-end rules of the format)."""
    match = n - 13
    assert match >= 4
    seq = bytes([0x10 | (15 if match - 4 >= 15 else match - 4)]) + bytes([byte])
    seq += b"\x01\x00"
    if match - 4 >= 15:
        seq += lz4_length(match - 4)
    return seq + lz4_literals(bytes([byte]) * 12)


def fast(data):
    """TfFastCompression: marker 0 (one chunk), then one LZ4 block."""
    return b"\0" + lz4_literals(data)


def fast_run(byte, n):
    return b"\0" + lz4_run(byte, n)
