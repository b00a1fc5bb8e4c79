#!/usr/bin/env python3
"""Converts every sample and every corpus file with the built binary (`--glb-compression none
--texture-format original`, as those readers know neither meshopt nor EXT_texture_webp), then checks the outputs the way downstream consumers see
them: each .glb loads in trimesh and pygltflib without warnings
(scripts/check-glb.py), each manifest validates against schemas/layer_manifest.schema.json
(scripts/validate-manifest.py) and each floor plan reads in its readers (scripts/check-plan.py:
XML, pdfinfo, ezdxf). Files usd-core refuses must fail with exit status 3.

    python3 scripts/check-conversions.py [--binary .build/debug/transcode-worker] [--corpus ../shared/corpus]

Prints one line per input and a closing 'N passed, N failed' line; exits 1 on any failure.
Needs: pip install trimesh pygltflib numpy jsonschema ezdxf; Debian poppler-utils
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def inputs(corpus):
    """(label, args, expected exit status) for every input."""
    out = [("samples/room.usdz", ["samples/room.usdz"], 0),
           ("samples/textured/textured_box.usdz", ["samples/textured/textured_box.usdz"], 0),
           ("samples/textured (redacted)", ["samples/textured/textured_box.usdz", "--redacted-textures",
                                             "samples/textured/redacted"], 0)]
    with open(os.path.join(ROOT, "samples/roomplan/index.json")) as f:
        for s in json.load(f):
            usdz, js = "samples/roomplan/" + s["usdz"], "samples/roomplan/" + s["json"]
            out.append((usdz + " + json", [usdz, "--roomplan", js], 0))
            out.append((usdz, [usdz], 0))
            out.append((js, [js], 0))
    if corpus and os.path.isdir(corpus):
        with open(os.path.join(corpus, "USD_CORE_ANALYSIS.json")) as f:
            for e in json.load(f):
                path = os.path.join(corpus, e["file"])
                out.append((e["file"], [path], 3 if "open_error" in e else 0))
        for name in sorted(os.listdir(os.path.join(corpus, "roomplan/json"))):
            out.append(("roomplan/json/" + name, [os.path.join(corpus, "roomplan/json", name)], 0))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build/debug/transcode-worker"))
    ap.add_argument("--corpus", default=os.path.join(os.path.dirname(ROOT), "shared/corpus"))
    args = ap.parse_args()
    passed = failed = 0
    glbs, manifests, outs = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, argv, expected) in enumerate(inputs(args.corpus)):
            out = os.path.join(tmp, str(i))
            # trimesh and pygltflib have no meshopt decoder: the checked models are the uncompressed
            # variant (the compressed one is decoded and compared with it by the Swift tests).
            r = subprocess.run([args.binary, "convert", *argv, "--glb-compression", "none", "--texture-format", "original", "--out", out, "--json"], cwd=ROOT,
                               capture_output=True, text=True)
            ok = r.returncode == expected
            detail = ""
            if ok and expected == 0:
                glbs.append(os.path.join(out, "model.glb"))
                manifests.append(os.path.join(out, "layer_manifest.json"))
                outs.append(out)
                summary = json.loads(r.stdout)
                detail = f"{summary['elements']} elements, {summary['triangles']} triangles"
            elif ok:
                detail = json.loads(r.stdout)["error"]["code"]
            else:
                detail = f"exit {r.returncode}, expected {expected}: {(r.stdout + r.stderr).strip()[:300]}"
            print(f"{'ok  ' if ok else 'FAIL'} {label}: {detail}")
            passed, failed = passed + ok, failed + (not ok)
        for script, files in (("check-glb.py", glbs), ("validate-manifest.py", manifests), ("check-plan.py", outs)):
            r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", script), *files], capture_output=True, text=True)
            bad = [line for line in r.stdout.splitlines() if not line.startswith("ok")]
            print(f"{'ok  ' if r.returncode == 0 else 'FAIL'} {script} on {len(files)} files" + ("" if not bad else ": " + "; ".join(bad[:5])))
            passed, failed = passed + (r.returncode == 0), failed + (r.returncode != 0)
    print(f"conversions: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
