#!/usr/bin/env python3
"""Writes samples/textured/: a small textured USDZ (a box whose UsdPreviewSurface samples
textures/albedo.png) and, under redacted/, a replacement texture with the same path, used to
exercise `convert --redacted-textures`. Deterministic: fixed pixels and a fixed zip layout.

Usage: python3 samples/make_textured_sample.py [OUTDIR]   (default: samples/textured)
Needs usd-core (pip install usd-core) for the crate layer.
"""
import argparse
import os
import struct
import tempfile
import zlib
import zipfile


def png(width, height, pixel):
    """An RGB PNG whose pixel (x, y) is pixel(x, y) -> (r, g, b)."""
    rows = b"".join(b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def layer_bytes():
    from pxr import Sdf, Usd, UsdGeom, UsdShade, Gf, Vt

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "box.usdc")
        stage = Usd.Stage.CreateNew(path)
        UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.y)
        UsdGeom.SetStageMetersPerUnit(stage, 1.0)
        root = UsdGeom.Xform.Define(stage, "/Box")
        stage.SetDefaultPrim(root.GetPrim())
        mesh = UsdGeom.Mesh.Define(stage, "/Box/Geom")
        s = 0.5
        pts = [(-s, -s, s), (s, -s, s), (s, s, s), (-s, s, s), (-s, -s, -s), (s, -s, -s), (s, s, -s), (-s, s, -s)]
        faces = [(0, 1, 2, 3), (1, 5, 6, 2), (5, 4, 7, 6), (4, 0, 3, 7), (3, 2, 6, 7), (4, 5, 1, 0)]
        mesh.CreatePointsAttr(Vt.Vec3fArray([Gf.Vec3f(*p) for p in pts]))
        mesh.CreateFaceVertexCountsAttr(Vt.IntArray([4] * 6))
        mesh.CreateFaceVertexIndicesAttr(Vt.IntArray([i for f in faces for i in f]))
        mesh.CreateSubdivisionSchemeAttr("none")
        st = UsdGeom.PrimvarsAPI(mesh).CreatePrimvar("st", Sdf.ValueTypeNames.TexCoord2fArray, UsdGeom.Tokens.faceVarying)
        st.Set(Vt.Vec2fArray([Gf.Vec2f(u, v) for _ in faces for (u, v) in ((0, 0), (1, 0), (1, 1), (0, 1))]))
        mat = UsdShade.Material.Define(stage, "/Box/Mat")
        shader = UsdShade.Shader.Define(stage, "/Box/Mat/PBR")
        shader.CreateIdAttr("UsdPreviewSurface")
        shader.CreateInput("roughness", Sdf.ValueTypeNames.Float).Set(0.6)
        reader = UsdShade.Shader.Define(stage, "/Box/Mat/St")
        reader.CreateIdAttr("UsdPrimvarReader_float2")
        reader.CreateInput("varname", Sdf.ValueTypeNames.Token).Set("st")
        tex = UsdShade.Shader.Define(stage, "/Box/Mat/Albedo")
        tex.CreateIdAttr("UsdUVTexture")
        tex.CreateInput("file", Sdf.ValueTypeNames.Asset).Set("./textures/albedo.png")
        tex.CreateInput("st", Sdf.ValueTypeNames.Float2).ConnectToSource(reader.ConnectableAPI(), "result")
        tex.CreateOutput("rgb", Sdf.ValueTypeNames.Float3)
        shader.CreateInput("diffuseColor", Sdf.ValueTypeNames.Color3f).ConnectToSource(tex.ConnectableAPI(), "rgb")
        mat.CreateSurfaceOutput().ConnectToSource(shader.ConnectableAPI(), "surface")
        UsdShade.MaterialBindingAPI.Apply(mesh.GetPrim()).Bind(mat)
        stage.GetRootLayer().Save()
        with open(path, "rb") as f:
            return f.read()


def write_usdz(path, entries):
    """A USDZ: stored entries, data aligned to 64 bytes, fixed timestamps."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            offset = z.fp.tell() + 30 + len(name.encode())
            pad = (-(offset + 4)) % 64
            info.extra = struct.pack("<HH", 0x1986, pad) + b"\x00" * pad
            z.writestr(info, data)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "textured"),
                        metavar="OUT_DIR", help="where to write (default: samples/textured)")
    out = parser.parse_args().out
    os.makedirs(os.path.join(out, "redacted", "textures"), exist_ok=True)
    original = png(16, 16, lambda x, y: (200, 40 + 10 * x, 40 + 10 * y))   # a warm gradient ("a face")
    redacted = png(16, 16, lambda x, y: (128, 128, 128))                      # flat grey
    write_usdz(os.path.join(out, "textured_box.usdz"), [("box.usdc", layer_bytes()), ("textures/albedo.png", original)])
    with open(os.path.join(out, "redacted", "textures", "albedo.png"), "wb") as f:
        f.write(redacted)
    print(f"wrote {out}/textured_box.usdz and {out}/redacted/textures/albedo.png")


if __name__ == "__main__":
    main()
