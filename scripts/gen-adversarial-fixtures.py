#!/usr/bin/env python3
"""Generates the adversarial inputs under Tests/Fixtures/adversarial/ and their index cases.json.

Each case is a small hostile file (zip bombs, crate counts near 2^32, cyclic path trees,
self-referencing values, LZ4 streams that expand past their declared size, deeply nested USDA,
composition cycles, a huge PNG texture, a tiny file claiming 50 M triangles, hostile CapturedRoom
JSON). `scripts/check-adversarial.py` runs `transcode-worker convert` on every case and checks that
it ends in the expected typed error code within the time and memory bounds.

Every byte is assembled here with `struct`, `zlib` and hand-written LZ4 blocks (Python 3 standard
library only); the output is deterministic, so re-running rewrites the same bytes:

    python3 scripts/gen-adversarial-fixtures.py            # writes Tests/Fixtures/adversarial/
    python3 scripts/gen-adversarial-fixtures.py --list     # prints the cases
    python3 scripts/gen-adversarial-fixtures.py --check    # exit 1 unless the committed files match
"""
import json
import os
import struct
import sys
import zlib

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "adversarial")

# ------------------------------------------------------------------------------------------------
# Zip containers

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


# ------------------------------------------------------------------------------------------------
# LZ4 blocks and TfFastCompression (the crate's LZ4 framing)

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


# ------------------------------------------------------------------------------------------------
# Crate integer coding (32-bit variant) and compressed integer blocks

