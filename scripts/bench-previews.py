#!/usr/bin/env python3
"""The previews' cost and bytes, this build against another commit's, measured in one run.

For each INPUT (a .usdz, .usda, .usdc or RoomPlan .json; INPUT.json beside a .usdz is passed as its
--roomplan) and each of the two builds ("base": the commit --base, built in a git worktree beside
this checkout; "new": this checkout's release build):

  job        CPU seconds the previews add to a conversion: `convert` with every view minus
             `convert --no-thumbnails` (user + system of the process, every thread);
  per kind   the same with `--views KIND` alone, for each view kind that build knows (hero, card,
             card_small, orbit, plan);
  bytes      each image's WebP bytes and size, from the job's output; a feed entry (the card) and
             a room page (the card and the eight orbit frames).

Every command of both builds runs once per round, in turn, for --runs rounds after one warm-up, so
that the machine's drift hits both alike; min and median of the rounds are printed with the ratio
new / base of the medians. Only the ratios of one run compare: the machine's speed moves between
runs.

With --compare DIR it writes DIR/index.html, the page to judge the two by eye: for each INPUT the
card and two orbit frames as a phone of --display pixels' width shows them, the base build's
enlarged (bicubic) to that width beside the new build's at 1:1, and the region where they differ
most with each screen pixel drawn 2 x 2.

With --quality Q1,Q2,... it also weighs the new build's WebP quality: the card and the eight orbit
frames encoded at each quality against the same frames at quality 100, SSIM of the luma (Gaussian
window, sigma 1.5; mean and worst frame) at their own size, which is the phone's width, with the
bytes and the previews' CPU.

Usage:
  scripts/bench-previews.py --base REF [INPUT ...] [--runs 9] [--base-dir DIR]
                            [--new-worker .build/release/transcode-worker] [--quality 60,70,75,80]
                            [--compare DIR] [--display 1320] [--json FILE]

INPUT defaults to the RoomPlan samples and, when ../shared/corpus exists, its RoomPlan scans. The
base build is kept in --base-dir (default /tmp/transcode-bench-base/<REF>) and reused. Build the
new worker first (`swift build -c release --product transcode-worker`). Needs numpy and Pillow
with WebP (scripts/install-deps.sh installs both).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from importlib import import_module  # noqa: E402

orbit_bench = import_module("bench-orbit-size")


def default_inputs() -> list[str]:
    found = sorted(glob.glob(os.path.join(ROOT, "samples", "roomplan", "*.usdz")))
    corpus = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "roomplan", "usdz")
    found += sorted(glob.glob(os.path.join(corpus, "*.usdz")))
    found += sorted(glob.glob(os.path.join(os.path.dirname(corpus), "json", "*.json")))
    return found


def build_base(ref: str, directory: str) -> str:
    """The release worker of commit `ref`, built once in a worktree at `directory`."""
    binary = os.path.join(directory, ".build", "release", "transcode-worker")
    if os.path.exists(binary):
        return binary
    if not os.path.isdir(directory):
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", directory, ref], check=True)
    print(f"bench-previews: building {ref} in {directory} (release)", file=sys.stderr)
    subprocess.run(["swift", "build", "-c", "release", "--product", "transcode-worker"], cwd=directory,
                   check=True, stdout=subprocess.DEVNULL)
    return binary


def convert_args(worker: str, source: str, out: str, extra: list[str]) -> list[str]:
    argv = [worker, "convert", source, "--out", out]
    sidecar = os.path.splitext(source)[0] + ".json"
    if source.endswith(".usdz") and os.path.exists(sidecar):
        argv += ["--roomplan", sidecar]
    return argv + extra


def kinds_of(worker: str) -> list[str]:
    """The view kinds this build's convert accepts (older builds have no small card)."""
    text = subprocess.run([worker, "convert", "--help"], capture_output=True, text=True).stdout
    kinds = ["hero", "card", "orbit", "plan"]
    return kinds[:2] + ["card_small"] + kinds[2:] if "card_small" in text else kinds


def image_bytes(out: str) -> dict[str, tuple[int, str]]:
    """Each thumbnail's bytes and size, by file name."""
    from PIL import Image
    found = {}
    for path in sorted(glob.glob(os.path.join(out, "thumbs", "*.webp"))):
        with Image.open(path) as im:
            found[os.path.basename(path)] = (os.path.getsize(path), f"{im.width}x{im.height}")
    return found


