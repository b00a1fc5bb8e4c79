#!/usr/bin/env python3
"""Open `report.html` in headless Chromium and check that every embedded image is shown.

    python3 scripts/check-report.py [--binary PATH] [--sample NAME] [--keep DIR] [--chromium PATH]

Needs Debian's `chromium` (`apt-get install -y --no-install-recommends chromium`) and Pillow built
with WebP (`pip install pillow`). Steps:

  1. `transcode-worker convert SAMPLE.usdz --roomplan SAMPLE.json --out TMP/out --report` with the
     given binary (default `.build/debug/transcode-worker`);
  2. static checks on the page: no `<script>`, no `http://` / `https://`, and each `<img>`'s
     `data:image/webp;base64,` (or, for the vector floor plan, `data:image/svg+xml;base64,`) source
     decodes to the bytes of the file named by its `data-path`;
  3. a probe copy of the page (the Content-Security-Policy removed, one script added that changes
     no layout) is loaded with `--dump-dom`: after the load event it records, for every image,
     whether it loaded, its natural size (0 when it could not be decoded), and where it sits;
  4. the unmodified page is screenshotted at the same window width, tall enough to hold every
     image;
  5. each image's box is cut out of the screenshot and compared with the thumbnail decoded by
     Pillow and scaled to the box (the SVG plan with Chromium's own drawing of plan.svg alone at
     that size): it must not be uniform, must be close to its own thumbnail, and
     must match its own thumbnail better than any other (so the right picture is in the right
     place, not a broken-image icon or an empty box).

Prints one line per image and a final `check-report: PASS` or `check-report: FAIL` line with the
screenshot's path. Exits 0 on pass, 1 on failure, 2 when the tools are missing or the arguments
are wrong. The temporary folder is removed after a pass (kept after a failure); `--keep DIR`
copies the outputs, the probe page and the screenshot to DIR.
"""

import argparse
import base64
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WIDTH = 1280
MIN_HEIGHT = 3000
INSET = 8  # pixels left out at each edge of an image box (rounded corners, sub-pixel edges)
MAX_MEAN_DIFF = 12.0  # mean absolute difference per channel (0-255) to the own thumbnail
MIN_STDDEV = 8.0  # grey-level spread of a box that shows a picture
MARGIN = 0.75  # own difference must be below MARGIN x the best other thumbnail's difference

PROBE = """
<script>
window.addEventListener("load", function () {
  var imgs = Array.prototype.slice.call(document.images);
  var out = {
    inner: [window.innerWidth, window.innerHeight],
    dpr: window.devicePixelRatio,
    page: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
    images: imgs.map(function (im) {
      var r = im.getBoundingClientRect();
      return { path: im.getAttribute("data-path"), complete: im.complete, natural: [im.naturalWidth, im.naturalHeight],
               x: r.left + window.scrollX, y: r.top + window.scrollY, w: r.width, h: r.height };
    })
  };
  document.documentElement.setAttribute("data-probe", JSON.stringify(out));
});
</script>
"""


class Failure(Exception):
    pass


def find_chromium(explicit):
    if explicit:
        return explicit
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium(exe, profile, args, url, timeout=40):
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
           "--no-default-browser-check", "--disable-extensions", "--mute-audio", "--force-device-scale-factor=1",
           "--user-data-dir=" + profile] + args + [url]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failure("chromium did not finish within %d s: %s" % (timeout, " ".join(cmd)))
    if p.returncode != 0:
        raise Failure("chromium exited with %d:\n%s" % (p.returncode, p.stderr[-2000:]))
    return p.stdout


def embedded_images(page):
    """[(data-path, bytes)] of every <img> in the page, in document order."""
    out = []
    for tag in re.findall(r"<img\b[^>]*>", page):
        src = re.search(r'\bsrc="data:image/(?:webp|svg\+xml);base64,([A-Za-z0-9+/=]+)"', tag)
        path = re.search(r'\bdata-path="([^"]*)"', tag)
        if not src or not path:
            raise Failure("an <img> that is not an embedded WebP or SVG with a data-path: " + tag[:120])
        out.append((html.unescape(path.group(1)), base64.b64decode(src.group(1), validate=True)))
    return out


def mean_diff(a, b):
    from PIL import ImageChops, ImageStat

    return sum(ImageStat.Stat(ImageChops.difference(a, b)).mean[:3]) / 3.0


