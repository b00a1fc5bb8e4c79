"""Packaging: stored entries at 64-byte-aligned offsets, fixed dates."""

import io
import struct
import zipfile

ZIP_DATE = (2024, 1, 1, 0, 0, 0)


def write_usdz(path, entries):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED, allowZip64=False) as zf:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_STORED
            info.create_system = 3
            info.external_attr = 0o644 << 16
            offset = buf.tell()
            pad = (-(offset + 30 + len(name.encode()))) % 64
            if 0 < pad < 4:
                pad += 64
            info.extra = struct.pack("<HH", 0x1986, pad - 4) + b"\0" * (pad - 4) if pad else b""
            zf.writestr(info, data)
    data = buf.getvalue()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for info in zf.infolist():
            start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
            assert start % 64 == 0, (info.filename, start)
    with open(path, "wb") as f:
        f.write(data)
