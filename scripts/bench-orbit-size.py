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
             and PSNR over RGB;
  bytes      the eight orbit frames' WebP bytes.

With --card, the card and the hero are rendered at each size too (and the small card at half of
it), so a row is every view at that size. With --base-worker, another build's conversion with its
own default sizes is timed in the same rounds (its orbit frames scored the same way): the "vs
base" column is the budget that build sets.

A size may carry a WebP quality, WxH@Q (every view encoded at Q instead of the default 75), to
weigh fewer pixels at a higher quality against today's frames. The first size is the reference
of the "CPU vs first" column. Only figures from one run compare: the machine's speed moves
between runs.

With --compare DIR it also writes DIR/index.html, a page to decide by eye: for each INPUT, the
frame the last size of --sizes renders worst, enlarged to the display width for every size beside
the frame rendered at that width, and the part of it where the last size differs most, enlarged
twice more (each screen pixel a 2 x 2 block) so the differences are seen on any monitor. The
images are PNG files next to the page; the captions carry this run's CPU, SSIM and bytes.

Usage:
  scripts/bench-orbit-size.py [INPUT ...] [--sizes 768x576,640x480,512x384] [--display 1170]
                              [--runs 9] [--worker .build/release/transcode-worker]
                              [--card] [--base-worker PATH] [--compare DIR]