def measure(args: argparse.Namespace, builds: dict[str, str], inputs: list[str], scratch: str) -> dict:
    commands: list[tuple[str, str, str, list[str]]] = []  # (input, build, what, argv)
    for source in inputs:
        for name, worker in builds.items():
            out = os.path.join(scratch, name, os.path.basename(source))
            commands.append((source, name, "none", convert_args(worker, source, out + "-none", ["--no-thumbnails"])))
            commands.append((source, name, "job", convert_args(worker, source, out + "-job", [])))
            for kind in kinds_of(worker):
                commands.append((source, name, kind, convert_args(worker, source, out + "-" + kind, ["--views", kind])))
    times: dict[tuple[str, str, str], list[float]] = {}
    for round_ in range(args.runs + 1):
        for source, name, what, argv in commands:
            t = orbit_bench.cpu_seconds(argv)
            if round_ > 0:
                times.setdefault((source, name, what), []).append(t)
        print(f"bench-previews: round {round_}/{args.runs}", file=sys.stderr)
    result: dict = {}
    for source in inputs:
        entry = result.setdefault(os.path.basename(source), {})
        for name in builds:
            none = statistics.median(times[(source, name, "none")])
            rows = {}
            for (s, n, what), values in times.items():
                if s != source or n != name or what == "none":
                    continue
                extra = [v - none for v in values]
                rows[what] = {"min": min(extra), "median": statistics.median(extra)}
            out = os.path.join(scratch, name, os.path.basename(source)) + "-job"
            entry[name] = {"cpu": rows, "images": image_bytes(out)}
    return result


def page_bytes(images: dict[str, tuple[int, str]]) -> tuple[int, int]:
    """Bytes of a feed entry (the card) and of a room page (the card and the eight orbit frames)."""
    card = images.get("card.webp", (0, ""))[0]
    orbit = sum(b for name, (b, _) in images.items() if name.startswith("orbit-"))
    return card, card + orbit


def report(result: dict) -> None:
    print("| input | view | base CPU s (min, median) | new CPU s (min, median) | new / base |")
    print("|---|---|---:|---:|---:|")
    for source, builds in result.items():
        base, new = builds["base"]["cpu"], builds["new"]["cpu"]
        for what in ["job"] + [k for k in ("hero", "card", "card_small", "orbit", "plan") if k in base or k in new]:
            b, n = base.get(what), new.get(what)
            cell = lambda r: f"{r['min']:.3f}, {r['median']:.3f}" if r else "—"  # noqa: E731
            ratio = f"{n['median'] / b['median']:.2f}" if b and n and b["median"] > 0 else "—"
            print(f"| {source} | {what} | {cell(b)} | {cell(n)} | {ratio} |")
    print()
    print("| input | image | base bytes (size) | new bytes (size) |")
    print("|---|---|---:|---:|")
    for source, builds in result.items():
        base, new = builds["base"]["images"], builds["new"]["images"]
        for name in sorted(set(base) | set(new)):
            cell = lambda v: f"{v[0]:,} ({v[1]})" if v else "—"  # noqa: E731
            print(f"| {source} | {name} | {cell(base.get(name))} | {cell(new.get(name))} |")
        (bc, bp), (nc, np_) = page_bytes(base), page_bytes(new)
        print(f"| {source} | feed card / room page | {bc:,} / {bp:,} | {nc:,} / {np_:,} |")


def quality_sweep(worker: str, inputs: list[str], qualities: list[int], runs: int, scratch: str) -> None:
    import numpy as np
    from PIL import Image
    print()
    print("| input | quality | SSIM mean (worst) | card + orbit bytes | previews CPU s (median) |")
    print("|---|---:|---:|---:|---:|")
    names = ["card.webp"] + [f"orbit-0{k}.webp" for k in range(8)]
    for source in inputs:
        outs = {}
        for q in [100] + qualities:
            out = os.path.join(scratch, f"q{q}", os.path.basename(source))
            argv = convert_args(worker, source, out, ["--webp-quality", str(q), "--no-plan"])
            none = convert_args(worker, source, out + "-none", ["--no-thumbnails", "--no-plan"])
            cpu = [orbit_bench.cpu_seconds(argv) - orbit_bench.cpu_seconds(none) for _ in range(runs)]
            outs[q] = (out, statistics.median(cpu))
        ref = [np.asarray(Image.open(os.path.join(outs[100][0], "thumbs", n)).convert("RGB"), dtype=np.float64)
               for n in names]
        for q in qualities:
            out, cpu = outs[q]
            scores = []
            for n, r in zip(names, ref):
                img = np.asarray(Image.open(os.path.join(out, "thumbs", n)).convert("RGB"), dtype=np.float64)
                scores.append(orbit_bench.ssim(r, img))
            size = sum(os.path.getsize(os.path.join(out, "thumbs", n)) for n in names)
            print(f"| {os.path.basename(source)} | {q} | {statistics.mean(scores):.4f} ({min(scores):.4f}) | "
                  f"{size:,} | {cpu:.3f} |")


