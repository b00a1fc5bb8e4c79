#!/usr/bin/env python3
"""Load .glb files the way downstream tools do, and fail on any exception or warning.

    python3 scripts/check-glb.py FILE.glb [FILE.glb ...]

Needs `pip install trimesh pygltflib numpy` (pillow optional: with it trimesh also decodes the
embedded images). For each file:

  - trimesh.load(...) as a scene, and pygltflib.GLTF2().load(...), with Python warnings and
    log records at WARNING or above captured: any of them is a failure;
  - pygltflib's nodes must include layer nodes (`extras.crowdroom.kind` "layer", named `layer_<id>`)
    unless the file has no nodes (an input without geometry), every scene root must be one, every
    node name must be one loaders keep (1 to 63 characters of A-Z a-z 0-9 _ -) and unique, and the
    buffer's byteLength must match the binary blob pygltflib read;
  - one summary line per file: layers, nodes, meshes, triangles, vertices, materials, images.

Exits 1 when any file fails, 2 on usage errors.
"""

import logging
import re
import sys
import warnings

# A node name three.js, Blender and other loaders keep as written (NodeName in SceneModel).
SAFE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,63}$")


class _Capture(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(record)


def check(path):
    """Returns (summary, problems) for one file."""
    import pygltflib
    import trimesh

    problems = []
    handler = _Capture()
    root = logging.getLogger()
    previous_level = root.level
    root.addHandler(handler)
    root.setLevel(min(previous_level or logging.WARNING, logging.WARNING))
    summary = {}
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                scene = trimesh.load(path, force="scene")
                geometries = list(scene.geometry.values())
                summary["triangles"] = sum(len(g.faces) for g in geometries if hasattr(g, "faces"))
                summary["vertices"] = sum(len(g.vertices) for g in geometries if hasattr(g, "vertices"))
                summary["trimesh_geometries"] = len(geometries)
            except Exception as error:  # noqa: BLE001 - any loader failure is a finding
                problems.append(f"trimesh: {type(error).__name__}: {error}")
            try:
                gltf = pygltflib.GLTF2().load(path)
                names = [n.name or "" for n in gltf.nodes]
                kinds = [((n.extras or {}).get("crowdroom") or {}).get("kind") for n in gltf.nodes]
                layers = [i for i, k in enumerate(kinds) if k == "layer"]
                unsafe = [n for n in names if n and not SAFE_NAME.fullmatch(n)]
                if unsafe:
                    problems.append(f"pygltflib: node names loaders would not keep: {unsafe[:5]}")
                twice = sorted({n for n in names if n and names.count(n) > 1})
                if twice:
                    problems.append(f"pygltflib: node names used twice: {twice[:5]}")
                misnamed = [names[i] for i in layers if not names[i].startswith("layer_")]
                if misnamed:
                    problems.append(f"pygltflib: layer nodes not named layer_<id>: {misnamed[:5]}")
                summary["layers"] = len(layers)
                summary["nodes"] = len(gltf.nodes)
                summary["meshes"] = len(gltf.meshes)
                summary["materials"] = len(gltf.materials)
                summary["images"] = len(gltf.images)
                if gltf.nodes and not layers:
                    # A scene without geometry (a file with only empty groups) has no nodes at all.
                    problems.append("pygltflib: no layer node")
                scene_index = gltf.scene if gltf.scene is not None else 0
                if gltf.scenes and scene_index < len(gltf.scenes):
                    roots = gltf.scenes[scene_index].nodes or []
                    stray = [names[r] for r in roots if r not in layers]
                    if stray:
                        problems.append(f"pygltflib: scene roots that are not layers: {stray[:5]}")
                blob = gltf.binary_blob()
                if gltf.buffers:
                    if blob is None or len(blob) != gltf.buffers[0].byteLength:
                        got = None if blob is None else len(blob)
                        problems.append(f"pygltflib: buffer byteLength {gltf.buffers[0].byteLength} ≠ BIN {got}")
            except Exception as error:  # noqa: BLE001
                problems.append(f"pygltflib: {type(error).__name__}: {error}")
        for w in caught:
            problems.append(f"warning: {w.category.__name__}: {w.message}")
    finally:
        root.removeHandler(handler)
        root.setLevel(previous_level)
    for record in handler.records:
        problems.append(f"log {record.levelname} {record.name}: {record.getMessage()}")
    return summary, problems


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        import pygltflib  # noqa: F401
        import trimesh  # noqa: F401
    except ImportError as error:
        print(f"check-glb: {error}; run: pip install trimesh pygltflib numpy", file=sys.stderr)
        return 2
    failed = 0
    for path in argv[1:]:
        summary, problems = check(path)
        status = "FAIL" if problems else "ok"
        fields = " ".join(
            f"{k}={summary[k]}"
            for k in ("layers", "nodes", "meshes", "triangles", "vertices", "materials", "images")
            if k in summary
        )
        print(f"{status} {path}: {fields}")
        for p in problems:
            print(f"    {p}")
        failed += bool(problems)
    if failed:
        print(f"check-glb: {failed} of {len(argv) - 1} file(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
