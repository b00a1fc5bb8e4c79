#!/usr/bin/env python3
"""Thumbnail rendering benchmark: our software renderer against peers, measured in one run.

What is measured, per input (the RoomPlan-like `room.usdz` and the 600k-triangle `dense.usdz`
written by scripts/gen-bench-inputs.py):

  ours      the command line given by --ours-cmd (a template, see below), as a whole process:
            parse, layering, outputs and 8 orbit frames at SIZE x SIZE, WebP-encoded.
  f3d       PyPI `f3d` (offscreen, EGL/llvmpipe or whatever backend it finds), loading the
            .glb of the same geometry and rendering 8 orbit frames at SIZE x SIZE in memory
            (render_to_image, no file written). Reported twice: the whole process and the
            render loop alone (first frame included, so shader compilation counts).
  pyrender  pyrender with PyOpenGL's OSMesa platform, same glb, same frames (skipped with a
            note when pyrender or OSMesa is not installed).

Each program runs --warmup times unmeasured, then --runs times, interleaved with the others in every
round so machine noise hits them alike. CPU time is user + system of the process (all its
threads; llvmpipe renders on every core). Medians are printed with ratios ours / peer; only
ratios from one run are meaningful (the machines are noisy).

Our command is a template so it can follow the CLI as it grows. Placeholders: {worker} (the
transcode-worker binary), {input}, {out} (a fresh empty directory), {size}, {view}. Default:

  {worker} convert {input} --out {out} --views orbit --thumb-size {size} --no-plan

When our command fails (for example because the CLI does not take those flags yet) the peers
are still measured and reported. --views-cmd (same placeholders; {view} is hero, card, orbit or
plan) additionally times one view kind at a time at its default size for the room input.

The .glb the peers load is made by `{worker} convert` (same geometry, same textures); when the
worker is not built, usd-core + trimesh export the meshes instead (geometry and base colours).

Usage:
  scripts/bench-thumbnails.py [--inputs DIR] [--runs 5] [--warmup 1] [--size 512]
                              [--worker .build/release/transcode-worker] [--ours-cmd TEMPLATE]
                              [--views-cmd TEMPLATE] [--peers f3d,pyrender] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

DEFAULT_OURS = "{worker} convert {input} --out {out} --views orbit --thumb-size {size} --no-plan"
DEFAULT_VIEW_SIZES = {"hero": (1024, 768), "card": (512, 384), "orbit": (768, 576), "plan": (1024, 1024)}

# Child script for f3d: loads the glb, renders `frames` orbit frames, prints JSON timings.
F3D_CHILD = r"""
import json, resource, sys, time
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
glb, size, frames = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
import f3d
f3d.Log.set_verbose_level(f3d.Log.QUIET)
engine = f3d.Engine.create(True)
engine.window.size = (size, size)
c0, t0 = cpu(), time.perf_counter()
engine.scene.add(glb)
cam = engine.window.camera
cam.reset_to_bounds()
cam.elevation(35)
c1, t1 = cpu(), time.perf_counter()
for k in range(frames):
    img = engine.window.render_to_image()
    cam.azimuth(360.0 / frames)
c2, t2 = cpu(), time.perf_counter()
print(json.dumps({"load_cpu": c1 - c0, "load_wall": t1 - t0, "render_cpu": c2 - c1, "render_wall": t2 - t1,
                  "width": img.width, "height": img.height}))
