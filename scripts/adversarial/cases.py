"""The cases: each hostile input with its files, how `convert` is invoked, what it attacks and the
error code it must end in."""

import struct

from .capturedroom import WALL, room_json
from .crate import (ARRAY, COMPRESSED, T_DICT, T_INT, T_TOKENVECTOR, T_VALUE, T_VEC3F, TOK, TOKENS, Crate,
                    compressed_ints, crate_with_section, rep, with_count)
from .images import huge_jpeg, huge_png
from .lz4 import fast_run, lz4_length, lz4_literals, lz4_run
from .usda import TEXTURED_ROOT, nested_usda, usda_layer
from .ziparchive import ZipEntry, usdz, zip_archive


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
