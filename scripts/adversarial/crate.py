"""Crate files (version 0.8.0): the 32-bit integer coding and compressed integer blocks, and `Crate`,
a one-Mesh layer whose tables can be replaced to build hostile variants."""

import struct

from .lz4 import fast


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