def int_code32(values):
    """Delta + 2-bit-code integer coding of a list of signed 32-bit integers."""
    if not values:
        return b""
    deltas, prev = [], 0
    for v in values:
        d = (v - prev + 2**31) % 2**32 - 2**31
        deltas.append(d)
        prev = v
    counts = {}
    for d in deltas:
        counts[d] = counts.get(d, 0) + 1
    common = max(counts, key=lambda d: (counts[d], d))
    codes = bytearray((2 * len(values) + 7) // 8)
    vints = bytearray()
    for i, d in enumerate(deltas):
        if d == common:
            code = 0
        elif -128 <= d < 128:
            code, vints = 1, vints + struct.pack("<b", d)
        elif -32768 <= d < 32768:
            code, vints = 2, vints + struct.pack("<h", d)
        else:
            code, vints = 3, vints + struct.pack("<i", d)
        codes[i // 4] |= code << (2 * (i % 4))
    return struct.pack("<i", common) + bytes(codes) + bytes(vints)


def compressed_ints(values):
    """`u64 compressedSize` + TfFastCompression of the integer-coded `values`."""
    blob = fast(int_code32(values))
    return struct.pack("<Q", len(blob)) + blob


# ------------------------------------------------------------------------------------------------
# Crate files (version 0.8.0)

# ValueRep type numbers and flag bits used below.
T_INT, T_TOKEN, T_VEC3F, T_DICT, T_SPECIFIER, T_TOKENVECTOR, T_VALUE = 3, 11, 24, 31, 42, 41, 52
ARRAY, INLINE, COMPRESSED = 1 << 63, 1 << 62, 1 << 61


def rep(type_, payload, flags=0):
    return flags | type_ << 48 | payload


TOKENS = [";-)", "", "M", "primChildren", "specifier", "Mesh", "typeName", "points", "properties",
          "point3f[]", "default", "faceVertexCounts", "faceVertexIndices", "int[]", "customData", "k"]
TOK = {t: i for i, t in enumerate(TOKENS)}


class Crate:
    """A small crate layer holding one Mesh `/M` with points, faceVertexCounts and faceVertexIndices.
    Every table can be replaced raw (`sections`) to build hostile variants; `value()` appends bytes to
    the value area at offset 88 and returns their absolute offset."""

    def __init__(self):
        self.values = bytearray()
        self.tokens = list(TOKENS)
        self.strings = [TOK["k"]]
        self.fields = []  # (name token, rep)
        self.field_sets = []
        self.specs = []  # (path index, field-set index, spec type)
        # Path tree: /, /M, /M.points, /M.faceVertexCounts, /M.faceVertexIndices.
        self.path_indexes = [0, 1, 2, 3, 4]
        self.element_tokens = [1, TOK["M"], -TOK["points"], -TOK["faceVertexCounts"], -TOK["faceVertexIndices"]]
        self.jumps = [-1, -1, 0, 0, -2]
        self.num_paths = 5
        self.sections = {}  # name -> raw bytes replacing the generated section
        self.prim_extra = []  # extra (name, rep) fields on /M

    def value(self, data, align=8):
        while (88 + len(self.values)) % align:
            self.values.append(0)
        at = 88 + len(self.values)
        self.values += data
        return at

    def token_vector(self, tokens):
        return rep(T_TOKENVECTOR, self.value(struct.pack("<Q", len(tokens)) + b"".join(
            struct.pack("<I", TOK[t]) for t in tokens)))

    def vec3f_array(self, points):
        data = struct.pack("<Q", len(points)) + b"".join(struct.pack("<3f", *p) for p in points)
        return rep(T_VEC3F, self.value(data), ARRAY)

    def int_array(self, ints):
        return rep(T_INT, self.value(struct.pack("<Q", len(ints)) + struct.pack("<%di" % len(ints), *ints)), ARRAY)

    def mesh(self, points=None, counts=None, indices=None):
        """The default fields: a unit quad."""
        points = points if points is not None else self.vec3f_array([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)])
        counts = counts if counts is not None else self.int_array([4])
        indices = indices if indices is not None else self.int_array([0, 1, 2, 3])
        F = self.fields
        F += [(TOK["primChildren"], self.token_vector(["M"])),                        # 0
              (TOK["specifier"], rep(T_SPECIFIER, 0, INLINE)),                         # 1
              (TOK["typeName"], rep(T_TOKEN, TOK["Mesh"], INLINE)),                    # 2
              (TOK["properties"], self.token_vector(["points", "faceVertexCounts", "faceVertexIndices"])),  # 3
              (TOK["typeName"], rep(T_TOKEN, TOK["point3f[]"], INLINE)),               # 4
              (TOK["default"], points),                                                # 5
              (TOK["typeName"], rep(T_TOKEN, TOK["int[]"], INLINE)),                   # 6
              (TOK["default"], counts),                                                # 7
              (TOK["default"], indices)]                                               # 8
        extra = []
        for name, r in self.prim_extra:
            F.append((TOK[name], r))
            extra.append(len(F) - 1)
        E = 0xFFFFFFFF
        self.field_sets = [0, E, 1, 2, 3] + extra + [E, 4, 5, E, 6, 7, E, 6, 8, E]
        prim_run_end = 5 + len(extra)
        self.specs = [(0, 0, 7), (1, 2, 6), (2, prim_run_end + 1, 1), (3, prim_run_end + 4, 1),
                      (4, prim_run_end + 7, 1)]
        return self

    def build(self):
        sec = {}
        text = b"".join(t.encode() + b"\0" for t in self.tokens)
        blob = fast(text)
        sec["TOKENS"] = struct.pack("<QQQ", len(self.tokens), len(text), len(blob)) + blob
        sec["STRINGS"] = struct.pack("<Q", len(self.strings)) + b"".join(struct.pack("<I", s) for s in self.strings)
        reps = fast(b"".join(struct.pack("<Q", r) for _, r in self.fields))
        sec["FIELDS"] = (struct.pack("<Q", len(self.fields)) + compressed_ints([n for n, _ in self.fields])
                         + struct.pack("<Q", len(reps)) + reps)
        sec["FIELDSETS"] = struct.pack("<Q", len(self.field_sets)) + compressed_ints(
            [f - 2**32 if f >= 2**31 else f for f in self.field_sets])
        sec["PATHS"] = (struct.pack("<QQ", self.num_paths, len(self.path_indexes))
                        + compressed_ints(self.path_indexes) + compressed_ints(self.element_tokens)
                        + compressed_ints(self.jumps))
        sec["SPECS"] = struct.pack("<Q", len(self.specs)) + b"".join(
            compressed_ints([s[k] for s in self.specs]) for k in range(3))
        sec.update(self.sections)
        body = bytearray(self.values)
        toc = []
        for name in ("TOKENS", "STRINGS", "FIELDS", "FIELDSETS", "PATHS", "SPECS"):
            toc.append((name, 88 + len(body), len(sec[name])))
            body += sec[name]
        toc_offset = 88 + len(body)
        body += struct.pack("<Q", len(toc))
        for name, start, size in toc:
            body += name.encode().ljust(16, b"\0") + struct.pack("<qq", start, size)
        head = b"PXR-USDC" + bytes([0, 8, 0, 0, 0, 0, 0, 0]) + struct.pack("<q", toc_offset) + b"\0" * 64
        return head + bytes(body)


def crate_mesh(**kw):
    return Crate().mesh(**kw).build()


def with_count(section_bytes, count, at=0):
    """Replaces the u64 count at byte `at` of a section."""
    return section_bytes[:at] + struct.pack("<Q", count) + section_bytes[at + 8:]


def crate_section(crate, name):
    """The bytes the crate would write for section `name`."""
    data = crate.build()
    toc_offset = struct.unpack_from("<q", data, 16)[0]
    (n,) = struct.unpack_from("<Q", data, toc_offset)
    for i in range(n):
        rec = data[toc_offset + 8 + 32 * i: toc_offset + 40 + 32 * i]
        if rec[:16].rstrip(b"\0").decode() == name:
            start, size = struct.unpack_from("<qq", rec, 16)
            return data[start:start + size]
    raise KeyError(name)


def crate_with_section(name, transform):
    c = Crate().mesh()
    raw = crate_section(c, name)
    c2 = Crate().mesh()
    c2.sections[name] = transform(raw)
    return c2.build()


# ------------------------------------------------------------------------------------------------
# USDA text

def usda_layer(default_prim, prim_name, metadata=""):
    return ("#usda 1.0\n(\n    defaultPrim = \"%s\"\n)\n\ndef Xform \"%s\" (\n%s)\n{\n}\n"
            % (default_prim, prim_name, metadata)).encode()


def nested_usda(depth):
    out = ["#usda 1.0\n"]
    out.append('def "a"{' * depth)
    out.append("}" * depth + "\n")
    return "".join(out).encode()


TEXTURED_ROOT = b"""#usda 1.0
(
    defaultPrim = "Root"
    metersPerUnit = 1
    upAxis = "Y"
)

def Xform "Root"
{
    def Mesh "Box" (
        prepend apiSchemas = ["MaterialBindingAPI"]
    )
    {
        int[] faceVertexCounts = [4]
        int[] faceVertexIndices = [0, 1, 2, 3]
        point3f[] points = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)]
        texCoord2f[] primvars:st = [(0, 0), (1, 0), (1, 1), (0, 1)] (
            interpolation = "vertex"
        )
        rel material:binding = </Root/Mat>
    }

    def Material "Mat"
    {
        token outputs:surface.connect = </Root/Mat/PBR.outputs:surface>

        def Shader "PBR"
        {
            uniform token info:id = "UsdPreviewSurface"
            color3f inputs:diffuseColor.connect = </Root/Mat/Tex.outputs:rgb>
            token outputs:surface
        }

        def Shader "Tex"
        {
            uniform token info:id = "UsdUVTexture"
            asset inputs:file = @./textures/huge.%s@
            float2 inputs:st.connect = </Root/Mat/St.outputs:result>
            float3 outputs:rgb
        }

        def Shader "St"
        {
            uniform token info:id = "UsdPrimvarReader_float2"
            token inputs:varname = "st"
            float2 outputs:result
        }
    }
}
"""


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


# ------------------------------------------------------------------------------------------------
# CapturedRoom JSON

WALL = ('{"category":{"wall":{}},"completedEdges":[],"confidence":{"high":{}},"curve":null,'
        '"dimensions":[4,2.5,0],"identifier":"%s","parentIdentifier":null,"polygonCorners":[],"story":0,'
        '"transform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}')


def room_json(walls=None, objects="[]", extra=""):
    walls = walls if walls is not None else "[" + WALL % "00000000-0000-0000-0000-000000000001" + "]"
    return ('{"coreModel":"","doors":[],"floors":[],"objects":%s,"openings":[],"sections":[],"story":0,'
            '"version":2,"walls":%s,"windows":[]%s}' % (objects, walls, extra)).encode()


# ------------------------------------------------------------------------------------------------
# The cases

def cases():
    """Yields (name, files {relative name: bytes}, invocation, attack, expected code)."""
    root = usda_layer("Root", "Root")

    # --- zip ---
    yield ("zip-bomb-declared", {"zip-bomb-declared.usdz": zip_archive([
        ZipEntry("root.usda", b"\0" * 4096, method=8, usize=0xFFFFFFFF, crc=0)])},
        {"input": "zip-bomb-declared.usdz"},
        "a 344-byte package whose deflated root layer declares 4 GiB uncompressed (past maxUncompressedBytes)",
        "USD_LIMIT_EXCEEDED")
    content = b"#usda 1.0\n" + b" " * (64 << 20)
    yield ("zip-deflate-overrun", {"zip-deflate-overrun.usdz": zip_archive([
        ZipEntry("root.usda", content, method=8, usize=64)])},
        {"input": "zip-deflate-overrun.usdz"},
        "a deflate entry declaring 64 bytes that really inflates to 64 MiB",
        "USD_DECOMPRESSION_FAILED")
    content = b"#usda 1.0\n" + b" " * (256 << 20)
    yield ("zip-deflate-honest", {"zip-deflate-honest.usdz": zip_archive([ZipEntry("root.usda", content, method=8)])},
           {"input": "zip-deflate-honest.usdz"},
           "a 260 KB package whose deflated root layer declares and really inflates to 256 MiB",
           "USD_LIMIT_EXCEEDED")
    shared = root
    a = ZipEntry("root.usda", shared)
    b = ZipEntry("other.usda", shared, offset=0)
    yield ("zip-overlapping", {"zip-overlapping.usdz": zip_archive([a, b])},
           {"input": "zip-overlapping.usdz"},
           "two central-directory records pointing at the same local header and data",
           "USD_ZIP_INVALID")
    yield ("zip-dotdot-name", {"zip-dotdot-name.usdz": usdz([("root.usda", root), ("../../etc/evil.usda", root)])},
           {"input": "zip-dotdot-name.usdz"}, "an entry named ../../etc/evil.usda", "USD_ZIP_UNSAFE_NAME")
    yield ("zip-absolute-name", {"zip-absolute-name.usdz": usdz([("root.usda", root), ("/etc/evil.usda", root)])},
           {"input": "zip-absolute-name.usdz"}, "an entry named /etc/evil.usda", "USD_ZIP_UNSAFE_NAME")

    # --- crate counts near 2^32 ---
    big = 0xFFFFFFFF
    yield ("crate-tokens-2e32", {"crate-tokens-2e32.usdc": crate_with_section("TOKENS", lambda s: with_count(s, big))},
           {"input": "crate-tokens-2e32.usdc"}, "TOKENS declares 2^32-1 tokens", "USD_LIMIT_EXCEEDED")
    yield ("crate-paths-2e32", {"crate-paths-2e32.usdc": crate_with_section("PATHS", lambda s: with_count(s, big))},
           {"input": "crate-paths-2e32.usdc"}, "PATHS declares 2^32-1 paths", "USD_LIMIT_EXCEEDED")
    yield ("crate-encoded-paths-2e32", {"crate-encoded-paths-2e32.usdc": crate_with_section(
        "PATHS", lambda s: with_count(with_count(s, big), big, at=8))},
        {"input": "crate-encoded-paths-2e32.usdc"}, "PATHS declares 2^32-1 paths and 2^32-1 encoded entries",
        "USD_LIMIT_EXCEEDED")
    yield ("crate-fields-2e32", {"crate-fields-2e32.usdc": crate_with_section("FIELDS", lambda s: with_count(s, big))},
           {"input": "crate-fields-2e32.usdc"}, "FIELDS declares 2^32-1 fields", "USD_LIMIT_EXCEEDED")
    yield ("crate-fieldsets-2e32", {"crate-fieldsets-2e32.usdc": crate_with_section(
        "FIELDSETS", lambda s: with_count(s, big))},
        {"input": "crate-fieldsets-2e32.usdc"}, "FIELDSETS declares 2^32-1 entries", "USD_LIMIT_EXCEEDED")
    yield ("crate-specs-2e32", {"crate-specs-2e32.usdc": crate_with_section("SPECS", lambda s: with_count(s, big))},
           {"input": "crate-specs-2e32.usdc"}, "SPECS declares 2^32-1 specs", "USD_LIMIT_EXCEEDED")
    yield ("crate-strings-2e32", {"crate-strings-2e32.usdc": crate_with_section(
        "STRINGS", lambda s: with_count(s, big))},
        {"input": "crate-strings-2e32.usdc"}, "STRINGS declares 2^32-1 strings", "USD_LIMIT_EXCEEDED")
    c = Crate()
    yield ("crate-array-2e32", {"crate-array-2e32.usdc": c.mesh(
        points=rep(T_VEC3F, c.value(struct.pack("<Q", big) + b"\0" * 24), ARRAY)).build()},
        {"input": "crate-array-2e32.usdc"}, "a point3f[] whose element count is 2^32-1 with 2 elements of data",
        "USD_LIMIT_EXCEEDED")
    c = Crate()
    yield ("crate-array-truncated", {"crate-array-truncated.usdc": c.mesh(
        points=rep(T_VEC3F, c.value(struct.pack("<Q", (256 << 20) - 1) + b"\0" * 24), ARRAY)).build()},
        {"input": "crate-array-truncated.usdc"},
        "a point3f[] claiming 256 Mi - 1 elements (just under maxArrayElements) backed by 24 bytes",
        "USD_TRUNCATED")
    c = Crate()
    ints = struct.pack("<Q", big) + compressed_ints([3] * 16)
    yield ("crate-compressed-array-2e32", {"crate-compressed-array-2e32.usdc": c.mesh(
        counts=rep(T_INT, c.value(ints, align=1), ARRAY | COMPRESSED)).build()},
        {"input": "crate-compressed-array-2e32.usdc"},
        "a compressed int[] (faceVertexCounts) whose element count is 2^32-1", "USD_LIMIT_EXCEEDED")

    # --- cyclic path tree ---
    c = Crate()
    c.jumps = [-1, 1, 0, 0, -2]  # /M has a child and a sibling, both at entry 2
    yield ("crate-path-cycle", {"crate-path-cycle.usdc": c.mesh().build()}, {"input": "crate-path-cycle.usdc"},
           "PATHS jumps that make one entry both the child and the sibling of /M (a revisit)", "USD_CORRUPT")
    c = Crate()
    c.jumps = [-1, -3, 0, 0, -2]
    yield ("crate-path-backjump", {"crate-path-backjump.usdc": c.mesh().build()},
           {"input": "crate-path-backjump.usdc"}, "a PATHS jump of -3 (backwards)", "USD_CORRUPT")

    # --- a deep chain of long names: spelled path text grows with depth × name length ---
    c = Crate()
    name = len(TOKENS)
    c.tokens = TOKENS + ["n" * 100]
    c.path_indexes = list(range(5 + 2000))
    c.element_tokens += [name] * 2000
    c.jumps = [-1, 4, 0, 0, -2] + [-1] * 1999 + [-2]  # /M gets a sibling chain of 2,000 nested prims
    c.num_paths = 5 + 2000
    c.mesh()
    # Every chain prim is a `def` naming the next one as its child; the root lists M and the chain.
    children = c.value(struct.pack("<QI", 1, name))
    c.fields[0] = (TOK["primChildren"], rep(T_TOKENVECTOR, c.value(struct.pack("<QII", 2, TOK["M"], name))))
    c.fields.append((TOK["primChildren"], rep(T_TOKENVECTOR, children)))
    chain_set = len(c.field_sets)
    c.field_sets += [len(c.fields) - 1, 1, 0xFFFFFFFF]
    c.specs += [(5 + i, chain_set, 6) for i in range(2000)]
    yield ("crate-deep-path-chain", {"crate-deep-path-chain.usdc": c.build()},
           {"input": "crate-deep-path-chain.usdc"},
           "2,000 composed prims nested under 100-byte names (their source paths would spell 200 MB)",
           "USD_LIMIT_EXCEEDED")

    # --- self-referencing values ---
    c = Crate()
    at = c.value(b"", align=8)
    # Dictionary at `at`: 1 entry, key string 0, embedded value whose rep is this same dictionary.
    c.value(struct.pack("<QIq", 1, 0, 8) + struct.pack("<Q", rep(T_DICT, at)), align=1)
    c.prim_extra = [("customData", rep(T_DICT, at))]
    yield ("crate-dict-self", {"crate-dict-self.usdc": c.mesh().build()}, {"input": "crate-dict-self.usdc"},
           "customData dictionary whose only value is the dictionary itself", "USD_CORRUPT")
    c = Crate()
    at = c.value(b"", align=8)
    c.value(struct.pack("<q", 8) + struct.pack("<Q", rep(T_VALUE, at)), align=1)
    c.prim_extra = [("customData", rep(T_VALUE, at))]
    yield ("crate-value-self", {"crate-value-self.usdc": c.mesh().build()}, {"input": "crate-value-self.usdc"},
           "an embedded VtValue (type 52) whose rep points at itself", "USD_CORRUPT")

    # --- LZ4 expanding past its limits ---
    def tokens_bomb(s):
        text = b"".join(t.encode() + b"\0" for t in TOKENS)
        blob = fast_run(0x41, 16 << 20)
        return struct.pack("<QQQ", len(TOKENS), len(text), len(blob)) + blob
    yield ("crate-lz4-overrun", {"crate-lz4-overrun.usdc": crate_with_section("TOKENS", tokens_bomb)},
           {"input": "crate-lz4-overrun.usdc"},
           "TOKENS declares 86 bytes but its LZ4 block expands to 16 MiB", "USD_DECOMPRESSION_FAILED")

    def tokens_declared_huge(s):
        blob = fast_run(0x41, 4096)
        return struct.pack("<QQQ", len(TOKENS), 1 << 40, len(blob)) + blob
    yield ("crate-lz4-declared-huge", {"crate-lz4-declared-huge.usdc": crate_with_section("TOKENS", tokens_declared_huge)},
           {"input": "crate-lz4-declared-huge.usdc"},
           "TOKENS declares 1 TiB uncompressed from 30 compressed bytes", "USD_DECOMPRESSION_FAILED")

    def tokens_chunked(s):
        chunk = lz4_run(0x41, 1 << 20)
        blob = bytes([127]) + (struct.pack("<i", len(chunk)) + chunk) * 2 + struct.pack("<i", 0x7E000000)
        return struct.pack("<QQQ", len(TOKENS), 1 << 20, len(blob)) + blob
    yield ("crate-lz4-chunks", {"crate-lz4-chunks.usdc": crate_with_section("TOKENS", tokens_chunked)},
           {"input": "crate-lz4-chunks.usdc"},
           "a TfFastCompression stream claiming 127 chunks, the third chunk header past the data",
           "USD_DECOMPRESSION_FAILED")

    # --- 50 M triangles from a tiny file ---
    def constant_ints(n, value):
        """A compressed int[] header + block for `n` copies of `value` (0 <= value < 128): the coded
        buffer is `common 0 | code byte 1 | zero code bytes | vint value`, and its LZ4 block is six
        literals, one overlapping match over the zero bytes and 13 closing literals."""
        coded_len = 4 + (2 * n + 7) // 8 + (1 if value else 0)
        head = struct.pack("<i", 0) + (b"\x01" if value else b"\0")
        closing = b"\0" * 12 + (bytes([value]) if value else b"\0")
        match = coded_len - 6 - len(closing)
        block = b"\0" + bytes([0x6F]) + head + b"\0" + b"\x01\x00" + lz4_length(match - 4) + lz4_literals(closing)
        return struct.pack("<Q", n) + struct.pack("<Q", len(block)) + block
    n = 50_000_000
    c = Crate()
    counts = rep(T_INT, c.value(constant_ints(n, 3), align=1), ARRAY | COMPRESSED)
    indices = rep(T_INT, c.value(constant_ints(3 * n, 0), align=1), ARRAY | COMPRESSED)
    yield ("crate-50m-triangles", {"crate-50m-triangles.usdc": c.mesh(counts=counts, indices=indices).build()},
           {"input": "crate-50m-triangles.usdc"},
           "a 197 KB crate whose compressed faceVertexCounts (50 M triangles) and faceVertexIndices (150 M) decode to 800 MB",
           "USD_LIMIT_EXCEEDED")

    # --- USDA ---
    yield ("usda-nested-100k", {"usda-nested-100k.usda": nested_usda(100_000)}, {"input": "usda-nested-100k.usda"},
           "100,000 nested prim blocks", "USD_LIMIT_EXCEEDED")
    yield ("usda-nested-dict-10k", {"usda-nested-dict-10k.usda": (
        b'#usda 1.0\ndef "a" (\n    customData = ' + b"{dictionary d=" * 10_000 + b"{}" + b"}" * 10_000
        + b"\n)\n{\n}\n")}, {"input": "usda-nested-dict-10k.usda"},
        "10,000 nested dictionaries in prim metadata", "USD_LIMIT_EXCEEDED")
    yield ("usda-nested-tuple-100k", {"usda-nested-tuple-100k.usda": (
        b'#usda 1.0\ndef "a" (\n    unknownKey = ' + b"([" * 50_000 + b"1" + b"])" * 50_000 + b"\n)\n{\n}\n")},
        {"input": "usda-nested-tuple-100k.usda"}, "100,000 nested tuples and lists in an untyped metadata value",
        "USD_LIMIT_EXCEEDED")

    # --- composition cycles inside one package ---
    def arc_layer(name, arc, target):
        meta = {"references": '    prepend references = @./%s@\n',
                "payload": '    prepend payload = @./%s@\n'}
        if arc == "subLayers":
            return ('#usda 1.0\n(\n    defaultPrim = "%s"\n    subLayers = [\n        @./%s@\n    ]\n)\n\n'
                    'def Xform "%s"\n{\n}\n' % (name, target, name)).encode()
        return usda_layer(name, name, meta[arc] % target)
    for arc in ("references", "subLayers", "payload"):
        files = [("root.usda", arc_layer("Root", arc, "b.usda")), ("b.usda", arc_layer("Root", arc, "c.usda")),
                 ("c.usda", arc_layer("Root", arc, "root.usda"))]
        name = "cycle-" + arc.lower()
        yield (name, {name + ".usdz": usdz(files)}, {"input": name + ".usdz"},
               "%s arcs root.usda -> b.usda -> c.usda -> root.usda inside one package" % arc,
               "USD_COMPOSITION_CYCLE")
    name = "cycle-self-reference"
    yield (name, {name + ".usdz": usdz([("root.usda", arc_layer("Root", "references", "root.usda"))])},
           {"input": name + ".usdz"}, "a layer whose default prim references its own layer", "USD_COMPOSITION_CYCLE")

    # --- textures declaring 30000×30000 ---
    yield ("png-30000", {"png-30000.usdz": usdz([("root.usda", TEXTURED_ROOT % b"png"),
                                                 ("textures/huge.png", huge_png(30000))])},
           {"input": "png-30000.usdz"},
           "a UsdPreviewSurface diffuse texture whose PNG header declares 30000x30000 (2.7 GB decoded)",
           "USD_LIMIT_EXCEEDED")
    yield ("jpeg-30000", {"jpeg-30000.usdz": usdz([("root.usda", TEXTURED_ROOT % b"jpg"),
                                                   ("textures/huge.jpg", huge_jpeg(30000))])},
           {"input": "jpeg-30000.usdz"},
           "the same material with a JPEG whose start-of-frame declares 30000x30000",
           "USD_LIMIT_EXCEEDED")

    # --- CapturedRoom JSON ---
    yield ("roomplan-nested-100k", {"roomplan-nested-100k.json": b'{"walls":' + b"[" * 100_000 + b"]" * 100_000
                                    + b"}"}, {"roomplan": "roomplan-nested-100k.json"},
           "CapturedRoom JSON with 100,000 nested arrays", "ROOMPLAN_LIMIT_EXCEEDED")
    yield ("roomplan-nested-objects", {"roomplan-nested-objects.json": room_json(extra=',"x":' + '{"a":' * 10_000
                                                                                 + "1" + "}" * 10_000)},
           {"roomplan": "roomplan-nested-objects.json"}, "CapturedRoom JSON with 10,000 nested objects",
           "ROOMPLAN_LIMIT_EXCEEDED")
    walls = "[" + ",".join(["{}"] * 10_001) + "]"
    yield ("roomplan-many-walls", {"roomplan-many-walls.json": room_json(walls=walls)},
           {"roomplan": "roomplan-many-walls.json"},
           "10,001 wall objects (past maxElements; counted before any element is read)", "ROOMPLAN_LIMIT_EXCEEDED")
    yield ("roomplan-long-string", {"roomplan-long-string.json": room_json(extra=',"x":"' + "A" * (128 << 10) + '"')},
           {"roomplan": "roomplan-long-string.json"}, "a 128 KiB string value", "ROOMPLAN_LIMIT_EXCEEDED")
    yield ("roomplan-long-number", {"roomplan-long-number.json": room_json(extra=',"x":1' + "0" * 100_000)},
           {"roomplan": "roomplan-long-number.json"}, "a number of 100,001 digits", "ROOMPLAN_LIMIT_EXCEEDED")
    corners = "[" + ",".join("[%d,0,0]" % (i % 7) for i in range(10_000)) + "]"
    floor = WALL.replace('"wall"', '"floor"').replace('"polygonCorners":[]', '"polygonCorners":' + corners)
    yield ("roomplan-polygon-10k", {"roomplan-polygon-10k.json": room_json().replace(
        b'"floors":[]', ('"floors":[' + floor % "00000000-0000-0000-0000-0000000000f1" + "]").encode())},
        {"roomplan": "roomplan-polygon-10k.json"}, "a floor with 10,000 polygon corners", "ROOMPLAN_LIMIT_EXCEEDED")
    # Both inputs: a valid package with a hostile JSON beside it.
    name = "both-valid-usd-nested-json"
    yield (name, {name + ".usdz": usdz([("root.usda", root)]),
                  name + ".json": b'{"walls":' + b"[" * 100_000 + b"]" * 100_000 + b"}"},
           {"input": name + ".usdz", "roomplan": name + ".json"},
           "a valid package with a CapturedRoom JSON of 100,000 nested arrays", "ROOMPLAN_LIMIT_EXCEEDED")


def main():
    listing = "--list" in sys.argv
    checking = "--check" in sys.argv
    index = []
    files = {}
    for name, case_files, invocation, attack, code in cases():
        for fname, data in case_files.items():
            assert fname not in files, fname
            files[fname] = data
        entry = {"name": name, "files": sorted(case_files), "attack": attack, "expected_code": code}
        entry.update(invocation)
        index.append(entry)
        if not checking:
            print("%-30s %-26s %9d bytes  %s" % (name, code, sum(len(d) for d in case_files.values()), attack))
    files["cases.json"] = (json.dumps({"cases": index}, indent=2, sort_keys=True) + "\n").encode()
    if listing:
        return
    if checking:
        stale = []
        present = set(os.listdir(OUT)) if os.path.isdir(OUT) else set()
        for fname, data in sorted(files.items()):
            path = os.path.join(OUT, fname)
            if fname not in present or open(path, "rb").read() != data:
                stale.append(fname)
        stale += sorted(present - set(files))
        if stale:
            sys.exit("gen-adversarial-fixtures: out of date: %s (rerun scripts/gen-adversarial-fixtures.py)"
                     % ", ".join(stale))
        print("gen-adversarial-fixtures: %d cases, %d files up to date" % (len(index), len(files)))
        return
    os.makedirs(OUT, exist_ok=True)
    for stale in sorted(set(os.listdir(OUT)) - set(files)):
        os.remove(os.path.join(OUT, stale))
    for fname, data in files.items():
        with open(os.path.join(OUT, fname), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