"""

# Child script for pyrender (OSMesa): same frames around the scene's centroid.
PYRENDER_CHILD = r"""
import os
os.environ.setdefault("PYOPENGL_PLATFORM", "osmesa")
import json, math, resource, sys, time
import numpy as np
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
glb, size, frames = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
import pyrender, trimesh
c0, t0 = cpu(), time.perf_counter()
tm = trimesh.load(glb, force="scene")
scene = pyrender.Scene.from_trimesh_scene(tm, ambient_light=[0.3, 0.3, 0.3])
lo, hi = tm.bounds
centre, radius = (lo + hi) / 2, float(np.linalg.norm(hi - lo)) / 2
camera = pyrender.PerspectiveCamera(yfov=math.radians(38))
node = scene.add(camera, pose=np.eye(4))
scene.add(pyrender.DirectionalLight(intensity=3.0), pose=np.eye(4))
renderer = pyrender.OffscreenRenderer(size, size)
c1, t1 = cpu(), time.perf_counter()
for k in range(frames):
    az, el = 2 * math.pi * k / frames, math.radians(35)
    d = np.array([math.sin(az) * math.cos(el), math.sin(el), math.cos(az) * math.cos(el)])
    eye = centre + d * radius * 2.8
    f = (centre - eye) / np.linalg.norm(centre - eye)
    r = np.cross(f, [0, 1, 0]); r /= np.linalg.norm(r)
    u = np.cross(r, f)
    pose = np.eye(4); pose[:3, 0], pose[:3, 1], pose[:3, 2], pose[:3, 3] = r, u, -f, eye
    scene.set_pose(node, pose)
    color, depth = renderer.render(scene)
c2, t2 = cpu(), time.perf_counter()
renderer.delete()
print(json.dumps({"load_cpu": c1 - c0, "load_wall": t1 - t0, "render_cpu": c2 - c1, "render_wall": t2 - t1,
                  "width": int(color.shape[1]), "height": int(color.shape[0])}))
"""


def run_measured(argv: list[str], env: dict | None = None, timeout: float = 600) -> dict:
    """Runs a process to completion; returns wall time, exit code, stdout and stderr."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        return {"ok": False, "exit": None, "wall": time.perf_counter() - start,
                "stdout": out.decode(errors="replace"), "stderr": "timeout"}
    return {"ok": proc.returncode == 0, "exit": proc.returncode, "wall": time.perf_counter() - start,
            "stdout": out.decode(errors="replace"), "stderr": err.decode(errors="replace")}