def main():
    ap = argparse.ArgumentParser(description="Check that report.html shows its images in headless Chromium.")
    ap.add_argument("--binary", default=".build/debug/transcode-worker", help="transcode-worker executable")
    ap.add_argument("--sample", default="samples/roomplan/parametric_two_sections",
                    help="sample path without extension: SAMPLE.usdz and SAMPLE.json are converted")
    ap.add_argument("--keep", metavar="DIR", help="copy the outputs, probe page and screenshot to DIR")
    ap.add_argument("--chromium", help="Chromium executable (default: chromium on PATH)")
    args = ap.parse_args()

    started = time.monotonic()
    binary = args.binary if os.path.isabs(args.binary) else os.path.join(ROOT, args.binary)
    sample = args.sample if os.path.isabs(args.sample) else os.path.join(ROOT, args.sample)
    exe = find_chromium(args.chromium)
    problems = []
    if not os.access(binary, os.X_OK):
        problems.append("no executable at %s (swift build first, or pass --binary)" % binary)
    for ext in (".usdz", ".json"):
        if not os.path.isfile(sample + ext):
            problems.append("missing sample " + sample + ext)
    if not exe:
        problems.append("chromium not found (apt-get install -y --no-install-recommends chromium)")
    try:
        from PIL import Image, features
        if not features.check("webp"):
            problems.append("Pillow has no WebP support")
    except ImportError:
        problems.append("Pillow is missing (pip install pillow)")
    if problems:
        for p in problems:
            print("check-report: " + p, file=sys.stderr)
        return 2

    tmp = tempfile.mkdtemp(prefix="check-report-")
    out = os.path.join(tmp, "out")
    shot = os.path.join(tmp, "report.png")
    ok = False
    try:
        # 1. Convert with --report.
        p = subprocess.run([binary, "convert", sample + ".usdz", "--roomplan", sample + ".json", "--out", out,
                            "--report", "--json"], capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            raise Failure("convert exited with %d:\n%s%s" % (p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
        summary = json.loads(p.stdout)
        listed = [f["path"] for f in summary["files"]]
        if listed[-2:] != ["report.html", "layer_manifest.json"]:
            raise Failure("the summary's files do not end with report.html, layer_manifest.json: %s" % listed)
        report = os.path.join(out, "report.html")
        with open(report, encoding="utf-8") as f:
            page = f.read()
        with open(os.path.join(out, "layer_manifest.json"), encoding="utf-8") as f:
            manifest = json.load(f)

        # 2. Static checks.
        if re.search(r"<script\b", page, re.I):
            raise Failure("the report contains a <script> element")
        if re.search(r"https?://", page):
            raise Failure("the report refers to an http(s) URL")
        images = embedded_images(page)
        expected = [t["path"] for t in manifest["thumbnails"] if t["kind"] == "hero"] + \
                   [t["path"] for t in manifest["thumbnails"] if t["kind"] == "plan"] + \
                   sorted(t["path"] for t in manifest["thumbnails"] if t["kind"] == "orbit") + \
                   [f["path"] for f in ((manifest.get("plan") or {}).get("files") or []) if f["path"] == "plan.svg"]
        if [path for path, _ in images] != expected:
            raise Failure("images %s, expected %s" % ([path for path, _ in images], expected))
        for path, data in images:
            with open(os.path.join(out, path), "rb") as f:
                if f.read() != data:
                    raise Failure("the embedded %s differs from the file" % path)

        # 3. Where the images are and whether they decoded (probe copy of the page).
        probe_page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page, count=1)
        probe_page = probe_page.replace("</body>", PROBE + "</body>", 1)
        probe_path = os.path.join(tmp, "probe.html")
        with open(probe_path, "w", encoding="utf-8") as f:
            f.write(probe_page)
        profile = os.path.join(tmp, "profile")

        def probe(height):
            dom = chromium(exe, profile, ["--window-size=%d,%d" % (WIDTH, height), "--virtual-time-budget=3000",
                                          "--dump-dom"], "file://" + probe_path)
            m = re.search(r'<html[^>]*\bdata-probe="([^"]*)"', dom)
            if not m:
                raise Failure("the probe script left no result (did the page load?)")
            return json.loads(html.unescape(m.group(1)))

        height = MIN_HEIGHT
        info = probe(height)
        needed = int(max((im["y"] + im["h"] for im in info["images"]), default=0)) + 40
        if needed > height:
            height = needed
            info = probe(height)
        for im in info["images"]:
            if not im["complete"] or im["natural"][0] == 0:
                raise Failure("%s did not decode in Chromium (natural size %s)" % (im["path"], im["natural"]))
        if [im["path"] for im in info["images"]] != expected:
            raise Failure("Chromium saw images %s" % [im["path"] for im in info["images"]])

        # 4. Screenshot of the unmodified page.
        chromium(exe, profile, ["--window-size=%d,%d" % (WIDTH, height), "--virtual-time-budget=3000",
                                "--screenshot=" + shot], "file://" + report)
        screen = Image.open(shot).convert("RGB")
        scale = info["dpr"] or 1.0
        if abs(screen.width - info["inner"][0] * scale) > 1:
            raise Failure("screenshot is %dx%d, the viewport %s" % (screen.width, screen.height, info["inner"]))

        # 5. Compare each box with its thumbnail (and with every other thumbnail).
        thumbs = {path: Image.open(os.path.join(out, path)).convert("RGB") for path in expected if path.endswith(".webp")}
        # The vector plan (Pillow reads no SVG): its reference is Chromium drawing plan.svg alone in
        # an <img> of the same size.
        for im in info["images"]:
            if im["path"].endswith(".svg"):
                wrapper = os.path.join(tmp, "svg-reference.html")
                with open(wrapper, "w", encoding="utf-8") as f:
                    f.write('<!DOCTYPE html><html><body style="margin:0;background:#fff"><img src="%s" style="display:block;'
                            'width:%dpx;height:%dpx"></body></html>' % ("file://" + os.path.join(out, im["path"]), im["w"], im["h"]))
                ref_shot = os.path.join(tmp, "svg-reference.png")
                chromium(exe, profile, ["--window-size=%d,%d" % (im["w"], im["h"]), "--allow-file-access-from-files",
                                        "--virtual-time-budget=3000", "--screenshot=" + ref_shot], "file://" + wrapper)
                thumbs[im["path"]] = Image.open(ref_shot).convert("RGB")
        for im in info["images"]:
            x0, y0 = round(im["x"] * scale), round(im["y"] * scale)
            w, h = round(im["w"] * scale), round(im["h"] * scale)
            if w < 4 * INSET or h < 4 * INSET:
                raise Failure("%s is shown at %dx%d px" % (im["path"], w, h))
            if x0 < 0 or y0 < 0 or x0 + w > screen.width or y0 + h > screen.height:
                raise Failure("%s at (%d,%d %dx%d) is outside the %dx%d screenshot"
                              % (im["path"], x0, y0, w, h, screen.width, screen.height))
            box = (INSET, INSET, w - INSET, h - INSET)
            shown = screen.crop((x0, y0, x0 + w, y0 + h)).crop(box)
            from PIL import ImageStat
            spread = ImageStat.Stat(shown.convert("L")).stddev[0]
            diffs = {path: mean_diff(shown, ref.resize((w, h), Image.LANCZOS).crop(box)) for path, ref in thumbs.items()}
            own = diffs[im["path"]]
            others = min((d for path, d in diffs.items() if path != im["path"]), default=float("inf"))
            line = "  %-22s at (%4d,%4d) %4dx%-4d  spread %5.1f  diff to own %5.2f, best other %5.2f" % (
                im["path"], x0, y0, w, h, spread, own, others)
            bad = []
            if spread < MIN_STDDEV:
                bad.append("nearly uniform")
            if own > MAX_MEAN_DIFF:
                bad.append("does not look like its thumbnail")
            if own >= MARGIN * others:
                bad.append("looks as much like another thumbnail")
            print(line + ("  FAIL: " + ", ".join(bad) if bad else "  ok"))
            if bad:
                raise Failure("%s is not shown as rendered" % im["path"])
        ok = True
        verdict = "PASS: %d images decoded and shown in Chromium (%s, %.1f s)" % (
            len(info["images"]), os.path.relpath(sample, ROOT), time.monotonic() - started)
    except Failure as e:
        verdict = "FAIL: %s" % e
    except (OSError, ValueError, KeyError, subprocess.TimeoutExpired) as e:
        verdict = "FAIL: %s: %s" % (type(e).__name__, e)
    screenshot = shot if os.path.exists(shot) else None
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        for name in ("out", "probe.html", "report.png"):
            src = os.path.join(tmp, name)
            dst = os.path.join(args.keep, name)
            if os.path.isdir(src):
                shutil.copytree(src, dst, dirs_exist_ok=True)
            elif os.path.exists(src):
                shutil.copyfile(src, dst)
        if screenshot:
            screenshot = os.path.join(args.keep, "report.png")
    if ok:
        shutil.rmtree(tmp, ignore_errors=True)
        where = screenshot if args.keep else "not kept (pass --keep DIR)"
    else:
        where = "%s (files kept in %s)" % (screenshot or "none taken", tmp)
    print("check-report: %s; screenshot: %s" % (verdict, where))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
