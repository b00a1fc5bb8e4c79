#!/usr/bin/env python3
"""What the orbit frames' size costs and what it shows: CPU against fidelity on a phone's screen.

For each INPUT (a .usdz, .usda, .usdc or RoomPlan .json; INPUT.json beside a .usdz is passed as
its --roomplan) and each orbit size of --sizes:

  CPU        the eleven views' CPU seconds: `convert` with every view at that --orbit-size minus
             `convert --no-thumbnails` (user + system of the process, medians of --runs rounds,
             every command once per round so machine noise hits them alike);
  fidelity   the eight orbit frames enlarged (bicubic) to the display width, as a phone shows a
             frame across its screen, against the same frames rendered at that width (WebP
             quality 100): SSIM of the luma (Gaussian window, sigma 1.5; mean and worst frame)
             and PSNR over RGB.

The first size is the reference of the "CPU vs first" column. Only figures from one run compare:
the machine's speed moves between runs.

Usage:
  scripts/bench-orbit-size.py [INPUT ...] [--sizes 768x576,640x480,512x384] [--display 1170]
                              [--runs 9] [--worker .build/release/transcode-worker]

INPUT defaults to samples/roomplan/parametric_two_sections.usdz. Build the worker first
(`swift build -c release --static-swift-stdlib`). Needs numpy and Pillow with WebP
(scripts/install-deps.sh installs both).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def parse_size(text: str) -> tuple[int, int]:
    w, _, h = text.partition("x")
    if not (w.isdigit() and h.isdigit() and 16 <= int(w) <= 4096 and 16 <= int(h) <= 4096):
        raise argparse.ArgumentTypeError(f"not a WxH size of 16 to 4096 pixels a side: {text!r}")
    return int(w), int(h)


def cpu_seconds(argv: list[str]) -> float:
    """User + system CPU of one run of argv (its output discarded); exits on failure."""
    pid = os.fork()
    if pid == 0:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        try:
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench-orbit-size: failed: {' '.join(argv)}")
    return usage.ru_utime + usage.ru_stime


def luma(rgb: np.ndarray) -> np.ndarray:
    return rgb @ np.array([0.299, 0.587, 0.114])


def blur(img: np.ndarray, sigma: float = 1.5) -> np.ndarray:
    """Separable Gaussian blur (11 taps at sigma 1.5), edges extended."""
    r = int(3 * sigma + 0.5)
    k = np.exp(-np.arange(-r, r + 1) ** 2 / (2 * sigma * sigma))
    k /= k.sum()
    out = img
    for axis in (0, 1):
        pad = [(0, 0), (0, 0)]
        pad[axis] = (r, r)
        p = np.pad(out, pad, mode="edge")
        n = out.shape[axis]
        out = sum(k[i] * np.take(p, range(i, i + n), axis=axis) for i in range(2 * r + 1))
    return out


def ssim(a: np.ndarray, b: np.ndarray) -> float:
    x, y = luma(a), luma(b)
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    mx, my = blur(x), blur(y)
    vx, vy, cxy = blur(x * x) - mx * mx, blur(y * y) - my * my, blur(x * y) - mx * my
    m = ((2 * mx * my + c1) * (2 * cxy + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2))
    return float(m.mean())


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = float(((a - b) ** 2).mean())
    return float("inf") if mse == 0 else 10 * np.log10(255 * 255 / mse)


def frames(out_dir: str) -> list[Image.Image]:
    return [Image.open(os.path.join(out_dir, "thumbs", f"orbit-0{k}.webp")).convert("RGB") for k in range(8)]


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("inputs", nargs="*", metavar="INPUT",
                    default=[os.path.join(ROOT, "samples/roomplan/parametric_two_sections.usdz")])
    ap.add_argument("--sizes", default="768x576,640x480,512x384", help="orbit sizes, WxH, comma-separated")
    ap.add_argument("--display", type=int, default=1170, help="display width in pixels (default 1170)")
    ap.add_argument("--runs", type=int, default=9, help="rounds of CPU timing (default 9)")
    ap.add_argument("--worker", default=os.path.join(ROOT, ".build/release/transcode-worker"))
    args = ap.parse_args()
    try:
        sizes = [parse_size(s) for s in args.sizes.split(",")]
    except argparse.ArgumentTypeError as e:
        ap.error(str(e))
    if args.runs < 1 or args.display < 16:
        ap.error("--runs must be at least 1 and --display at least 16")
    if not os.access(args.worker, os.X_OK):
        sys.exit(f"bench-orbit-size: no worker at {args.worker}; build it first")
    w0, h0 = sizes[0]
    display = (args.display, round(args.display * h0 / w0))
    with tempfile.TemporaryDirectory() as work:
        for input_path in args.inputs:
            convert = [args.worker, "convert", input_path]
            side = os.path.splitext(input_path)[0] + ".json"
            if input_path.endswith(".usdz") and os.path.exists(side):
                convert += ["--roomplan", side]
            base = convert + ["--out", os.path.join(work, "none"), "--no-thumbnails"]
            runs = {s: convert + ["--out", os.path.join(work, f"{s[0]}x{s[1]}"), "--orbit-size", f"{s[0]}x{s[1]}"]
                    for s in sizes}
            times: dict[object, list[float]] = {"none": []} | {s: [] for s in sizes}
            for _ in range(args.runs):
                times["none"].append(cpu_seconds(base))
                for s in sizes:
                    times[s].append(cpu_seconds(runs[s]))
            ref_dir = os.path.join(work, "reference")
            cpu_seconds(convert + ["--out", ref_dir, "--views", "orbit", "--webp-quality", "100",
                                   "--orbit-size", f"{display[0]}x{display[1]}"])
            reference = [np.asarray(f, dtype=np.float64) for f in frames(ref_dir)]
            floor = statistics.median(times["none"])
            first = statistics.median(times[sizes[0]]) - floor
            print(f"{os.path.basename(input_path)}: eleven views' CPU (median of {args.runs}) and the "
                  f"orbit frames shown {display[0]} x {display[1]}")
            print("  orbit size  | pixels  | CPU s | vs first | SSIM mean (worst) | PSNR dB")
            for s in sizes:
                cpu = statistics.median(times[s]) - floor
                scores, peaks = [], []
                for ref, frame in zip(reference, frames(os.path.join(work, f"{s[0]}x{s[1]}"))):
                    big = np.asarray(frame.resize(display, Image.BICUBIC), dtype=np.float64)
                    scores.append(ssim(ref, big))
                    peaks.append(psnr(ref, big))
                print(f"  {s[0]:>4} x {s[1]:<4} | {s[0] * s[1]:>7,} | {cpu:.3f} | {cpu / first:8.2f} | "
                      f"{statistics.mean(scores):.4f} ({min(scores):.4f})  | {statistics.mean(peaks):6.2f}")


if __name__ == "__main__":
    main()
