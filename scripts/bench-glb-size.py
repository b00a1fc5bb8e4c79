#!/usr/bin/env python3
"""Model size against gltfpack, measured in the same run.

For every sample and corpus input, and the `.model` exports furnished with Apple's catalog models that
`scripts/gen-model-export.py` writes to bench-out/inputs when they are there, with the built binary:

  ours      <binary> convert INPUT --out DIR --no-thumbnails --no-plan  (meshopt, the default)
  plain     <binary> convert INPUT --out DIR --no-thumbnails --no-plan --glb-compression none --texture-format original
  gltfpack  gltfpack -i plain/model.glb -o OUT.glb -cc -kn -km -ke      (Debian package gltfpack:
            meshopt compression with names, materials and extras kept, as a layered editor needs)

Prints a Markdown table: the source's bytes (.usdz, or the RoomPlan JSON), the plain model's, ours,
gltfpack's, ours / gltfpack (at most 1.0 is the goal), ours / source, and the wall time of our
convert against gltfpack's run (gltfpack's time excludes producing its input). Also says whether
each gltfpack output kept the node count of ours (gltfpack may merge nodes). Raw numbers go to
bench-out/glb-size.json. Exit status: 0 when the benchmark ran, 2 on a usage error.

    python3 scripts/bench-glb-size.py [--binary .build/release/transcode-worker] [--corpus ../shared/corpus]
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def inputs(corpus):
    out = [("samples/room.usdz", ["samples/room.usdz"], "samples/room.usdz"),
           ("samples/textured/textured_box.usdz", ["samples/textured/textured_box.usdz"],
            "samples/textured/textured_box.usdz")]
    with open(os.path.join(ROOT, "samples/roomplan/index.json")) as f:
        for s in json.load(f):
            usdz, js = "samples/roomplan/" + s["usdz"], "samples/roomplan/" + s["json"]
            out.append((s["usdz"] + " + json", [usdz, "--roomplan", js], usdz))
    for name in ("catalog_dining", "catalog_living"):  # scripts/gen-model-export.py
        generated = "bench-out/inputs/" + name
        if os.path.exists(os.path.join(ROOT, generated + ".usdz")):
            out.append((name + ".usdz + json (generated)", [generated + ".usdz", "--roomplan", generated + ".json"],
                        generated + ".usdz"))
    if corpus and os.path.isdir(corpus):
        with open(os.path.join(corpus, "USD_CORE_ANALYSIS.json")) as f:
            for e in json.load(f):
                if "open_error" in e or not e["file"].endswith(".usdz"):
                    continue
                path = os.path.join(corpus, e["file"])
                out.append((e["file"], [path], path))
    return out


def node_count(glb):
    with open(glb, "rb") as f:
        data = f.read()
    length = struct.unpack_from("<I", data, 12)[0]
    return len(json.loads(data[20:20 + length]).get("nodes", []))


def run(cmd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    return r, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build/release/transcode-worker"))
    ap.add_argument("--corpus", default=os.path.join(os.path.dirname(ROOT), "shared/corpus"))
    args = ap.parse_args()
    if not os.path.exists(args.binary):
        print(f"no binary at {args.binary} (swift build -c release)", file=sys.stderr)
        return 2
    gltfpack = shutil.which("gltfpack")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, argv, source) in enumerate(inputs(args.corpus)):
            ours_dir, plain_dir = os.path.join(tmp, f"o{i}"), os.path.join(tmp, f"p{i}")
            r1, t_ours = run([args.binary, "convert", *argv, "--out", ours_dir, "--no-thumbnails", "--no-plan"])
            r2, _ = run([args.binary, "convert", *argv, "--out", plain_dir, "--no-thumbnails", "--no-plan", "--glb-compression", "none",
                         "--texture-format", "original"])
            if r1.returncode != 0 or r2.returncode != 0:
                print(f"skip {label}: convert failed ({(r1.stderr or r2.stderr).strip()[:120]})")
                continue
            row = {"input": label, "source": os.path.getsize(os.path.join(ROOT, source)),
                   "plain": os.path.getsize(os.path.join(plain_dir, "model.glb")),
                   "ours": os.path.getsize(os.path.join(ours_dir, "model.glb")), "ours_s": t_ours,
                   "nodes": node_count(os.path.join(ours_dir, "model.glb"))}
            if gltfpack:
                packed = os.path.join(tmp, f"g{i}.glb")
                r3, t_pack = run([gltfpack, "-i", os.path.join(plain_dir, "model.glb"), "-o", packed,
                                  "-cc", "-kn", "-km", "-ke"])
                if r3.returncode == 0:
                    row.update(gltfpack=os.path.getsize(packed), gltfpack_s=t_pack, gltfpack_nodes=node_count(packed))
            rows.append(row)
    print("| input | source | plain | ours (meshopt) | gltfpack | ours / gltfpack | ours / source | nodes kept by gltfpack | ours s | gltfpack s |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---:|---:|")
    for r in rows:
        g = r.get("gltfpack")
        ratio = f"{r['ours'] / g:.2f}" if g else ""
        kept = "" if g is None else ("yes" if r["gltfpack_nodes"] == r["nodes"] else f"no ({r['gltfpack_nodes']} of {r['nodes']})")
        g_bytes = "" if g is None else f"{g:,}"
        g_time = "" if g is None else f"{r['gltfpack_s']:.3f}"
        print(f"| {r['input']} | {r['source']:,} | {r['plain']:,} | {r['ours']:,} | {g_bytes} | {ratio} | "
              f"{r['ours'] / r['source']:.2f} | {kept} | {r['ours_s']:.3f} | {g_time} |")
    if not gltfpack:
        print("gltfpack is not installed (apt-get install gltfpack): its columns are empty")
    os.makedirs(os.path.join(ROOT, "bench-out"), exist_ok=True)
    with open(os.path.join(ROOT, "bench-out", "glb-size.json"), "w") as f:
        json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