INPUT defaults to samples/roomplan/parametric_two_sections.usdz. Build the worker first
(`swift build -c release --static-swift-stdlib`). Needs numpy and Pillow with WebP
(scripts/install-deps.sh installs both).
"""

from __future__ import annotations

import argparse
import html
import os
import statistics
import sys
import tempfile
from typing import NamedTuple

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


class Setting(NamedTuple):
    """One orbit size to measure, with the WebP quality of every view (None: the default)."""
    width: int
    height: int
    quality: int | None

    @property
    def label(self) -> str:
        return f"{self.width}x{self.height}" + ("" if self.quality is None else f"@{self.quality}")

    def options(self, card: bool = False) -> list[str]:
        extra = [] if self.quality is None else ["--webp-quality", str(self.quality)]
        size = f"{self.width}x{self.height}"
        return ["--orbit-size", size] + (["--card-size", size] if card else []) + extra


def parse_size(text: str) -> Setting:
    size, at, quality = text.partition("@")
    w, _, h = size.partition("x")
    if not (w.isdigit() and h.isdigit() and 16 <= int(w) <= 4096 and 16 <= int(h) <= 4096):
        raise argparse.ArgumentTypeError(f"not a WxH size of 16 to 4096 pixels a side: {text!r}")
    if at and not (quality.isdigit() and int(quality) <= 100):
        raise argparse.ArgumentTypeError(f"not a WebP quality of 0 to 100 after '@': {text!r}")
    return Setting(int(w), int(h), int(quality) if at else None)


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


def worst_window(ref: np.ndarray, img: np.ndarray, w: int, h: int) -> tuple[int, int]:
    """Top-left corner of the w x h window (on an 8-pixel grid) where img's luma differs most from ref's."""
    d = np.abs(luma(ref) - luma(img))
    s = np.pad(d.cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    ys = np.arange(0, d.shape[0] - h + 1, 8)
    xs = np.arange(0, d.shape[1] - w + 1, 8)
    y0, x0 = ys[:, None], xs[None, :]
    sums = s[y0 + h, x0 + w] - s[y0, x0 + w] - s[y0 + h, x0] + s[y0, x0]
    iy, ix = np.unravel_index(int(np.argmax(sums)), sums.shape)
    return int(xs[ix]), int(ys[iy])


def write_comparison(out: str, stem: str, display: tuple[int, int], reference: Image.Image,
                     shown: list[tuple[str, Image.Image, str]]) -> str:
    """Writes one input's PNGs into out and returns its HTML section. shown: (label, frame
    enlarged to the display, caption) per size in the order of --sizes; the crop is where the
    last of them differs most from the reference."""
    cw, ch = display[0] // 3, display[1] // 3
    x, y = worst_window(np.asarray(reference, dtype=np.float64), np.asarray(shown[-1][1], dtype=np.float64), cw, ch)
    rows = [("reference", reference, f"rendered at {display[0]} x {display[1]} (WebP quality 100)")] + shown
    full, crops = [], []
    for label, image, caption in rows:
        name = f"{stem}-{label.replace('@', '-q')}"
        image.save(os.path.join(out, f"{name}.png"))
        image.crop((x, y, x + cw, y + ch)).resize((cw * 2, ch * 2), Image.NEAREST).save(
            os.path.join(out, f"{name}-crop.png"))
        text = html.escape(f"{label}: {caption}")
        full.append(f'<figure><img src="{name}.png" width="{display[0]}" height="{display[1]}">'
                    f"<figcaption>{text}</figcaption></figure>")
        crops.append(f'<figure><img src="{name}-crop.png" width="{cw * 2}" height="{ch * 2}">'
                     f"<figcaption>{text}</figcaption></figure>")
    return (f"<h2>{html.escape(stem)}</h2><h3>Where {html.escape(shown[-1][0])} differs most "
            f"({cw} x {ch} screen pixels at {x}, {y}, each shown as 2 x 2)</h3>"
            f'<div class="row">{"".join(crops)}</div><h3>The whole frame at {display[0]} x {display[1]}</h3>'
            f'<div class="row">{"".join(full)}</div>')


PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Orbit frame sizes</title>
<style>body{{font:14px/1.4 sans-serif;margin:16px}}.row{{display:flex;flex-wrap:wrap;gap:12px}}
figure{{margin:0}}img{{display:block;image-rendering:pixelated}}figcaption{{max-width:800px}}</style>
</head><body><h1>Orbit frames by size, as a phone {width} pixels wide shows them</h1>
<p>Each size's frame is enlarged (bicubic) to the phone's width, as the carousel shows it across the
screen; the reference is the same frame rendered at that width. At 100 % zoom one image pixel is
one device pixel, on high-density screens too (crops: 2 x 2 device pixels).</p>{sections}
<script>for (const img of document.images) {{ const r = window.devicePixelRatio || 1;
img.style.width = img.width / r + "px"; img.style.height = img.height / r + "px"; }}</script>
</body></html>
"""


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("inputs", nargs="*", metavar="INPUT",
                    default=[os.path.join(ROOT, "samples/roomplan/parametric_two_sections.usdz")])
    ap.add_argument("--sizes", default="768x576,640x480,512x384",
                    help="orbit sizes, WxH or WxH@Q (with every view at WebP quality Q), comma-separated")
    ap.add_argument("--display", type=int, default=1170, help="display width in pixels (default 1170)")
    ap.add_argument("--runs", type=int, default=9, help="rounds of CPU timing (default 9)")
    ap.add_argument("--worker", default=os.path.join(ROOT, ".build/release/transcode-worker"))
    ap.add_argument("--card", action="store_true", help="render the card and hero at each size too")
    ap.add_argument("--base-worker", metavar="PATH", help="another build, timed at its default sizes")
    ap.add_argument("--compare", metavar="DIR", help="also write DIR/index.html and its images to compare by eye")
    args = ap.parse_args()
    try:
        sizes = [parse_size(s) for s in args.sizes.split(",")]
    except argparse.ArgumentTypeError as e:
        ap.error(str(e))
    if args.runs < 1 or args.display < 16:
        ap.error("--runs must be at least 1 and --display at least 16")
    if args.base_worker and not os.access(args.base_worker, os.X_OK):
        sys.exit(f"bench-orbit-size: no worker at {args.base_worker}")
    if not os.access(args.worker, os.X_OK):
        sys.exit(f"bench-orbit-size: no worker at {args.worker}; build it first")
    if args.compare:
        os.makedirs(args.compare, exist_ok=True)
    w0, h0 = sizes[0].width, sizes[0].height
    display = (args.display, round(args.display * h0 / w0))
    sections = []
    with tempfile.TemporaryDirectory() as work:
        for input_path in args.inputs:
            inputs = [input_path]
            side = os.path.splitext(input_path)[0] + ".json"
            if input_path.endswith(".usdz") and os.path.exists(side):
                inputs += ["--roomplan", side]
            convert = [args.worker, "convert"] + inputs
            base = convert + ["--out", os.path.join(work, "none"), "--no-thumbnails"]
            runs = {s: convert + ["--out", os.path.join(work, s.label)] + s.options(args.card) for s in sizes}
            if args.base_worker:
                other = [args.base_worker, "convert"] + inputs
                runs["base"] = other + ["--out", os.path.join(work, "base")]
                runs["base-none"] = other + ["--out", os.path.join(work, "base-none"), "--no-thumbnails"]
            times: dict[object, list[float]] = {"none": []} | {s: [] for s in runs}
            for _ in range(args.runs):
                times["none"].append(cpu_seconds(base))
                for s in runs:
                    times[s].append(cpu_seconds(runs[s]))
            ref_dir = os.path.join(work, "reference")
            cpu_seconds(convert + ["--out", ref_dir, "--views", "orbit", "--webp-quality", "100",
                                   "--orbit-size", f"{display[0]}x{display[1]}"])
            ref_frames = frames(ref_dir)
            reference = [np.asarray(f, dtype=np.float64) for f in ref_frames]
            floor = statistics.median(times["none"])
            first = statistics.median(times[sizes[0]]) - floor
            budget = None
            if args.base_worker:
                budget = statistics.median(times["base"]) - statistics.median(times["base-none"])
            print(f"{os.path.basename(input_path)}: every view's CPU (median of {args.runs}) and the "
                  f"orbit frames shown {display[0]} x {display[1]}")
            print("  orbit size  | pixels  | CPU s | vs first | vs base | SSIM mean (worst) | PSNR dB | orbit kB")
            shown = []
            rows = [(s, s.label, s.width * s.height) for s in sizes]
            if budget is not None:
                rows.append(("base", "base", 0))
            for s, label, pixels in rows:
                cpu = statistics.median(times[s]) - (floor if s != "base" else statistics.median(times["base-none"]))
                scores, peaks, enlarged = [], [], []
                orbit_bytes = sum(os.path.getsize(os.path.join(work, label, "thumbs", f"orbit-0{k}.webp"))
                                  for k in range(8))
                for ref, frame in zip(reference, frames(os.path.join(work, label))):
                    enlarged.append(frame.resize(display, Image.BICUBIC))
                    big = np.asarray(enlarged[-1], dtype=np.float64)
                    scores.append(ssim(ref, big))
                    peaks.append(psnr(ref, big))
                versus = f"{cpu / budget:7.2f}" if budget else "      -"
                print(f"  {label:<12}| {pixels:>7,} | {cpu:.3f} | {cpu / first:8.2f} | {versus} | "
                      f"{statistics.mean(scores):.4f} ({min(scores):.4f})  | {statistics.mean(peaks):6.2f}  | "
                      f"{orbit_bytes / 1000:7.1f}")
                shown.append((label, enlarged, scores, f"eleven views {cpu:.3f} CPU-s, {orbit_bytes / 8000:.1f} kB a frame"))
            if args.compare:
                k = int(np.argmin(shown[-1][2]))
                stem = f"{os.path.splitext(os.path.basename(input_path))[0]}-orbit-0{k}"
                sections.append(write_comparison(args.compare, stem, display, ref_frames[k], [
                    (label, enlarged[k], f"{cost}, SSIM {scores[k]:.4f}") for label, enlarged, scores, cost in shown]))
    if args.compare:
        page = os.path.join(args.compare, "index.html")
        with open(page, "w", encoding="utf-8") as f:
            f.write(PAGE.format(width=display[0], sections="".join(sections)))
        print(f"comparison: {page}")


if __name__ == "__main__":
    main()