def run_with_rusage(argv: list[str], env: dict | None = None, timeout: float = 600) -> dict:
    """Like run_measured, but CPU time from the difference of RUSAGE_CHILDREN around the run (one
    child at a time, so the difference is that child's)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = run_measured(argv, env=env, timeout=timeout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return result


def ensure_inputs(directory: str) -> dict[str, str]:
    wanted = {"room": os.path.join(directory, "room.usdz"), "dense": os.path.join(directory, "dense.usdz")}
    missing = [k for k, p in wanted.items() if not os.path.exists(p)]
    if missing:
        print(f"writing {', '.join(missing)} with scripts/gen-bench-inputs.py into {directory}", flush=True)
        subprocess.run([sys.executable, os.path.join(HERE, "gen-bench-inputs.py"), directory, "--only",
                        ",".join(missing)], check=True)
    return wanted


def glb_with_worker(worker: str, usdz: str, out_dir: str) -> str | None:
    if not worker or not os.path.exists(worker):
        return None
    # trimesh (pyrender's loader) has no meshopt decoder: the uncompressed model.
    r = subprocess.run([worker, "convert", usdz, "--out", out_dir, "--no-thumbnails", "--glb-compression", "none",
                        "--texture-format", "original"],
                       capture_output=True)
    if r.returncode != 0:  # a worker without those flags
        r = subprocess.run([worker, "convert", usdz, "--out", out_dir], capture_output=True)
    glb = os.path.join(out_dir, "model.glb")
    return glb if r.returncode == 0 and os.path.exists(glb) else None


def glb_with_usdcore(usdz: str, glb: str) -> str:
    """Exports every mesh of the stage (world transforms, metres, Y up) with trimesh."""
    import numpy as np
    import trimesh
    from pxr import Usd, UsdGeom

    stage = Usd.Stage.Open(usdz)
    mpu = UsdGeom.GetStageMetersPerUnit(stage) or 0.01
    z_up = UsdGeom.GetStageUpAxis(stage) == UsdGeom.Tokens.z
    scene = trimesh.Scene()
    cache = UsdGeom.XformCache()
    for prim in stage.Traverse():
        if not prim.IsA(UsdGeom.Mesh):
            continue
        mesh = UsdGeom.Mesh(prim)
        points = np.array(mesh.GetPointsAttr().Get() or [], dtype=np.float64)
        counts = mesh.GetFaceVertexCountsAttr().Get() or []
        indices = mesh.GetFaceVertexIndicesAttr().Get() or []
        if len(points) == 0:
            continue
        faces, k = [], 0
        for n in counts:
            for i in range(1, n - 1):
                faces.append((indices[k], indices[k + i], indices[k + i + 1]))
            k += n
        m = np.array(cache.GetLocalToWorldTransform(prim), dtype=np.float64)
        world = np.c_[points, np.ones(len(points))] @ m
        pts = world[:, :3] * mpu
        if z_up:
            pts = pts[:, [0, 2, 1]] * np.array([1, 1, -1])
        scene.add_geometry(trimesh.Trimesh(vertices=pts, faces=np.array(faces), process=False))
    scene.export(glb)
    return glb


def median(values: list[float]) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v: float | None, unit: str = "s") -> str:
    return "    –   " if v is None else f"{v:7.3f}{unit}"


def ratio(a: float | None, b: float | None) -> str:
    return "   –  " if a is None or b is None or b == 0 else f"{a / b:6.3f}"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--inputs", default=None, help="folder with room.usdz and dense.usdz (written when missing)")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--size", type=int, default=512, help="orbit frame side in pixels (default 512)")
    p.add_argument("--frames", type=int, default=8)
    p.add_argument("--worker", default=os.path.join(ROOT, ".build", "release", "transcode-worker"))
    p.add_argument("--ours-cmd", default=DEFAULT_OURS, help="our command line template (see the module doc)")
    p.add_argument("--views-cmd", default=None,
                   help="template timing one view kind at a time on the room ({view}, {size} = WIDTHxHEIGHT)")
    p.add_argument("--peers", default="f3d,pyrender")
    p.add_argument("--only", default="room,dense", help="inputs to measure (room,dense)")
    p.add_argument("--json", default=None, help="also write the medians as JSON")
    args = p.parse_args()

    work = tempfile.mkdtemp(prefix="bench-thumbnails-")
    inputs_dir = args.inputs or os.path.join(work, "inputs")
    os.makedirs(inputs_dir, exist_ok=True)
    inputs = {k: v for k, v in ensure_inputs(inputs_dir).items() if k in args.only.split(",")}
    peers = [x for x in args.peers.split(",") if x]

    # One glb per input for the peers.
    glbs = {}
    for name, usdz in inputs.items():
        out = os.path.join(work, f"glb-{name}")
        os.makedirs(out, exist_ok=True)
        glb = glb_with_worker(args.worker, usdz, out)
        source = "transcode-worker convert"
        if glb is None:
            glb = glb_with_usdcore(usdz, os.path.join(out, "model.glb"))
            source = "usd-core + trimesh"
        glbs[name] = glb
        print(f"{name}: {usdz} ({os.path.getsize(usdz) / 1e6:.2f} MB) → {glb} via {source}", flush=True)

    def ours_argv(usdz: str, size: str, view: str, template: str) -> list[str]:
        out = tempfile.mkdtemp(prefix="ours-", dir=work)
        line = template.format(worker=shlex.quote(args.worker), input=shlex.quote(usdz), out=shlex.quote(out),
                               size=size, view=view)
        return shlex.split(line)

    available = {}
    for peer in peers:
        module = "f3d" if peer == "f3d" else "pyrender"
        env = dict(os.environ, PYOPENGL_PLATFORM="osmesa") if peer == "pyrender" else None
        check = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, env=env)
        available[peer] = check.returncode == 0
        if not available[peer]:
            note = check.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["not importable"]
            print(f"{peer}: skipped ({note[0]})", flush=True)

    results: dict = {}
    for name, usdz in inputs.items():
        samples: dict[str, dict[str, list]] = {}

        def record(program: str, key: str, value) -> None:
            samples.setdefault(program, {}).setdefault(key, []).append(value)

        notes: dict[str, str] = {}
        for round_index in range(args.warmup + args.runs):
            measured = round_index >= args.warmup
            r = run_with_rusage(ours_argv(usdz, str(args.size), "orbit", args.ours_cmd))
            if r["ok"]:
                if measured:
                    record("ours", "wall", r["wall"])
                    record("ours", "cpu", r["cpu"])
            else:
                first = (r["stderr"].strip().splitlines() or ["no output"])[0]
                notes["ours"] = f"command failed (exit {r['exit']}): {first[:160]}"
            for peer in peers:
                if not available.get(peer):
                    continue
                child = F3D_CHILD if peer == "f3d" else PYRENDER_CHILD
                env = dict(os.environ, PYOPENGL_PLATFORM="osmesa") if peer == "pyrender" else None
                r = run_with_rusage([sys.executable, "-c", child, glbs[name], str(args.size), str(args.frames)], env=env)
                if not r["ok"]:
                    notes[peer] = f"failed (exit {r['exit']}): {(r['stderr'].strip().splitlines() or [''])[-1][:160]}"
                    continue
                if measured:
                    line = [x for x in r["stdout"].splitlines() if x.startswith("{")][-1]
                    inner = json.loads(line)
                    record(peer, "wall", r["wall"])
                    record(peer, "cpu", r["cpu"])
                    record(peer, "render_wall", inner["render_wall"])
                    record(peer, "render_cpu", inner["render_cpu"])
        med = {prog: {k: median(v) for k, v in vals.items()} for prog, vals in samples.items()}
        results[name] = {"medians": med, "notes": notes, "runs": args.runs}

        print(f"\n== {name}: {args.frames} orbit frames at {args.size}×{args.size} (median of {args.runs}) ==")
        print(f"{'program':<22}{'wall':>10}{'cpu':>10}   notes")
        ours = med.get("ours", {})
        print(f"{'ours (whole process)':<22}{fmt(ours.get('wall'))}{fmt(ours.get('cpu'))}   {notes.get('ours', '')}")
        for peer in peers:
            m = med.get(peer)
            if not m:
                if peer in notes or not available.get(peer):
                    print(f"{peer:<22}{fmt(None)}{fmt(None)}   {notes.get(peer, 'not installed')}")
                continue
            print(f"{peer + ' (whole process)':<22}{fmt(m['wall'])}{fmt(m['cpu'])}")
            print(f"{peer + ' (render loop)':<22}{fmt(m['render_wall'])}{fmt(m['render_cpu'])}")
        if ours:
            print("ratios ours / peer (cpu; wall):")
            for peer in peers:
                m = med.get(peer)
                if m:
                    print(f"  vs {peer} whole process {ratio(ours.get('cpu'), m['cpu'])}; {ratio(ours.get('wall'), m['wall'])}"
                          f"   vs render loop {ratio(ours.get('cpu'), m['render_cpu'])}; "
                          f"{ratio(ours.get('wall'), m['render_wall'])}")

    if args.views_cmd and "room" in inputs:
        print("\n== room: one view kind per process, default sizes (median) ==")
        per_view = {}
        for view, (w, h) in DEFAULT_VIEW_SIZES.items():
            walls, cpus, note = [], [], ""
            for i in range(args.warmup + args.runs):
                r = run_with_rusage(ours_argv(inputs["room"], f"{w}x{h}", view, args.views_cmd))
                if not r["ok"]:
                    note = f"command failed (exit {r['exit']})"
                    break
                if i >= args.warmup:
                    walls.append(r["wall"])
                    cpus.append(r["cpu"])
            per_view[view] = {"wall": median(walls), "cpu": median(cpus), "note": note}
            print(f"{view:<8}{w}×{h:<6}{fmt(per_view[view]['wall'])}{fmt(per_view[view]['cpu'])}   {note}")
        results["room_per_view"] = per_view

    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2, sort_keys=True)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