def write_compare(directory: str, result_dirs: dict[str, dict[str, str]], display: int) -> None:
    """The side-by-side page (see the module's description)."""
    import html
    import numpy as np
    from PIL import Image
    os.makedirs(directory, exist_ok=True)
    sections = []
    for source, outs in result_dirs.items():
        stem = os.path.splitext(source)[0]
        rows = []
        for name in ("card.webp", "orbit-01.webp", "orbit-05.webp"):
            paths = {b: os.path.join(d, "thumbs", name) for b, d in outs.items()}
            if not all(os.path.exists(p) for p in paths.values()):
                continue
            new = Image.open(paths["new"]).convert("RGB")
            base = Image.open(paths["base"]).convert("RGB")
            size = (display, round(display * new.height / new.width))
            shown = {"base": base.resize(size, Image.BICUBIC) if base.size != size else base,
                     "new": new.resize(size, Image.BICUBIC) if new.size != size else new}
            cw, ch = size[0] // 4, size[1] // 4
            corner = orbit_bench.worst_window(np.asarray(shown["base"], dtype=np.float64),
                                              np.asarray(shown["new"], dtype=np.float64), cw, ch)
            figures, crops = [], []
            for build, image in shown.items():
                file = f"{stem}-{name[:-5]}-{build}"
                image.save(os.path.join(directory, file + ".png"))
                crop = image.crop((corner[0], corner[1], corner[0] + cw, corner[1] + ch)).resize(
                    (cw * 2, ch * 2), Image.NEAREST)
                crop.save(os.path.join(directory, file + "-crop.png"))
                source_size = Image.open(paths[build]).size
                label = f"{build}: {source_size[0]} x {source_size[1]}, {os.path.getsize(paths[build]):,} bytes" + (
                    f", enlarged to {size[0]} x {size[1]}" if source_size != size else ", 1:1")
                figures.append(f'<figure><img src="{file}.png" width="{size[0] // 2}"><figcaption>'
                               f'{html.escape(label)}</figcaption></figure>')
                crops.append(f'<figure><img src="{file}-crop.png"><figcaption>{html.escape(build)}: the region '
                             f'that differs most, each screen pixel 2 x 2</figcaption></figure>')
            rows.append(f'<h3>{html.escape(name)}</h3><div class="row">{"".join(figures)}</div>'
                        f'<div class="row">{"".join(crops)}</div>')
        sections.append(f'<h2>{html.escape(source)}</h2>{"".join(rows)}')
    page = ("<!doctype html><meta charset=utf-8><title>Previews side by side</title><style>"
            "body{font:14px/1.4 sans-serif;margin:16px}.row{display:flex;flex-wrap:wrap;gap:12px}"
            "figure{margin:0}img{display:block;image-rendering:pixelated}</style>"
            f"<h1>Previews at a {display}-pixel-wide phone: base enlarged, new at 1:1</h1>" + "".join(sections))
    with open(os.path.join(directory, "index.html"), "w") as f:
        f.write(page)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="*")
    parser.add_argument("--base", required=True, help="the commit to compare against (built in a worktree)")
    parser.add_argument("--base-dir", help="where the base worktree and build live")
    parser.add_argument("--new-worker", default=os.path.join(ROOT, ".build", "release", "transcode-worker"))
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--quality", help="comma-separated WebP qualities to weigh on the new build")
    parser.add_argument("--json", help="also write the figures to FILE")
    parser.add_argument("--compare", help="write the side-by-side page into DIR")
    parser.add_argument("--display", type=int, default=1320, help="the phone's width in pixels (default 1320)")
    args = parser.parse_args()
    inputs = args.inputs or default_inputs()
    if not os.path.exists(args.new_worker):
        sys.exit(f"bench-previews: build the new worker first: {args.new_worker}")
    base_dir = args.base_dir or os.path.join(tempfile.gettempdir(), "transcode-bench-base", args.base.replace("/", "_"))
    builds = {"base": build_base(args.base, base_dir), "new": args.new_worker}
    with tempfile.TemporaryDirectory(prefix="bench-previews.") as scratch:
        result = measure(args, builds, inputs, scratch)
        report(result)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(result, f, indent=1, sort_keys=True)
        if args.compare:
            dirs = {os.path.basename(src): {name: os.path.join(scratch, name, os.path.basename(src)) + "-job"
                                            for name in builds} for src in inputs}
            write_compare(args.compare, dirs, args.display)
        if args.quality:
            quality_sweep(args.new_worker, inputs, [int(q) for q in args.quality.split(",")], args.runs, scratch)


if __name__ == "__main__":
    main()
